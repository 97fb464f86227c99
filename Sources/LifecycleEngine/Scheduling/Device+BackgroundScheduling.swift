/// How the system decides on background work the app asked for or was sent: task requests
/// (`BGTaskScheduler`) and background pushes, weighed against the device's
/// `BackgroundConditions`.
extension Device {
  // MARK: Task requests

  /// `BGTaskScheduler.submit(_:)`: a request for an identifier already pending replaces it,
  /// keeping its place. A continued-processing request the system has room for runs at once,
  /// in the foreground; otherwise it joins the back of the system's queue (its rule refused one
  /// with the `fail` strategy).
  func submit(_ request: TaskRequest, for app: App) {
    var request = request
    if request.kind == .continuedProcessing { request.queuedAtSeq = version.seq }
    changeTaskRequests(of: app) { requests in
      if let index = requests.firstIndex(where: { $0.identifier == request.identifier }) {
        request.queuedAtSeq = requests[index].queuedAtSeq ?? request.queuedAtSeq
        requests[index] = request
      } else {
        requests.append(request)
      }
    }
    if request.kind == .continuedProcessing, continuedHolds(for: request, of: app).isEmpty {
      // The app submits it in the foreground: its process runs, and takes the task.
      if let work = launchTask(request.identifier, of: app, cause: .event(.submitTaskRequest)) {
        setResult(.backgroundWork(id: work.id, deadline: nil))
      }
    }
  }

  /// Changes `app`'s pending requests, keeping the sets of apps that have some (queued
  /// continued-processing ones apart) and the app's deadline (the next `earliestBeginDate`)
  /// in step.
  func changeTaskRequests(of app: App, _ change: (inout [TaskRequest]) -> Void) {
    change(&app.taskRequests)
    noteTaskRequests(of: app)
    reschedule(app)
  }

  /// Files `app` among the apps with pending requests, and with queued continued-processing
  /// ones, as its requests say.
  func noteTaskRequests(of app: App) {
    if app.taskRequests.isEmpty {
      taskRequesters.remove(app.name)
    } else {
      taskRequesters.insert(app.name)
    }
    if app.taskRequests.contains(where: { $0.kind == .continuedProcessing }) {
      continuedTaskQueuers.insert(app.name)
    } else {
      continuedTaskQueuers.remove(app.name)
    }
  }

  /// Runs the pending request `identifier` now: it is consumed, and the app launched or woken
  /// for its kind, the identifier handed to the launch handler. Returns the task's work, nil
  /// if the app fails to launch (`failsToLaunch`).
  ///
  /// Its callers proved the unwraps: the `launchTask` event's rule (`noTaskRequest`, then the
  /// background launch's own refusals) and the scheduler, which runs only a pending request
  /// that nothing holds back (`holdReasons` lists every reason a launch is refused for).
  func launchTask(_ identifier: String, of app: App, cause: TransitionCause) -> BackgroundWork? {
    var request: TaskRequest?
    changeTaskRequests(of: app) { requests in
      request = requests.remove(at: requests.firstIndex { $0.identifier == identifier }!)
    }
    endProcessIfTerminating(app)
    return launchInBackground(
      app, for: request!.kind.launchReason, payload: nil, identifier: identifier, cause: cause)
  }

  /// The process of `app` ended: its queued continued-processing requests go with it. Apple
  /// says so of a force-quit ("The system cancels queued `BGContinuedProcessingTaskRequest`
  /// objects if someone closes your app using the app switcher": `SubmissionStrategy.queue`);
  /// lifecycled does the same for every end, as the launch handler that would run them was
  /// registered by the process that is gone.
  func dropContinuedTaskRequests(of app: App) {
    guard continuedTaskQueuers.contains(app.name) else { return }
    changeTaskRequests(of: app) { $0.removeAll { $0.kind == .continuedProcessing } }
  }

