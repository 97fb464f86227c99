import JSONCore
import Testing

/// What a careful iOS developer checks at the edges of background work, over the API: what a
/// push must carry to wake the app, the session a URL session's events name, which tasks run
/// beside each other, what the debugger's commands answer, whose a device event's entry is.
@Suite struct BackgroundEdgesTests {
  let api = APITests()

  private func lastCallback(_ answer: JSON?) -> JSON? {
    guard case .array(let callbacks)? = answer?["callbacks"] else { return nil }
    return callbacks.last
  }

  /// "Pushing background updates to your App": a background notification's `aps` carries
  /// `content-available: 1`; without it there is nothing to wake the app for, so the push is
  /// refused (422) and nothing changes. An alert needs none.
  @Test func aBackgroundPushWithoutContentAvailableIsRefused() {
    api.post("/v1/apps", #"{"name":"mail","backgroundModes":["remote-notification"]}"#)
    let version = api.call("GET", "/v1/devices/default").json?["version"]
    for payload in [#"{"aps":{}}"#, #"{"aps":{"content-available":0}}"#] {
      let refused = api.call(
        "POST", "/v1/devices/default/events", #"{"type":"push","app":"mail","payload":\#(payload)}"#
      )
      #expect(refused.status == 422)
      #expect(
        refused.json?["validation"]
          == json(
            #"[{"field":"payload.aps.content-available","message":"must be 1: only a background notification wakes the app"}]"#
          ))
    }
    let launch = api.call(
      "POST", "/v1/apps/mail/events",
      #"{"type":"backgroundLaunch","reason":"remoteNotification","payload":{"aps":{"alert":"Hi"}}}"#
    )
    #expect(launch.status == 422)
    let notAnObject = api.call(
      "POST", "/v1/devices/default/events", #"{"type":"push","app":"mail","payload":{"aps":1}}"#)
    #expect(
      notAnObject.json?["validation"]
        == json(
          #"[{"field":"payload","message":"must be a JSON object with an aps object, as APNs delivers it"}]"#
        ))
    #expect(api.call("GET", "/v1/devices/default").json?["version"] == version)
    let alert = api.post(
      "/v1/devices/default/events",
      #"{"type":"push","app":"mail","pushType":"alert","payload":{"aps":{"alert":"Hi"}}}"#)
    #expect(alert?["result"] == json(#"{"delivery":"displayed"}"#))
  }

  /// An event's reader asks for every member it declares, whatever came before: each
  /// malformed one is named in the same answer, in the declaration's order, with the rule it
  /// must meet (the limit a valid value has, whatever was sent).
  @Test func everyMalformedMemberOfAnEventIsNamedAtOnce() {
    api.post("/v1/apps", #"{"name":"mail","backgroundModes":["remote-notification"]}"#)
    let refused = api.call(
      "POST", "/v1/apps/mail/events",
      #"{"type":"backgroundLaunch","reason":"nap","payload":{"aps":1},"identifier":7}"#)
    #expect(refused.status == 422)
    #expect(
      refused.json?["validation"]
        == json(
          #"[{"field":"reason","message":"must be one of fetch, remoteNotification, location, appRefresh, processing, urlSession, continuedProcessing"},{"field":"payload","message":"must be a JSON object with an aps object, as APNs delivers it"},{"field":"identifier","message":"must be 1 to 256 bytes long"}]"#
        ))
    let update = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"updateApp","version":2,"build":"2"}"#)
    #expect(
      update.json?["validation"]
        == json(
          #"[{"field":"version","message":"must match ^[0-9]{1,4}(\\.[0-9]{1,4}){0,2}$"}]"#
        ))
    let long = String(repeating: "x", count: 300)
    let cancel = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"cancelTaskRequest","identifier":"\#(long)"}"#)
    #expect(
      cancel.json?["validation"]
        == json(#"[{"field":"identifier","message":"must be 1 to 256 bytes long"}]"#))
  }

