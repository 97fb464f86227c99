/// What an app learns of its exits afterwards: MetricKit counts each in its category
/// (`ExitCategory`) and delivers the counts to the running app as a payload
/// (`MXMetricManagerSubscriber.didReceive(_:)`), when asked (`deliverMetrics`) and every 24
/// hours of device time, as iOS delivers payloads daily.
extension Device {
  /// The time between the payloads the clock delivers, in milliseconds.
  static let metricPayloadInterval: Int64 = 86_400_000

  /// When the clock next delivers payloads: the next multiple of 24 hours of device time,
  /// while a running app holds exits not yet delivered. (An app that is not running keeps its
  /// exits for a day when it runs: no payload would reach it before.)
  var nextMetricPayloadTime: Instant? {
    guard runningExitHolders > 0, status.poweredOn else { return nil }
    let interval = Self.metricPayloadInterval
    return .milliseconds((status.now.milliseconds / interval + 1) * interval)
  }

  /// Each running app holding exits gets them as one payload, apps in name order; an app not
  /// running, or whose main thread is busy, keeps them for a later payload (so that none is
  /// lost with a process killed while its payload waits).
  func deliverMetricPayloads(cause: TransitionCause) {
    guard runningExitHolders > 0 else { return }
    let holders = liveApps.filter(\.isRunningExitHolder).sorted { $0.name < $1.name }
    for app in holders where !app.isBusy(at: status.now) && app.waitingCallbacks.isEmpty {
      let exits = app.pendingExits
      app.pendingExits = ExitCounts()
      runningExitHolders -= 1
      deliver(.didReceiveMetricPayloads, to: app, cause: cause, arguments: .exitMetrics(exits))
    }
  }
}

extension App {
  /// Whether the app runs and holds exits MetricKit has not delivered: a payload reaches it.
  var isRunningExitHolder: Bool { process.state.isRunning && !record.pendingExits.isEmpty }
}
