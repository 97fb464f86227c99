import Testing

@testable import LifecycleEngine

/// What an app learns of its exits afterwards: each termination counted in MetricKit's
/// category (`MXAppExitMetric`, `MXForegroundExitData`, `MXBackgroundExitData`), delivered once
/// to the running app as `MXMetricManagerSubscriber.didReceive(_:)`, by the event or every 24
/// hours of device time.
@Suite struct MetricKitTests {
  let sim = Simulator(passcode: false)

  private func exits(of app: String) -> String { describe(sim.app(app).pendingExits) }

  /// A scenario per category, and the counts it leaves.
  @Test func eachKindOfTerminationIsCountedInItsCategory() throws {
    sim.add("quit")
    try sim.post(.launch(), to: "quit")
    try sim.post(.home, to: "quit")
    try sim.post(.terminate, to: "quit")  // the user swipes it away in the switcher
    #expect(exits(of: "quit") == "background normalApp 1")

    sim.add("front")
    try sim.post(.launch(), to: "front")
    try sim.post(.openSwitcher, to: "front")
    try sim.post(.terminate, to: "front")  // swiped away from the front of the switcher
    #expect(exits(of: "front") == "foreground normalApp 1")

    sim.add("crash")
    try sim.post(.launch(), to: "crash")
    try sim.post(.crash(), to: "crash")
    #expect(exits(of: "crash") == "foreground abnormal 1")

    sim.add("hot")
    try sim.post(.launch(), to: "hot")
    try sim.post(.thermalKill, to: "hot")
    #expect(exits(of: "hot") == "foreground abnormal 1")

    sim.add("slow", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(10)))
    try sim.post(.launch(), to: "slow")
    try sim.post(.home, to: "slow")
    sim.advance(6)  // 0x8badf00d
    #expect(exits(of: "slow") == "background appWatchdog 1")

    sim.add("lock", behavior: AppBehavior(holdsFileLockAtSuspension: true))
    try sim.post(.launch(), to: "lock")
    try sim.post(.home, to: "lock")
    sim.advance(3)  // 0xdead10cc at suspension
    #expect(exits(of: "lock") == "background suspendedWithLockedFile 1")

    sim.add("fetch", modes: [.fetch])
    try sim.post(.backgroundLaunch(.fetch), to: "fetch")
    sim.advance(31)  // 0x2182bad4: the completion handler never called
    #expect(exits(of: "fetch") == "background backgroundTaskAssertionTimeout 1")

    sim.add("huge", memoryMB: 100)
    try sim.post(.launch(), to: "huge")
    try sim.post(.setMemory(memoryMB: 4000), to: "huge")  // past the iPhone 15 Pro's 3072 MB
    #expect(exits(of: "huge") == "foreground memoryResourceLimit 1")

    sim.add("purged")
    try sim.post(.launch(), to: "purged")
    try sim.post(.home, to: "purged")
    try sim.post(.purge(.vmPageshortage), to: "purged")
    #expect(exits(of: "purged") == "background memoryPressure 1")

