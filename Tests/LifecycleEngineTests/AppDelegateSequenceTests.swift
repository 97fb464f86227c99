import Testing

@testable import LifecycleEngine

/// Reference section 2, model (a): app-delegate apps. One test per row, named after it.
@Suite struct AppDelegateSequenceTests {
  let sim = Simulator()

  init() {
    sim.add("mail", .appDelegate, modes: [.fetch])
    sim.add("maps", .appDelegate)
    sim.add("radio", .appDelegate, modes: [.fetch, .remoteNotification, .location, .processing])
  }

  @Test func coldLaunchByUser() throws {
    let outcome = try sim.post(.launch(), to: "mail")
    #expect(
      trace(outcome) == [
        "application(_:willFinishLaunchingWithOptions:) → inactive",
        "application(_:didFinishLaunchingWithOptions:) → inactive [UIApplication.didFinishLaunchingNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
    #expect(
      transitions(outcome) == [
        "mail: notRunning → inactive (launch)", "mail: inactive → active (launch)",
      ])
    #expect(outcome.callbacks.allSatisfy { $0.scene == nil && $0.sceneState == nil })
  }

  /// A push or location services pass launch options (`UIApplication.LaunchOptionsKey`
  /// `.remoteNotification`, with the payload, and `.location`); the other reasons none.
  @Test(arguments: [
    (
      BackgroundLaunchReason.fetch, "",
      "application(_:performFetchWithCompletionHandler:) → background task 1"
    ),
    (
      .remoteNotification, #" {options: push {"aps":{"content-available":1}}}"#,
      #"application(_:didReceiveRemoteNotification:fetchCompletionHandler:) → background task 1 {userInfo: {"aps":{"content-available":1}}}"#
    ),
    (.location, " {options: location}", "locationManager(_:didUpdateLocations:) → background"),
    (.processing, "", "BGTaskScheduler.launchHandler(_:) → background task 1"),
  ])
  func launchIntoBackground_2_2a(
    reason: BackgroundLaunchReason, options: String, work: String
  ) throws {
    if reason == .processing { try sim.post(.lock) }  // processing tasks wait for an idle device
    let outcome = try sim.post(.backgroundLaunch(reason), to: "radio")
    #expect(
      trace(outcome) == [
        "application(_:willFinishLaunchingWithOptions:) → background" + options,
        "application(_:didFinishLaunchingWithOptions:) → background [UIApplication.didFinishLaunchingNotification]"
          + options,
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
        work,
      ])
    #expect(transitions(outcome) == ["radio: notRunning → background (backgroundLaunch)"])
  }

  @Test func openedAfterBackgroundLaunch_2_2a() throws {
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    let outcome = try sim.post(.launch(), to: "mail")
    #expect(
      trace(outcome) == [
        "applicationWillEnterForeground(_:) → inactive [UIApplication.willEnterForegroundNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
  }

  @Test func homeFromActive_2_3a() throws {
    try sim.post(.launch(), to: "mail")
    let outcome = try sim.post(.home, to: "mail")
    #expect(
      trace(outcome) == [
        "applicationWillResignActive(_:) → inactive [UIApplication.willResignActiveNotification]",
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
      ])
    #expect(
      transitions(outcome) == [
        "mail: active → inactive (home)", "mail: inactive → background (home)",
      ])
  }

  @Test func switcherOpenedAndDismissed_2_4a() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      trace(try sim.post(.openSwitcher, to: "mail")) == [
        "applicationWillResignActive(_:) → inactive [UIApplication.willResignActiveNotification]"
      ])
    #expect(
      trace(try sim.post(.closeSwitcher, to: "mail")) == [
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]"
      ])
  }

  @Test func anotherAppPickedInSwitcher_2_4a() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.openSwitcher, to: "mail")
    let outcome = try sim.post(.launch(), to: "maps")
    #expect(
      trace(outcome) == [
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
        "application(_:willFinishLaunchingWithOptions:) → inactive",
        "application(_:didFinishLaunchingWithOptions:) → inactive [UIApplication.didFinishLaunchingNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
    #expect(outcome.callbacks.map(\.app) == ["mail", "maps", "maps", "maps"])
    #expect(
      outcome.effects(excluding: "maps") == [
        Effect(app: "mail", previousState: .inactive, state: .background)
      ])
  }

  @Test func launchingAnotherAppSendsTheForegroundAppToBackgroundFirst() throws {
    try sim.post(.launch(), to: "mail")
    let outcome = try sim.post(.launch(), to: "maps")
    #expect(
      transitions(outcome) == [
        "mail: active → inactive (launch)", "mail: inactive → background (launch)",
        "maps: notRunning → inactive (launch)", "maps: inactive → active (launch)",
      ])
    #expect(sim.deviceView.foregroundApp == "maps")
  }

  @Test func returnFromBackground_2_5a() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(10)
    #expect(sim.state("mail") == .background)
    let outcome = try sim.post(.launch(), to: "mail")
    #expect(
      trace(outcome) == [
        "applicationWillEnterForeground(_:) → inactive [UIApplication.willEnterForegroundNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
  }

  @Test func returnFromSuspended_2_5a() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    #expect(sim.state("mail") == .suspended)
    let outcome = try sim.post(.launch(), to: "mail")
    #expect(
      trace(outcome) == [
        "applicationWillEnterForeground(_:) → inactive [UIApplication.willEnterForegroundNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
    #expect(
      transitions(outcome) == [
        "mail: suspended → background (launch)", "mail: background → inactive (launch)",
        "mail: inactive → active (launch)",
      ])
  }

  @Test func screenLockAndUnlock_2_6a() throws {
    try sim.post(.launch(), to: "mail")
    let lock = try sim.post(.lock)
    #expect(
      trace(lock) == [
        "applicationWillResignActive(_:) → inactive [UIApplication.willResignActiveNotification]",
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
      ])
    #expect(
      transitions(lock) == [
        "mail: active → inactive (lock)", "mail: inactive → background (lock)",
      ])
    let unlock = try sim.post(.unlock)
    #expect(
      trace(unlock) == [
        "applicationWillEnterForeground(_:) → inactive [UIApplication.willEnterForegroundNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
  }

  @Test func interruptionDeclined_2_7a() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      trace(try sim.post(.interruptionBegan(.call), to: "mail")) == [
        "applicationWillResignActive(_:) → inactive [UIApplication.willResignActiveNotification]"
      ])
    #expect(
      trace(try sim.post(.interruptionEnded(.resumed), to: "mail")) == [
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]"
      ])
  }

  @Test func incomingCallAccepted_2_8a() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.interruptionBegan(.call), to: "mail")
    let outcome = try sim.post(.interruptionEnded(.backgrounded), to: "mail")
    #expect(
      trace(outcome) == [
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]"
      ])
    #expect(sim.deviceView.foregroundApp == nil)
  }

  @Test func memoryWarning() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      trace(try sim.post(.memoryWarning, to: "mail")) == [
        "applicationDidReceiveMemoryWarning(_:) → active [UIApplication.didReceiveMemoryWarningNotification]"
      ])
  }

  @Test func significantTimeChange() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      trace(try sim.post(.significantTimeChange)) == [
        "applicationSignificantTimeChange(_:) → active [UIApplication.significantTimeChangeNotification]"
      ])
  }

  @Test func forceQuitSuspended() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    let outcome = try sim.post(.terminate, to: "mail")
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: suspended → notRunning (terminate)"])
  }

  @Test func forceQuitRunningInBackground() throws {
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      trace(try sim.post(.terminate, to: "mail")) == [
        "applicationWillTerminate(_:) → notRunning [UIApplication.willTerminateNotification]"
      ])
  }

  @Test func forceQuitFrontmostActive_decision3() throws {
    try sim.post(.launch(), to: "mail")
    let outcome = try sim.post(.terminate, to: "mail")
    #expect(
      trace(outcome) == [
        "applicationWillResignActive(_:) → inactive [UIApplication.willResignActiveNotification]",
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
        "applicationWillTerminate(_:) → notRunning [UIApplication.willTerminateNotification]",
      ])
    #expect(
      transitions(outcome) == [
        "mail: active → inactive (terminate)", "mail: inactive → background (terminate)",
        "mail: background → notRunning (terminate)",
      ])
    #expect(sim.deviceView.foregroundApp == nil)
  }

  @Test func forceQuitInactiveInSwitcher() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.openSwitcher, to: "mail")
    #expect(
      trace(try sim.post(.terminate, to: "mail")) == [
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
        "applicationWillTerminate(_:) → notRunning [UIApplication.willTerminateNotification]",
      ])
  }

  @Test func crashIsSilent() throws {
    try sim.post(.launch(), to: "mail")
    let outcome = try sim.post(.crash(), to: "mail")
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: active → notRunning (crash)"])
    #expect(sim.app("mail").kills == 1)
  }

  @Test func purgeOfSuspendedAppIsSilentAndLogged() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    let outcome = try sim.post(.purge(.vmPageshortage), to: "mail")
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: suspended → notRunning (purge)"])
    #expect(
      sim.jetsam == [
        JetsamRecord(
          event: 1, time: .seconds(2), app: "mail", reason: .vmPageshortage, footprintMB: 100,
          state: .suspended)
      ])
  }

  @Test func purgeOfBackgroundRunningAppIsSilent_decision4() throws {
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    let outcome = try sim.post(.purge(.vmPageshortage), to: "mail")
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: background → notRunning (purge)"])
  }
}