  /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` is always handed
  /// the session's identifier: `<app>.background-session` when the event names none.
  @Test func aURLSessionsEventsAlwaysNameTheirSession() {
    api.post("/v1/apps", #"{"name":"mail"}"#)
    let launch = api.post(
      "/v1/apps/mail/events", #"{"type":"backgroundLaunch","reason":"urlSession"}"#)
    #expect(
      lastCallback(launch)?["method"]
        == .string("application(_:handleEventsForBackgroundURLSession:completionHandler:)"))
    #expect(
      lastCallback(launch)?["arguments"] == json(#"{"identifier":"mail.background-session"}"#))
    // The same session's events are not handed over again until completed; another's are.
    let again = api.call(
      "POST", "/v1/apps/mail/events",
      #"{"type":"backgroundLaunch","reason":"urlSession","identifier":"mail.background-session"}"#)
    #expect(again.status == 409)
    api.post(
      "/v1/apps/mail/events",
      #"{"type":"backgroundLaunch","reason":"urlSession","identifier":"upload"}"#)
  }

  /// A `BGTask` is its identifier, whatever its kind: tasks of different identifiers run
  /// together (`BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)`), one
  /// identifier never runs twice at once, even submitted as both kinds.
  @Test func tasksOfOtherIdentifiersRunTogetherAndOneIdentifierRunsOnce() {
    api.post(
      "/v1/apps",
      #"{"name":"sync","backgroundModes":["fetch","processing"],"permittedTaskIdentifiers":["t","u"]}"#
    )
    api.post("/v1/devices/default/events", #"{"type":"setConditions","taskScheduling":"manual"}"#)
    api.post("/v1/apps/sync/events", #"{"type":"launch"}"#)
    api.post(
      "/v1/apps/sync/events",
      #"[{"type":"submitTaskRequest","identifier":"t","kind":"appRefresh"},{"type":"submitTaskRequest","identifier":"u","kind":"processing"},{"type":"home"}]"#
    )
    api.post("/v1/apps/sync/events", #"{"type":"launchTask","identifier":"t"}"#)
    api.post("/v1/apps/sync/events", #"{"type":"launchTask","identifier":"u"}"#)
    api.post("/v1/apps/sync/events", #"{"type":"backgroundLaunch","reason":"appRefresh"}"#)
    api.post(
      "/v1/apps/sync/events", #"{"type":"submitTaskRequest","identifier":"t","kind":"processing"}"#
    )
    let twice = api.call("POST", "/v1/apps/sync/events", #"{"type":"launchTask","identifier":"t"}"#)
    #expect(twice.status == 409)
    #expect(
      twice.json?["detail"]
        == .string(
          "launchTask refused: the same task is still running: it starts again only once the "
            + "app completes it (state background)"))
    let anonymous = api.call(
      "POST", "/v1/apps/sync/events", #"{"type":"backgroundLaunch","reason":"appRefresh"}"#)
    #expect(anonymous.status == 409)
  }

  /// `_simulateExpirationForTaskWithIdentifier:` answers the task's work and the deadline its
  /// expiry came before, in the foreground as in the background.
  @Test func expiringATaskAnswersItsWork() {
    api.post(
      "/v1/apps",
      #"{"name":"sync","backgroundModes":["fetch"],"permittedTaskIdentifiers":["t"]}"#)
    api.post("/v1/devices/default/events", #"{"type":"setConditions","taskScheduling":"manual"}"#)
    api.post(
      "/v1/apps/sync/events",
      #"[{"type":"launch"},{"type":"submitTaskRequest","identifier":"t","kind":"appRefresh"},{"type":"launchTask","identifier":"t"}]"#
    )
    let expired = api.post("/v1/apps/sync/events", #"{"type":"expireTask","identifier":"t"}"#)
    #expect(expired?["result"] == json(#"{"workId":1,"deadline":30.0}"#))
    #expect(lastCallback(expired)?["method"] == .string("BGTask.expirationHandler"))
    #expect(expired?["state"] == .string("active"))
  }

  /// A device event is the device's: its journal entry has no app, as its answer says, and a
  /// journal read for the app it names does not list it.
  @Test func aDeviceEventIsJournaledAsTheDevices() {
    api.post("/v1/apps", #"{"name":"n","backgroundModes":["remote-notification"]}"#)
    let push = api.post("/v1/devices/default/events", #"{"type":"push","app":"n"}"#)
    #expect(push?["app"] == .null)
    api.post(
      "/v1/devices/default/events", #"{"type":"setBackgroundAppRefresh","app":"n","enabled":false}"#
    )
    guard
      case .array(let events)? = api.call("GET", "/v1/devices/default/journal?kind=event")
        .json?["entries"]
    else { return #expect(Bool(false), "no journal") }
    #expect(events.count == 2)
    #expect(events.allSatisfy { $0["app"] == .null })
    #expect(events.map { $0["event"]?["app"] } == [.string("n"), .string("n")])
    #expect(
      api.call("GET", "/v1/devices/default/journal?kind=event&app=n").json?["entries"]
        == .array([]))
  }
}
