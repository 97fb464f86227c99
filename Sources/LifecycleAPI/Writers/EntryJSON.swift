import JSONCore
import LifecycleEngine

// How an app is opened, and what its callbacks receive, in JSON (`openapi.yaml`: `Entry`,
// `CallbackArguments`). An entry reads and writes the same members wherever it appears: a
// `launch` event, a launch option, a connection option, the entry's own callback.

extension Fields {
  /// The entry a `launch` names: at most one of `url`, `notification`, `userActivity`,
  /// `shortcutItem`. Nil if one is malformed (the problem is recorded); `.some(nil)` if none
  /// is given.
  mutating func entry() -> Entry?? {
    guard hasUnaskedMembers else { return .some(nil) }  // a launch by the icon: `type` alone
    var entries: [Entry?] = []
    if let url = string("url", maxBytes: Validation.maxURLBytes) { entries.append(.url(url)) }
    if var fields = object("notification") {
      let identifier = fields.identifier("identifier", required: true)
      let action = fields.identifier("actionIdentifier")
      let remote = fields.bool("remote") ?? false
      entries.append(
        identifier.map {
          .notification(
            NotificationResponse(
              identifier: $0,
              actionIdentifier: action ?? NotificationResponse.defaultActionIdentifier,
              isRemote: remote))
        })
      merge(fields)
    }
    if var fields = object("userActivity") {
      let type = fields.identifier("activityType")
      // Null, as responses write an activity without one, is no webpageURL.
      let strict = fields.nullIsAbsent
      fields.nullIsAbsent = true
      let webpage = fields.string("webpageURL", maxBytes: Validation.maxURLBytes)
      fields.nullIsAbsent = strict
      entries.append(
        .userActivity(
          UserActivity(activityType: type ?? UserActivity.browsingWeb, webpageURL: webpage)))
      merge(fields)
    }
    if var fields = object("shortcutItem") {
      entries.append(
        fields.identifier("type", required: true).map {
          .shortcutItem(type: $0)
        })
      merge(fields)
    }
    guard entries.count <= 1 else {
      reject("type", "launch takes at most one of url, notification, userActivity, shortcutItem")
      return nil
    }
    return entries.first ?? .some(nil)
  }

}

extension JSONWriter {
  /// The entry's members, as a `launch` event names it: `"url":…`, `"notification":{…}`,
  /// `"userActivity":{…}` or `"shortcutItem":{…}`.
  mutating func members(of entry: Entry) {
    switch entry {
    case .url(let url): member("url", url)
    case .notification(let response):
      key("notification")
      notificationResponse(response)
    case .userActivity(let activity):
      key("userActivity")
      userActivity(activity)
    case .shortcutItem(let type):
      key("shortcutItem")
      object { $0.member("type", type) }
    }
  }

  /// `{"identifier":…,"actionIdentifier":…,"remote":…}`
  private mutating func notificationResponse(_ response: NotificationResponse) {
    object { w in
      w.member("identifier", response.identifier)
      w.member("actionIdentifier", response.actionIdentifier)
      w.member("remote", response.isRemote)
    }
  }

  /// `{"activityType":…,"webpageURL":…}`
  private mutating func userActivity(_ activity: UserActivity) {
    object { w in
      w.member("activityType", activity.activityType)
      w.member("webpageURL", activity.webpageURL)
    }
  }

  /// What a callback of `method` receives (`CallbackArguments` in `openapi.yaml`).
  mutating func arguments(_ arguments: CallbackArguments, of method: CallbackMethod) {
    object { w in
      switch arguments {
      case .launchOptions(let entry):
        w.key("launchOptions")
        w.object { $0.launchOption(entry) }
      case .connectionOptions(let entry, let data):
        w.key("connectionOptions")
        w.object { w in entry.map { w.connectionOption($0) } }
        w.key("session")
        w.object { $0.member("stateRestorationActivity", json: data) }
      case .entry(.url(let url)) where method == .sceneOpenURLContexts:
        w.urlContexts(url)
      case .entry(.notification(let response)):
        w.key("response")
        w.notificationResponse(response)
      case .entry(let entry):
        w.members(of: entry)
      case .restorationData(let data):
        w.member("restorationData", json: data)
      case .sessions(let ids):
        w.member("sessions", ids)
      case .backgroundLaunchOptions(let option):
        w.key("launchOptions")
        w.object { w in
          switch option {
          case .remoteNotification(let payload): w.member("remoteNotification", json: payload)
          case .location: w.member("location", true)
          }
        }
      case .userInfo(let payload):
        w.member("userInfo", json: payload)
      case .sessionIdentifier(let identifier), .taskIdentifier(let identifier):
        w.member("identifier", identifier)
      case .metrics(let payloads):
        w.key("payloads")
        w.reports(payloads)
      case .diagnostics(let payloads):
        w.key("diagnosticPayloads")
        w.reports(payloads)
      case .metricReport(let payload): w.member("report", metricReport: payload)
      case .diagnosticReport(let crash): w.member("report", diagnosticReport: crash)
      }
    }
  }

  /// A launch option under its `UIApplication.LaunchOptionsKey` name.
  private mutating func launchOption(_ entry: Entry) {
    switch entry {
    case .notification(let response):
      key("remoteNotification")
      notificationResponse(response)
    case .userActivity(let activity):
      key("userActivityDictionary")
      userActivity(activity)
    case .url, .shortcutItem:
      members(of: entry)
    }
  }

  /// A connection option under its `UIScene.ConnectionOptions` name.
  private mutating func connectionOption(_ entry: Entry) {
    switch entry {
    case .url(let url):
      urlContexts(url)
    case .notification(let response):
      key("notificationResponse")
      notificationResponse(response)
    case .userActivity(let activity):
      key("userActivities")
      array { $0.userActivity(activity) }
    case .shortcutItem:
      members(of: entry)
    }
  }

  /// `"urlContexts":[{"url":…}]`
  private mutating func urlContexts(_ url: String) {
    key("urlContexts")
    array { w in w.object { $0.member("url", url) } }
  }

  /// A member whose value is JSON text kept as it was read (restoration data), or null.
  mutating func member(_ name: StaticString, json text: String?) {
    key(name)
    guard var text else { return null() }
    text.withUTF8 { encoded(utf8: $0) }
  }
}
