/// What an app learns of its exits afterwards: MetricKit counts each in its category
/// (`ExitCategory`) and delivers the counts to the running app as a payload
/// (`MXMetricManagerSubscriber.didReceive(_:)`), when asked (`deliverMetrics`) and every 24
/// hours of device time, as iOS delivers payloads daily.
extension Device {
  /// The time between the payloads the clock delivers, in milliseconds.
  static let metricPayloadInterval: Int64 = 86_400_000

  /// When the clock next delivers payloads: the next multiple of 24 hours of device time,
  /// while some app holds exits not yet delivered.
  var nextMetricPayloadTime: Instant? {
    guard !exitHolders.isEmpty, status.poweredOn else { return nil }
    let interval = Self.metricPayloadInterval
    return .milliseconds((status.now.milliseconds / interval + 1) * interval)
  }

  /// Each running app holding exits gets them as one payload, apps in name order; an app not
  /// running, or whose main thread is busy, keeps them for a later payload (so that none is
  /// lost with a process killed while its payload waits).
  func deliverMetricPayloads(cause: TransitionCause) {
    for name in exitHolders.sorted() {
      guard let app = apps[name], app.state.isRunning, !app.isBusy(at: status.now),
        app.waitingCallbacks.isEmpty
      else { continue }
      let exits = app.pendingExits
      app.pendingExits = ExitCounts()
      exitHolders.remove(name)
      deliver(.didReceiveMetricPayloads, to: app, cause: cause, arguments: .exitMetrics(exits))
    }
  }
}
