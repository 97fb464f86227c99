extension Device {
  /// Recomputes `app`'s deadlines from its state: the scheduler's single source of truth.
  ///
  /// A pending suspension keeps its time; a new one is due `suspendDelay` after the later of
  /// now and the return of didEnterBackground (SPEC 4.6).
  func reschedule(_ app: App) {
    let suspendAt =
      app.isSuspendable
      ? deadlines.priority(of: DeadlineKey(app: app.name, kind: .suspend))?.time
        ?? max(now, app.busyUntil ?? now) + scheduler.suspendDelay
      : nil
    let inBackground = app.state == .background
    let expiresAt =
      inBackground && app.tasks.contains { $0.expiredAt == nil }
      ? app.backgroundSince.map { $0 + scheduler.backgroundTask } : nil
    let expirationKillAt =
      inBackground
      ? app.tasks.compactMap(\.expiredAt).min().map { $0 + scheduler.expirationGrace }
      : nil

    schedule(.suspend, for: app, at: suspendAt)
    schedule(.watchdogKill, for: app, at: app.watchdogKillAt)
    schedule(.backgroundTimeExpiry, for: app, at: expiresAt)
    schedule(.expirationKill, for: app, at: expirationKillAt)
    schedule(.backgroundWorkTimeout, for: app, at: app.backgroundWork?.deadline)
  }

  private func schedule(_ kind: DeadlineKind, for app: App, at time: Instant?) {
    deadlines.set(
      DeadlineKey(app: app.name, kind: kind),
      to: time.map { DeadlineOrder(time: $0, app: app.name, kind: kind) })
  }

  /// When `kind` is due for `app`, if it is pending.
  func deadline(_ kind: DeadlineKind, of app: App) -> Instant? {
    deadlines.priority(of: DeadlineKey(app: app.name, kind: kind))?.time
  }

  /// Removes every deadline of an app that is being deleted.
  func cancelDeadlines(of app: App) {
    for kind in DeadlineKind.allCases { schedule(kind, for: app, at: nil) }
  }

  /// Fires the earliest deadline at its own time.
  func fireNextDeadline() {
    guard let (key, order) = deadlines.popMin(), let app = apps[key.app] else { return }
    now = max(now, order.time)
    switch key.kind {
    case .suspend:
      changeState(app, to: .suspended, cause: .suspension)
    case .watchdogKill:
      kill(app, cause: .watchdog, terminationCode: .watchdog)
    case .backgroundTimeExpiry:
      expireBackgroundTasks(of: app)
    case .expirationKill:
      kill(app, cause: .backgroundTaskExpiration, terminationCode: .backgroundTimeExhausted)
    case .backgroundWorkTimeout:
      kill(app, cause: .backgroundWorkTimeout, terminationCode: .backgroundTimeExhausted)
    }
  }

  /// Runs the expiration handler of every unexpired task, in task order (SPEC 4.8).
  private func expireBackgroundTasks(of app: App) {
    for task in app.tasks where task.expiredAt == nil {
      deliver(.expirationHandler, to: app, cause: .backgroundTaskExpiration, taskId: task.id)
      if let index = app.tasks.firstIndex(where: { $0.id == task.id }) {
        if app.behavior.endsBackgroundTasksOnExpiration {
          app.tasks.remove(at: index)
        } else {
          app.tasks[index].expiredAt = now
        }
      }
    }
    reschedule(app)
  }
}
