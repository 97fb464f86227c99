import JSONCore
import Testing

/// MetricKit over the API: the app view's counts not yet delivered, the payload's JSON form
/// (`MXAppExitMetric`'s properties), and the counts a snapshot keeps.
@Suite struct MetricKitAPITests {
  let api = APITests()

  static let crashedInTheForeground =
    #"{"foregroundExitData":{"cumulativeNormalAppExitCount":0,"cumulativeAbnormalExitCount":1,"cumulativeAppWatchdogExitCount":0,"cumulativeMemoryResourceLimitExitCount":0,"cumulativeBadAccessExitCount":0,"cumulativeIllegalInstructionExitCount":0},"#
    + #""backgroundExitData":{"cumulativeNormalAppExitCount":0,"cumulativeAbnormalExitCount":0,"cumulativeAppWatchdogExitCount":0,"cumulativeMemoryResourceLimitExitCount":0,"cumulativeMemoryPressureExitCount":0,"cumulativeCPUResourceLimitExitCount":0,"cumulativeBadAccessExitCount":0,"cumulativeIllegalInstructionExitCount":0,"cumulativeBackgroundTaskAssertionTimeoutExitCount":0,"cumulativeSuspendedWithLockedFileExitCount":0}}"#

  @Test func theViewShowsTheCountsAndTheEventDeliversThemOnce() {
    api.post("/v1/apps", #"{"name":"mail"}"#)
    api.post("/v1/apps/mail/events", #"[{"type":"launch"},{"type":"crash"},{"type":"launch"}]"#)
    #expect(
      api.call("GET", "/v1/apps/mail").json?["pendingExits"] == json(Self.crashedInTheForeground))
    let snapshot = api.call("GET", "/v1/devices/default/snapshot")
    #expect(snapshot.body.contains(#""pendingExits":\#(Self.crashedInTheForeground)"#))
    let delivery = api.post("/v1/devices/default/events", #"{"type":"deliverMetrics"}"#)
    guard case .array(let callbacks)? = delivery?["callbacks"], callbacks.count == 1 else {
      return #expect(Bool(false), "\(String(describing: delivery))")
    }
    #expect(callbacks[0]["method"] == .string("MXMetricManagerSubscriber.didReceive(_:)"))
    #expect(
      callbacks[0]["arguments"]
        == json(#"{"payloads":[{"applicationExitMetrics":\#(Self.crashedInTheForeground)}]}"#))
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
}
