import Testing

@testable import LifecycleEngine

/// Reference section 2, model (b): scene-based apps. One test per row, named after it.
@Suite struct SceneSequenceTests {
  let sim = Simulator()

  init() {
    sim.add("mail", .scene, modes: [.fetch, .remoteNotification])
    sim.add("maps", .scene)
  }

  static let coldLaunch = [
    "application(_:willFinishLaunchingWithOptions:) → background/unattached",
    "application(_:didFinishLaunchingWithOptions:) → background/unattached [UIApplication.didFinishLaunchingNotification]",
    "application(_:configurationForConnecting:options:) → background/unattached",
    "scene(_:willConnectTo:options:)@main → background/unattached [UIScene.willConnectNotification]",
    "sceneWillEnterForeground(_:)@main → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]",
    "sceneDidBecomeActive(_:)@main → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]",
  ]

  static let home = [
    "sceneWillResignActive(_:)@main → inactive/foregroundInactive [UIScene.willDeactivateNotification, UIApplication.willResignActiveNotification]",
    "sceneDidEnterBackground(_:)@main → background/background [UIScene.didEnterBackgroundNotification, UIApplication.didEnterBackgroundNotification]",
  ]

  static let returnToForeground = [
    "sceneWillEnterForeground(_:)@main → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]",
    "sceneDidBecomeActive(_:)@main → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]",
  ]

