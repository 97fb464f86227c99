import Testing

@testable import LifecycleEngine

/// What the next launch learns: a crash reporter records at launch what the process runs with
/// and compares it at the next, to tell a watchdog or memory kill from an update, a reboot, a
/// reinstall, a debugger, a user's exit or a crash (Sentry's watchdog-termination heuristic
/// stands down on each of these). Each branch is a scenario here.
@Suite struct NextLaunchTests {
  let sim = Simulator(passcode: false)

  init() {
    sim.add("mail")
  }

  private var last: Termination? { sim.app("mail").lastTermination }

  /// A kill in the foreground with nothing else changed: the case the heuristic reports.
  @Test func aKillInTheForegroundChangesNothingButTheProcess() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.purge(.perProcessLimit), to: "mail")
    let app = sim.app("mail")
    #expect(last?.endedBy == .system && last?.state == .active)
    #expect(
      last?.ranWith
        == RunContext(
          appVersion: "1.0", build: "1", osVersion: "26.1", bootSession: 1, installation: 1,
          debuggerAttached: false))
    #expect(app.version == "1.0" && app.installation == 1 && sim.deviceView.bootSession == 1)
  }

  @Test func anUpdateOfTheAppShowsAsANewVersion() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.purge(.perProcessLimit), to: "mail")
    try sim.post(.updateApp(version: "2.1", build: "40"), to: "mail")
    #expect(sim.app("mail").version == "2.1" && sim.app("mail").build == "40")
    #expect(last?.ranWith?.appVersion == "1.0" && last?.ranWith?.build == "1")
    try sim.post(.updateApp(version: "2.2"), to: "mail")
    #expect(sim.app("mail").version == "2.2" && sim.app("mail").build == "40")
  }

  @Test func anUpdateNeedsTheAppNotRunning() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      refusal { try sim.post(.updateApp(version: "2.0"), to: "mail") }?.reason
        == .notAllowedInState)
    #expect(refusal { try sim.post(.reinstall, to: "mail") }?.reason == .notAllowedInState)
  }

  @Test func anUpdateOfTheOSIsInstalledWhileTheDeviceIsOff() throws {
    try sim.post(.launch(), to: "mail")
    #expect(refusal { try sim.post(.updateOS(version: "26.4")) }?.reason == .deviceOn)
    try sim.post(.shutdown)
    #expect(last?.endedBy == .user && last?.ranWith?.osVersion == "26.1")
    try sim.post(.updateOS(version: "26.4"))
    #expect(sim.deviceView.osVersion == "26.4" && sim.deviceView.bootSession == 1)
    try sim.post(.boot)
    #expect(sim.deviceView.bootSession == 2)
    try sim.post(.unlock)
    try sim.post(.launch(), to: "mail")
    try sim.post(.crash(), to: "mail")
    #expect(last?.endedBy == .app)
    #expect(last?.ranWith?.osVersion == "26.4" && last?.ranWith?.bootSession == 2)
  }

  /// A reinstall is a new installation: a new identifierForVendor, and nothing the system kept
  /// of the old one, its last termination included.
  @Test func aReinstallIsANewInstallationWithANewVendorIdentifier() throws {
    sim.add("sync", modes: [.fetch], permittedTasks: ["refresh"])
    try sim.post(.setConditions(ConditionsChange(taskScheduling: .manual)))  // it stays pending
    try sim.post(.launch(), to: "sync")
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: "refresh", kind: .appRefresh)), to: "sync")
    try sim.post(.crash(), to: "sync")
    let before = sim.app("sync")
    #expect(before.lastTermination != nil && before.taskRequests.count == 1)
    let reinstall = try sim.post(.reinstall, to: "sync")
    #expect(reinstall.callbacks.isEmpty && reinstall.transitions.isEmpty)
    let after = sim.app("sync")
    #expect(after.installation == 2 && after.identifierForVendor != before.identifierForVendor)
    #expect(after.lastTermination == nil && after.taskRequests.isEmpty)
    #expect(after.pendingExits == ExitCounts() && after.launches == before.launches)
    #expect(sim.deviceView.nextDeadline == nil)
  }

  /// The identifier is a UUID, the same for every process of one installation.
  @Test func theVendorIdentifierIsAUUIDOfTheInstallation() throws {
    let first = sim.app("mail").identifierForVendor
    #expect(first.count == 36 && first.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
    #expect(first.split(separator: "-")[2].first == "4")
    try sim.post(.launch(), to: "mail")
    try sim.post(.crash(), to: "mail")
    #expect(sim.app("mail").identifierForVendor == first)
    sim.add("notes")
    #expect(sim.app("notes").identifierForVendor != first)
  }

  @Test func aDebuggerAttachedIsRecorded() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.attachDebugger, to: "mail")
    try sim.post(.terminate, to: "mail")
    #expect(last?.endedBy == .user && last?.ranWith?.debuggerAttached == true)
  }
}