  /// Why `request` of `app` has not run, in a fixed order; empty when nothing holds it back
  /// (under `eager` it runs then). Each reason that `launchTask` refuses for is among them.
  /// `runningContinued` is `runningContinuedTasks`, when the caller counted them.
  func holdReasons(
    for request: TaskRequest, of app: App, runningContinued: Int? = nil
  ) -> [HoldReason] {
    if request.kind == .continuedProcessing {
      return continuedHolds(for: request, of: app, running: runningContinued)
    }
    var reasons: [HoldReason] = []
    let conditions = status.conditions
    if let date = request.earliestBeginDate, date > status.now {
      reasons.append(.earliestBeginDate(in: date - status.now))
    }
    if !status.poweredOn { reasons.append(.deviceOff) }
    reasons += systemHolds(for: app)
    if request.requiresNetworkConnectivity, conditions.network == .none {
      reasons.append(.noNetwork)
    }
    if request.requiresExternalPower, !conditions.charging { reasons.append(.notCharging) }
    // `BGProcessingTask`: "Processing tasks run only when the device is idle."
    if request.kind == .processing, !status.locked { reasons.append(.deviceInUse) }
    if app.state.isForeground { reasons.append(.appInForeground) }
    if app.isWorking(on: request.kind.launchReason, identifier: request.identifier) {
      reasons.append(.stillRunning)
    }
    if app.holdsMostBackgroundWork { reasons.append(.tooMuchBackgroundWork) }
    if conditions.taskScheduling == .manual { reasons.append(.manualScheduling) }
    return reasons
  }

  /// Why the continued-processing `request` of `app` waits in the queue: a person started it,
  /// so nothing of what the system weighs for background launches (the conditions, the
  /// scheduling policy, the app's state) holds it back; only the room the system has, and
  /// the app's own work. `running` is `runningContinuedTasks`, when the caller counted them.
  func continuedHolds(
    for request: TaskRequest, of app: App, running: Int? = nil
  ) -> [HoldReason] {
    var reasons: [HoldReason] = []
    let capacity = status.conditions.continuedProcessingCapacity
    if running ?? runningContinuedTasks >= capacity {
      reasons.append(.noRoomForContinuedTask(capacity: capacity))
    }
    if app.isWorking(on: .continuedProcessing, identifier: request.identifier) {
      reasons.append(.stillRunning)
    }
    if app.holdsMostBackgroundWork { reasons.append(.tooMuchBackgroundWork) }
    return reasons
  }

  /// The continued-processing tasks running on the device whose expiration handler has not run.
  var runningContinuedTasks: Int {
    liveApps.reduce(0) { count, app in
      app.backgroundWork.isEmpty
        ? count : count + app.backgroundWork.count(where: \.isRunningContinuedTask)
    }
  }

  /// Starts queued continued-processing requests while the system has room, in the order they
  /// joined the queue ("adds the task request to the back of a queue":
  /// `SubmissionStrategy.queue`); one its own app holds back waits without holding back those
  /// behind it. The journal records each as the system's `launchTask`. Nothing the scheduling
  /// policy or the conditions say holds them: a person started each.
  private func startQueuedContinuedTasks() {
    guard !continuedTaskQueuers.isEmpty else { return }
    let capacity = status.conditions.continuedProcessingCapacity
    var running = runningContinuedTasks
    guard running < capacity else { return }
    var queue: [(app: App, request: TaskRequest)] = []
    for name in continuedTaskQueuers {
      guard let app = apps[name] else { continue }
      for request in app.taskRequests where request.kind == .continuedProcessing {
        queue.append((app, request))
      }
    }
    queue.sort { ($0.request.queuedAtSeq ?? 0) < ($1.request.queuedAtSeq ?? 0) }
    for (app, request) in queue where running < capacity {
      guard continuedHolds(for: request, of: app, running: running).isEmpty else { continue }
      record(.app(.launchTask(identifier: request.identifier)), app: app.name)
      _ = launchTask(request.identifier, of: app, cause: .event(.launchTask))
      running += 1
    }
  }

