import JSONCore
import LifecycleEngine
import Testing

/// MetricKit over the API: the app view's counts not yet in a payload, the payloads' JSON form
/// (`MXMetricPayload`, `MXAppExitMetric`, `MXDiagnosticPayload`, `MXCrashDiagnostic`: Apple's
/// property names), and what a snapshot keeps.
@Suite struct MetricKitAPITests {
  let api = APITests()

  static let crashedInTheForeground =
    #"{"foregroundExitData":{"cumulativeNormalAppExitCount":0,"cumulativeAbnormalExitCount":1,"cumulativeAppWatchdogExitCount":0,"cumulativeMemoryResourceLimitExitCount":0,"cumulativeBadAccessExitCount":0,"cumulativeIllegalInstructionExitCount":0},"#
    + #""backgroundExitData":{"cumulativeNormalAppExitCount":0,"cumulativeAbnormalExitCount":0,"cumulativeAppWatchdogExitCount":0,"cumulativeMemoryResourceLimitExitCount":0,"cumulativeMemoryPressureExitCount":0,"cumulativeCPUResourceLimitExitCount":0,"cumulativeBadAccessExitCount":0,"cumulativeIllegalInstructionExitCount":0,"cumulativeBackgroundTaskAssertionTimeoutExitCount":0,"cumulativeSuspendedWithLockedFileExitCount":0}}"#

  static let metaData =
    #"{"applicationBuildVersion":"1","osVersion":"iPhone OS 26.1 (23B85)","#
    + #""deviceType":"iPhone16,1","lowPowerModeEnabled":false}"#

