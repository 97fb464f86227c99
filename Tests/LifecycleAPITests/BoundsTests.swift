import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// What one client can make the server hold stays bounded and counted, and past a bound only
/// the client that asks is refused: the API's side of the user guide's "Limits and guarantees".
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
      + #"'mail' that this event could queue more than 64 (maxWaitingCallbacksPerApp); let its busy "#
      + #"callback return first (advance the clock past busyUntil)"}"#
    #expect(api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#).body == refusal)
    #expect(api.call("POST", "/v1/devices/default/events", #"{"type":"lock"}"#).body == refusal)
    #expect(api.call("GET", "/v1/apps/mail").body == before.body)
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":4}"#)
    #expect(api.call("POST", "/v1/devices/default/events", #"{"type":"lock"}"#).status == 200)
  }

  /// When what clients hold fills the budget (here, bodies being received), creating is
  /// refused but starting afresh never is: a device's reset and the server's, fixtures and all,
  /// answer as usual (they trapped once, refused for the budget where they could not be).
  @Test func resetsWorkWhateverClientsHold() {
    let fixture = #"{"devices":[{"id":"ci","clock":"manual","apps":[{"name":"mail"}]}]}"#
    let api = APITests(fixtures: fixture) { $0.limits.memoryBudgetBytes = 1 << 20 }
    let engine = api.api.engine
    api.api.countHeldForClients(engine.configuration.limits.memoryBudgetBytes)
    #expect(!api.api.hasRoomForClients(1))
    #expect(api.call("POST", "/v1/devices", #"{"id":"new"}"#).status == 507)
    #expect(api.call("POST", "/v1/devices/ci/reset").status == 200)
    #expect(api.call("POST", "/__admin/reset").status == 204)
    #expect(api.call("GET", "/v1/devices/ci/apps/mail").status == 200)
    #expect(api.call("GET", "/v1/devices/default").status == 200)
    api.api.countHeldForClients(-engine.configuration.limits.memoryBudgetBytes)
    #expect(api.call("POST", "/v1/devices", #"{"id":"new"}"#).status == 201)
  }

  /// A scenario's answer counts in the memory budget as it is written: once it has spent the
  /// budget, the next event is refused (507) with its index and without the results, which are
  /// what did not fit; a dry run then changes nothing, events in order keep those applied, and
  /// the budget is whole again for the next request.
  @Test func aScenarioWhoseAnswerOutgrowsTheBudgetIsCutShort() throws {
    let api = APITests { $0.limits.memoryBudgetBytes = 1 << 20 }
    for app in 0..<100 {
      api.post("/v1/apps", #"{"name":"app\#(app)"}"#)
      api.post("/v1/apps/app\(app)/events", #"{"type":"launch"}"#)
    }
    let engine = api.api.engine
    let idle = engine.retainedBytes
    let warnings =
      "["
      + Array(repeating: #"{"type":"memoryWarning"}"#, count: 100)
      .joined(separator: ",") + "]"
    for mode in ["?dryRun=true", ""] {
      let cut = api.call("POST", "/v1/devices/default/events\(mode)", warnings)
      #expect(cut.status == 507, "\(cut.body)")
      #expect(cut.json?["type"] == .string("urn:lifecycled:problem:memory-budget-exhausted"))
      #expect(cut.json?["results"] == nil)
      guard case .integer(let index)? = cut.json?["failedIndex"] else {
        Issue.record("no failedIndex: \(cut.body)")
        continue
      }
      #expect((1..<100).contains(index))
      let events = api.call("GET", "/v1/devices/default").json?["counters"]?["events"]
      #expect(events == .integer(100 + (mode.isEmpty ? index : 0)))
      if !mode.isEmpty { #expect(engine.retainedBytes == idle) }
    }
    #expect(
      api.call("POST", "/v1/devices/default/events", #"{"type":"memoryWarning"}"#).status == 200)
  }

  /// Open waits and streams count in the memory budget, each stream with all the server may
  /// hold unsent for it, until they are answered, ended or abandoned.
  @Test func waitsAndStreamsCountInTheBudget() {
    let api = APITests()
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    let engine = api.api.engine
    let idle = engine.retainedBytes
    #expect(api.call("GET", "/v1/apps/mail?waitFor=active", exchange: 1).status == 0)
    #expect(engine.retainedBytes == idle + Waits.retainedBytesPerWait)
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 2)
    let stream = Streams.retainedBytesPerStream + api.api.streamBacklogBytes
    #expect(engine.retainedBytes == idle + Waits.retainedBytesPerWait + stream)
    api.api.abandon(exchange: 2, now: .zero)
    #expect(engine.retainedBytes == idle + Waits.retainedBytesPerWait)
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 3)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)  // answers the wait
    // The same state without waits or streams.
    let twin = APITests()
    twin.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    twin.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(engine.retainedBytes == twin.api.engine.retainedBytes + stream)
    api.api.shutDown(now: .zero)
    #expect(engine.retainedBytes == twin.api.engine.retainedBytes)
  }

  /// A dry run's or an atomic scenario's copy of the device counts while it lives: one the
  /// budget cannot hold is refused with 507 before it is made, and a dry run leaves the count
  /// as it was.
  @Test func scenarioCopiesCountInTheBudget() {
    let api = APITests { $0.limits.memoryBudgetBytes = 8_192 }
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    let before = api.api.engine.retainedBytes
    #expect(before < 4_096)
    let dry = api.call("POST", "/v1/apps/mail/events?dryRun=true", #"[{"type":"launch"}]"#)
    #expect(dry.status == 200)
    #expect(api.api.engine.retainedBytes == before)
    api.call("POST", "/v1/apps", #"{"name":"notes"}"#)
    api.call("POST", "/v1/apps", #"{"name":"maps"}"#)
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    let full = api.api.engine.retainedBytes
    #expect(full > 4_096 && full < 8_192)
    for (target, body) in [
      ("/v1/apps/mail/events?dryRun=true", #"[{"type":"launch"}]"#),
      ("/v1/apps/mail/events", #"{"events":[{"type":"launch"}],"atomic":true}"#),
    ] {
      let refused = api.call("POST", target, body)
      #expect(refused.status == 507, "\(body)")
      let detail =
        "the simulator's state holds \(2 * full) bytes, at or past maxMemoryMB (8192 bytes); "
        + "remove devices or apps, or reset, to go on"
      #expect(refused.body.contains(detail))
    }
    #expect(api.api.engine.retainedBytes == full)
  }

  /// A large device the engine lets go of is dropped off the loop, and counts in the budget
  /// until it is; a small one is dropped at once.
  @Test func aLargeDeviceLetGoOfCountsUntilDroppedOffTheLoop() {
    let api = APITests()
    let engine = api.api.engine
    let idle = engine.retainedBytes
    for id in ["small", "large"] {
      api.call("POST", "/v1/devices", #"{"id":"\#(id)","clock":"manual"}"#)
    }
    for app in 0..<100 {
      api.call("POST", "/v1/devices/large/apps", #"{"name":"app\#(app)"}"#)
    }
    let large = engine.retainedBytes(of: "large")
    #expect(large > DeviceDrops.droppedAtOnceBytes)
    #expect(ScenarioRunsTests.ask(api, "DELETE", "/v1/devices/small", exchange: 1)?.status == 204)
    #expect(!api.api.hasPutOffWork)
    #expect(ScenarioRunsTests.ask(api, "DELETE", "/v1/devices/large", exchange: 2)?.status == 204)
    #expect(api.api.hasPutOffWork && engine.retainedBytes == idle + large)
    let work = api.api.takeOffLoopWork()
    #expect(work.count == 1 && !api.api.hasPutOffWork)
    for piece in work { piece.run() }
    #expect(engine.retainedBytes == idle + large)
    for piece in work { piece.finish(.zero) }
    #expect(engine.retainedBytes == idle)
  }
}
