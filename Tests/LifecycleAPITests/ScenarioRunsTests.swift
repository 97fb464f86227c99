import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// A scenario too long for one turn of the loop is answered a slice a turn (`ScenarioRuns`):
/// as the same events posted one by one would be, with requests about its device waiting
/// their turn and requests about others served meanwhile.
@Suite struct ScenarioRunsTests {
  /// An API whose default device runs `apps` apps, and a second device, `other`.
  static func deviceWithRunningApps(_ apps: Int = 100) -> APITests {
    let api = APITests()
    for app in 0..<apps {
      api.post("/v1/apps", #"{"name":"app\#(app)"}"#)
      api.post("/v1/apps/app\(app)/events", #"{"type":"launch"}"#)
    }
    api.post("/v1/devices", #"{"id":"other","clock":"manual"}"#)
    return api
  }

  /// A scenario of `count` events of `type`, then `last` if given.
  static func scenario(_ count: Int, of type: String = "memoryWarning", then last: String? = nil)
    -> String
  {
    let events = Array(repeating: #"{"type":"\#(type)"}"#, count: count) + (last.map { [$0] } ?? [])
    return "[" + events.joined(separator: ",") + "]"
  }

  /// Posts `body` to the default device's events as request `exchange`, which must wait.
  static func postParked(_ api: APITests, _ body: String, query: String? = nil, exchange: UInt64) {
    let response = api.api.handle(
      APIRequest(
        method: "POST", path: "/v1/devices/default/events", query: query.map { Substring($0) },
        mediaType: "application/json", body: Array(body.utf8), exchange: exchange),
      now: .zero)
    #expect(response == nil)
  }

  /// `api`'s answer to a request, as it comes: nil while it waits.
  static func ask(
    _ api: APITests, _ method: String, _ path: String, _ body: String? = nil, exchange: UInt64
  ) -> APITests.Answer? {
    api.api.handle(
      APIRequest(
        method: method, path: Substring(path), mediaType: body.map { _ in "application/json" },
        body: Array((body ?? "").utf8), exchange: exchange),
      now: .zero
    ).map(APITests.answer)
  }

  /// The turns the API takes to finish what it put off, doing the work off the loop (copies
  /// of devices) as it comes, and the answers it gave meanwhile in the order given.
  static func turnsToFinish(_ api: APITests) -> (turns: Int, answers: [(UInt64, APITests.Answer)]) {
    var turns = 0
    var answers: [(UInt64, APITests.Answer)] = []
    while true {
      let offLoop = api.api.takeOffLoopWork()
      for work in offLoop {
        work.run()
        work.finish(.zero)
      }
      if api.api.hasPutOffWork {
        api.api.continuePutOffWork(now: .zero)
        turns += 1
      } else if offLoop.isEmpty {
        return (turns, answers)
      }
      for late in api.api.takeLateAnswers() {
        guard case .response(let response) = late.part else { continue }
        answers.append((late.exchange, APITests.answer(response)))
      }
    }
  }

  /// Each turn writes events' results until it has written `sliceBytes` (at least one), and
  /// the answer is the one the same events posted one by one make.
  @Test func aLongScenarioIsAnsweredASliceATurnAsItsEventsOneByOne() throws {
    let api = Self.deviceWithRunningApps()
    let twin = Self.deviceWithRunningApps()
    let results = (0..<40).map { _ in
      twin.call("POST", "/v1/devices/default/events", #"{"type":"memoryWarning"}"#).body
    }
    Self.postParked(api, Self.scenario(40), exchange: 7)
    let (turns, answers) = Self.turnsToFinish(api)
    #expect(answers.map(\.0) == [7])
    let answer = try #require(answers.first?.1)
    #expect(answer.status == 200)
    #expect(answer.body == #"{"results":["# + results.joined(separator: ",") + "]}")
    #expect(answer.headers["ETag"] == twin.call("GET", "/v1/devices/default").headers["ETag"])
    // The slices: `{"results":[` first, then each result and the comma before it.
    var position = 12
    var slices = 0
    var next = 0
    while next < results.count {
      let start = position
      repeat {
        position += results[next].utf8.count + (next > 0 ? 1 : 0)
        next += 1
      } while next < results.count && position - start < ScenarioRuns.sliceBytes
      slices += 1
    }
    #expect(slices > 2 && turns == slices - 1)  // the first slice is written as it comes
    #expect(api.api.heldBytes == 0)
  }

  /// Until the scenario is answered, requests about its device wait, and are answered after
  /// it in the order they came, seeing what the whole scenario did; requests about other
  /// devices are answered at once. Metrics count each request once.
  @Test func requestsAboutItsDeviceWaitTheirTurnAndOthersDoNot() throws {
    let api = Self.deviceWithRunningApps()
    Self.postParked(api, Self.scenario(40), exchange: 1)
    #expect(Self.ask(api, "GET", "/v1/devices/default", exchange: 2) == nil)
    let lock = #"{"type":"lock"}"#
    #expect(Self.ask(api, "POST", "/v1/devices/default/events", lock, exchange: 3) == nil)
    #expect(Self.ask(api, "GET", "/v1/devices/other", exchange: 4)?.status == 200)
    #expect(api.call("POST", "/v1/devices/other/events", #"{"type":"lock"}"#).status == 200)
    #expect(api.call("GET", "/health").status == 200)
    #expect(api.api.heldBytes > ScenarioRuns.sliceBytes)  // the answer so far, the two waiting
    let (_, answers) = Self.turnsToFinish(api)
    #expect(answers.map(\.0) == [1, 2, 3])
    let view = try #require(answers.dropFirst().first?.1)
    #expect(view.json?["counters"]?["events"] == .integer(140))
    #expect(view.json?["locked"] == .bool(false))
    #expect(answers.last?.1.json?["previousState"] == .string("unlocked"))
    #expect(answers.last?.1.json?["state"] == .string("locked"))
    #expect(api.api.heldBytes == 0)
    let metrics = api.call("GET", "/metrics").body
    #expect(
      metrics.contains(
        #"lifecycled_http_requests_total{route="/v1/devices/{device}/events",status="200"} 3"#))
  }

  /// A dry run written over several turns changes nothing and answers as the same events
  /// applied would; an atomic scenario refused in a later slice applies none of its events,
  /// and its problem carries the results before the one refused.
  @Test func dryRunsAndAtomicScenariosKeepTheirMeaningAcrossSlices() throws {
    let api = Self.deviceWithRunningApps()
    let before = api.call("GET", "/v1/devices/default")
    Self.postParked(api, Self.scenario(40), query: "dryRun=true", exchange: 1)
    // Its device of more than `appsCopiedOnTheLoop` apps is copied off the loop first: no
    // turn has work meanwhile, and the device waits.
    #expect(!api.api.hasPutOffWork && api.api.takeLateAnswers().isEmpty)
    #expect(Self.ask(api, "GET", "/v1/devices/default", exchange: 3) == nil)
    let (_, dryRunAnswers) = Self.turnsToFinish(api)
    #expect(dryRunAnswers.map(\.0) == [1, 3])
    let dryRun = try #require(dryRunAnswers.first?.1)
    #expect(dryRun.status == 200)
    #expect(api.call("GET", "/v1/devices/default").body == before.body)
    let atomic =
      #"{"atomic":true,"events":"# + Self.scenario(40, then: #"{"type":"unlock"}"#) + "}"
    Self.postParked(api, atomic, exchange: 2)
    let refused = try #require(Self.turnsToFinish(api).answers.first?.1)
    #expect(refused.status == 409)
    #expect(refused.json?["failedIndex"] == .integer(40))
    guard case .string(let detail)? = refused.json?["detail"] else {
      Issue.record("no detail: \(refused.body)")
      return
    }
    #expect(detail.hasSuffix("none of its events was applied"))
    let applied = api.call("POST", "/v1/devices/default/events", Self.scenario(40))
    #expect(applied.json?["results"] == dryRun.json?["results"])
    #expect(refused.json?["results"] == dryRun.json?["results"])
  }

  /// A reset of the server while a scenario is parked ends it at its next slice: 404, with
  /// the index it reached and the results before it; the new device is then served.
  @Test func aScenarioWhoseDeviceIsResetEndsWithWhatItApplied() throws {
    let api = Self.deviceWithRunningApps()
    Self.postParked(api, Self.scenario(40), exchange: 1)
    #expect(api.call("POST", "/__admin/reset").status == 204)
    #expect(Self.ask(api, "GET", "/v1/devices/default", exchange: 2) == nil)
    let (turns, answers) = Self.turnsToFinish(api)
    #expect(turns == 1 && answers.map(\.0) == [1, 2])
    let ended = try #require(answers.first?.1)
    #expect(ended.status == 404)
    #expect(ended.json?["type"] == .string("urn:lifecycled:problem:not-found"))
    guard case .integer(let index)? = ended.json?["failedIndex"],
      case .array(let results)? = ended.json?["results"]
    else {
      Issue.record("no failedIndex or results: \(ended.body)")
      return
    }
    #expect(index > 0 && index < 40 && results.count == index)
    #expect(answers.last?.1.json?["counters"]?["events"] == .integer(0))
    #expect(api.api.heldBytes == 0)
  }

  /// A retry of a long scenario under its `Idempotency-Key` waits for it, then gets its
  /// answer replayed; nothing is applied twice.
  @Test func aRetryWaitsForTheFirstAnswerAndReplaysIt() throws {
    let api = Self.deviceWithRunningApps()
    let request = { (exchange: UInt64) in
      APIRequest(
        method: "POST", path: "/v1/devices/default/events", mediaType: "application/json",
        body: Array(Self.scenario(40).utf8),
        occasionalFields: OccasionalFields(idempotencyKey: "k1"), exchange: exchange)
    }
    #expect(api.api.handle(request(1), now: .zero) == nil)
    #expect(api.api.handle(request(2), now: .zero) == nil)
    let answers = Self.turnsToFinish(api).answers
    #expect(answers.map(\.0) == [1, 2])
    let (first, retry) = (try #require(answers.first?.1), try #require(answers.last?.1))
    #expect(first.status == 200 && retry.body == first.body)
    #expect(retry.headers["Idempotent-Replayed"] == "true" && first.headers["ETag"] != nil)
    #expect(
      api.call("GET", "/v1/devices/default").json?["counters"]?["events"] == .integer(140))
  }

  /// At shutdown, a parked scenario is written to its end and the requests waiting for its
  /// device are answered.
  @Test func aParkedScenarioIsFinishedAtShutdown() {
    let api = Self.deviceWithRunningApps()
    Self.postParked(api, Self.scenario(40), exchange: 1)
    #expect(Self.ask(api, "GET", "/v1/devices/default", exchange: 2) == nil)
    api.api.shutDown(now: .zero)
    #expect(!api.api.hasPutOffWork)
    let answers = api.lateAnswers()
    #expect(answers[1]?.status == 200 && answers[2]?.status == 200)
  }

  /// A reset of the server while the copy of a dry run's device is being made: the dry run is
  /// answered 404 once the copy is made, and nothing stays held or counted.
  @Test func aDeviceResetWhileItsCopyIsMadeEndsTheScenario() throws {
    let api = Self.deviceWithRunningApps(ScenarioRuns.appsCopiedOnTheLoop + 1)
    Self.postParked(api, Self.scenario(2), query: "dryRun=true", exchange: 1)
    #expect(api.api.heldBytes > 0)
    #expect(api.call("POST", "/__admin/reset").status == 204)
    let (_, answers) = Self.turnsToFinish(api)
    #expect(answers.map(\.0) == [1] && answers.first?.1.status == 404)
    #expect(
      api.api.heldBytes == 0 && api.api.engine.retainedBytes == APITests().api.engine.retainedBytes)
  }

  /// A request that would not fit the memory budget is refused rather than kept waiting.
  @Test func aRequestThatWouldNotFitIsRefusedRatherThanKept() {
    let api = Self.deviceWithRunningApps()
    Self.postParked(api, Self.scenario(40), exchange: 1)
    let room = api.api.engine.configuration.limits.memoryBudgetBytes - api.api.engine.retainedBytes
    api.api.countHeldForClients(room)
    #expect(Self.ask(api, "GET", "/v1/devices/default", exchange: 2)?.status == 507)
    api.api.countHeldForClients(-room)
    #expect(Self.turnsToFinish(api).answers.map(\.0) == [1])
  }
}