  /// Resources become constrained: with fewer continued-processing tasks than run allowed,
  /// the system stops those that reported the least progress first ("The system prioritizes
  /// the termination of tasks that reflect minimal or no progress":
  /// `BGContinuedProcessingTask`), their expiration handlers run. Among equal progress, apps
  /// in name order, each app's tasks in the order they started: lifecycled's choice.
  func stopContinuedTasksBeyondCapacity() {
    let capacity = status.conditions.continuedProcessingCapacity
    var running: [(app: App, work: BackgroundWork)] = []
    for app in liveAppsInOrder where !app.backgroundWork.isEmpty {
      for work in app.backgroundWork where work.isRunningContinuedTask {
        running.append((app, work))
      }
    }
    guard running.count > capacity else { return }
    let leastFirst = running.enumerated().sorted { lhs, rhs in
      let (left, right) = (
        TaskProgress.fraction(of: lhs.element.work.progress),
        TaskProgress.fraction(of: rhs.element.work.progress)
      )
      return left != right ? left < right : lhs.offset < rhs.offset
    }
    for (_, stopped) in leastFirst.prefix(running.count - capacity) {
      expireBackgroundWork(stopped.work.id, of: stopped.app, cause: .event(.setConditions))
      reschedule(stopped.app)
    }
  }

  /// What holds back any background launch of `app` the system decides on (WWDC 2020,
  /// "Background execution demystified": the app switcher, the Background App Refresh switch,
  /// Low Power Mode, a critically low battery).
  private func systemHolds(for app: App) -> [HoldReason] {
    var reasons: [HoldReason] = []
    let conditions = status.conditions
    if app.backgroundLaunchBlocked { reasons.append(.appSwipedAway) }
    if !conditions.backgroundAppRefresh { reasons.append(.backgroundAppRefreshOffForDevice) }
    if !app.backgroundAppRefresh { reasons.append(.backgroundAppRefreshOffForApp) }
    if conditions.lowPowerMode { reasons.append(.lowPowerMode) }
    if conditions.batteryCritical { reasons.append(.batteryCritical(conditions.batteryLevel)) }
    return reasons
  }

  /// Under `eager`, runs every pending request nothing holds back: apps in name order, each
  /// app's requests in the order submitted. The journal records each as the system's
  /// `launchTask`.
  ///
  /// Only what changed is weighed: the apps noted since the last time (`weighAgain`), or every
  /// requesting app when a device-wide input changed (`DeviceHoldInputs`). A launch that
  /// releases another app's requests notes that app, which is weighed in a further round.
  /// When the device starts or stops holding every request, every requesting app's deadline
  /// moves too (`nextTaskDate`).
  func runEligibleTasks() {
    startQueuedContinuedTasks()
    let inputs = DeviceHoldInputs(status)
    if inputs != weighedUnder {
      let datesMatterNow = inputs.holdsEveryRequest != weighedUnder.holdsEveryRequest
      weighedUnder = inputs
      for name in taskRequesters { apps[name].map(datesMatterNow ? reschedule : weighAgain) }
    }
    if inputs.holdsEveryRequest {  // until an input changes, and every app is noted again
      for app in appsToWeigh { app.awaitsWeighing = false }
      appsToWeigh.removeAll(keepingCapacity: true)
      return
    }
    while !appsToWeigh.isEmpty {
      var round: [App] = []
      swap(&round, &appsToWeigh)
      round.sort { $0.name < $1.name }
      for app in round {
        while let request = app.taskRequests.first(where: {
          $0.kind != .continuedProcessing && isEligible($0, of: app)
        }) {
          let event = AppEvent.launchTask(identifier: request.identifier)
          record(.app(event), app: app.name)
          _ = launchTask(request.identifier, of: app, cause: .event(.launchTask))
        }
        app.awaitsWeighing = false  // after its launches, which note it again
      }
    }
  }

  /// Notes that something holding back `app`'s pending requests may have changed: the
  /// scheduler weighs them again when the operation settles (`runEligibleTasks`).
  func weighAgain(_ app: App) {
    guard !app.awaitsWeighing, !app.record.taskRequests.isEmpty else { return }
    app.awaitsWeighing = true
    appsToWeigh.append(app)
  }

