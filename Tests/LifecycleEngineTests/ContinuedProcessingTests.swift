import Testing

@testable import LifecycleEngine

/// iOS 26's continued-processing tasks ("Performing long-running tasks on iOS and iPadOS",
/// `BGContinuedProcessingTask`, `BGContinuedProcessingTaskRequest.SubmissionStrategy`): a
/// person starts one in the app, it runs at once or waits in the queue, goes on in the
/// background until the app completes it, and the system stops the ones with the least
/// progress when it needs room.
@Suite struct ContinuedProcessingTests {
  let sim = Simulator(passcode: false)

  init() throws {
    for name in ["editor", "photos", "studio"] {
      sim.add(name, permittedTasks: ["\(name).export"])
    }
  }

  private static func request(
    _ identifier: String, _ strategy: SubmissionStrategy? = nil
  ) -> AppEvent {
    .submitTaskRequest(
      TaskRequest(identifier: identifier, kind: .continuedProcessing, strategy: strategy))
  }

  /// Launches `app` and submits its export, which the system has room for.
  @discardableResult
  private func start(_ app: String) throws -> EventOutcome {
    try sim.post(.launch(), to: app)
    return try sim.post(Self.request("\(app).export"), to: app)
  }

  /// "Unlike other BGTask subclasses, BGContinuedProcessingTask starts in the foreground":
  /// the launch handler runs at once in the active app, which needs no background mode; the
  /// task has no deadline and keeps the app running in the background until it completes.
  @Test func aTaskStartsInTheForegroundAndRunsInTheBackgroundUntilCompleted() throws {
    let submit = try start("editor")
    #expect(submit.callbacks.map(\.method) == [.taskLaunchHandler])
    #expect(submit.callbacks.first?.taskId == 1)
    #expect(submit.callbacks.first?.arguments == .taskIdentifier("editor.export"))
    #expect(submit.result == .backgroundWork(id: 1, deadline: nil))
    #expect(sim.app("editor").taskRequests.isEmpty)
    try sim.post(.home, to: "editor")
    sim.advance(3600)
    #expect(sim.state("editor") == .background)
    #expect(
      sim.app("editor").backgroundWork == [
        BackgroundWorkSnapshot(
          id: 1, reason: .continuedProcessing, identifier: "editor.export", deadline: nil)
      ])
    try sim.post(.backgroundWorkCompleted(id: 1), to: "editor")
    sim.advance(2)
    #expect(sim.state("editor") == .suspended)
  }

  /// Coming back to the foreground ends the work of a background launch, not a task a person
  /// started there.
  @Test func theTaskGoesOnWhenTheAppComesBack() throws {
    try start("editor")
    try sim.post(.home, to: "editor")
    try sim.post(.launch(), to: "editor")
    #expect(sim.app("editor").backgroundWork.map(\.id) == [1])
  }

  /// The task is submitted "in response to someone's action": by the active app only, and on
  /// iOS 26 or later (`BGContinuedProcessingTaskRequest` is "iOS 26.0+").
  @Test func onlyTheActiveAppOnIOS26Submits() throws {
    try sim.post(.launch(), to: "editor")
    try sim.post(.home, to: "editor")
    #expect(
      refusal { try sim.post(Self.request("editor.export"), to: "editor") }?.reason
        == .continuedTaskNotFromForeground)
    let engine = sim.engine
    _ = try engine.createDevice("old") {
      $0.initialOSVersion = "18.0"
      $0.clock = .manual
    }
    _ = try engine.createApp(
      AppSpec(name: "editor", permittedTaskIdentifiers: ["x"]), on: "old", now: .zero)
    _ = try engine.apply(.launch(), to: "editor", on: "old", now: .zero)
    let refused = refusal {
      try engine.apply(Self.request("x"), to: "editor", on: "old", now: .zero)
    }
    #expect(
      refused?.reason == .notInOSVersion("18.0", what: "BGContinuedProcessingTask", since: 26))
    #expect(
      refused?.reason.detail == "iOS 18.0 has no BGContinuedProcessingTask: it arrived with iOS 26")
  }

  /// `queue`, the default, "adds the task request to the back of a queue. The system runs the
  /// task as soon as possible": when a running task ends, the request that queued first
  /// starts, whichever app's it is, the journal saying the system launched it.
  @Test func queuedRequestsStartInTheOrderTheyQueuedWhenARunningTaskEnds() throws {
    try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 1)))
    try start("editor")
    let queued = try start("studio")
    #expect(queued.callbacks.isEmpty && queued.result == nil)
    try start("photos")
    let pending = try #require(sim.app("studio").taskRequests.first)
    #expect(pending.heldBy == [.noRoomForContinuedTask(capacity: 1)])
    #expect(pending.request.strategy == .queue)
    let places = ["studio", "photos"].map { sim.app($0).taskRequests.first?.request.queuedAtSeq }
    #expect(places[0].map { first in places[1].map { first < $0 } ?? false } ?? false)
    let completed = try sim.post(.backgroundWorkCompleted(id: 1), to: "editor")
    #expect(
      completed.callbacks.map { "\($0.app) \($0.method)" } == [
        "studio \(CallbackMethod.taskLaunchHandler)"
      ])
    #expect(sim.app("studio").taskRequests.isEmpty)
    #expect(sim.app("studio").backgroundWork.map(\.reason) == [.continuedProcessing])
    #expect(sim.app("photos").taskRequests.count == 1)
    let events = try sim.engine.journal(of: sim.device, now: .zero).entries.compactMap {
      entry -> String? in
      guard case .event(_, _, let app?, .app(let event)) = entry else { return nil }
      return "\(app) \(event.type)"
    }
    #expect(events.suffix(2) == ["editor backgroundWorkCompleted", "studio launchTask"])
  }

  /// `fail`: "The system cancels a fail task right away if it can't begin processing the task
  /// immediately": `submit(_:)` throws `immediateRunIneligible`, and nothing is queued.
  @Test func aFailRequestWithNoRoomIsRefused() throws {
    try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 0)))
    try sim.post(.launch(), to: "editor")
    let refused = refusal { try sim.post(Self.request("editor.export", .fail), to: "editor") }
    #expect(refused?.reason == .immediateRunIneligible)
    #expect(refused?.reason.taskSchedulerError == .immediateRunIneligible)
    #expect(sim.app("editor").taskRequests.isEmpty)
    try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 1)))
    let started = try sim.post(Self.request("editor.export", .fail), to: "editor")
    #expect(started.callbacks.map(\.method) == [.taskLaunchHandler])
  }

  /// "The system prioritizes the termination of tasks that reflect minimal or no progress,
  /// when resources become constrained": less room stops the least advanced first (a task
  /// that never reported counts as none), their expiration handlers running.
  @Test func lessRoomStopsTheTasksWithTheLeastProgress() throws {
    try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 3)))
    for app in ["editor", "photos", "studio"] { try start(app) }
    try sim.post(
      .reportProgress(
        identifier: "editor.export", TaskProgress(completedUnitCount: 5, totalUnitCount: 10)),
      to: "editor")
    try sim.post(
      .reportProgress(
        identifier: "studio.export", TaskProgress(completedUnitCount: 1, totalUnitCount: 10)),
      to: "studio")
    let constrained = try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 1)))
    #expect(
      constrained.callbacks.map { "\($0.app) \($0.method)" } == [
        "photos \(CallbackMethod.taskExpirationHandler)",
        "studio \(CallbackMethod.taskExpirationHandler)",
      ])
    #expect(sim.app("editor").backgroundWork.first?.progress?.completedUnitCount == 5)
  }

  /// "The system cancels queued BGContinuedProcessingTaskRequest objects if someone closes
  /// your app using the app switcher"; lifecycled drops them with any end of the process.
  @Test func theProcessEndingCancelsItsQueuedRequests() throws {
    try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 0)))
    try start("editor")
    try start("photos")
    try sim.post(.terminate, to: "editor")
    try sim.post(.crash(), to: "photos")
    #expect(sim.app("editor").taskRequests.isEmpty && sim.app("photos").taskRequests.isEmpty)
    let roomy = try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 2)))
    #expect(roomy.callbacks.isEmpty)
  }

  /// A person started the task: neither the scheduling policy nor the conditions that hold
  /// background launches back hold it.
  @Test func manualSchedulingAndLowPowerModeHoldNothingBack() throws {
    try sim.post(
      .setConditions(
        ConditionsChange(
          lowPowerMode: true, taskScheduling: .manual, continuedProcessingCapacity: 1)))
    #expect(try start("editor").callbacks.map(\.method) == [.taskLaunchHandler])
    try start("photos")
    let completed = try sim.post(.backgroundWorkCompleted(id: 1), to: "editor")
    #expect(completed.callbacks.map(\.method) == [.taskLaunchHandler])
  }

  /// At most 10 requests of an app wait in the queue: lifecycled's bound, which its refusal
  /// says is not Apple's.
  @Test func tenRequestsOfAnAppWaitAtMost() throws {
    let identifiers = (1...11).map { "export\($0)" }
    sim.add("batch", permittedTasks: identifiers)
    try sim.post(.setConditions(ConditionsChange(continuedProcessingCapacity: 0)))
    try sim.post(.launch(), to: "batch")
    for identifier in identifiers.prefix(10) { try sim.post(Self.request(identifier), to: "batch") }
    let refused = refusal { try sim.post(Self.request("export11"), to: "batch") }
    #expect(refused?.reason == .tooManyPendingTaskRequests(.continuedProcessing, limit: 10))
    #expect(
      refused?.reason.detail
        == "the app already has 10 continuedProcessing requests queued, the most lifecycled "
        + "keeps (Apple documents no number)")
    #expect(sim.app("batch").taskRequests.count == 10)
  }

  /// Progress is the running task's own; without one, or past its total, nothing changes.
  @Test func progressIsReportedByARunningTaskOnly() throws {
    try sim.post(.launch(), to: "editor")
    let progress = TaskProgress(completedUnitCount: 1, totalUnitCount: 4)
    #expect(
      refusal {
        try sim.post(.reportProgress(identifier: "editor.export", progress), to: "editor")
      }?
      .reason == .noContinuedTask(nil))
    try sim.post(Self.request("editor.export"), to: "editor")
    #expect(
      refusal { try sim.post(.reportProgress(identifier: "other", progress), to: "editor") }?
        .reason == .noContinuedTask("other"))
    #expect(throws: EngineError.self) {
      try sim.post(
        .reportProgress(
          identifier: "editor.export", TaskProgress(completedUnitCount: 5, totalUnitCount: 4)),
        to: "editor")
    }
    try sim.post(.reportProgress(identifier: "editor.export", progress), to: "editor")
    #expect(sim.app("editor").backgroundWork.first?.progress == progress)
  }
}
