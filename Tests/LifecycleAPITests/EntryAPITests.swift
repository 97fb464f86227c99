import JSONCore
import Testing

/// Entry points, restoration data and prewarming as a client sees them: exact `arguments`,
/// exact refusals, and snapshots that carry them (engine tests: `EntryPointTests`,
/// `RestorationTests`, `PrewarmTests`).
@Suite struct EntryAPITests {
  let api = APITests()

  init() {
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/apps", #"{"name":"notes","lifecycle":"appDelegate"}"#)
  }

  /// Each callback of a response as `method arguments`, the arguments as their JSON text.
  private func arguments(_ response: APITests.Answer) -> [String] {
    guard case .array(let callbacks)? = response.json?["callbacks"] else { return [] }
    return callbacks.map { callback in
      guard case .string(let method)? = callback["method"] else { return "?" }
      guard let arguments = callback["arguments"] else { return method }
      return method + " " + String(decoding: JSONText(arguments).bytes, as: UTF8.self)
    }
  }

  @Test func aRemoteNotificationOpensAnAppDelegateAppThroughItsLaunchOptions() {
    let response = api.call(
      "POST", "/v1/apps/notes/events",
      #"{"type":"launch","notification":{"identifier":"p9","actionIdentifier":"reply","remote":true}}"#
    )
    #expect(response.status == 200)
    let response9 = #"{"identifier":"p9","actionIdentifier":"reply","remote":true}"#
    #expect(
      arguments(response) == [
        #"application(_:willFinishLaunchingWithOptions:) {"launchOptions":{"remoteNotification":"#
          + response9 + "}}",
        #"application(_:didFinishLaunchingWithOptions:) {"launchOptions":{"remoteNotification":"#
          + response9 + "}}",
        #"userNotificationCenter(_:didReceive:withCompletionHandler:) {"response":"# + response9
          + "}",
        "applicationDidBecomeActive(_:)",
      ])
    #expect(
      response.json?["event"]
        == (try? JSON.parse(Array(#"{"type":"launch","notification":\#(response9)}"#.utf8))))
  }

  @Test func aUniversalLinkConnectsASceneWithItsUserActivity() {
    let activity =
      #"{"activityType":"NSUserActivityTypeBrowsingWeb","webpageURL":"https://example.com/7"}"#
    let options =
      #"{"connectionOptions":{"userActivities":["# + activity
      + #"]},"session":{"stateRestorationActivity":null}}"#
    #expect(
      arguments(
        api.call(
          "POST", "/v1/apps/mail/events",
          #"{"type":"launch","userActivity":{"webpageURL":"https://example.com/7"}}"#))
        == [
          "application(_:willFinishLaunchingWithOptions:)",
          "application(_:didFinishLaunchingWithOptions:)",
          "application(_:configurationForConnecting:options:) " + options,
          "scene(_:willConnectTo:options:) " + options,
          "sceneWillEnterForeground(_:)", "sceneDidBecomeActive(_:)",
        ])
  }

  /// An activity as a response writes it, `webpageURL` null, is taken back as it is.
  @Test func aUserActivityWithANullWebpageURLIsAHandoffActivity() {
    let activity = #"{"activityType":"com.example.reading","webpageURL":null}"#
    let response = api.call(
      "POST", "/v1/apps/notes/events", #"{"type":"launch","userActivity":\#(activity)}"#)
    #expect(response.status == 200, "\(response.body)")
    #expect(
      arguments(response)[2]
        == #"application(_:continue:restorationHandler:) {"userActivity":"# + activity + "}")
  }

  @Test func aConnectedSceneGetsURLsAndQuickActionsInItsOwnCallbacks() {
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    #expect(
      arguments(
        api.call("POST", "/v1/apps/mail/events", #"{"type":"launch","url":"mail://inbox"}"#))
        == [
          "sceneWillEnterForeground(_:)",
          #"scene(_:openURLContexts:) {"urlContexts":[{"url":"mail://inbox"}]}"#,
          "sceneDidBecomeActive(_:)",
        ])
    api.call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    #expect(
      arguments(
        api.call(
          "POST", "/v1/apps/mail/events",
          #"{"type":"launch","shortcutItem":{"type":"com.example.compose"}}"#))
        == [
          "sceneWillEnterForeground(_:)",
          #"windowScene(_:performActionFor:completionHandler:) {"shortcutItem":{"type":"com.example.compose"}}"#,
          "sceneDidBecomeActive(_:)",
        ])
  }

  @Test func restorationDataRoundTripsThroughAJetsamKill() {
    let data = #"{"tab":2,"draft":{"to":["a@b"],"body":"héllo"}}"#
    api.call("POST", "/v1/apps/notes/events", #"{"type":"launch"}"#)
    let set = api.call(
      "POST", "/v1/apps/notes/events", #"{"type":"setRestorationData","data":\#(data)}"#)
    #expect(set.status == 200 && set.json?["callbacks"] == .array([]))
    #expect(api.call("GET", "/v1/apps/notes").json?["restorationData"] == json(data))
    #expect(
      arguments(api.call("POST", "/v1/apps/notes/events", #"{"type":"home"}"#)).last
        == #"application(_:shouldSaveSecureApplicationState:) {"restorationData":"# + data + "}")
    api.call("POST", "/v1/apps/notes/events", #"{"type":"purge"}"#)
    let app = api.call("GET", "/v1/apps/notes").json
    #expect(app?["savedRestorationData"] == json(data))
    #expect(app?["restorationData"] == .null)
    #expect(
      arguments(api.call("POST", "/v1/apps/notes/events", #"{"type":"launch"}"#)) == [
        "application(_:willFinishLaunchingWithOptions:)",
        #"application(_:shouldRestoreSecureApplicationState:) {"restorationData":"# + data + "}",
        "application(_:didFinishLaunchingWithOptions:)", "applicationDidBecomeActive(_:)",
      ])
    let journal = api.call("GET", "/v1/devices/default/journal?kind=event&app=notes").body
    #expect(journal.contains(#"{"type":"setRestorationData","data":\#(data)}"#))
  }

  @Test func aPrewarmedAppIsSuspendedWithNoCallbacks() {
    let response = api.call("POST", "/v1/apps/mail/events", #"{"type":"prewarm"}"#)
    #expect(response.json?["state"] == .string("suspended"))
    #expect(response.json?["callbacks"] == .array([]))
    let app = api.call("GET", "/v1/apps/mail").json
    #expect(app?["prewarmed"] == .bool(true))
    #expect(
      app?["allowedEvents"] == json(#"["launch","purge","backgroundLaunch","attachDebugger"]"#))
  }

  @Test(arguments: [
    (
      #"{"type":"launch","url":"a://b","shortcutItem":{"type":"x"}}"#, "type",
      "launch takes at most one of url, notification, userActivity, shortcutItem"
    ),
    (#"{"type":"launch","notification":{}}"#, "notification.identifier", "is required"),
    (
      #"{"type":"launch","notification":{"identifier":"n","badge":1}}"#, "notification.badge",
      "is not a known field"
    ),
    (
      #"{"type":"launch","shortcutItem":{"type":""}}"#, "shortcutItem.type",
      "must be 1 to 256 bytes long"
    ),
    (#"{"type":"setRestorationData"}"#, "data", "is required"),
    (
      #"{"type":"setRestorationData","data":"\#(String(repeating: "x", count: 4095))"}"#, "data",
      "must be JSON of 1 to 4096 bytes, compact, nested at most 32 deep"
    ),
  ])
  func malformedEntriesAndDataAre422NamingTheField(body: String, field: String, message: String) {
    api.call("POST", "/v1/apps/notes/events", #"{"type":"launch"}"#)
    let before = api.call("GET", "/v1/devices/default/journal").body
    let response = api.call("POST", "/v1/apps/notes/events", body)
    #expect(response.status == 422, "\(response.body)")
    #expect(
      response.json?["validation"]
        == .array([.object([("field", .string(field)), ("message", .string(message))])]),
      "\(response.body)")
    #expect(api.call("GET", "/v1/devices/default/journal").body == before)
  }

  /// A save waiting behind a busy didEnterBackground keeps its data in a snapshot, and the
  /// restored device saves it when the main thread is free, as the original does.
  @Test func aSnapshotCarriesAWaitingCallbacksArguments() {
    api.call(
      "POST", "/v1/apps",
      #"{"name":"slow","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":3}}"#)
    api.call(
      "POST", "/v1/apps/slow/events",
      #"[{"type":"launch"},{"type":"setRestorationData","data":[1,2]},{"type":"home"},{"type":"launch","url":"slow://x"}]"#
    )
    let saved = api.call("GET", "/v1/devices/default/snapshot").body
    #expect(
      saved.contains(
        #""waitingCallbacks":[{"method":"application(_:shouldSaveSecureApplicationState:)","state":"background","cause":"home","arguments":{"kind":"restorationData","restorationData":[1,2]}}"#
      ))
    #expect(saved.contains(#""arguments":{"kind":"entry","url":"slow://x"}}"#))
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/default", saved).status == 200)
    #expect(other.call("GET", "/v1/devices/default/snapshot").body == saved)
    let advance = #"{"seconds":3}"#
    let original = api.call("POST", "/v1/devices/default/clock/advance", advance)
    #expect(other.call("POST", "/v1/devices/default/clock/advance", advance).body == original.body)
    #expect(api.call("GET", "/v1/apps/slow").json?["savedRestorationData"] == json("[1,2]"))
  }

  /// A push's payload and a URL session's identifier, handed to callbacks that wait for a
  /// busy app, are kept in a snapshot and handed over by the restored device.
  @Test func aSnapshotCarriesWaitingBackgroundWork() {
    for name in ["slow", "sync"] {
      api.call(
        "POST", "/v1/apps",
        #"{"name":"\#(name)","lifecycle":"appDelegate","backgroundModes":["remote-notification"],"behavior":{"didEnterBackgroundSeconds":3}}"#
      )
      api.call("POST", "/v1/apps/\(name)/events", #"[{"type":"launch"},{"type":"home"}]"#)
    }
    api.call(
      "POST", "/v1/apps/slow/events",
      #"{"type":"backgroundLaunch","reason":"remoteNotification","payload":{"aps":{"content-available":1},"n":1}}"#
    )
    api.call(
      "POST", "/v1/apps/sync/events",
      #"{"type":"backgroundLaunch","reason":"urlSession","identifier":"up"}"#)
    let saved = api.call("GET", "/v1/devices/default/snapshot").body
    #expect(
      saved.contains(
        #""arguments":{"kind":"userInfo","payload":{"aps":{"content-available":1},"n":1}}"#))
    #expect(saved.contains(#""arguments":{"kind":"sessionIdentifier","identifier":"up"}"#))
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/default", saved).status == 200)
    #expect(other.call("GET", "/v1/devices/default/snapshot").body == saved)
    let advance = #"{"seconds":3}"#
    let original = api.call("POST", "/v1/devices/default/clock/advance", advance)
    #expect(original.body.contains(#""arguments":{"identifier":"up"}"#))
    #expect(other.call("POST", "/v1/devices/default/clock/advance", advance).body == original.body)
  }

  /// Connection options with nothing in them are no arguments, as the engine holds them.
  @Test func emptyConnectionOptionsInASnapshotReadAsNoArguments() {
    api.call(
      "POST", "/v1/apps",
      #"{"name":"slow","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":3}}"#)
    api.call(
      "POST", "/v1/apps/slow/events", #"[{"type":"launch"},{"type":"home"},{"type":"launch"}]"#)
    let saved = api.call("GET", "/v1/devices/default/snapshot").body
    let waiting = #""state":"inactive","cause":"launch"}"#
    #expect(saved.contains(waiting))
    let edited = saved.replacingFirst(
      waiting, #""state":"inactive","cause":"launch","arguments":{"kind":"connectionOptions"}}"#)
    #expect(api.call("PUT", "/v1/devices/default", edited).status == 200)
    #expect(api.call("GET", "/v1/devices/default/snapshot").body == saved)
  }
}

extension String {
  /// The text with the first `target` replaced.
  fileprivate func replacingFirst(_ target: String, _ replacement: String) -> String {
    guard let range = firstRange(of: target) else { return self }
    return self[..<range.lowerBound] + replacement + self[range.upperBound...]
  }
}
