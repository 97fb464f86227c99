extension Device {
  /// Recomputes `app`'s deadlines from its state: the scheduler's single source of truth.
  ///
  /// A pending suspension keeps its time; a new one is due `suspendDelay` after the later of
  /// now and the return of didEnterBackground (LifecycleEngine.docc, "Background").
  func reschedule(_ app: App) {
    let inBackground = app.state == .background
    app.suspendAt =
      app.isSuspendable
      ? app.suspendAt ?? max(status.now, app.busyUntil ?? status.now) + scheduler.suspendDelay : nil
    var deadlines = AppDeadlines()
    deadlines.suspend = app.suspendAt
    deadlines.watchdogKill = app.watchdogKillAt
    // The main thread frees for the callbacks that wait for it, and for MetricKit's reports.
    let awaitsMainThread =
      !app.waitingCallbacks.isEmpty || (app.holdsReports && app.isBusy(at: status.now))
    deadlines.mainThreadFree = awaitsMainThread ? app.busyUntil : nil
    deadlines.backgroundTimeExpiry =
      inBackground && app.tasks.contains { $0.expiredAt == nil }
      ? app.backgroundSince.map { $0 + scheduler.backgroundTask } : nil
    deadlines.expirationKill =
      inBackground
      ? app.tasks.lazy.compactMap(\.expiredAt).min().map { $0 + scheduler.expirationGrace } : nil
    if !app.process.backgroundWork.isEmpty {  // read in place: the usual case has none
      let grace = scheduler.expirationGrace
      deadlines.backgroundWorkExpiry = app.backgroundWork.lazy.compactMap(\.expiryTime).min()
      // Only work the debugger launched runs in the foreground (`launchTask`), and a foreground
      // app is not killed for it: if it is late, the kill comes once the app leaves.
      deadlines.backgroundWorkTimeout =
        app.state.isForeground
        ? nil : app.backgroundWork.lazy.compactMap { $0.killTime(grace: grace) }.min()
    }
    if !app.record.taskRequests.isEmpty {
      deadlines.taskDue = nextTaskDate(of: app)
      weighAgain(app)
    }
    if app.debuggerAttached {  // nothing times the process: see `attachDebugger`
      deadlines = AppDeadlines(mainThreadFree: deadlines.mainThreadFree, taskDue: deadlines.taskDue)
    }
    app.deadlines = deadlines
    queues.noteChange(of: app)
  }

  /// Fires the earliest deadline at its own time.
  func fireNextDeadline() {
    if let time = deviceDeadline, queues.earliestDeadline.map({ time <= $0.order.time }) ?? true {
      fireDeviceDeadline(at: time)
      return
    }
    guard let (slot, order) = queues.popEarliestDeadline() else { return }
    let app = slots[slot]
    status.now = max(status.now, order.time)
    switch order.kind {
    case .suspend where app.spec.behavior.holdsFileLockAtSuspension:
      kill(app, cause: .fileLockAtSuspension, terminationCode: .fileLock)
    case .suspend:
      changeState(app, to: .suspended, cause: .suspension)
    case .watchdogKill:
      let transition = app.watchdogTransition
      kill(app, cause: .watchdog, terminationCode: .watchdog)
      app.lastTermination?.watchdog = transition
    case .mainThreadFree:
      deliverWaitingCallbacks(of: app)
    case .backgroundTimeExpiry:
      expireBackgroundTasks(of: app)
    case .expirationKill:
      kill(app, cause: .backgroundTaskExpiration, terminationCode: .backgroundTask)
    case .backgroundWorkTimeout:
      let grace = scheduler.expirationGrace
      let late = app.backgroundWork.first { $0.killTime(grace: grace) == order.time }
      kill(
        app, cause: .backgroundWorkTimeout,
        terminationCode: late?.reason.terminationCode ?? .backgroundTask)
    case .backgroundWorkExpiry:
      for work in app.backgroundWork where work.expiryTime == order.time {
        expireBackgroundWork(work.id, of: app, cause: .backgroundWorkTimeout)
      }
    case .taskDue:
      break  // the requests are weighed after every deadline (`advance(to:)`)
    }
    reschedule(app)
  }

  /// The device's own deadlines: protected data locks down after a lock's delay, a memory
  /// warning's grace ends (`relieveMemoryPressure`, which runs next, kills then), and MetricKit's
  /// day ends.
  private func fireDeviceDeadline(at time: Instant) {
    status.now = max(status.now, time)
    if status.protectedDataLocksAt == time {
      status.protectedDataLocksAt = nil
      setProtectedData(available: false, cause: .event(.lock))
    } else if status.warningGraceEndsAt == time {
      status.warningGraceEndsAt = nil
    } else {
      endMetricDay()
    }
  }

  /// A `BGTask`'s time is up (or, for a processing task, the user started using the device):
  /// its expiration handler runs and, if the app's code completes tasks on expiration
  /// (`endsBackgroundTasksOnExpiration`), calls `setTaskCompleted`; otherwise the app is killed
  /// `expirationGrace` later unless it completes the work.
  func expireBackgroundWork(_ id: Int, of app: App, cause: TransitionCause) {
    deliver(.taskExpirationHandler, to: app, cause: cause, taskId: id)
    guard let index = app.backgroundWork.firstIndex(where: { $0.id == id }) else { return }
    if app.spec.behavior.endsBackgroundTasksOnExpiration {
      app.backgroundWork.remove(at: index)
    } else {
      app.backgroundWork[index].expiredAt = status.now
    }
  }

  /// Runs the expiration handler of every unexpired task, in task order (LifecycleEngine.docc, "Background").
  private func expireBackgroundTasks(of app: App) {
    for task in app.tasks where task.expiredAt == nil {
      deliver(.expirationHandler, to: app, cause: .backgroundTaskExpiration, taskId: task.id)
      if let index = app.tasks.firstIndex(where: { $0.id == task.id }) {
        if app.spec.behavior.endsBackgroundTasksOnExpiration {
          app.tasks.remove(at: index)
        } else {
          app.tasks[index].expiredAt = status.now
        }
      }
    }
    reschedule(app)
  }
}
