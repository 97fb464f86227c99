import Testing

@testable import LifecycleEngine

/// Requests an app submits to `BGTaskScheduler` (`submit(_:)`, `BGTaskScheduler.Error.Code`),
/// and the debugger's commands that run and expire them ("Starting and Terminating Tasks During
/// Development"), on a device whose policy is `manual`: nothing runs unless launched.
@Suite struct TaskRequestTests {
  let sim = Simulator(passcode: false)

  init() throws {
    sim.add("mail", modes: [.fetch, .processing], permittedTasks: ["refresh", "feed", "cleanup"])
    try sim.post(.launch(), to: "mail")
    try sim.post(.setConditions(ConditionsChange(taskScheduling: .manual)))
  }

  private func submit(
    _ identifier: String, _ kind: TaskKind = .appRefresh, at date: Instant? = nil
  ) throws(EngineError) {
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: identifier, kind: kind, earliestBeginDate: date)),
      to: "mail")
  }

  /// `notPermitted`: the identifier is not in `BGTaskSchedulerPermittedIdentifiers`, or the
  /// kind's background mode is missing.
  @Test func anIdentifierOrModeNotDeclaredIsNotPermitted() throws {
    let unknown = refusal { try submit("upload") }
    #expect(unknown?.reason == .taskRequestNotPermitted(identifier: "upload", missingMode: nil))
    #expect(unknown?.reason.taskSchedulerError == .notPermitted)
    sim.add("notes", permittedTasks: ["refresh"])
    try sim.post(.launch(), to: "notes")
    let noMode = refusal {
      try sim.post(
        .submitTaskRequest(TaskRequest(identifier: "refresh", kind: .appRefresh)), to: "notes")
    }
    #expect(noMode?.reason == .taskRequestNotPermitted(identifier: "refresh", missingMode: .fetch))
    #expect(sim.app("mail").taskRequests.isEmpty && sim.app("notes").taskRequests.isEmpty)
  }

  /// `submit(_:)`: "There can be a total of 1 refresh task and 10 processing tasks scheduled at
  /// any time"; a request for an identifier already pending replaces it.
  @Test func oneRefreshRequestIsPendingAtATimeAndAResubmissionReplacesIt() throws {
    try submit("refresh", at: .seconds(60))
    let second = refusal { try submit("feed") }
    #expect(second?.reason == .tooManyPendingTaskRequests(.appRefresh, limit: 1))
    #expect(second?.reason.taskSchedulerError == .tooManyPendingTaskRequests)
    try submit("refresh", at: .seconds(900))
    #expect(
      sim.app("mail").taskRequests.map(\.request) == [
        TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBeginDate: .seconds(900))
      ])
    try submit("cleanup", .processing)
    #expect(sim.app("mail").taskRequests.map(\.request.identifier) == ["refresh", "cleanup"])
  }

  @Test func tenProcessingRequestsArePendingAtMost() throws {
    let identifiers = (1...11).map { "task\($0)" }
    sim.add("sync", modes: [.processing], permittedTasks: identifiers)
    try sim.post(.launch(), to: "sync")
    for identifier in identifiers.prefix(10) {
      try sim.post(
        .submitTaskRequest(TaskRequest(identifier: identifier, kind: .processing)), to: "sync")
    }
    #expect(
      refusal {
        try sim.post(
          .submitTaskRequest(TaskRequest(identifier: "task11", kind: .processing)), to: "sync")
      }?.reason == .tooManyPendingTaskRequests(.processing, limit: 10))
    #expect(sim.app("sync").taskRequests.count == 10)
  }

  /// `cancel(taskRequestWithIdentifier:)` removes the request; of an identifier with none
  /// pending it does nothing, as in iOS.
  @Test func cancellingRemovesTheRequestAndAnUnknownOneChangesNothing() throws {
    try submit("refresh")
    try sim.post(.cancelTaskRequest(identifier: "feed"), to: "mail")
    #expect(sim.app("mail").taskRequests.count == 1)
    try sim.post(.cancelTaskRequest(identifier: "refresh"), to: "mail")
    #expect(sim.app("mail").taskRequests.isEmpty)
  }

  /// The app's code submits: not while it does not run.
  @Test func onlyARunningAppSubmits() throws {
    try sim.post(.terminate, to: "mail")
    #expect(refusal { try submit("refresh") }?.reason == .notAllowedInState)
  }

  /// The debugger launches a task while the app's force-quit has not ended (its
  /// `applicationWillTerminate` waits behind a slow `didEnterBackground`): as a launch does then,
  /// the system ends that process at once and runs the task in a new one, whose launch handler
  /// comes and whose work stays until it completes or its time is up. (Before, the handler
  /// waited in the old process and was dropped with its exit: a task lost, no kill to say why.)
  @Test func aTaskLaunchedWhileAForceQuitWaitsRunsInANewProcess() throws {
    let sim = Simulator(passcode: false)
    sim.add(
      "sync", .appDelegate, modes: [.processing],
      behavior: AppBehavior(didEnterBackgroundDuration: .milliseconds(2500)),
      permittedTasks: ["cleanup"])
    try sim.post(.setConditions(ConditionsChange(taskScheduling: .manual)))
    try sim.post(.launch(), to: "sync")
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: "cleanup", kind: .processing)), to: "sync")
    try sim.post(.terminate, to: "sync")
    let launch = try sim.post(.launchTask(identifier: "cleanup"), to: "sync")
    #expect(
      launch.transitions.map { "\($0.from)→\($0.to)" } == [
        "background→notRunning", "notRunning→background",
      ])
    // The new process's didEnterBackground is as slow: the launch handler comes after it.
    #expect(
      launch.callbacks.map(\.method) == [
        .willFinishLaunching, .didFinishLaunching, .didEnterBackground,
      ])
    #expect(launch.waitingCallbacks.map(\.method) == [.taskLaunchHandler])
    sim.advance(5)
    #expect(sim.state("sync") == .background)
    #expect(sim.app("sync").backgroundWork.map(\.identifier) == ["cleanup"])
  }

  /// `_simulateLaunchForTaskWithIdentifier:`: the pending request runs now, whatever its date,
  /// and is consumed; its launch handler gets the task's identifier (`BGTask.identifier`).
  @Test func launchingARequestRunsItsTaskAndConsumesIt() throws {
    try submit("refresh", at: .seconds(3600))
    try sim.post(.home, to: "mail")
    sim.advance(2)
    let launch = try sim.post(.launchTask(identifier: "refresh"), to: "mail")
    #expect(
      trace(launch) == [
        "BGTaskScheduler.launchHandler(_:) → background/background task 1 {task: refresh}"
      ])
    #expect(
      launch.result
        == .backgroundWork(
          id: 1, deadline: .seconds(32), bypassed: [.earliestBeginDate(in: .seconds(3598))]))
    #expect(sim.app("mail").taskRequests.isEmpty)
    #expect(sim.app("mail").backgroundWork.map(\.identifier) == ["refresh"])
    #expect(
      refusal { try sim.post(.launchTask(identifier: "refresh"), to: "mail") }?.reason
        == .noTaskRequest(nil))
    // The launch handler resubmits, as Apple's samples do; the same task cannot start again
    // until this one completes.
    try submit("refresh")
    #expect(
      refusal { try sim.post(.launchTask(identifier: "refresh"), to: "mail") }?.reason
        == .backgroundWorkInProgress(.appRefresh))
    try sim.post(.backgroundWorkCompleted(id: 1), to: "mail")
    try sim.post(.launchTask(identifier: "refresh"), to: "mail")
  }

  /// The debugger launches a task in any state, past whatever holds it back, and the result
  /// says what it went past: here a processing task, in the foreground of a device in use.
  /// Its time runs out there too (its expiration handler runs); a foreground app is not
  /// killed for it, but once in the background the late task's kill comes at once.
  @Test func theDebuggerLaunchesATaskInTheForegroundAndSaysWhatItWentPast() throws {
    sim.add(
      "feed", modes: [.processing], behavior: AppBehavior(endsBackgroundTasksOnExpiration: false),
      permittedTasks: ["cleanup"])
    try sim.post(.launch(), to: "feed")
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: "cleanup", kind: .processing)), to: "feed")
    let launch = try sim.post(.launchTask(identifier: "cleanup"), to: "feed")
    #expect(
      trace(launch) == [
        "BGTaskScheduler.launchHandler(_:) → active/foregroundActive task 1 {task: cleanup}"
      ])
    #expect(
      launch.result
        == .backgroundWork(
          id: 1, deadline: .seconds(300), bypassed: [.deviceInUse, .appInForeground]))
    #expect(sim.app("feed").state == .active)
    let expiry = sim.advance(301)
    #expect(trace(expiry) == ["BGTask.expirationHandler → active/foregroundActive task 1"])
    #expect(sim.app("feed").state == .active)
    try sim.post(.home, to: "feed")
    #expect(sim.app("feed").killAt == .seconds(301))
    let kill = sim.advance(0.5)
    #expect(kill.transitions.last?.terminationCode == .backgroundTask)
    #expect(sim.app("feed").state == .notRunning)
  }

  /// `_simulateExpirationForTaskWithIdentifier:`: the task's expiration handler runs now; an
  /// app that does not complete it then is killed after the grace (`0x2182bad2`).
  @Test func expiringATaskRunsItsHandlerNow() throws {
    sim.add(
      "feed", modes: [.fetch], behavior: AppBehavior(endsBackgroundTasksOnExpiration: false),
      permittedTasks: ["refresh"])
    try sim.post(.launch(), to: "feed")
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: "refresh", kind: .appRefresh)), to: "feed")
    try sim.post(.home, to: "feed")
    try sim.post(.launchTask(identifier: "refresh"), to: "feed")
    #expect(
      refusal { try sim.post(.expireTask(identifier: "other"), to: "feed") }?.reason
        == .noRunningTask("other"))
    sim.advance(5)
    #expect(
      trace(try sim.post(.expireTask(identifier: "refresh"), to: "feed")) == [
        "BGTask.expirationHandler → background/background task 1"
      ])
    #expect(
      refusal { try sim.post(.expireTask(identifier: "refresh"), to: "feed") }?.reason
        == .noRunningTask(nil))
    #expect(
      transitions(sim.advance(1)) == [
        "feed: background → notRunning (backgroundWorkTimeout) 0x2182bad2"
      ])
  }

  /// The system keeps a request across the app's processes.
  @Test func aRequestOutlivesTheProcess() throws {
    try submit("refresh")
    try sim.post(.purge(), to: "mail")
    #expect(sim.state("mail") == .notRunning)
    let launch = try sim.post(.launchTask(identifier: "refresh"), to: "mail")
    #expect(
      launch.callbacks.map(\.method) == [
        .willFinishLaunching, .didFinishLaunching, .taskLaunchHandler,
      ])
  }

  @Test func aRefreshRequestRequiresNothing() {
    let issues = engineError {
      try sim.post(
        .submitTaskRequest(
          TaskRequest(identifier: "refresh", kind: .appRefresh, requiresExternalPower: true)),
        to: "mail")
    }
    guard case .invalid(let issues)? = issues else {
      Issue.record("not invalid: \(String(describing: issues))")
      return
    }
    #expect(issues.listed.map(\.field) == ["requiresExternalPower"])
  }
}
