import Testing

@testable import LifecycleEngine

/// State restoration with a payload, through every kind of process death. Sources:
/// `application(_:shouldSaveSecureApplicationState:)` and
/// `application(_:shouldRestoreSecureApplicationState:)` (restoration runs between will- and
/// didFinishLaunching: "About the app launch sequence"); `stateRestorationActivity(for:)`,
/// handed back as the session's `stateRestorationActivity` in `scene(_:willConnectTo:options:)`;
/// the StateRestoreChildViews read-me: preserved state is deleted when the user force-quits.
@Suite struct RestorationTests {
  let sim = Simulator(passcode: false)
  static let data = #"{"tab":2,"draft":"hi"}"#

  init() {
    // Apps whose code leaves an expired background task unended: the system kills them.
    let behavior = AppBehavior(endsBackgroundTasksOnExpiration: false)
    sim.add("mail", .scene, modes: [.fetch], behavior: behavior)
    sim.add("notes", .appDelegate, modes: [.fetch], behavior: behavior)
  }

  /// What UIKit preserves for `app`: an app-delegate app's data, a scene app's first session's.
  func preserved(_ app: String) -> String? {
    let view = sim.app(app)
    return view.spec.lifecycle == .scene
      ? view.sessions.first?.savedRestorationData
      : view.savedRestorationData
  }

  /// Opens `app`, gives it `data` to save and sends it home.
  @discardableResult
  func save(_ app: String) throws -> EventOutcome {
    try sim.post(.launch(), to: app)
    try sim.post(.setRestorationData(Self.data), to: app)
    return try sim.post(.home, to: app)
  }

  @Test func anAppDelegateAppSavesOnceInTheBackgroundAndRestoresBetweenLaunchingCallbacks()
    throws
  {
    #expect(
      trace(try save("notes")).suffix(2) == [
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
        "application(_:shouldSaveSecureApplicationState:) → background {data: \(Self.data)}",
      ])
    #expect(sim.app("notes").savedRestorationData == Self.data)
    try sim.post(.purge(), to: "notes")
    #expect(
      trace(try sim.post(.launch(), to: "notes")) == [
        "application(_:willFinishLaunchingWithOptions:) → inactive",
        "application(_:shouldRestoreSecureApplicationState:) → inactive {data: \(Self.data)}",
        "application(_:didFinishLaunchingWithOptions:) → inactive [UIApplication.didFinishLaunchingNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
    // The restored process holds what it got back, and saves it again next time.
    #expect(sim.app("notes").restorationData == Self.data)
  }