  @Test func firstColdLaunch() throws {
    let outcome = try sim.post(.launch(), to: "mail")
    #expect(trace(outcome) == Self.coldLaunch)
    #expect(
      transitions(outcome) == [
        "mail: notRunning → background (launch)", "mail: background → inactive (launch)",
        "mail: inactive → active (launch)",
      ])
  }

  @Test func relaunchAfterJetsamRestoresTheSession() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    try sim.post(.purge(), to: "mail")
    let outcome = try sim.post(.launch(), to: "mail")
    #expect(trace(outcome) == Self.coldLaunch.filter { !$0.contains("configurationForConnecting") })
    #expect(sim.app("mail").restorationStateSaved)
  }

  /// Apple, `application(_:didDiscardSceneSessions:)`: "If your app isn't running, UIKit calls
  /// this method the next time your app launches."
  @Test func relaunchAfterForceQuitOfASuspendedAppReportsTheDiscardedSession() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    #expect(trace(try sim.post(.terminate, to: "mail")).isEmpty)
    #expect(!sim.app("mail").restorationStateSaved)
    let outcome = try sim.post(.launch(), to: "mail")
    var expected = Self.coldLaunch
    expected.insert(
      "application(_:didDiscardSceneSessions:) → background/unattached {sessions: main}", at: 2)
    #expect(trace(outcome) == expected)
  }

  @Test func relaunchAfterForceQuitOfARunningAppConnectsANewSession() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.terminate, to: "mail")
    #expect(trace(try sim.post(.launch(), to: "mail")) == Self.coldLaunch)
  }

  /// A push launches the scene app with no launch options ("If the app supports scenes, this
  /// is nil": `application(_:didFinishLaunchingWithOptions:)`) and hands the payload over as
  /// the `userInfo` of `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
  @Test func launchIntoBackgroundConnectsNoScene_2_2b() throws {
    let payload = #"{"aps":{"content-available":1},"mailbox":"inbox"}"#
    let outcome = try sim.post(.backgroundLaunch(.remoteNotification, payload: payload), to: "mail")
    #expect(
      trace(outcome) == [
        "application(_:willFinishLaunchingWithOptions:) → background/unattached",
        "application(_:didFinishLaunchingWithOptions:) → background/unattached [UIApplication.didFinishLaunchingNotification]",
        "application(_:didReceiveRemoteNotification:fetchCompletionHandler:) → background/unattached task 1 {userInfo: \(payload)}",
      ])
  }

  @Test func openedAfterBackgroundLaunchConnectsItsScene_2_5b() throws {
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      trace(try sim.post(.launch(), to: "mail")) == [
        "application(_:configurationForConnecting:options:) → background/unattached",
        "scene(_:willConnectTo:options:)@main → background/unattached [UIScene.willConnectNotification]",
      ] + Self.returnToForeground)
  }

  @Test func homeFromActive_2_3b() throws {
    try sim.post(.launch(), to: "mail")
    #expect(trace(try sim.post(.home, to: "mail")) == Self.home)
  }

  @Test func switcherOpenedAndDismissed_2_4b() throws {
    try sim.post(.launch(), to: "mail")
    #expect(trace(try sim.post(.openSwitcher, to: "mail")) == [Self.home[0]])
    #expect(trace(try sim.post(.closeSwitcher, to: "mail")) == [Self.returnToForeground[1]])
  }

  @Test func returnFromSuspended_2_5b() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    #expect(sim.app("mail").sceneState == .suspended)
    #expect(trace(try sim.post(.launch(), to: "mail")) == Self.returnToForeground)
  }

  @Test func screenLockAndUnlock_decision2() throws {
    try sim.post(.launch(), to: "mail")
    #expect(trace(try sim.post(.lock)) == Self.home)
    #expect(trace(try sim.post(.unlock)) == Self.returnToForeground)
  }

  /// With a passcode, protected data locks down `protectedDataLockDelaySeconds` after the lock
  /// (Apple: "shortly before protected files are locked down"); an app running then is told,
  /// and told first at the unlock that it is back.
  @Test func protectedDataLocksDownAfterTheDelayAndComesBackFirstAtUnlock() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.lock)
    #expect(sim.deviceView.protectedDataLocksAt == .seconds(10))
    #expect(sim.advance(9.999).callbacks.isEmpty)
    let lockdown = sim.advance(0.001)
    #expect(
      trace(lockdown) == [
        "applicationProtectedDataWillBecomeUnavailable(_:) → background/background [UIApplication.protectedDataWillBecomeUnavailableNotification]"
      ])
    #expect(lockdown.callbacks.map(\.time) == [.seconds(10)])
    #expect(!sim.deviceView.protectedDataAvailable)
    #expect(
      trace(try sim.post(.unlock)) == [
        "applicationProtectedDataDidBecomeAvailable(_:) → background/background [UIApplication.protectedDataDidBecomeAvailableNotification]"
      ] + Self.returnToForeground)
    #expect(sim.deviceView.protectedDataAvailable)
  }

  @Test func anUnlockWithinTheDelayLeavesProtectedDataAlone() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.lock)
    sim.advance(5)
    #expect(trace(try sim.post(.unlock)) == Self.returnToForeground)
    #expect(sim.deviceView.protectedDataLocksAt == nil)
    #expect(sim.advance(10).callbacks.isEmpty)
  }

  @Test func interruptionDeclined_2_7b() throws {
    try sim.post(.launch(), to: "mail")
    #expect(trace(try sim.post(.interruptionBegan(.alert), to: "mail")) == [Self.home[0]])
    #expect(trace(try sim.post(.interruptionEnded(), to: "mail")) == [Self.returnToForeground[1]])
  }

  @Test func incomingCallAccepted_2_8b() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.interruptionBegan(.call), to: "mail")
    #expect(trace(try sim.post(.interruptionEnded(.backgrounded), to: "mail")) == [Self.home[1]])
  }

  /// A running app is told at once that its session is gone (Apple's
  /// `application(_:didDiscardSceneSessions:)` documentation), before it terminates.
  @Test func forceQuitFrontmostActive_decision3() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      trace(try sim.post(.terminate, to: "mail")) == [
        Self.home[0],
        "sceneDidDisconnect(_:)@main → background/unattached [UIScene.didDisconnectNotification, UIApplication.didEnterBackgroundNotification]",
        "application(_:didDiscardSceneSessions:) → background/unattached {sessions: main}",
        "applicationWillTerminate(_:) → notRunning/unattached [UIApplication.willTerminateNotification]",
      ])
  }

  @Test func forceQuitRunningInBackground() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(
      trace(try sim.post(.terminate, to: "mail")) == [
        "sceneDidDisconnect(_:)@main → background/unattached [UIScene.didDisconnectNotification]",
        "application(_:didDiscardSceneSessions:) → background/unattached {sessions: main}",
        "applicationWillTerminate(_:) → notRunning/unattached [UIApplication.willTerminateNotification]",
      ])
  }

  @Test func forceQuitBackgroundLaunchedAppWithoutScene() throws {
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      trace(try sim.post(.terminate, to: "mail")) == [
        "applicationWillTerminate(_:) → notRunning/unattached [UIApplication.willTerminateNotification]"
      ])
  }

  @Test func memoryWarningKeepsTheState() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      trace(try sim.post(.memoryWarning, to: "mail")) == [
        "applicationDidReceiveMemoryWarning(_:) → active/foregroundActive [UIApplication.didReceiveMemoryWarningNotification]"
      ])
  }
}
