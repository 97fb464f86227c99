extension Device {
  /// Creates an app, not running.
  func add(_ spec: AppSpec) -> App {
    let app = slots.insert { App(spec: spec, slot: $0, ledger: ledger) }
    apps[app.name] = app
    ledger.add(App.retainedBytes + spec.retainedBytes)
    return app
  }

  /// Deletes an app, whatever its state, releasing its memory and deadlines.
  func remove(_ app: App) {
    usedMB -= app.footprint
    removeFromLiveApps(app)
    forgetMetricPeriod(of: app)
    reportsDue.removeAll { $0 === app }
    queues.remove(app)
    if status.foregroundApp == app.name { status.foregroundApp = nil }
    taskRequesters.remove(app.name)
    continuedTaskQueuers.remove(app.name)
    if app.awaitsWeighing { appsToWeigh.removeAll { $0 === app } }
    if status.appBeforeLock == app.name { status.appBeforeLock = nil }
    apps[app.name] = nil
    slots.remove(app.slot)
    ledger.add(-App.retainedBytes - app.spec.retainedBytes - app.heldBytes)
  }
}