  @Test func aSceneSavesItsActivityAndGetsItBackWhenItsSessionReconnects() throws {
    #expect(
      trace(try save("mail")).last
        == "stateRestorationActivity(for:)@main → background/background {data: \(Self.data)}")
    try sim.post(.purge(), to: "mail")
    #expect(
      trace(try sim.post(.launch(), to: "mail")) == [
        "application(_:willFinishLaunchingWithOptions:) → background/unattached",
        "application(_:didFinishLaunchingWithOptions:) → background/unattached [UIApplication.didFinishLaunchingNotification]",
        "scene(_:willConnectTo:options:)@main → background/unattached [UIScene.willConnectNotification] {connection: -, restoring \(Self.data)}",
        "sceneWillEnterForeground(_:)@main → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]",
        "sceneDidBecomeActive(_:)@main → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]",
      ])
  }

  /// Each system kill of an app that saved its state, and the launch after it restores. (A
  /// watchdog kill takes the same path; an app slow enough to meet the watchdog never gets to
  /// save, as `aSaveThatNeverRanKeepsTheDataSavedBefore` shows.)
  enum SystemKill: CaseIterable {
    case jetsam, crash, thermal, backgroundTaskExpiry, backgroundFetchTimeout

    func kill(_ app: String, in sim: Simulator) throws {
      switch self {
      case .jetsam: try sim.post(.purge(), to: app)
      case .crash: try sim.post(.crash(), to: app)
      case .thermal: try sim.post(.thermalKill, to: app)
      case .backgroundTaskExpiry:  // the task is never ended
        try sim.post(.beginBackgroundTask(), to: app)
        sim.advance(32)
      case .backgroundFetchTimeout:  // the completion handler is never called
        sim.advance(2)
        try sim.post(.backgroundLaunch(.fetch), to: app)
        sim.advance(30)
      }
      #expect(sim.state(app) == .notRunning)
      #expect(sim.app(app).kills == 1)
    }
  }

  @Test(arguments: SystemKill.allCases, ["mail", "notes"])
  func restorationDataSurvivesEverySystemKill(kill: SystemKill, app: String) throws {
    try save(app)
    try kill.kill(app, in: sim)
    #expect(preserved(app) == Self.data)
    let restored = try sim.post(.launch(), to: app).callbacks.filter {
      $0.method == .shouldRestoreSecureApplicationState || $0.method == .sceneWillConnect
    }
    #expect(restored.count == 1)
    let data: String? =
      switch restored.first?.arguments {
      case .restorationData(let data): data
      case .connectionOptions(nil, let data): data
      default: nil
      }
    #expect(data == Self.data)
  }

  @Test(arguments: ["mail", "notes"], [true, false])
  func aForceQuitDropsTheSavedData(app: String, suspendedFirst: Bool) throws {
    try save(app)
    if suspendedFirst { sim.advance(2) }
    try sim.post(.terminate, to: app)
    #expect(preserved(app) == nil)
    let launch = try sim.post(.launch(), to: app)
    #expect(
      !launch.callbacks.contains {
        $0.method == .shouldRestoreSecureApplicationState
          || $0.method == .sceneWillConnect && $0.arguments != nil
      })
  }

  /// Preserved state is discarded on a force-quit and on a crash at launch (Apple's
  /// StateRestoreChildViews sample, its read-me): a crash during the launch drops it too, and
  /// the session stays.
  @Test(arguments: ["mail", "notes"])
  func aCrashAtLaunchDropsTheSavedData(app: String) throws {
    try save(app)
    try sim.post(.purge(), to: app)
    try sim.post(.launch(), to: app)
    try sim.post(.crash(atLaunch: true), to: app)
    #expect(preserved(app) == nil)
    #expect(sim.app(app).sessions.map(\.id) == (app == "mail" ? ["main"] : []))
    let launch = try sim.post(.launch(), to: app)
    #expect(
      !launch.callbacks.contains {
        $0.method == .shouldRestoreSecureApplicationState
          || ($0.arguments != nil && $0.method != .didReceiveDiagnosticPayloads)  // the crash's
      })
  }

  /// UIKit keeps what the app hands it when the method runs: a save still waiting behind a
  /// busy didEnterBackground when the app dies saved nothing.
  @Test func aSaveThatNeverRanKeepsTheDataSavedBefore() throws {
    sim.add(
      "slow", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(3)))
    try sim.post(.launch(), to: "slow")
    try sim.post(.setRestorationData(Self.data), to: "slow")
    let home = try sim.post(.home, to: "slow")
    #expect(home.waitingCallbacks.map(\.method) == [.shouldSaveSecureApplicationState])
    #expect(sim.app("slow").savedRestorationData == nil)
    try sim.post(.purge(), to: "slow")
    #expect(sim.app("slow").savedRestorationData == nil)
    #expect(
      !(try sim.post(.launch(), to: "slow")).callbacks.contains {
        $0.method == .shouldRestoreSecureApplicationState
      })
  }

  @Test func anAppThatSavesNothingIsNotAsked() throws {
    try sim.post(.launch(), to: "notes")
    try sim.post(.setRestorationData(Self.data), to: "notes")
    try sim.post(.setRestorationData(nil), to: "notes")
    #expect(trace(try sim.post(.home, to: "notes")).count == 2)
    #expect(sim.app("notes").savedRestorationData == nil)
  }

  @Test func restorationDataIsRefusedWhileTheAppDoesNotRunOrWhenItIsTooLarge() throws {
    #expect(refusal { try sim.post(.setRestorationData(Self.data), to: "notes") } != nil)
    try sim.post(.launch(), to: "notes")
    let tooLarge = "\"" + String(repeating: "x", count: Validation.maxRestorationDataBytes) + "\""
    guard
      case .invalid(let issues) = engineError({
        try sim.post(.setRestorationData(tooLarge), to: "notes")
      })
    else {
      Issue.record("not refused")
      return
    }
    #expect(issues.map(\.field) == ["data"])
    #expect(sim.app("notes").restorationData == nil)
  }
}
