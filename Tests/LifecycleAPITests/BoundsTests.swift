import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// What one client can make the server hold stays bounded and counted, and past a bound only
/// the client that asks is refused: the API's side of README "Limits and guarantees".
@Suite struct BoundsTests {
  @Test func eventsThatCouldQueuePastTheWaitingBoundAre409AndChangeNothing() {
    let api = APITests { $0.limits.maxWaitingCallbacksPerApp = 64 }
    api.call(
      "POST", "/v1/apps",
      #"{"name":"mail","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":4}}"#)
    let scenario =
      "["
      + Array(repeating: #"{"type":"launch"},{"type":"home"}"#, count: 16)
      .joined(separator: ",") + "]"
    let applied = api.call("POST", "/v1/apps/mail/events", scenario)
    #expect(applied.status == 409)
    #expect(applied.json?["failedIndex"] != nil)
    let before = api.call("GET", "/v1/apps/mail")
    guard case .array(let queue) = before.json?["waitingCallbacks"] else {
      Issue.record("no waitingCallbacks in \(before.body)")
      return
    }
    let waiting = queue.count
    #expect(waiting > 64 - 2 * Validation.maxScenesPerApp && waiting <= 64)
    let refusal =
      #"{"type":"urn:lifecycled:problem:limit-reached","title":"A limit is reached","#
      + #""status":409,"detail":"so many callbacks wait behind the busy main thread of app "#
      + #"'mail' that this event could queue more than 64 (maxWaitingCallbacksPerApp); let its "#
      + #"didEnterBackground return first (advance the clock past busyUntil)"}"#
    #expect(api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#).body == refusal)
    #expect(api.call("POST", "/v1/devices/default/events", #"{"type":"lock"}"#).body == refusal)
    #expect(api.call("GET", "/v1/apps/mail").body == before.body)
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":4}"#)
    #expect(api.call("POST", "/v1/devices/default/events", #"{"type":"lock"}"#).status == 200)
  }
}
