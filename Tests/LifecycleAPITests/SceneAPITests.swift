import JSONCore
import Testing

/// Apps with several windows as a client sees them: sessions in the app view, every scene
/// callback naming its scene, exact refusals, and snapshots that carry the sessions (engine
/// tests: `MultiSceneTests`).
@Suite struct SceneAPITests {
  let api = APITests()

  init() {
    api.call("POST", "/v1/apps", #"{"name":"docs","supportsMultipleScenes":true}"#)
    api.call("POST", "/v1/apps/docs/events", #"{"type":"launch"}"#)
  }

  /// Each callback of a response as `method@scene`, the scene `-` for an app callback.
  private func calls(_ response: APITests.Answer) -> [String] {
    guard case .array(let callbacks)? = response.json?["callbacks"] else { return [] }
    return callbacks.map { callback in
      guard case .string(let method)? = callback["method"] else { return "?" }
      guard case .string(let scene)? = callback["scene"] else { return method + "@-" }
      return method + "@" + scene
    }
  }

  /// The sessions the app view shows.
  private func scenes() -> [JSON]? {
    guard case .array(let scenes)? = api.call("GET", "/v1/apps/docs").json?["scenes"] else {
      return nil
    }
    return scenes
  }

  @discardableResult
  private func post(_ body: String) -> APITests.Answer {
    api.call("POST", "/v1/apps/docs/events", body)
  }

  @Test func aNewWindowIsASessionOfItsOwn() {
    let opened = post(#"{"type":"openScene"}"#)
    #expect(opened.status == 200)
    #expect(opened.json?["result"] == json(#"{"scene":"scene-2"}"#))
    #expect(
      calls(opened) == [
        "sceneWillResignActive(_:)@main", "sceneDidEnterBackground(_:)@main",
        "application(_:configurationForConnecting:options:)@-",
        "scene(_:willConnectTo:options:)@scene-2", "sceneWillEnterForeground(_:)@scene-2",
        "sceneDidBecomeActive(_:)@scene-2",
      ])
    let app = api.call("GET", "/v1/apps/docs").json
    #expect(app?["focusedScene"] == .string("scene-2"))
    #expect(
      app?["scenes"]
        == json(
          #"[{"id":"main","state":"background","restorationData":null,"savedRestorationData":null},"#
            + #"{"id":"scene-2","state":"foregroundActive","restorationData":null,"#
            + #""savedRestorationData":null}]"#))
  }

  @Test func closingAWindowDiscardsItsSessionByName() {
    post(#"{"type":"openScene","scene":"draft"}"#)
    let closed = post(#"{"type":"closeScene","scene":"main"}"#)
    #expect(
      calls(closed) == ["sceneDidDisconnect(_:)@main", "application(_:didDiscardSceneSessions:)@-"])
    guard case .array(let callbacks)? = closed.json?["callbacks"] else { return }
    #expect(callbacks.last?["arguments"] == json(#"{"sessions":["main"]}"#))
    #expect(scenes()?.first?["id"] == .string("draft"))
  }

  /// The scene is asked for its state before the system disconnects it
  /// (`UISceneSession.stateRestorationActivity`), and gets it back when it reconnects.
  @Test func aDisconnectedSceneReconnectsWithWhatItSaved() {
    post(#"{"type":"openScene","scene":"draft"}"#)
    post(#"{"type":"setRestorationData","scene":"draft","data":{"line":3}}"#)
    post(#"{"type":"launch","scene":"main"}"#)
    #expect(
      calls(post(#"{"type":"disconnectScene","scene":"draft"}"#)) == [
        "stateRestorationActivity(for:)@draft", "sceneDidDisconnect(_:)@draft",
      ])
    let back = post(#"{"type":"launch","scene":"draft"}"#)
    guard case .array(let callbacks)? = back.json?["callbacks"] else { return }
    #expect(
      callbacks[2]["arguments"]
        == json(#"{"connectionOptions":{},"session":{"stateRestorationActivity":{"line":3}}}"#))
  }

  @Test func aCrashAtLaunchDropsThePreservedState() {
    post(#"{"type":"setRestorationData","data":[1]}"#)
    post(#"{"type":"home"}"#)
    let crash = post(#"{"type":"crash","atLaunch":true}"#)
    #expect(crash.json?["event"] == json(#"{"type":"crash","atLaunch":true}"#))
    #expect(scenes()?.first?["savedRestorationData"] == .null)
  }

  @Test(arguments: [
    (
      #"{"type":"openScene","scene":"main"}"#,
      "openScene refused: the app already has a scene session 'main'"
    ),
    (#"{"type":"launch","scene":"nope"}"#, "launch refused: the app has no scene session 'nope'"),
    (
      #"{"type":"launch","scene":"draft"}"#,
      "launch refused: the scene of session 'draft' is already in the foreground"
    ),
    (
      #"{"type":"disconnectScene","scene":"draft"}"#,
      "disconnectScene refused: the scene of session 'draft' is not in the background"
    ),
  ])
  func aWindowEventThatCannotBeIsRefused(body: String, detail: String) {
    post(#"{"type":"openScene","scene":"draft"}"#)
    let before = api.call("GET", "/v1/devices/default/journal").body
    let response = post(body)
    #expect(response.status == 409, "\(response.body)")
    #expect(response.json?["detail"] == .string(detail + " (state active)"), "\(response.body)")
    #expect(api.call("GET", "/v1/devices/default/journal").body == before)
  }

  @Test(arguments: [
    (#"{"type":"closeScene"}"#, "scene", "is required"),
    (
      #"{"type":"openScene","scene":"a b"}"#, "scene",
      "must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
    ),
    (#"{"type":"crash","atLaunch":1}"#, "atLaunch", "must be true or false"),
  ])
  func aMalformedWindowEventIsInvalid(body: String, field: String, message: String) {
    let response = post(body)
    #expect(response.status == 422, "\(response.body)")
    #expect(
      response.json?["validation"]
        == .array([.object([("field", .string(field)), ("message", .string(message))])]),
      "\(response.body)")
  }

  @Test func onlySceneAppsDeclareScenes() {
    let response = api.call(
      "POST", "/v1/apps", #"{"name":"old","lifecycle":"appDelegate","supportsMultipleScenes":true}"#
    )
    #expect(response.status == 422)
    #expect(
      response.body.contains(
        #"{"field":"supportsMultipleScenes","message":"is for scene apps (lifecycle scene) only"}"#)
    )
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    let refused = api.call("POST", "/v1/apps/mail/events", #"{"type":"openScene"}"#)
    #expect(
      refused.json?["detail"]
        == .string(
          "openScene refused: the app does not support multiple scenes (supportsMultipleScenes) "
            + "(state notRunning)"))
  }

  /// A snapshot carries every session; a version 1 snapshot, from before sessions, still reads,
  /// its one scene becoming `main`.
  @Test func snapshotsCarryTheSessions() {
    post(#"{"type":"openScene","scene":"draft"}"#)
    post(#"{"type":"setRestorationData","data":"d"}"#)
    post(#"{"type":"home"}"#)
    let saved = api.call("GET", "/v1/devices/default/snapshot").body
    #expect(saved.contains(#""focusedScene":"draft","discardedScenes":[]"#))
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/default", saved).status == 200)
    #expect(other.call("GET", "/v1/devices/default/snapshot").body == saved)

    let version1 =
      #"{"format":"lifecycled-device-snapshot","version":1,"device":{"id":"old","clock":"manual","#
      + #""memoryLimitMB":4096,"perAppLimitMB":2048},"now":5,"seq":9,"apps":[{"name":"mail","#
      + #""hasSceneSession":true,"savedRestorationData":{"tab":1},"process":{"state":"background","#
      + #""sceneState":"background","memoryMB":100,"backgroundMemoryMB":100,"backgroundSince":5,"#
      + #""suspendAt":7}}]}"#
    let restored = other.call("PUT", "/v1/devices/old", version1)
    #expect(restored.status == 201, "\(restored.body)")
    let mail = other.call("GET", "/v1/devices/old/apps/mail").json
    #expect(mail?["focusedScene"] == .string("main"))
    #expect(
      mail?["scenes"]
        == json(
          #"[{"id":"main","state":"background","restorationData":null,"#
            + #""savedRestorationData":{"tab":1}}]"#))
  }
}
