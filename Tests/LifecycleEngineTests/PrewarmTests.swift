import Testing

@testable import LifecycleEngine

/// Prewarming (iOS 15+). Apple's "About the app launch sequence": prewarming "executes an app's
/// launch sequence up until, but not including, when main() calls UIApplicationMain", and the
/// sequence "remains in a paused state until the app launches and the sequence resumes, or the
/// system removes the prewarmed app from memory to reclaim resources".
@Suite struct PrewarmTests {
  let sim = Simulator(passcode: false)

  init() {
    sim.add("mail", .scene, modes: [.fetch])
    sim.add("notes", .appDelegate)
  }

  @Test func aPrewarmedAppIsAPausedProcessThatRunsNoCode() throws {
    let outcome = try sim.post(.prewarm, to: "mail")
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: notRunning → suspended (prewarm)"])
    let app = sim.app("mail")
    #expect(app.prewarmed && app.footprintMB == 100 && app.launches == 0)
    // Not in the app switcher, and no code to crash or to warn; a process a debugger can
    // attach to.
    #expect(app.allowedEvents == [.launch, .purge, .backgroundLaunch, .attachDebugger])
    #expect(refusal { try sim.post(.prewarm, to: "mail") }?.currentState == "suspended")
  }

  @Test(arguments: [LifecycleModel.scene, .appDelegate])
  func theUsersLaunchRunsTheWholeLaunchSequenceInThePrewarmedProcess(model: LifecycleModel)
    throws
  {
    sim.add("cold", model)
    sim.add("warmed", model)
    let cold = trace(try sim.post(.launch(), to: "cold"))
    try sim.post(.terminate, to: "cold")
    try sim.post(.prewarm, to: "warmed")
    let outcome = try sim.post(.launch(), to: "warmed")
    #expect(trace(outcome) == cold)
    #expect(transitions(outcome).first == "warmed: suspended → background (launch)")
    #expect(!sim.app("warmed").prewarmed && sim.app("warmed").launches == 1)
  }

  @Test func aBackgroundLaunchResumesThePausedLaunchInTheBackground() throws {
    try sim.post(.prewarm, to: "mail")
    #expect(
      trace(try sim.post(.backgroundLaunch(.fetch), to: "mail")) == [
        "application(_:willFinishLaunchingWithOptions:) → background/unattached",
        "application(_:didFinishLaunchingWithOptions:) → background/unattached [UIApplication.didFinishLaunchingNotification]",
        "application(_:performFetchWithCompletionHandler:) → background/unattached task 1",
      ])
  }

  @Test func jetsamReclaimsAPrewarmedAppFirstAndItsNextLaunchIsCold() throws {
    try sim.post(.prewarm, to: "mail")
    try sim.post(.purge(), to: "mail")
    #expect(sim.state("mail") == .notRunning && !sim.app("mail").prewarmed)
    #expect(
      trace(try sim.post(.launch(), to: "mail")).first?.hasPrefix("application(_:willFinish")
        == true)
  }

  /// Nothing is queued for code that has not run: the launch reads the device as it is.
  @Test func aPrewarmedAppHasNothingQueuedWhenItLaunches() throws {
    let locked = Simulator()  // with a passcode
    locked.add("mail")
    try locked.post(.prewarm, to: "mail")
    try locked.post(.lock)
    locked.advance(10)
    try locked.post(.significantTimeChange)
    try locked.post(.unlock)
    #expect(!locked.app("mail").significantTimeChangePending)
    let methods = try locked.post(.launch(), to: "mail").callbacks.map(\.method)
    #expect(!methods.contains(.significantTimeChange))
    #expect(!methods.contains(.protectedDataDidBecomeAvailable))
  }

  /// Jetsam's per-process limit holds for a prewarmed process as for a running one (Apple's
  /// "Identifying high-memory use with jetsam event reports": a process over its limit is
  /// terminated, `per-process-limit`): the paused process over it is killed as it is made,
  /// before any of its code runs.
  @Test func aPrewarmedProcessOverThePerProcessLimitIsKilled() throws {
    let sim = Simulator(perAppLimitMB: 120)
    sim.add("warmed", memoryMB: 200, modes: [.fetch])
    let prewarm = try sim.post(.prewarm, to: "warmed")
    #expect(prewarm.callbacks.isEmpty)
    #expect(
      transitions(prewarm) == [
        "warmed: notRunning → suspended (prewarm)", "warmed: suspended → notRunning (jetsam)",
      ])
    #expect(sim.jetsam.map(\.reason) == [.perProcessLimit])
    #expect(sim.jetsam.map(\.state) == [.suspended])
  }
}