    try sim.post(.launch(), to: "crash")
    try sim.post(.shutdown)
    #expect(exits(of: "crash") == "foreground normalApp 1, foreground abnormal 1")
  }

  /// Jetsam under pressure: the background app killed for the foreground one's memory.
  @Test func jetsamUnderPressureIsAMemoryPressureExit() throws {
    let sim = Simulator(memoryLimitMB: 300, passcode: false)
    sim.add("mail", .appDelegate)
    sim.add("game", memoryMB: 250)
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    try sim.post(.launch(), to: "game")
    sim.advance(10)
    #expect(sim.jetsam.map(\.reason) == [.vmPageshortage])
    #expect(describe(sim.app("mail").pendingExits) == "background memoryPressure 1")
  }

  private func reports(of app: String) -> [String] {
    sim.app(app).metricPayloads.map(describe) + sim.app(app).diagnosticPayloads.map(describe)
  }

  /// Each kill with a code and the app's own crash make a crash report, as crash reports show
  /// them; jetsam's kills, a force-quit and a shutdown make none.
  @Test func killsWithACodeAndCrashesMakeCrashReports() throws {
    sim.add("crash")
    try sim.post(.launch(), to: "crash")
    try sim.post(.crash(), to: "crash")
    #expect(reports(of: "crash") == ["at 0 v1.0 Namespace SIGNAL, Code 0x6 (signal 6)"])

    sim.add("slow", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(10)))
    try sim.post(.launch(), to: "slow")
    try sim.post(.home, to: "slow")
    sim.advance(6)  // 5 s allowed
    #expect(reports(of: "slow") == ["at 5 v1.0 Namespace FRONTBOARD, Code 0x8badf00d (signal 9)"])

    sim.add("lock", behavior: AppBehavior(holdsFileLockAtSuspension: true))
    try sim.post(.launch(), to: "lock")
    try sim.post(.home, to: "lock")
    sim.advance(3)  // suspended 2 s after it left
    #expect(reports(of: "lock") == ["at 8 v1.0 Namespace RUNNINGBOARD, Code 0xdead10cc (signal 9)"])

    sim.add("purged")
    try sim.post(.launch(), to: "purged")
    try sim.post(.home, to: "purged")
    try sim.post(.purge(.vmPageshortage), to: "purged")
    sim.add("quit")
    try sim.post(.launch(), to: "quit")
    try sim.post(.terminate, to: "quit")
    #expect(reports(of: "purged") == [] && reports(of: "quit") == [])
    #expect(sim.app("crash").diagnosticPayloads[0].crashDiagnostics[0].exceptionType == 10)
  }

  /// A crash report reaches the app's next process once it has launched; the exits wait for
  /// the end of the day, which the clock makes at each 24 hours of device time and hands at
  /// once to the app, running.
  @Test func aCrashReportReachesTheNextLaunchAndTheDayItsEnd() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    sim.advance(10)
    try sim.post(.crash(), to: "mail")
    #expect(try sim.post(.deliverMetrics).callbacks.isEmpty)  // not running: it keeps them
    let launch = try sim.post(.launch(), to: "mail")
    #expect(
      trace(launch).last
        == "MXMetricManagerSubscriber.didReceiveDiagnosticPayloads: → active/foregroundActive"
        + " {at 10 v1.0 Namespace SIGNAL, Code 0x6 (signal 6)}")
    #expect(reports(of: "mail") == [])
    #expect(sim.deviceView.nextDeadline == .seconds(86_400))
    let day = sim.advance(86_400)
    #expect(
      trace(day) == [
        "MXMetricManagerSubscriber.didReceive(_:) → active/foregroundActive"
          + " {0–86400 v1.0: foreground abnormal 1}"
      ])
    #expect(sim.app("mail").pendingExits.isEmpty && reports(of: "mail") == [])
    #expect(sim.deviceView.nextDeadline == nil)
  }

  /// Days not delivered wait, each its own payload, and arrive together with the crash reports
  /// when the app first runs with its main thread free: here an app the watchdog kills at each
  /// launch, until a debugger keeps it alive. Each day's version is the one installed when it
  /// ended.
  @Test func reportsNotDeliveredArriveTogether() throws {
    sim.add("slow", behavior: AppBehavior(didFinishLaunchingDuration: .seconds(25)))
    try sim.post(.launch(), to: "slow")
    sim.advance(90_000)  // killed at 20 s; its day ends at 86,400 s
    #expect(reports(of: "slow").first == "0–86400 v1.0: foreground appWatchdog 1")
    #expect(sim.deviceView.nextDeadline == nil)  // nothing for the clock to do
    try sim.post(.updateApp(version: "2.0"), to: "slow")
    try sim.post(.launch(), to: "slow")
    sim.advance(90_000)  // killed again; the second day ends at 172,800 s
    try sim.post(.launch(), to: "slow")
    try sim.post(.attachDebugger, to: "slow")
    let free = sim.advance(25)
    let metrics: String =
      "MXMetricManagerSubscriber.didReceive(_:) → active/foregroundActive"
      + " {0–86400 v1.0: foreground appWatchdog 1; 86400–172800 v2.0+: foreground appWatchdog 1}"
    let diagnostics: String =
      "MXMetricManagerSubscriber.didReceiveDiagnosticPayloads: → active/foregroundActive"
      + " {at 20 v1.0 Namespace FRONTBOARD, Code 0x8badf00d (signal 9);"
      + " at 90020 v2.0 Namespace FRONTBOARD, Code 0x8badf00d (signal 9)}"
    #expect(trace(free).suffix(2) == [metrics, diagnostics])
    #expect(reports(of: "slow") == [])
  }

  /// iOS 27's `MetricManager` yields the same reports one at a time, in the same order, each
  /// crash with the category its metadata names; on iOS 26 the app's fallback, a subscriber,
  /// takes them as before.
  @Test(arguments: ["27.0", "26.4"])
  func aMetricManagerAppTakesEachReportOnItsOwn(osVersion: String) throws {
    let sim = Simulator(passcode: false, osVersion: osVersion)
    sim.add(
      "slow", behavior: AppBehavior(didFinishLaunchingDuration: .seconds(25)), sdkVersion: 27,
      metricKit: .metricManager)
    try sim.post(.launch(), to: "slow")
    sim.advance(90_000)
    try sim.post(.launch(), to: "slow")
    sim.advance(90_000)
    try sim.post(.launch(), to: "slow")
    try sim.post(.attachDebugger, to: "slow")
    let delivered = trace(sim.advance(25)).filter { $0.contains("Metric") }
    let state = "→ active/foregroundActive"
    let os = osVersion == "27.0" ? "27.0 (24A437)" : "26.4 (23E246)"
    #expect(sim.app("slow").diagnosticPayloads.isEmpty, "\(os)")
    if osVersion == "27.0" {
      #expect(
        delivered == [
          "MetricManager.metricReports \(state) {0–86400 v1.0: foreground appWatchdog 1}",
          "MetricManager.metricReports \(state) {86400–172800 v1.0: foreground appWatchdog 1}",
          "MetricManager.diagnosticReports \(state)"
            + " {v1.0 Namespace FRONTBOARD, Code 0x8badf00d (signal 9) appWatchdog}",
          "MetricManager.diagnosticReports \(state)"
            + " {v1.0 Namespace FRONTBOARD, Code 0x8badf00d (signal 9) appWatchdog}",
        ])
    } else {
      #expect(
        delivered.map { $0.prefix(while: { $0 != " " }) } == [
          "MXMetricManagerSubscriber.didReceive(_:)",
          "MXMetricManagerSubscriber.didReceiveDiagnosticPayloads:",
        ])
    }
  }

  /// Each crash's category (iOS 27's `terminationCategory`) is the one its exit is counted in,
  /// read back from its metadata; a code it does not know has none.
  @Test func aCrashNamesTheCategoryItsExitIsCountedIn() {
    let metaData = ReportMetaData()
    for code in TerminationCode.allCases {
      let crash = CrashDiagnostic(.kill(code), version: "1.0", metaData: metaData)
      #expect(
        crash.terminationCategory
          == ExitCategory.of(
            cause: .watchdog, terminationCode: code, jetsamReason: nil, inForeground: true))
    }
    #expect(
      CrashDiagnostic(.abort, version: "1.0", metaData: metaData).terminationCategory == .abnormal)
    #expect(
      CrashDiagnostic(.trap, version: "1.0", metaData: metaData).terminationCategory == .abnormal)
    var unknown = CrashDiagnostic(.kill(.fileLock), version: "1.0", metaData: metaData)
    unknown.terminationReason = "Namespace RUNNINGBOARD, Code 0xbaadca11"
    #expect(unknown.terminationCategory == nil)
  }

  /// `deliverMetrics`, as Xcode's simulate command: the period under way ends now, and the
  /// next one starts there.
  @Test func deliverMetricsEndsThePeriodUnderWay() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.crash(), to: "mail")
    try sim.post(.launch(), to: "mail")  // takes the crash report
    sim.advance(100)
    #expect(
      trace(try sim.post(.deliverMetrics)) == [
        "MXMetricManagerSubscriber.didReceive(_:) → active/foregroundActive"
          + " {0–100 v1.0: foreground abnormal 1}"
      ])
    #expect(sim.deviceView.nextDeadline == nil)
    try sim.post(.crash(), to: "mail")
    try sim.post(.launch(), to: "mail")
    sim.advance(100)
    #expect(
      trace(try sim.post(.deliverMetrics)).first
        == "MXMetricManagerSubscriber.didReceive(_:) → active/foregroundActive"
        + " {100–200 v1.0: foreground abnormal 1}")
    #expect(try sim.post(.deliverMetrics).callbacks.isEmpty)
  }

  /// An app not running makes the clock no deadline beyond the end of the day its exits were
  /// counted in: a long advance over many such apps ends one day, once.
  @Test func exitsOfAnAppNotRunningEndOneDayOnly() throws {
    for name in ["mail", "maps", "news"] {
      sim.add(name)
      try sim.post(.launch(), to: name)
      try sim.post(.crash(), to: name)
    }
    #expect(sim.deviceView.nextDeadline == .seconds(86_400))
    #expect(sim.advance(3_000 * 86_400).callbacks.isEmpty)
    #expect(sim.deviceView.nextDeadline == nil)
    #expect(sim.app("mail").metricPayloads == sim.app("news").metricPayloads)
    let launch = try sim.post(.launch(), to: "maps")
    #expect(
      launch.callbacks.suffix(2).map(\.method) == [
        .didReceiveMetricPayloads, .didReceiveDiagnosticPayloads,
      ])
    #expect(sim.app("maps").metricPayloads.isEmpty && sim.app("mail").metricPayloads.count == 1)
  }

  /// At most `maxWaitingReports` of each kind wait, the oldest dropped, and their bytes are
  /// counted in the device's memory.
  @Test func waitingReportsAreBoundedAndCounted() throws {
    sim.add("slow", behavior: AppBehavior(didFinishLaunchingDuration: .seconds(25)))
    let before = sim.engine.retainedBytes
    for _ in 0...Validation.maxWaitingReports {
      try sim.post(.launch(), to: "slow")
      sim.advance(86_400)  // killed at 20 s, its day ended
    }
    let app = sim.app("slow")
    #expect(app.metricPayloads.count == 30 && app.diagnosticPayloads.count == 30)
    #expect(app.metricPayloads.first?.begin == .seconds(86_400))
    let reportBytes = app.metricPayloads.countedBytes + app.diagnosticPayloads.countedBytes
    #expect(reportBytes > 30 * 200)
    #expect(sim.engine.retainedBytes - before >= reportBytes)
  }
}
