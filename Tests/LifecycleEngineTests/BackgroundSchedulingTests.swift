import Testing

@testable import LifecycleEngine

/// The system decides: pending task requests run under the `eager` policy once nothing holds
/// them back, each reason said in words ("why hasn't my task run?"), and background pushes are
/// delivered or dropped by the same conditions and a budget (WWDC 2020, "Background execution
/// demystified"; "Pushing background updates to your App").
@Suite struct BackgroundSchedulingTests {
  let sim = Simulator(passcode: false)

  init() throws {
    sim.add(
      "mail", modes: [.fetch, .processing, .remoteNotification],
      permittedTasks: ["refresh", "cleanup"])
    try sim.post(.launch(), to: "mail")
  }

  private func submit(_ request: TaskRequest) throws(EngineError) {
    try sim.post(.submitTaskRequest(request), to: "mail")
  }

  private func heldBy(_ index: Int = 0) -> [String] {
    sim.app("mail").taskRequests[index].heldBy.map(\.detail)
  }

  /// A refresh request runs at its `earliestBeginDate` once the app is in the background: the
  /// suspended app is woken, its launch handler gets the identifier, and the journal records
  /// the system's `launchTask`.
  @Test func aDueRequestRunsAtItsDate() throws {
    try submit(
      TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBeginDate: .seconds(600)))
    #expect(
      heldBy() == [
        "earliestBeginDate is 600 s away",
        "the app is in the foreground: its tasks run in the background",
      ])
    try sim.post(.home, to: "mail")
    sim.advance(260)
    #expect(sim.state("mail") == .suspended)
    #expect(heldBy() == ["earliestBeginDate is 340 s away"])
    #expect(sim.deviceView.nextDeadline == .seconds(600))
    let run = sim.advance(340)
    #expect(
      trace(run) == [
        "BGTaskScheduler.launchHandler(_:) → background/background task 1 {task: refresh}"
      ])
    #expect(run.callbacks.first?.time == .seconds(600))
    #expect(transitions(run) == ["mail: suspended → background (launchTask)"])
    #expect(sim.app("mail").taskRequests.isEmpty)
    let recorded = sim.journal.last { entry in
      guard case .event = entry else { return false }
      return entry.seq < run.callbacks[0].seq
    }
    guard case .event(_, _, let app, let event)? = recorded else {
      Issue.record("no event before the launch handler")
      return
    }
    #expect(app == "mail")
    #expect(event == .app(.launchTask(identifier: "refresh")))
  }

  /// While the device holds every request (Low Power Mode here), a request's date is no
  /// deadline: passing it releases nothing, so the clock does not stop there. Once the hold
  /// ends, a request already due runs at once and the next one runs at its date.
  @Test func datesAreNoDeadlinesWhileTheDeviceHoldsEveryRequest() throws {
    try submit(
      TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBeginDate: .seconds(600)))
    try submit(
      TaskRequest(identifier: "cleanup", kind: .processing, earliestBeginDate: .seconds(2_000)))
    try sim.post(.home, to: "mail")
    sim.advance(10)
    #expect(sim.deviceView.nextDeadline == .seconds(600))
    try sim.post(.setConditions(ConditionsChange(lowPowerMode: true)))
    #expect(sim.deviceView.nextDeadline == nil)
    #expect(sim.advance(1_000).callbacks.isEmpty)
    #expect(heldBy(0) == ["Low Power Mode is on"])
    let released = try sim.post(.setConditions(ConditionsChange(lowPowerMode: false)))
    #expect(
      trace(released) == [
        "BGTaskScheduler.launchHandler(_:) → background/background task 1 {task: refresh}"
      ])
    try sim.post(.lock)
    let cleanup = sim.advance(1_000).callbacks.filter { $0.method == .taskLaunchHandler }
    #expect(cleanup.map(\.time) == [.seconds(2_000)])
  }

  /// Every reason holds the request back, in a fixed order, each in words; the request runs
  /// the instant the last one is lifted, in the outcome of the event that lifted it.
  @Test func everyReasonIsSaidAndTheLastOneLiftedRunsTheTask() throws {
    try submit(
      TaskRequest(
        identifier: "cleanup", kind: .processing, requiresNetworkConnectivity: true,
        requiresExternalPower: true))
    try sim.post(.home, to: "mail")
    try sim.post(
      .setConditions(
        ConditionsChange(batteryLevel: 12, lowPowerMode: true, network: NetworkStatus.none)))
    try sim.post(.setBackgroundAppRefresh(app: "mail", enabled: false))
    #expect(
      heldBy() == [
        "Background App Refresh is off for this app",
        "Low Power Mode is on",
        "the battery is at 12%, not charging: the system runs only essential work",
        "requires network connectivity: the device has no network",
        "requires external power: the device is not charging",
        "processing tasks wait until the device is idle (locked)",
      ])
    #expect(
      sim.app("mail").taskRequests[0].heldBy.map(\.name).first == "backgroundAppRefreshOffForApp")
    try sim.post(.setBackgroundAppRefresh(app: "mail", enabled: true))
    try sim.post(
      .setConditions(ConditionsChange(charging: true, lowPowerMode: false, network: .wifi)))
    #expect(heldBy() == ["processing tasks wait until the device is idle (locked)"])
    let lock = try sim.post(.lock)
    #expect(lock.callbacks.last?.method == .taskLaunchHandler)
    #expect(sim.app("mail").backgroundWork.map(\.identifier) == ["cleanup"])
  }

  /// The app swiped away gets no background launches until the user opens it.
  @Test func aSwipedAwayAppsRequestWaitsForTheUser() throws {
    try submit(TaskRequest(identifier: "refresh", kind: .appRefresh))
    try sim.post(.terminate, to: "mail")
    #expect(
      heldBy() == ["the user swiped the app away: no background launches until it is opened"])
    try sim.post(.launch(), to: "mail")
    #expect(heldBy() == ["the app is in the foreground: its tasks run in the background"])
    #expect(try sim.post(.home, to: "mail").callbacks.last?.method == .taskLaunchHandler)
  }

  /// Under `manual` nothing runs unasked; switching to `eager` runs what is due at once.
  @Test func manualRunsNothingUntilEagerRunsWhatIsDue() throws {
    try sim.post(.setConditions(ConditionsChange(taskScheduling: .manual)))
    try submit(TaskRequest(identifier: "refresh", kind: .appRefresh))
    try sim.post(.home, to: "mail")
    sim.advance(3600)
    #expect(heldBy() == ["the device's taskScheduling is manual: launchTask runs it"])
    let eager = try sim.post(.setConditions(ConditionsChange(taskScheduling: .eager)))
    #expect(eager.callbacks.map(\.method) == [.taskLaunchHandler])
  }

  /// `BGTaskScheduler.Error.Code.unavailable`: Background App Refresh is off.
  @Test func submittingWithBackgroundAppRefreshOffIsUnavailable() throws {
    try sim.post(.setConditions(ConditionsChange(backgroundAppRefresh: false)))
    let refused = refusal { try submit(TaskRequest(identifier: "refresh", kind: .appRefresh)) }
    #expect(refused?.reason == .taskSchedulingUnavailable(forApp: false))
    #expect(refused?.reason.taskSchedulerError == .unavailable)
  }

  /// A background push wakes the suspended app with its own completion; past the budget of
  /// the last hour the system drops it, and an hour later it delivers again.
  @Test func backgroundPushesAreDeliveredWithinTheirBudget() throws {
    try sim.post(.home, to: "mail")
    sim.advance(2)
    let first = try sim.post(.push(app: "mail", .background))
    #expect(first.result == .push(.delivered(workId: 1)))
    #expect(
      trace(first) == [
        #"application(_:didReceiveRemoteNotification:fetchCompletionHandler:) → background/background task 1 {userInfo: {"aps":{"content-available":1}}}"#
      ])
    try sim.post(.push(app: "mail", .background))
    try sim.post(.push(app: "mail", .background))
    let fourth = try sim.post(.push(app: "mail", .background))
    #expect(fourth.result == .push(.dropped([.pushBudgetSpent(perHour: 3)])))
    #expect(fourth.callbacks.isEmpty)
    sim.advance(3600)
    #expect(try sim.post(.push(app: "mail", .background)).result == .push(.delivered(workId: 4)))
  }

  @Test func aPushTheSystemHoldsBackIsDroppedWithItsReasons() throws {
    sim.add("notes")
    try sim.post(.terminate, to: "mail")
    try sim.post(.setConditions(ConditionsChange(lowPowerMode: true)))
    #expect(
      try sim.post(.push(app: "mail", .background)).result
        == .push(.dropped([.appSwipedAway, .lowPowerMode])))
    #expect(
      try sim.post(.push(app: "notes", .background)).result
        == .push(.dropped([.backgroundModeMissing(.remoteNotification), .lowPowerMode])))
    #expect(sim.state("mail") == .notRunning && sim.state("notes") == .notRunning)
  }

  /// An alert is displayed: the app hears nothing until the user taps it. A background push
  /// reaches a foreground app's method at once, with no background work.
  @Test func anAlertIsDisplayedAndAForegroundAppGetsThePushAtOnce() throws {
    let alert = try sim.post(.push(app: "mail", .alert))
    #expect(alert.result == .push(.displayed))
    #expect(alert.callbacks.isEmpty)
    let push = try sim.post(.push(app: "mail", .background))
    #expect(push.result == .push(.delivered(workId: nil)))
    #expect(push.callbacks.map(\.method) == [.didReceiveRemoteNotification])
    #expect(sim.app("mail").backgroundWork.isEmpty)
  }

  @Test func aPushToAnUnknownAppIsInvalid() {
    guard
      case .invalid(let issues)? = engineError({ try sim.post(.push(app: "maps", .background)) })
    else {
      Issue.record("not invalid")
      return
    }
    #expect(issues.listed.map(\.field) == ["app"])
  }

  /// The scheduler weighs what changed, not everything pending: a request falling due weighs
  /// its own app's requests, and while something device-wide holds every request back (here
  /// Low Power Mode) none is weighed at all, until it changes and each runs once.
  @Test func theSchedulerWeighsOnlyWhatChanged() throws {
    let identifiers = (1...10).map { "task\($0)" }
    for app in 0..<20 {
      sim.add("app\(app)", modes: [.processing], permittedTasks: identifiers)
      try sim.post(.launch(), to: "app\(app)")
      for (index, identifier) in identifiers.enumerated() {
        let date = Instant.seconds(Double(100 + 10 * app + index))
        try sim.post(
          .submitTaskRequest(
            TaskRequest(identifier: identifier, kind: .processing, earliestBeginDate: date)),
          to: "app\(app)")
      }
      try sim.post(.home, to: "app\(app)")
    }
    try sim.post(.lock)
    sim.advance(50)  // every app suspended, its requests weighed again then
    let device = try #require(sim.engine.devices[sim.device])
    var weighed = device.requestsWeighed
    // app0's first six requests fall due one after another: at each, the first due one runs
    // and the rest of app0's are weighed once more; no other app's are.
    sim.advance(55)
    #expect(sim.app("app0").taskRequests.count == 4)
    #expect(device.requestsWeighed - weighed == 10 + 9 + 8 + 7 + 6 + 5)
    try sim.post(.setConditions(ConditionsChange(lowPowerMode: true)))
    weighed = device.requestsWeighed
    sim.advance(400)  // every other request falls due, held back
    #expect(device.requestsWeighed == weighed)
    #expect(sim.app("app19").taskRequests.count == 10)
    let released = try sim.post(.setConditions(ConditionsChange(lowPowerMode: false)))
    #expect(released.callbacks.filter { $0.method == .taskLaunchHandler }.count == 194)
    // Each request weighed once, as the first of its app's, and run.
    #expect(device.requestsWeighed - weighed == 194)
  }
}