  @Test func theReportsReachTheAppInApplesShape() {
    api.post("/v1/apps", #"{"name":"mail"}"#)
    api.post("/v1/apps/mail/events", #"[{"type":"launch"},{"type":"crash"}]"#)
    guard case .array(let waiting)? = api.call("GET", "/v1/apps/mail").json?["diagnosticPayloads"]
    else { return #expect(Bool(false), "no diagnosticPayloads") }
    #expect(waiting.count == 1)
    let launch = api.post("/v1/apps/mail/events", #"{"type":"launch"}"#)
    guard case .array(let callbacks)? = launch?["callbacks"], let report = callbacks.last else {
      return #expect(Bool(false), "\(String(describing: launch))")
    }
    #expect(
      report["method"]
        == .string("MXMetricManagerSubscriber.didReceiveDiagnosticPayloads:"))
    let crash =
      #"{"applicationVersion":"1.0","metaData":\#(Self.metaData),"exceptionType":10,"#
      + #""exceptionCode":0,"signal":6,"terminationReason":"Namespace SIGNAL, Code 0x6"}"#
    #expect(
      report["arguments"]
        == json(
          #"{"diagnosticPayloads":[{"timeStampBegin":0.0,"timeStampEnd":0.0,"crashDiagnostics":[\#(crash)]}]}"#
        ))
    // A journal query names it as it is: no method's name has a space, which a query would
    // carry as `+` or `%20`.
    let found = api.call(
      "GET",
      "/v1/devices/default/journal?method=MXMetricManagerSubscriber.didReceiveDiagnosticPayloads:")
    guard case .array(let entries)? = found.json?["entries"] else {
      return #expect(Bool(false), "\(found.body)")
    }
    #expect(entries.count == 1)
    #expect(CallbackMethod.allCases.allSatisfy { !$0.rawValue.contains(" ") })
    #expect(
      api.call("GET", "/v1/apps/mail").json?["pendingExits"] == json(Self.crashedInTheForeground))
    let snapshot = api.call("GET", "/v1/devices/default/snapshot")
    #expect(snapshot.body.contains(#""pendingExits":\#(Self.crashedInTheForeground)"#))
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":2.5}"#)
    let delivery = api.post("/v1/devices/default/events", #"{"type":"deliverMetrics"}"#)
    guard case .array(let delivered)? = delivery?["callbacks"], delivered.count == 1 else {
      return #expect(Bool(false), "\(String(describing: delivery))")
    }
    #expect(delivered[0]["method"] == .string("MXMetricManagerSubscriber.didReceive(_:)"))
    let payload =
      #"{"timeStampBegin":0.0,"timeStampEnd":2.5,"latestApplicationVersion":"1.0","#
      + #""includesMultipleApplicationVersions":false,"metaData":\#(Self.metaData),"#
      + #""applicationExitMetrics":\#(Self.crashedInTheForeground)}"#
    #expect(delivered[0]["arguments"] == json(#"{"payloads":[\#(payload)]}"#))
    #expect(
      api.call("GET", "/v1/apps/mail").json?["pendingExits"]?["foregroundExitData"]?[
        "cumulativeAbnormalExitCount"] == .integer(0))
    let again = api.post("/v1/devices/default/events", #"{"type":"deliverMetrics"}"#)
    #expect(again?["callbacks"] == .array([]))
    // The snapshot taken before the delivery brings the counts back.
    let restored = api.call("PUT", "/v1/devices/default", snapshot.body)
    #expect(restored.status == 200, "\(restored.body)")
    #expect(
      api.call("GET", "/v1/apps/mail").json?["pendingExits"] == json(Self.crashedInTheForeground))
  }

  /// A payload waiting behind a busy main thread survives a snapshot, in the form the view
  /// shows (each report's members under Apple's names).
  @Test func waitingReportsSurviveASnapshot() {
    api.post("/v1/apps", #"{"name":"slow","behavior":{"didFinishLaunchingSeconds":25}}"#)
    api.post("/v1/apps/slow/events", #"{"type":"launch"}"#)
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":86400}"#)
    let view = api.call("GET", "/v1/apps/slow").json
    guard case .array(let payloads)? = view?["metricPayloads"], payloads.count == 1,
      case .array(let reports)? = view?["diagnosticPayloads"], reports.count == 1
    else { return #expect(Bool(false), "\(String(describing: view))") }
    guard case .array(let crashes)? = reports[0]["crashDiagnostics"], crashes.count == 1 else {
      return #expect(Bool(false), "\(reports)")
    }
    #expect(crashes[0]["terminationReason"] == .string("Namespace FRONTBOARD, Code 0x8badf00d"))
    let snapshot = api.call("GET", "/v1/devices/default/snapshot")
    api.call("DELETE", "/v1/apps/slow")
    #expect(api.call("PUT", "/v1/devices/default", snapshot.body).status == 200)
    let restored = api.call("GET", "/v1/apps/slow").json
    #expect(restored?["metricPayloads"] == view?["metricPayloads"])
    #expect(restored?["diagnosticPayloads"] == view?["diagnosticPayloads"])
  }

  /// An app that takes its reports from iOS 27's `MetricManager` gets each on its own, in
  /// `MetricReport` and `DiagnosticReport`'s shape, on iOS 27; before it, its fallback's.
  @Test func aMetricManagerAppGetsEachReportInIOS27Shape() {
    api.post("/v1/devices", #"{"id":"new","osVersion":"27.0"}"#)
    let created = api.post(
      "/v1/devices/new/apps", #"{"name":"mail","sdkVersion":27,"metricKit":"metricManager"}"#)
    #expect(created?["metricKit"] == .string("metricManager"), "\(String(describing: created))")
    api.post("/v1/devices/new/apps/mail/events", #"[{"type":"launch"},{"type":"crash"}]"#)
    api.call("POST", "/v1/devices/new/clock/advance", #"{"seconds":2.5}"#)
    let launch = api.post("/v1/devices/new/apps/mail/events", #"{"type":"launch"}"#)
    guard case .array(let callbacks)? = launch?["callbacks"], let last = callbacks.last else {
      return #expect(Bool(false), "\(String(describing: launch))")
    }
    #expect(last["method"] == .string("MetricManager.diagnosticReports"))
    let report =
      #"{"environment":{"osVersion":{"platform":"iPhone OS","number":"27.0","buildNumber":"24A437"},"#
      + #""deviceType":"iPhone16,1","applicationBuildVersion":"1","lowPowerModeEnabled":false,"#
      + #""applicationVersion":"1.0"},"result":{"crash":{"exceptionType":10,"exceptionCode":0,"#
      + #""signal":6,"terminationReason":"Namespace SIGNAL, Code 0x6","#
      + #""terminationCategory":"abnormal"}}}"#
    #expect(last["arguments"] == json(#"{"report":\#(report)}"#))
    let delivery = api.post("/v1/devices/new/events", #"{"type":"deliverMetrics"}"#)
    guard case .array(let delivered)? = delivery?["callbacks"], delivered.count == 1 else {
      return #expect(Bool(false), "\(String(describing: delivery))")
    }
    #expect(delivered[0]["method"] == .string("MetricManager.metricReports"))
    let foreground =
      #"{"normalTerminationCount":0,"abnormalTerminationCount":1,"watchdogTerminationCount":0,"#
      + #""memoryLimitTerminationCount":0,"badAccessTerminationCount":0,"#
      + #""illegalInstructionTerminationCount":0}"#
    let background =
      #"{"normalTerminationCount":0,"abnormalTerminationCount":0,"watchdogTerminationCount":0,"#
      + #""memoryLimitTerminationCount":0,"systemPressureTerminationCount":0,"#
      + #""highCPUTerminationCount":0,"badAccessTerminationCount":0,"#
      + #""illegalInstructionTerminationCount":0,"taskTimeoutTerminationCount":0,"#
      + #""fileLockTerminationCount":0}"#
    let metricReport =
      #"{"timeRange":{"start":0.0,"duration":2.5},"environment":{"osVersion":{"platform":"#
      + #""iPhone OS","number":"27.0","buildNumber":"24A437"},"deviceType":"iPhone16,1","#
      + #""applicationBuildVersion":"1","lowPowerModeEnabled":false,"#
      + #""latestApplicationVersion":"1.0","includesMultipleApplicationVersions":false},"#
      + #""intervalEntries":[{"duration":2.5,"states":[],"values":[{"foregroundTermination":"#
      + #"\#(foreground)},{"backgroundTermination":\#(background)}]}],"stateEntries":[]}"#
    #expect(delivered[0]["arguments"] == json(#"{"report":\#(metricReport)}"#))
    // On iOS 26 the same app's fallback, an MXMetricManagerSubscriber, takes them.
    api.post("/v1/devices", #"{"id":"old","osVersion":"26.4"}"#)
    api.post(
      "/v1/devices/old/apps", #"{"name":"mail","sdkVersion":27,"metricKit":"metricManager"}"#)
    api.post("/v1/devices/old/apps/mail/events", #"[{"type":"launch"},{"type":"crash"}]"#)
    let old = api.post("/v1/devices/old/apps/mail/events", #"{"type":"launch"}"#)
    guard case .array(let oldCallbacks)? = old?["callbacks"] else {
      return #expect(Bool(false), "\(String(describing: old))")
    }
    #expect(
      oldCallbacks.last?["method"]
        == .string("MXMetricManagerSubscriber.didReceiveDiagnosticPayloads:"))
  }

  /// A `MetricManager` report waiting behind a busy main thread (in a snapshot, as a
  /// harness may write one) survives the snapshot and reaches the app when its thread frees.
  @Test func aWaitingMetricManagerReportSurvivesASnapshot() {
    api.call("PUT", "/v1/devices/new", #"{"clock":"manual","osVersion":"27.0"}"#)
    api.call(
      "POST", "/v1/devices/new/apps",
      #"{"name":"mail","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":3}}"#)
    api.call(
      "POST", "/v1/devices/new/apps/mail/events",
      #"[{"type":"launch"},{"type":"home"},{"type":"launch"}]"#)
    let current = api.call("GET", "/v1/devices/new/snapshot").body
    let waiting = #"{"method":"applicationWillEnterForeground(_:)""#
    #expect(current.contains(#""waitingCallbacks":["#), "\(current)")
    let crash =
      #"{"applicationVersion":"1.0","metaData":\#(Self.metaData),"exceptionType":10,"#
      + #""exceptionCode":0,"signal":9,"terminationReason":"Namespace FRONTBOARD, Code 0x8badf00d"}"#
    let report =
      #"{"method":"MetricManager.diagnosticReports","state":"active","cause":"deliverMetrics","#
      + #""arguments":{"kind":"diagnosticReport","crashDiagnostic":\#(crash)}},"#
    let written = current.replacingOccurrences(of: waiting, with: report + waiting)
    let other = APITests()
    let put = other.call("PUT", "/v1/devices/new", written)
    #expect(put.status == 201, "\(put.body)")
    #expect(other.call("GET", "/v1/devices/new/snapshot").body == written)
    let freed = other.call("POST", "/v1/devices/new/clock/advance", #"{"seconds":3}"#).json
    guard case .array(let callbacks)? = freed?["callbacks"], let first = callbacks.first else {
      return #expect(Bool(false), "\(String(describing: freed))")
    }
    #expect(first["method"] == .string("MetricManager.diagnosticReports"))
    #expect(
      first["arguments"]?["report"]?["result"]?["crash"]?["terminationCategory"]
        == .string("watchdog"))
    #expect(
      first["arguments"]?["report"]?["environment"]?["osVersion"]
        == json(#"{"platform":"iPhone OS","number":"26.1","buildNumber":"23B85"}"#))
  }

  /// `metricManager` is in the iOS 27 SDK: an app built with an earlier one cannot use it.
  @Test func metricManagerNeedsTheIOS27SDK() {
    let refused = api.call("POST", "/v1/apps", #"{"name":"mail","metricKit":"metricManager"}"#)
    #expect(refused.status == 422)
    #expect(
      refused.json?["validation"]
        == json(
          #"[{"field":"metricKit","message":"metricManager is in the iOS 27 SDK: it needs sdkVersion 27"}]"#
        ))
    #expect(api.call("GET", "/v1/apps/mail").status == 404)
  }
}
