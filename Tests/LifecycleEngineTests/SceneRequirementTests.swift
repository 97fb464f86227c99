import Testing

@testable import LifecycleEngine

/// iOS 27's requirement (TN3187: "In the next major release following iOS 26, UIScene
/// lifecycle will be required when building with the latest SDK; otherwise, your app won't
/// launch"): an app-delegate app built with the iOS 27 SDK traps at every launch, before any
/// callback; built with an earlier SDK, or on an earlier release, it launches as before.
@Suite struct SceneRequirementTests {
  let sim = Simulator(passcode: false, osVersion: "27.0")

  /// The trap as its crash report shows it: `EXC_BREAKPOINT (SIGTRAP)`, code 1.
  private static let trap = "at 0 v1.0 Namespace SIGNAL, Code 0x5 (signal 5)"

  @Test func anAppDelegateAppBuiltWithTheIOS27SDKTrapsAtEveryLaunch() throws {
    sim.add("legacy", .appDelegate, sdkVersion: 27)
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    let launch = try sim.post(.launch(), to: "legacy")
    // The user left mail for it: mail goes, and the app's process starts and ends.
    #expect(
      trace(launch) == [
        "sceneWillResignActive(_:)@main → inactive/foregroundInactive "
          + "[UIScene.willDeactivateNotification, UIApplication.willResignActiveNotification]",
        "sceneDidEnterBackground(_:)@main → background/background "
          + "[UIScene.didEnterBackgroundNotification, UIApplication.didEnterBackgroundNotification]",
      ])
    #expect(launch.callbacks.allSatisfy { $0.app == "mail" })
    #expect(
      transitions(launch).filter { $0.hasPrefix("legacy") } == [
        "legacy: notRunning → background (launch)",
        "legacy: background → notRunning (sceneLifecycleRequired)",
      ])
    let app = sim.app("legacy")
    #expect(app.state == .notRunning && app.launches == 1 && app.kills == 1)
    #expect(describe(app.pendingExits) == "foreground abnormal 1")
    #expect(app.diagnosticPayloads.map(describe) == [Self.trap])
    let crash = app.diagnosticPayloads[0].crashDiagnostics[0]
    #expect(crash.exceptionType == 6 && crash.exceptionCode == 1)
    #expect(crash.metaData.osVersion == "iPhone OS 27.0 (24A437)")

    let again = try sim.post(.launch(), to: "legacy")
    #expect(again.callbacks.isEmpty && sim.state("legacy") == .notRunning)
    #expect(describe(sim.app("legacy").pendingExits) == "foreground abnormal 2")
  }

  /// The assertion needs both the SDK and the release, and holds app-delegate apps alone.
  @Test func anEarlierSDKAnEarlierReleaseOrAScenesAppLaunches() throws {
    let cases: [(osVersion: String, lifecycle: LifecycleModel, sdkVersion: Int)] = [
      ("27.0", .appDelegate, 26), ("26.1", .appDelegate, 27), ("27.0", .scene, 27),
    ]
    for (index, (osVersion, lifecycle, sdkVersion)) in cases.enumerated() {
      let sim = Simulator(passcode: false, osVersion: osVersion)
      sim.add("app", lifecycle, sdkVersion: sdkVersion)
      let launch = try sim.post(.launch(), to: "app")
      #expect(launch.callbacks.first?.method == .willFinishLaunching, "case \(index)")
      #expect(sim.state("app") == .active, "case \(index)")
    }
  }

  /// A launch in the background traps as well, and counts as a background exit; the work it
  /// was launched for never starts: a push is delivered to a process that ends.
  @Test func aLaunchInTheBackgroundTraps() throws {
    sim.add("legacy", .appDelegate, modes: [.fetch, .remoteNotification], sdkVersion: 27)
    let fetch = try sim.post(.backgroundLaunch(.fetch), to: "legacy")
    #expect(fetch.callbacks.isEmpty && fetch.result == nil)
    #expect(sim.state("legacy") == .notRunning && sim.app("legacy").backgroundWork.isEmpty)
    #expect(describe(sim.app("legacy").pendingExits) == "background abnormal 1")
    let push = try sim.post(.push(app: "legacy", .background, payload: nil))
    #expect(push.callbacks.isEmpty && push.result == .push(.delivered(workId: nil)))
    #expect(describe(sim.app("legacy").pendingExits) == "background abnormal 2")
  }

  /// Prewarming stops before `UIApplicationMain` ("About the app launch sequence"), where the
  /// assertion is: the app prewarms, and the launch that follows traps.
  @Test func aPrewarmedAppTrapsWhenTheUserLaunchesIt() throws {
    sim.add("legacy", .appDelegate, sdkVersion: 27)
    try sim.post(.prewarm, to: "legacy")
    #expect(sim.state("legacy") == .suspended)
    let launch = try sim.post(.launch(), to: "legacy")
    #expect(launch.callbacks.isEmpty)
    #expect(
      transitions(launch) == [
        "legacy: suspended → background (launch)",
        "legacy: background → notRunning (sceneLifecycleRequired)",
      ])
    #expect(sim.app("legacy").prewarmed == false)
  }

  /// A request submitted on iOS 26 outlives the update to 27: when the system runs it, at
  /// boot, or when `launchTask` does, the launch traps and the request is spent, with no work
  /// to complete.
  @Test(arguments: [TaskSchedulingPolicy.eager, .manual])
  func aTaskRequestFromBeforeTheUpdateIsSpentOnTheTrap(scheduling: TaskSchedulingPolicy) throws {
    let sim = Simulator(passcode: false, osVersion: "26.1")
    sim.add("legacy", .appDelegate, modes: [.fetch], permittedTasks: ["refresh"], sdkVersion: 27)
    try sim.post(.setConditions(ConditionsChange(taskScheduling: scheduling)))
    try sim.post(.launch(), to: "legacy")
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: "refresh", kind: .appRefresh)), to: "legacy")
    try sim.post(.shutdown)
    try sim.post(.updateOS(version: "27.0"))
    var run = try sim.post(.boot)
    if scheduling == .manual {
      #expect(run.transitions.isEmpty)
      run = try sim.post(.launchTask(identifier: "refresh"), to: "legacy")
    }
    #expect(
      transitions(run) == [
        "legacy: notRunning → background (launchTask)",
        "legacy: background → notRunning (sceneLifecycleRequired)",
      ])
    #expect(run.callbacks.isEmpty && run.result == nil)
    #expect(sim.app("legacy").taskRequests.isEmpty && sim.state("legacy") == .notRunning)
  }

  /// No process of such an app can exist on iOS 27: an image that holds one is refused.
  @Test func anImageOfItsProcessOnIOS27IsRefused() throws {
    let sim = Simulator(passcode: false, osVersion: "26.1")
    sim.add("legacy", .appDelegate, sdkVersion: 27)
    try sim.post(.launch(), to: "legacy")
    var image = try sim.engine.image(of: sim.device, now: .zero)
    image.id = "copy"
    image.status.osVersion = "27.0"
    #expect(
      engineError { try sim.engine.restore(image, now: .zero) }
        == .invalid([
          ValidationIssue(
            field: "apps[0].process.state",
            message: "cannot be a running or suspended state: an appDelegate app built with "
              + "sdkVersion 27 or later does not launch on iOS 27 or later (a prewarmed "
              + "process excepted)")
        ]))
  }
}