  /// Weighs `request` of `app`: whether nothing holds it back.
  private func isEligible(_ request: TaskRequest, of app: App) -> Bool {
    requestsWeighed += 1
    return holdReasons(for: request, of: app).isEmpty
  }

  /// The next `earliestBeginDate` still ahead among `app`'s requests, when the scheduler
  /// looks again. None while the device holds every request (`manual` scheduling among the
  /// reasons): a date passing then releases nothing, and a long advance fires no deadline
  /// for it. The dates count again once the device stops holding them (`runEligibleTasks`).
  func nextTaskDate(of app: App) -> Instant? {
    guard !DeviceHoldInputs(status).holdsEveryRequest else { return nil }
    let now = status.now
    return app.taskRequests.lazy.compactMap(\.earliestBeginDate).filter { $0 > now }.min()
  }

  /// The conditions change. (A change that holds every request, or stops holding them, moves
  /// every requesting app's deadline when the event settles: `runEligibleTasks`.) Less room
  /// for continued-processing tasks stops some; more starts queued ones when it settles.
  func setConditions(_ change: ConditionsChange) {
    status.conditions.apply(change)
    if change.continuedProcessingCapacity != nil { stopContinuedTasksBeyondCapacity() }
  }

  // MARK: Pushes

  /// APNs delivers a push for `app` ("Pushing background updates to your App"). An alert is
  /// displayed: the app gets nothing until the user taps it. A background push reaches a
  /// foreground app's `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`
  /// at once; otherwise it wakes or launches the app, unless something holds it back (it is
  /// then dropped: iOS may also defer and coalesce, which is not modelled), its budget of
  /// `backgroundPushesPerHour` among them.
  func deliverPush(to app: App, _ kind: PushKind, payload: String?) {
    let payload = payload ?? kind.defaultPayload
    let cause = TransitionCause.event(.push)
    guard kind == .background else { return setResult(.push(.displayed)) }
    if app.state.isForeground {
      deliver(.didReceiveRemoteNotification, to: app, cause: cause, arguments: .userInfo(payload))
      return setResult(.push(.delivered(workId: nil)))
    }
    app.recentPushes.removeAll { $0 + .seconds(3600) <= status.now }  // older than an hour
    let holds = pushHolds(for: app)
    guard holds.isEmpty else { return setResult(.push(.dropped(holds))) }
    app.recentPushes.append(status.now)
    let work = launchInBackground(
      app, for: .remoteNotification, payload: payload, identifier: nil, cause: cause)
    setResult(.push(.delivered(workId: work?.id)))
  }

  /// Why a background push to `app` in the background is not delivered (`recentPushes` holds
  /// the last hour's).
  private func pushHolds(for app: App) -> [HoldReason] {
    var reasons: [HoldReason] = []
    if !app.spec.backgroundModes.contains(.remoteNotification) {
      reasons.append(.backgroundModeMissing(.remoteNotification))
    }
    reasons += systemHolds(for: app)
    let budget = scheduler.backgroundPushesPerHour
    if app.recentPushes.count >= budget { reasons.append(.pushBudgetSpent(perHour: budget)) }
    if app.holdsMostBackgroundWork { reasons.append(.tooMuchBackgroundWork) }
    return reasons
  }
}

/// What `Device.holdReasons` reads of the device rather than of the app or the request: the
/// power, the lock and the conditions. The scheduler weighs every pending request again when
/// one changes.
struct DeviceHoldInputs: Equatable {
  let poweredOn: Bool
  let locked: Bool
  let conditions: BackgroundConditions

  init(_ status: DeviceStatus) {
    poweredOn = status.poweredOn
    locked = status.locked
    conditions = status.conditions
  }

  /// Whether a device-wide reason among `Device.holdReasons`' holds back every request, so
  /// that weighing any, or waking for a date, is pointless until one of these inputs changes.
  var holdsEveryRequest: Bool {
    conditions.taskScheduling == .manual || !poweredOn || !conditions.backgroundAppRefresh
      || conditions.lowPowerMode || conditions.batteryCritical
  }
}
