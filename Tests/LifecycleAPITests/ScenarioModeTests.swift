import JSONCore
import Testing

/// `?dryRun=true` and atomic scenarios: what would happen, and all or nothing.
@Suite struct ScenarioModeTests {
  let api = APITests()

  init() {
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
  }

  /// Everything a client can read of the default device, and the metrics of what happened
  /// on it (not those of the requests that read it).
  private var everything: [String] {
    let reads = [
      "/v1/devices/default", "/v1/apps/mail", "/v1/devices/default/journal",
      "/v1/devices/default/jetsam",
    ].map { target in
      let response = api.call("GET", target)
      return "\(response.headers["ETag"] ?? "") \(response.body)"
    }
    let metrics = api.call("GET", "/metrics").body.split(separator: "\n").filter {
      !$0.contains("http_requests")
    }
    return reads + metrics.map(String.init)
  }

  @Test func aDryRunAnswersWhatTheEventsWouldDoAndChangesNothing() {
    let before = everything
    let dryRun = api.call(
      "POST", "/v1/apps/mail/events?dryRun=true", #"[{"type":"launch"},{"type":"crash"}]"#)
    #expect(dryRun.status == 200)
    #expect(everything == before)
    let real = api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"crash"}]"#)
    #expect(real.status == 200)
    #expect(dryRun.body == real.body)
    #expect(dryRun.headers["ETag"] == #""1-0""#)
    #expect(real.headers["ETag"] != dryRun.headers["ETag"])
    #expect(api.call("GET", "/v1/apps/mail").json?["state"] == .string("notRunning"))
    #expect(api.call("GET", "/metrics").body.contains(#"lifecycled_kills_total{cause="crash""#))
  }

  @Test func aDryRunOfADeviceEventChangesNothing() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let before = everything
    let lock = api.call("POST", "/v1/devices/default/events?dryRun=true", #"{"type":"lock"}"#)
    #expect(lock.status == 200)
    #expect(lock.json?["state"] == .string("locked"))
    #expect(lock.body.contains(#""method":"sceneDidEnterBackground(_:)""#))
    #expect(everything == before)
    #expect(api.call("GET", "/v1/devices/default").json?["locked"] == .bool(false))
  }

  @Test func aRefusedDryRunIsTheRefusalTheEventWouldMeet() {
    let before = everything
    let refused = api.call(
      "POST", "/v1/apps/mail/events?dryRun=true",
      #"[{"type":"launch"},{"type":"endBackgroundTask","id":9}]"#)
    #expect(refused.status == 409)
    #expect(refused.json?["failedIndex"] == .integer(1))
    #expect(everything == before)
  }

  @Test func anAtomicScenarioThatSucceedsIsTheScenarioInOrder() {
    let other = APITests()
    other.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    let events = #"[{"type":"launch"},{"type":"home"},{"type":"beginBackgroundTask"}]"#
    let atomic = api.call(
      "POST", "/v1/apps/mail/events", #"{"atomic":true,"events":\#(events)}"#)
    let inOrder = other.call("POST", "/v1/apps/mail/events", events)
    #expect(atomic.status == 200)
    #expect(atomic.body == inOrder.body)
    #expect(atomic.headers["ETag"] == inOrder.headers["ETag"])
    let objectInOrder = other.call(
      "POST", "/v1/apps/mail/events", #"{"atomic":false,"events":[{"type":"launch"}]}"#)
    #expect(objectInOrder.status == 200)
    #expect(objectInOrder.json?["results"] != nil)
    #expect(
      api.call("GET", "/metrics").body.contains(#"lifecycled_events_total{type="launch"} 1"#))
  }

  @Test func anAtomicScenarioWithARefusedEventAppliesNone() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let before = everything
    let refused = api.call(
      "POST", "/v1/apps/mail/events",
      #"{"events":[{"type":"home"},{"type":"crash"},{"type":"launch"},{"type":"endBackgroundTask","id":9}],"atomic":true}"#
    )
    #expect(refused.status == 409)
    #expect(refused.json?["failedIndex"] == .integer(3))
    guard case .array(let results)? = refused.json?["results"] else {
      Issue.record("no results: \(refused.body)")
      return
    }
    #expect(results.count == 3)
    #expect(
      refused.json?["detail"]
        == .string(
          "endBackgroundTask refused: the app has no background task (state active); "
            + "the scenario is atomic: none of its events was applied"))
    #expect(everything == before)
    #expect(api.call("GET", "/v1/apps/mail").json?["state"] == .string("active"))
  }

  @Test func anAtomicDeviceScenarioWithARefusedEventAppliesNone() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let before = everything
    let refused = api.call(
      "POST", "/v1/devices/default/events",
      #"{"atomic":true,"events":[{"type":"lock"},{"type":"shutdown"},{"type":"shutdown"}]}"#)
    #expect(refused.status == 409)
    #expect(refused.json?["failedIndex"] == .integer(2))
    #expect(everything == before)
  }

  @Test func aScenarioObjectIsValidatedStrictly() {
    let before = everything
    for (body, field) in [
      (#"{"events":[],"atomic":true}"#, "events"),
      (#"{"events":{"type":"home"}}"#, "events"),
      (#"{"events":[{"type":"home"}],"atomic":"yes"}"#, "atomic"),
      (#"{"events":[{"type":"home"}],"atomic":true,"dryRun":true}"#, "dryRun"),
      (#"{"events":[{"type":"launch"},{"type":"hover"}]}"#, "events[1].type"),
      (#"{"atomic":true}"#, "type"),
    ] {
      let response = api.call("POST", "/v1/apps/mail/events", body)
      #expect(response.status == 422, "\(body): \(response.body)")
      #expect(response.body.contains(#"{"field":"\#(field)""#), "\(body): \(response.body)")
    }
    let empty = api.call("POST", "/v1/apps/mail/events", #"{"events":[]}"#)
    #expect(empty.json?["detail"] == .string("events must be an array of 1 to 100 events"))
    for query in ["dryRun=yes", "dryRun", "dryRun=true&dryRun=true", "dryrun=true"] {
      let response = api.call("POST", "/v1/apps/mail/events?\(query)", #"{"type":"launch"}"#)
      #expect(response.status == 422, "\(query): \(response.body)")
    }
    #expect(everything == before)
  }

  /// Each event of a list is read on its own, by one reader turned from object to object: a
  /// member the event before read is unknown to the next, and each problem names its event.
  @Test func eachEventOfAListIsReadOnItsOwn() {
    let before = everything
    let response = api.call(
      "POST", "/v1/apps/mail/events",
      #"[{"type":"beginBackgroundTask","name":"a"},{"type":"home","name":"b"},7,{"type":"home"},"#
        + #"{"type":"launch","scene":"s","nope":1}]"#)
    #expect(response.status == 422)
    #expect(
      response.json?["validation"]
        == json(
          #"[{"field":"[1].name","message":"is not a known field"},"#
            + #"{"field":"[2]","message":"must be a JSON object"},"#
            + #"{"field":"[2].type","message":"is required"},"#
            + #"{"field":"[4].nope","message":"is not a known field"}]"#))
    #expect(everything == before)
  }

  @Test func aDryRunIsAnotherRequestForItsIdempotencyKey() {
    let dryRun = api.call(
      "POST", "/v1/apps/mail/events?dryRun=true", #"{"type":"launch"}"#, idempotencyKey: "k")
    #expect(dryRun.status == 200)
    let real = api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: "k")
    #expect(real.status == 422)
    #expect(real.json?["type"] == .string("urn:lifecycled:problem:idempotency-key-reused"))
    let fresh = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: "k2")
    #expect(fresh.status == 200)
    #expect(fresh.headers["Idempotent-Replayed"] == nil)
  }

  @Test func aDryRunIsCheckedAgainstIfMatchLikeTheEventItself() {
    let stale = api.call(
      "POST", "/v1/apps/mail/events?dryRun=true", #"{"type":"launch"}"#, ifMatch: #""1-9""#)
    #expect(stale.status == 412)
    let current = api.call(
      "POST", "/v1/apps/mail/events?dryRun=true", #"{"type":"launch"}"#, ifMatch: #""1-0""#)
    #expect(current.status == 200)
  }
}
