/// The transition table: which events are possible in which state.
///
/// `refusal(of:for:)` is the only statement of the rules. Applying an event consults it,
/// and `allowedEvents` is derived from it, so the two can never disagree.
extension Device {
  /// Why an app event of `type` is impossible for `app` now, or nil if it is possible.
  func refusal(of type: EventType, for app: App) -> RefusalReason? {
    let state = app.state
    if !status.poweredOn { return .deviceOff }
    switch type {
    case .launch:
      // A multi-scene app in the foreground can bring another of its windows there.
      if state.isForeground, app.sessions.count < 2 { return .notAllowedInState }
      if status.locked { return .deviceLocked }
    case .prewarm:
      if state != .notRunning { return .notAllowedInState }
      if let refusal = refusal(lacking: .prewarming) { return refusal }
    case .openScene:
      if !app.spec.supportsMultipleScenes { return .multipleScenesNotSupported }
      if status.locked { return .deviceLocked }
      if app.sessions.count >= Validation.maxScenesPerApp {
        return .tooManyScenes(limit: Validation.maxScenesPerApp)
      }
    case .closeScene:
      if app.sessions.isEmpty { return .notAllowedInState }
      if status.locked { return .deviceLocked }
    case .disconnectScene:
      if !app.sessions.contains(where: \.isInBackground) { return .notAllowedInState }
    case .home:
      if !state.isForeground { return .notAllowedInState }
    case .lock, .unlock, .significantTimeChange, .shutdown, .boot, .setConditions,
      .setBackgroundAppRefresh, .push, .deliverMetrics, .updateOS:
      return .notAllowedInState  // device events, never addressed to an app
    case .openSwitcher, .interruptionBegan:
      if state != .active { return .notAllowedInState }
    case .closeSwitcher:
      if app.inactiveCause != .switcher { return .notAllowedInState }
    case .interruptionEnded:
      guard case .interruption = app.inactiveCause else { return .notAllowedInState }
    case .terminate:
      // A prewarmed app was never opened: the app switcher does not show it.
      if !state.isLive || app.prewarmed { return .notAllowedInState }
      if status.locked { return .deviceLocked }
    case .crash:
      if !state.isLive || app.prewarmed { return .notAllowedInState }  // no app code ran
    case .purge:
      if !state.isLive { return .notAllowedInState }
    case .backgroundLaunch:
      if state.isForeground { return .notAllowedInState }
      if app.backgroundLaunchBlocked { return .backgroundLaunchBlocked }
      if app.holdsMostBackgroundWork {
        return .tooMuchBackgroundWork(limit: Validation.maxBackgroundWorkPerApp)
      }
    case .launchTask:
      // As the debugger's `_simulateLaunchForTaskWithIdentifier:` ("Starting and Terminating
      // Tasks During Development"): in any state, past whatever holds the request back.
      if app.taskRequests.isEmpty { return .noTaskRequest(nil) }
      if app.holdsMostBackgroundWork {
        return .tooMuchBackgroundWork(limit: Validation.maxBackgroundWorkPerApp)
      }
    case .backgroundWorkCompleted:
      if app.backgroundWork.isEmpty { return .noBackgroundWork }
    case .beginBackgroundTask:
      if !state.isRunning { return .notAllowedInState }
      if !app.debuggerAttached, let since = app.backgroundSince,
        since + scheduler.backgroundTask <= status.now
      {
        return .backgroundTimeExhausted
      }
    case .endBackgroundTask:
      if app.tasks.isEmpty { return .noBackgroundTasks }
    case .memoryWarning, .setMemory, .startActivity, .thermalKill:
      if !state.isRunning { return .notAllowedInState }
    case .setRestorationData:
      if !state.isRunning { return .notAllowedInState }
      if app.isScene, app.connectedScenes == 0 { return .sceneNotConnected(nil) }
    case .stopActivity:
      if app.activities.isEmpty { return .notAllowedInState }
    case .submitTaskRequest, .cancelTaskRequest:
      if !state.isRunning { return .notAllowedInState }  // the app's code calls it
    case .expireTask:
      if !app.backgroundWork.contains(where: \.isRunningTask) { return .noRunningTask(nil) }
    case .reportProgress:
      if !app.backgroundWork.contains(where: { $0.reason == .continuedProcessing }) {
        return .noContinuedTask(nil)
      }
    case .attachDebugger:
      if !state.isLive || app.debuggerAttached { return .notAllowedInState }
    case .detachDebugger:
      if !app.debuggerAttached { return .notAllowedInState }
    case .updateApp, .reinstall:
      if state.isLive { return .notAllowedInState }  // installing ends no process here
    }
    return nil
  }

