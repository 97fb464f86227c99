import Testing

@testable import LifecycleEngine

/// Apps with several windows (`UIApplicationSupportsMultipleScenes`). Sources: Apple's
/// "Managing your app's life cycle" (each scene has its own life cycle; UIKit "can disconnect a
/// background or suspended scene at any time to reclaim its resources"),
/// `application(_:configurationForConnecting:options:)` (a new session only),
/// `application(_:didDiscardSceneSessions:)` (sessions the user closed; "the next time your app
/// launches" if it is not running) and douglashill.co, "App termination" (closing the last
/// window ends the process). One window is on screen at a time (the user guide, "Behaviour decisions").
@Suite struct MultiSceneTests {
  let sim = Simulator(passcode: false)
  static let data = #"{"draft":"hi"}"#

  init() {
    sim.add("docs", multipleScenes: true)
    sim.add("mail")
  }

  /// `docs` in the foreground with `main`, and `w` opened over it.
  @discardableResult
  func openTwoWindows() throws -> EventOutcome {
    try sim.post(.launch(), to: "docs")
    return try sim.post(.openScene(id: "w"), to: "docs")
  }

  @Test func aNewWindowConnectsAsANewSessionWhileTheOtherGoesToTheBackground() throws {
    let outcome = try openTwoWindows()
    #expect(
      trace(outcome) == [
        "sceneWillResignActive(_:)@main → inactive/foregroundInactive [UIScene.willDeactivateNotification, UIApplication.willResignActiveNotification]",
        "sceneDidEnterBackground(_:)@main → background/background [UIScene.didEnterBackgroundNotification, UIApplication.didEnterBackgroundNotification]",
        "application(_:configurationForConnecting:options:) → background/unattached",
        "scene(_:willConnectTo:options:)@w → background/unattached [UIScene.willConnectNotification]",
        "sceneWillEnterForeground(_:)@w → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]",
        "sceneDidBecomeActive(_:)@w → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]",
      ])
    #expect(outcome.result == .scene(id: "w"))
    let app = sim.app("docs")
    #expect(app.sessions.map(\.id) == ["main", "w"])
    #expect(app.sessions.map(\.state) == [.background, .foregroundActive])
    #expect(app.focusedScene == "w" && app.sceneState == .foregroundActive)
  }

  @Test func generatedIDsCountTheSessions() throws {
    try sim.post(.launch(), to: "docs")
    #expect(try sim.post(.openScene(), to: "docs").result == .scene(id: "scene-2"))
    #expect(try sim.post(.openScene(), to: "docs").result == .scene(id: "scene-3"))
    try sim.post(.closeScene("scene-2"), to: "docs")
    #expect(try sim.post(.openScene(), to: "docs").result == .scene(id: "scene-4"))
  }

  /// A cold start into a new window: the app launches, then connects it.
  @Test func aWindowOpenedOnANotRunningAppLaunchesIt() throws {
    let outcome = try sim.post(.openScene(id: "w", via: .url("docs://x")), to: "docs")
    #expect(
      outcome.callbacks.map(\.method) == [
        .willFinishLaunching, .didFinishLaunching, .configurationForConnecting, .sceneWillConnect,
        .sceneWillEnterForeground, .sceneDidBecomeActive,
      ])
    #expect(
      outcome.callbacks[3].arguments == .connectionOptions(.url("docs://x"), restorationData: nil))
    #expect(sim.app("docs").sessions.map(\.id) == ["w"])
  }

  @Test func launchBringsOneWindowBackWhileTheOtherStaysInTheBackground() throws {
    try openTwoWindows()
    #expect(
      trace(try sim.post(.launch(scene: "main"), to: "docs")) == [
        "sceneWillResignActive(_:)@w → inactive/foregroundInactive [UIScene.willDeactivateNotification, UIApplication.willResignActiveNotification]",
        "sceneDidEnterBackground(_:)@w → background/background [UIScene.didEnterBackgroundNotification, UIApplication.didEnterBackgroundNotification]",
        "sceneWillEnterForeground(_:)@main → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]",
        "sceneDidBecomeActive(_:)@main → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]",
      ])
    try sim.post(.home, to: "docs")
    // The icon brings back the window the user saw last.
    #expect(try sim.post(.launch(), to: "docs").callbacks.allSatisfy { $0.scene == "main" })
  }

  @Test func suspensionAndResumptionMoveEveryConnectedScene() throws {
    try openTwoWindows()
    try sim.post(.home, to: "docs")
    sim.advance(2)
    #expect(sim.app("docs").sessions.map(\.state) == [.suspended, .suspended])
    try sim.post(.launch(scene: "main"), to: "docs")
    #expect(sim.app("docs").sessions.map(\.state) == [.foregroundActive, .background])
  }

  @Test func closingAWindowDiscardsThatSessionOnly() throws {
    try openTwoWindows()
    #expect(
      trace(try sim.post(.closeScene("main"), to: "docs")) == [
        "sceneDidDisconnect(_:)@main → active/unattached [UIScene.didDisconnectNotification]",
        "application(_:didDiscardSceneSessions:) → active/foregroundActive {sessions: main}",
      ])
    #expect(sim.app("docs").sessions.map(\.id) == ["w"])
  }

  /// The focused window, closed from the switcher: it never entered the background.
  @Test func closingTheShownWindowLeavesTheAppInTheBackground() throws {
    try openTwoWindows()
    try sim.post(.openSwitcher, to: "docs")
    let close = try sim.post(.closeScene("w"), to: "docs")
    #expect(
      trace(close) == [
        "sceneDidDisconnect(_:)@w → background/unattached [UIScene.didDisconnectNotification, UIApplication.didEnterBackgroundNotification]",
        "application(_:didDiscardSceneSessions:) → background/background {sessions: w}",
      ])
    #expect(sim.app("docs").focusedScene == "main")
    #expect(sim.deviceView.foregroundApp == nil)
  }

  @Test func closingTheLastWindowQuitsTheApp() throws {
    try sim.post(.launch(), to: "docs")
    try sim.post(.openSwitcher, to: "docs")
    #expect(
      try sim.post(.closeScene("main"), to: "docs").callbacks.map(\.method) == [
        .sceneDidDisconnect, .didDiscardSceneSessions, .willTerminate,
      ])
    #expect(sim.app("docs").backgroundLaunchBlocked && sim.app("docs").sessions.isEmpty)
  }

  @Test func aWindowClosedWhileTheAppIsNotRunningIsReportedAfterItsNextLaunch() throws {
    try openTwoWindows()
    try sim.post(.purge(), to: "docs")
    #expect(try sim.post(.closeScene("main"), to: "docs").callbacks.isEmpty)
    #expect(
      trace(try sim.post(.launch(), to: "docs")).prefix(4) == [
        "application(_:willFinishLaunchingWithOptions:) → background/unattached",
        "application(_:didFinishLaunchingWithOptions:) → background/unattached [UIApplication.didFinishLaunchingNotification]",
        "application(_:didDiscardSceneSessions:) → background/unattached {sessions: main}",
        "scene(_:willConnectTo:options:)@w → background/unattached [UIScene.willConnectNotification]",
      ])
  }

  /// A suspended app runs again in the background to hear it, then is suspended again.
  @Test func aWindowClosedWhileTheAppIsSuspendedWakesItToHearIt() throws {
    try openTwoWindows()
    try sim.post(.home, to: "docs")
    sim.advance(2)
    let outcome = try sim.post(.closeScene("main"), to: "docs")
    #expect(
      trace(outcome) == [
        "sceneDidDisconnect(_:)@main → background/unattached [UIScene.didDisconnectNotification]",
        "application(_:didDiscardSceneSessions:) → background/background {sessions: main}",
      ])
    #expect(transitions(outcome) == ["docs: suspended → background (closeScene)"])
    sim.advance(2)
    #expect(sim.state("docs") == .suspended)
  }

  /// Apple's `UISceneSession.stateRestorationActivity`: "Before disconnecting a scene, the
  /// system asks your delegate for an NSUserActivity object containing state information for
  /// that scene": the state it has now, not what it saved when it left the foreground.
  @Test func theSystemDisconnectsABackgroundSceneAndTheSessionReconnectsWithItsState() throws {
    try openTwoWindows()
    try sim.post(.launch(scene: "main"), to: "docs")
    try sim.post(.launch(scene: "w"), to: "docs")
    try sim.post(.setRestorationData(#"{"draft":1}"#, scene: "w"), to: "docs")
    try sim.post(.launch(scene: "main"), to: "docs")  // w saves as it leaves
    try sim.post(.setRestorationData(Self.data, scene: "w"), to: "docs")  // in the background
    #expect(
      trace(try sim.post(.disconnectScene("w"), to: "docs")) == [
        "stateRestorationActivity(for:)@w → active/background {data: \(Self.data)}",
        "sceneDidDisconnect(_:)@w → active/unattached [UIScene.didDisconnectNotification]",
      ])
    #expect(sim.app("docs").sessions[1] == SceneSession(id: "w", savedRestorationData: Self.data))
    #expect(
      trace(try sim.post(.launch(scene: "w"), to: "docs")).dropFirst(2).first
        == "scene(_:willConnectTo:options:)@w → background/unattached [UIScene.willConnectNotification] {connection: -, restoring \(Self.data)}"
    )
  }

  /// A scene with nothing to save is not asked: it only hears that it is disconnected.
  @Test func aSceneWithNoStateIsDisconnectedWithoutBeingAsked() throws {
    try openTwoWindows()
    try sim.post(.launch(scene: "main"), to: "docs")
    #expect(
      trace(try sim.post(.disconnectScene("w"), to: "docs")) == [
        "sceneDidDisconnect(_:)@w → active/unattached [UIScene.didDisconnectNotification]"
      ])
  }

  @Test func eachSceneSavesAndRestoresItsOwnState() throws {
    try openTwoWindows()
    try sim.post(.setRestorationData(Self.data), to: "docs")  // the focused one's: w
    try sim.post(.home, to: "docs")
    try sim.post(.purge(), to: "docs")
    #expect(sim.app("docs").sessions.map(\.savedRestorationData) == [nil, Self.data])
    let main = try sim.post(.launch(scene: "main"), to: "docs").callbacks.first {
      $0.method == .sceneWillConnect
    }
    #expect(main?.scene == "main" && main?.arguments == nil)
  }

  /// Under pressure, once the warning's grace has passed, UIKit reclaims the background scenes
  /// of running apps before jetsam kills one (the user guide, "Behaviour decisions").
  @Test func pressureDisconnectsBackgroundScenesBeforeItKillsTheirApp() throws {
    let sim = Simulator(memoryLimitMB: 1000, passcode: false)
    sim.add("docs", memoryMB: 300, multipleScenes: true, sceneMemoryMB: 100)
    sim.add("game", memoryMB: 400)
    try sim.post(.launch(), to: "docs")
    try sim.post(.openScene(id: "w"), to: "docs")
    try sim.post(.beginBackgroundTask(), to: "docs")  // keeps it running in the background
    #expect(sim.app("docs").footprintMB == 500)
    try sim.post(.launch(), to: "game")
    let outcome = try sim.post(.setMemory(memoryMB: 650), to: "game")
    #expect(outcome.callbacks.map(\.method).allSatisfy { $0 == .didReceiveMemoryWarning })
    let reclaimed = sim.advance(5)
    #expect(
      reclaimed.callbacks.map { "\($0.method)@\($0.scene ?? "-")" } == [
        "sceneDidDisconnect@main", "sceneDidDisconnect@w",
      ])
    #expect(sim.state("docs") == .background && sim.app("docs").footprintMB == 300)
    #expect(sim.app("docs").sessions.map(\.state) == [.unattached, .unattached])
    #expect(sim.jetsam.isEmpty)
  }

  @Test func connectedScenesAddTheirMemory() throws {
    sim.add("atlas", memoryMB: 200, backgroundMemoryMB: 50, multipleScenes: true, sceneMemoryMB: 30)
    try sim.post(.launch(), to: "atlas")
    try sim.post(.openScene(), to: "atlas")
    #expect(sim.app("atlas").footprintMB == 260)
    try sim.post(.disconnectScene("main"), to: "atlas")
    #expect(sim.app("atlas").footprintMB == 230)
    try sim.post(.home, to: "atlas")
    #expect(sim.app("atlas").footprintMB == 80 && sim.deviceView.usedMB == 80)
  }

  @Test func windowEventsAreRefusedWithTheirReason() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      refusal { try sim.post(.openScene(), to: "mail") }?.reason == .multipleScenesNotSupported)
    try openTwoWindows()
    #expect(refusal { try sim.post(.openScene(id: "w"), to: "docs") }?.reason == .sceneExists("w"))
    #expect(
      refusal { try sim.post(.launch(scene: "w"), to: "docs") }?.reason == .sceneInForeground("w"))
    #expect(refusal { try sim.post(.launch(scene: "x"), to: "docs") }?.reason == .unknownScene("x"))
    #expect(refusal { try sim.post(.closeScene("x"), to: "docs") }?.reason == .unknownScene("x"))
    #expect(
      refusal { try sim.post(.disconnectScene("w"), to: "docs") }?.reason
        == .sceneNotInBackground("w"))
    try sim.post(.disconnectScene("main"), to: "docs")
    #expect(
      refusal { try sim.post(.setRestorationData("1", scene: "main"), to: "docs") }?.reason
        == .sceneNotConnected("main"))
    for index in 3...Validation.maxScenesPerApp {
      try sim.post(.openScene(id: "s\(index)"), to: "docs")
    }
    #expect(
      refusal { try sim.post(.openScene(), to: "docs") }?.reason
        == .tooManyScenes(limit: Validation.maxScenesPerApp))
    guard
      case .invalid(let issues) = engineError({ try sim.post(.openScene(id: "-x"), to: "docs") })
    else {
      Issue.record("not refused")
      return
    }
    #expect(issues.map(\.field) == ["scene"])
  }
}
