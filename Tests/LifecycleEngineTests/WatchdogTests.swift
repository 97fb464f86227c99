import Testing

@testable import LifecycleEngine

/// The watchdog at each transition it times (Apple's "Addressing watchdog terminations"):
/// the launch (scene-create: 20 s in the foreground, 30 s in the background), a return to the
/// foreground (scene-update, 10 s) and the move to the background (5 s), each kill naming the
/// transition; and a debugger-attached app, which nothing times.
@Suite struct WatchdogTests {
  let sim = Simulator(passcode: false)

  private func exits(of app: String) -> String { describe(sim.app(app).pendingExits) }

  @Test func aLaunchTheUserSeesPastTwentySecondsIsKilledAsSceneCreateInTheForeground() throws {
    sim.add("maps", behavior: AppBehavior(didFinishLaunchingDuration: .seconds(25)))
    let launch = try sim.post(.launch(), to: "maps")
    #expect(launch.callbacks.map(\.method) == [.willFinishLaunching, .didFinishLaunching])
    #expect(
      launch.waitingCallbacks.map(\.method) == [
        .configurationForConnecting, .sceneWillConnect, .sceneWillEnterForeground,
        .sceneDidBecomeActive,
      ])
    #expect(sim.app("maps").busyUntil == .seconds(25) && sim.app("maps").killAt == .seconds(20))
    let watchdog = sim.advance(25)
    #expect(watchdog.callbacks.isEmpty)
    #expect(transitions(watchdog) == ["maps: active → notRunning (watchdog) 0x8badf00d"])
    #expect(watchdog.transitions.first?.time == .seconds(20))
    #expect(
      sim.app("maps").lastTermination?.watchdog == WatchdogTransition(.sceneCreate, .foreground))
    #expect(exits(of: "maps") == "foreground appWatchdog 1")
  }

  @Test func aLaunchWithinItsAllowanceGoesOnWhenDidFinishLaunchingReturns() throws {
    sim.add("maps", behavior: AppBehavior(didFinishLaunchingDuration: .seconds(19)))
    try sim.post(.launch(), to: "maps")
    #expect(sim.app("maps").killAt == nil)
    let returned = sim.advance(19)
    #expect(
      returned.callbacks.map(\.method) == [
        .configurationForConnecting, .sceneWillConnect, .sceneWillEnterForeground,
        .sceneDidBecomeActive,
      ])
    #expect(returned.callbacks.allSatisfy { $0.time == .seconds(19) })
    #expect(sim.state("maps") == .active && returned.transitions.isEmpty)
  }

  /// A launch for background work has the background allowance: 25 s passes, 35 s does not.
  @Test func aLaunchInTheBackgroundHasThirtySeconds() throws {
    sim.add(
      "feed", .appDelegate, modes: [.fetch],
      behavior: AppBehavior(didFinishLaunchingDuration: .seconds(25)))
    sim.add(
      "news", .appDelegate, modes: [.fetch],
      behavior: AppBehavior(didFinishLaunchingDuration: .seconds(35)))
    try sim.post(.backgroundLaunch(.fetch), to: "feed")
    try sim.post(.backgroundLaunch(.fetch), to: "news")
    #expect(sim.app("news").killAt == .seconds(30))
    let returned = sim.advance(29)
    #expect(
      returned.callbacks.map { "\($0.app) \($0.method.rawValue)" } == [
        "feed applicationDidEnterBackground(_:)",
        "feed application(_:performFetchWithCompletionHandler:)",
      ])
    try sim.post(.backgroundWorkCompleted(), to: "feed")
    let watchdog = sim.advance(1)
    #expect(transitions(watchdog) == ["news: background → notRunning (watchdog) 0x8badf00d"])
    #expect(
      sim.app("news").lastTermination?.watchdog == WatchdogTransition(.sceneCreate, .background))
    #expect(exits(of: "news") == "background appWatchdog 1")
  }

  /// A scene's willEnterForeground right after it connects is part of its creation (20 s); on
  /// a return from the background it is a scene update (10 s).
  @Test func aReturnToTheForegroundPastTenSecondsIsKilledAsSceneUpdate() throws {
    sim.add("maps", behavior: AppBehavior(willEnterForegroundDuration: .seconds(12)))
    try sim.post(.launch(), to: "maps")
    #expect(sim.app("maps").killAt == nil)  // 12 s of a launch's 20
    #expect(sim.advance(12).callbacks.map(\.method) == [.sceneDidBecomeActive])
    try sim.post(.home, to: "maps")
    sim.advance(3)
    #expect(sim.state("maps") == .suspended)
    let back = try sim.post(.launch(), to: "maps")
    #expect(back.callbacks.last?.method == .sceneWillEnterForeground)
    #expect(sim.app("maps").killAt == .seconds(25))
    let watchdog = sim.advance(12)
    #expect(watchdog.callbacks.isEmpty)
    #expect(transitions(watchdog) == ["maps: active → notRunning (watchdog) 0x8badf00d"])
    #expect(
      sim.app("maps").lastTermination?.watchdog == WatchdogTransition(.sceneUpdate, .foreground))
    #expect(exits(of: "maps") == "foreground appWatchdog 1")
  }

  @Test func anAppDelegateAppsWillEnterForegroundIsTimedAsSceneUpdate() throws {
    sim.add("mail", .appDelegate, behavior: AppBehavior(willEnterForegroundDuration: .seconds(11)))
    try sim.post(.launch(), to: "mail")
    #expect(sim.app("mail").busyUntil == nil)  // no willEnterForeground at its launch
    try sim.post(.home, to: "mail")
    try sim.post(.launch(), to: "mail")
    #expect(sim.app("mail").killAt == .seconds(10))
    sim.advance(10)
    #expect(
      sim.app("mail").lastTermination?.watchdog == WatchdogTransition(.sceneUpdate, .foreground))
  }

  @Test func aSlowDidEnterBackgroundIsKilledAsSceneUpdateInTheBackground() throws {
    sim.add("mail", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(6)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(transitions(sim.advance(6)) == ["mail: background → notRunning (watchdog) 0x8badf00d"])
    #expect(
      sim.app("mail").lastTermination?.watchdog == WatchdogTransition(.sceneUpdate, .background))
  }

  /// The allowances are configuration (`launchWatchdogSeconds` and its siblings).
  @Test func theAllowancesAreConfigured() throws {
    var configuration = EngineConfiguration()
    configuration.scheduler.launchWatchdog = .seconds(3)
    configuration.scheduler.enterForegroundWatchdog = .seconds(1)
    let sim = Simulator(configuration: configuration, passcode: false)
    sim.add(
      "maps", .appDelegate,
      behavior: AppBehavior(
        didFinishLaunchingDuration: .seconds(2), willEnterForegroundDuration: .seconds(2)))
    try sim.post(.launch(), to: "maps")
    #expect(sim.app("maps").killAt == nil)
    sim.advance(2)
    try sim.post(.home, to: "maps")
    try sim.post(.launch(), to: "maps")
    #expect(sim.app("maps").killAt == .seconds(3))
  }

  // MARK: A debugger attached

  /// "Works in Xcode, fails in the field": the same app and steps, with and without Xcode's
  /// debugger. In the field the watchdog kills the slow didEnterBackground; under the debugger
  /// the app outlives it, is never suspended, and its background task never expires.
  @Test(arguments: [false, true])
  func theSameStepsWithAndWithoutTheDebugger(attached: Bool) throws {
    sim.add("mail", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(8)))
    try sim.post(.launch(), to: "mail")
    if attached { try sim.post(.attachDebugger, to: "mail") }
    try sim.post(.beginBackgroundTask(name: "upload"), to: "mail")
    try sim.post(.home, to: "mail")
    let hour = sim.advance(3_600)
    if attached {
      #expect(hour.callbacks.isEmpty && hour.transitions.isEmpty)
      let app = sim.app("mail")
      #expect(app.state == .background && app.debuggerAttached)
      #expect(app.killAt == nil && app.suspendAt == nil && app.busyUntil == nil)
      #expect(app.backgroundTasks.map(\.expiresAt) == [nil])
    } else {
      #expect(transitions(hour) == ["mail: background → notRunning (watchdog) 0x8badf00d"])
      #expect(!sim.app("mail").debuggerAttached)
    }
  }

  @Test func attachingTurnsOffAPendingWatchdogKill() throws {
    sim.add("maps", behavior: AppBehavior(didFinishLaunchingDuration: .seconds(25)))
    try sim.post(.launch(), to: "maps")
    #expect(sim.app("maps").killAt == .seconds(20))
    let attach = try sim.post(.attachDebugger, to: "maps")
    #expect(attach.callbacks.isEmpty && attach.transitions.isEmpty)
    #expect(sim.app("maps").killAt == nil)
    let later = sim.advance(30)
    #expect(later.callbacks.first?.time == .seconds(25) && later.transitions.isEmpty)
    #expect(sim.state("maps") == .active)
  }

  /// Detaching starts the process's clocks afresh: none falls in the time the debugger held it.
  @Test func detachingTimesTheProcessFromNow() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.attachDebugger, to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(100)
    #expect(sim.app("mail").backgroundTasks.map(\.expiresAt) == [nil])
    let detach = try sim.post(.detachDebugger, to: "mail")
    #expect(detach.callbacks.isEmpty && detach.transitions.isEmpty)
    #expect(sim.app("mail").backgroundTasks.map(\.expiresAt) == [.seconds(130)])
    try sim.post(.endBackgroundTask(id: 1), to: "mail")
    #expect(sim.app("mail").suspendAt == .seconds(102))
  }

  /// The debugger is attached to a process: a new process starts without it. Jetsam still
  /// kills a debugged process.
  @Test func theDebuggerEndsWithItsProcess() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.attachDebugger, to: "mail")
    try sim.post(.purge(.perProcessLimit), to: "mail")
    #expect(sim.state("mail") == .notRunning && !sim.app("mail").debuggerAttached)
    try sim.post(.launch(), to: "mail")
    #expect(!sim.app("mail").debuggerAttached)
  }

  @Test func attachingAndDetachingAreRefusedWhereTheyMeanNothing() throws {
    sim.add("mail")
    #expect(refusal { try sim.post(.attachDebugger, to: "mail") }?.reason == .notAllowedInState)
    try sim.post(.launch(), to: "mail")
    #expect(refusal { try sim.post(.detachDebugger, to: "mail") }?.reason == .notAllowedInState)
    try sim.post(.attachDebugger, to: "mail")
    #expect(refusal { try sim.post(.attachDebugger, to: "mail") }?.reason == .notAllowedInState)
  }
}