  /// Why this particular `event` is impossible, including its parameters, or nil.
  func refusal(of event: AppEvent, for app: App) -> RefusalReason? {
    if let reason = refusal(of: event.type, for: app) { return reason }
    switch event {
    case .backgroundLaunch(let reason, _, let identifier):
      return refusal(ofBackgroundLaunchFor: reason, identifier: identifier, for: app)
    case .submitTaskRequest(let request) where request.kind == .continuedProcessing:
      if let refusal = refusal(lacking: .continuedProcessing) { return refusal }
      if app.state != .active { return .continuedTaskNotFromForeground }
      return taskSchedulerRefusal(submitting: request, for: app)
    case .submitTaskRequest(let request):
      return taskSchedulerRefusal(submitting: request, for: app)
    case .reportProgress(let identifier, _) where app.continuedTaskIndex(identifier) == nil:
      return .noContinuedTask(identifier)
    case .launchTask(let identifier):
      guard let request = app.taskRequests.first(where: { $0.identifier == identifier }) else {
        return .noTaskRequest(identifier)
      }
      let reason = request.kind.launchReason
      return app.isWorking(on: reason, identifier: identifier)
        ? .backgroundWorkInProgress(reason) : nil
    case .expireTask(let identifier)
    where !app.backgroundWork.contains(where: { $0.isRunningTask && $0.identifier == identifier }):
      return .noRunningTask(identifier)
    case .backgroundWorkCompleted(let id?)
    where !app.backgroundWork.contains(where: { $0.id == id }):
      return .unknownBackgroundWork(id)
    case .endBackgroundTask(let id) where !app.tasks.contains(where: { $0.id == id }):
      return .unknownBackgroundTask(id)
    case .startActivity(let activity):
      if !app.spec.backgroundModes.contains(activity.requiredMode) {
        return .backgroundModeMissing(activity.requiredMode)
      }
      return app.activities.contains(activity) ? .activityInProgress(activity) : nil
    case .stopActivity(let activity) where !app.activities.contains(activity):
      return .activityNotInProgress(activity)
    case .purge(let reason) where app.state.isForeground && !reason.killsForegroundApp:
      return .sparesForegroundApp(reason)
    case .launch(_, let id?):
      guard let index = app.sessionIndex(id) else { return .unknownScene(id) }
      return app.state.isForeground && index == app.focusedSessionIndex
        ? .sceneInForeground(id) : nil
    case .launch(_, nil) where app.state.isForeground:
      // The table lets a launch through in the foreground only to an app of several sessions,
      // which shows its focused one there (restoring requires that too).
      return .sceneInForeground(app.focusedScene!)
    case .openScene(let id?, _) where app.sessionIndex(id) != nil:
      return .sceneExists(id)
    case .closeScene(let id) where app.sessionIndex(id) == nil:
      return .unknownScene(id)
    case .disconnectScene(let id):
      guard let index = app.sessionIndex(id) else { return .unknownScene(id) }
      return app.sessions[index].isInBackground ? nil : .sceneNotInBackground(id)
    case .setRestorationData(_, let id?) where app.sessionIndex(id) == nil:
      return .unknownScene(id)
    case .setRestorationData(_, let id) where app.isScene:
      guard let index = id.flatMap(app.sessionIndex) ?? app.focusedSessionIndex else {
        return .sceneNotConnected(nil)
      }
      return app.sessions[index].isConnected ? nil : .sceneNotConnected(app.sessions[index].id)
    case .launch, .openScene, .closeScene, .endBackgroundTask, .stopActivity, .cancelTaskRequest,
      .expireTask, .reportProgress,
      .setRestorationData, .prewarm, .home, .openSwitcher, .closeSwitcher, .interruptionBegan,
      .interruptionEnded, .terminate, .crash, .purge, .thermalKill, .backgroundWorkCompleted,
      .beginBackgroundTask, .memoryWarning, .setMemory, .attachDebugger, .detachDebugger,
      .updateApp, .reinstall:
      return nil  // nothing in their parameters to refuse
    }
  }

  /// Why the system cannot hand `app` work for `reason` (the URL session's or the task's
  /// `identifier`), once the event's type is possible.
  private func refusal(
    ofBackgroundLaunchFor reason: BackgroundLaunchReason, identifier: String?, for app: App
  ) -> RefusalReason? {
    if let mode = reason.requiredMode, !app.spec.backgroundModes.contains(mode) {
      return .backgroundModeMissing(mode)
    }
    // Each push has its own completion handler; a fetch, a task or a URL session's events
    // are not handed over again while the app still works on them (`App.isWorking`).
    if reason != .remoteNotification, app.isWorking(on: reason, identifier: identifier) {
      return .backgroundWorkInProgress(reason)
    }
    // `BGProcessingTask`: "Processing tasks run only when the device is idle."
    return reason == .processing && !status.locked ? .deviceInUse : nil
  }

  /// The app events possible for `app` now.
  func allowedEvents(for app: App) -> [EventType] {
    AppEvent.types.filter { refusal(of: $0, for: app) == nil }
  }

  /// Why a device event of `kind` is impossible now, or nil if it is possible.
  func refusal(ofDeviceEvent kind: DeviceEvent.Kind) -> RefusalReason? {
    if !status.poweredOn { return kind == .boot || kind == .updateOS ? nil : .deviceOff }
    switch kind {
    case .home:
      if status.locked { return .deviceLocked }
      if status.foregroundApp == nil { return .noForegroundApp }
    case .lock:
      if status.locked { return .deviceLocked }
    case .unlock:
      if !status.locked { return .deviceNotLocked }
    case .boot, .updateOS:
      return .deviceOn
    case .memoryWarning, .significantTimeChange, .shutdown, .setConditions,
      .setBackgroundAppRefresh, .push, .deliverMetrics:
      break
    }
    return nil
  }

  /// The device events possible now.
  var allowedDeviceEvents: [EventType] {
    DeviceEvent.Kind.allCases.filter { refusal(ofDeviceEvent: $0) == nil }.map(\.type)
  }

  /// Whether the device is on and locked, as device events report it.
  var state: DeviceState { status.poweredOn ? (status.locked ? .locked : .unlocked) : .off }
}
