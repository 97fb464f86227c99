/// What an app learns of its exits afterwards, as MetricKit tells it. Each end of a process is
/// counted in its category (`ExitCategory`) for the day under way; at the end of the day (every
/// 24 hours of device time) the day's counts become one payload (`MXMetricPayload`). A kill
/// that makes a crash report, or the app's own crash, becomes a diagnostic at once
/// (`MXDiagnosticPayload`). Reports wait until the app runs with its main thread free (at the
/// end of the day if it runs, when it is next launched or resumed if not) and arrive together,
/// each kind as one call with every report waiting (`MXMetricManagerSubscriber.didReceive(_:)`
/// takes an array, as `pastPayloads` keeps the days not yet handed over).
extension Device {
  /// The length of MetricKit's day, in milliseconds.
  static let metricDay: Int64 = 86_400_000

  /// When the clock next ends a day of MetricKit's: while some app has exits counted in the
  /// day under way (and the device is on, as MetricKit runs on it).
  var nextMetricPayloadTime: Instant? { status.poweredOn ? metricDayEnd : nil }

  /// The end of the 24 hours of device time that hold `time`.
  static func metricDayEnd(of time: Instant) -> Instant {
    .milliseconds((time.milliseconds / metricDay + 1) * metricDay)
  }

  /// Counts the end of `app`'s process in `category`, and makes the crash report's diagnostic
  /// for a kill with a code or a crash. A day the device was off through ends first, so that
  /// the exit is counted in its own.
  func countExit(
    of app: App, _ category: ExitCategory, inForeground: Bool, crashReport: CrashReportCause?
  ) {
    if let end = metricDayEnd, end <= status.now { endMetricDay() }
    if app.pendingExits.isEmpty {
      app.metricPeriodBegin = max(app.metricPeriodBegin, Self.metricDayStart(of: status.now))
      metricPeriodHolders.insert(app.name)
      metricDayEnd = earliest(metricDayEnd, Self.metricDayEnd(of: status.now))
    }
    app.pendingExits.add(category, inForeground: inForeground)
    if let crashReport {
      var diagnostic = DiagnosticPayload()
      diagnostic.begin = status.now
      diagnostic.end = status.now
      diagnostic.crashDiagnostics = [
        CrashDiagnostic(crashReport, version: app.version, metaData: reportMetaData(of: app))
      ]
      app.diagnosticPayloads = Self.keepingLatest(app.diagnosticPayloads + [diagnostic])
    }
  }

  /// The day under way ends: each app's exits of it become a payload, and each app running
  /// takes its reports once the operation settles (`deliverDueReports`).
  func endMetricDay() {
    let holders = metricPeriodHolders.sorted()
    let end = metricDayEnd ?? status.now
    for name in holders {
      guard let app = apps[name] else { continue }  // none: `remove` forgets a deleted app
      closeMetricPeriod(of: app, at: end)
      if app.state.isRunning { reportsDue.append(app) }
    }
    metricPeriodHolders.removeAll()
    metricDayEnd = nil
  }

  /// `deliverMetrics`: MetricKit hands each running app its reports now, the exits of the
  /// period under way in a payload that ends now, as Xcode's "Simulate MetricKit Payloads"
  /// does whenever asked (the system delivers at most once a day).
  func deliverMetricsNow() {
    for app in liveApps.sorted(by: { $0.name < $1.name }) where app.state.isRunning {
      if !app.pendingExits.isEmpty {
        closeMetricPeriod(of: app, at: status.now)
        forgetMetricPeriod(of: app)
      }
      reportsDue.append(app)
    }
  }

  /// `app` no longer has exits of the day under way (delivered, dropped, or deleted).
  func forgetMetricPeriod(of app: App) {
    metricPeriodHolders.remove(app.name)
    if metricPeriodHolders.isEmpty { metricDayEnd = nil }
  }

  /// `app` runs again, launched or resumed: reports waiting reach it.
  func noteRunning(_ app: App) {
    if app.holdsReports { reportsDue.append(app) }
  }

