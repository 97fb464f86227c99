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
}