  /// Hands each app due its reports, metrics first, if it still runs with its main thread free
  /// (one killed since keeps them; one busy gets them when its main thread is free rather than
  /// behind it, where they would be lost with the process if the watchdog killed it).
  func deliverDueReports() {
    guard !reportsDue.isEmpty else { return }
    let due = reportsDue
    reportsDue.removeAll(keepingCapacity: true)
    for app in due where app.holdsReports && app.state.isRunning {
      guard app.canTakeReports(at: status.now) else {
        reschedule(app)  // its main thread's freeing is now a deadline
        continue
      }
      let metrics = app.metricPayloads
      let diagnostics = app.diagnosticPayloads
      app.metricPayloads = []
      app.diagnosticPayloads = []
      if app.spec.metricKit == .metricManager, runs(.metricManager) {
        yieldReports(metrics, diagnostics, to: app)
      } else {
        callSubscriber(of: app, with: metrics, diagnostics)
      }
    }
  }

  /// `MXMetricManagerSubscriber.didReceive(_:)`: every report of a kind in one call.
  private func callSubscriber(
    of app: App, with metrics: [MetricPayload], _ diagnostics: [DiagnosticPayload]
  ) {
    let cause = TransitionCause.event(.deliverMetrics)
    if !metrics.isEmpty {
      deliver(.didReceiveMetricPayloads, to: app, cause: cause, arguments: .metrics(metrics))
    }
    if !diagnostics.isEmpty {
      deliver(
        .didReceiveDiagnosticPayloads, to: app, cause: cause, arguments: .diagnostics(diagnostics))
    }
  }

  /// `MetricManager`'s sequences: each report on its own ("Each iteration of
  /// `diagnosticReports` yields one report"), a crash being one diagnostic event.
  private func yieldReports(
    _ metrics: [MetricPayload], _ diagnostics: [DiagnosticPayload], to app: App
  ) {
    let cause = TransitionCause.event(.deliverMetrics)
    for payload in metrics {
      deliver(.metricReports, to: app, cause: cause, arguments: .metricReport(payload))
    }
    for diagnostic in diagnostics.lazy.flatMap(\.crashDiagnostics) {
      deliver(.diagnosticReports, to: app, cause: cause, arguments: .diagnosticReport(diagnostic))
    }
  }

  /// The period of `app`'s pending exits ends at `end`: they become a payload.
  private func closeMetricPeriod(of app: App, at end: Instant) {
    var payload = MetricPayload()
    payload.begin = app.metricPeriodBegin
    payload.end = end
    payload.latestApplicationVersion = app.version
    if let updatedAt = app.updatedAt {
      payload.includesMultipleApplicationVersions = updatedAt > payload.begin && updatedAt <= end
    }
    payload.metaData = reportMetaData(of: app)
    payload.exits = app.pendingExits
    app.pendingExits = ExitCounts()
    app.metricPeriodBegin = end
    app.metricPayloads = Self.keepingLatest(app.metricPayloads + [payload])
  }

  private func reportMetaData(of app: App) -> ReportMetaData {
    var metaData = ReportMetaData()
    metaData.applicationBuildVersion = app.build
    metaData.osVersion = osRelease.reportName
    metaData.deviceType = profile.identifier
    metaData.lowPowerModeEnabled = status.conditions.lowPowerMode
    return metaData
  }

  /// A restored `app`'s MetricKit state: its pending exits are of the restored device's day,
  /// and reports it holds reach it at the device's next operation, if it runs.
  func restoreMetricKit(of app: App) {
    if !app.pendingExits.isEmpty {
      app.metricPeriodBegin = max(app.metricPeriodBegin, Self.metricDayStart(of: status.now))
      metricPeriodHolders.insert(app.name)
      metricDayEnd = Self.metricDayEnd(of: status.now)
    }
    if app.holdsReports { reportsDue.append(app) }
  }

  private static func metricDayStart(of time: Instant) -> Instant {
    .milliseconds(time.milliseconds / metricDay * metricDay)
  }

  /// The latest `Validation.maxWaitingReports` of `reports`.
  private static func keepingLatest<Report>(_ reports: [Report]) -> [Report] {
    Array(reports.suffix(Validation.maxWaitingReports))
  }
}

extension App {
  /// Whether MetricKit holds reports it has not delivered to the app.
  var holdsReports: Bool { !record.metricPayloads.isEmpty || !record.diagnosticPayloads.isEmpty }

  /// Whether a report delivered now reaches the app's code at once: its main thread is free.
  func canTakeReports(at now: Instant) -> Bool {
    !isBusy(at: now) && waitingCallbacks.isEmpty
  }
}
