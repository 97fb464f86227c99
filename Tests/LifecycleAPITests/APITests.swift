import Foundation
import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The JSON value `text` spells, for comparing with a response's.
func json(_ text: String) -> JSON? {
  try? JSON.parse(Array(text.utf8))
}

/// The API without sockets: every endpoint and every error status.
@Suite struct APITests {
  let api: LifecycleAPI

  init() { self.init { _ in } }

  /// An API on an engine whose configuration `configure` changes, with the fixtures of the
  /// file `fixtures` if given.
  init(fixtures: String? = nil, _ configure: (inout EngineConfiguration) -> Void) {
    var configuration = EngineConfiguration()
    configuration.deviceDefaults.clock = .manual
    configure(&configuration)
    api = LifecycleAPI(
      engine: Engine(configuration: configuration, now: .zero), version: "9.9.9", now: .zero,
      fixtures: try! fixtures.map {
        try Fixtures(json: Array($0.utf8), configuration: configuration)
      })
  }

  /// A request's answer, as a test reads it: status 0 while it waits.
  typealias Answer = (status: Int, body: String, json: JSON?, headers: [String: String])

  /// A `POST` that must succeed (200 or 201): its answer's JSON.
  @discardableResult
  func post(
    _ path: String, _ body: String, sourceLocation: SourceLocation = #_sourceLocation
  ) -> JSON? {
    let response = call("POST", path, body)
    #expect(
      response.status == 200 || response.status == 201, "\(path): \(response.body)",
      sourceLocation: sourceLocation)
    return response.json
  }

  @discardableResult
  func call(
    _ method: String, _ target: String, _ body: String? = nil,
    mediaType: String? = "application/json", ifMatch: String? = nil,
    idempotencyKey: String? = nil, lastEventID: String? = nil, exchange: UInt64 = 0,
    now: Instant = .zero, isDraining: Bool = false
  ) -> Answer {
    let parts = target.split(separator: "?", maxSplits: 1)
    let response = api.handle(
      APIRequest(
        method: method, path: parts[0], query: parts.count > 1 ? parts[1] : nil,
        mediaType: body == nil ? nil : mediaType, body: Array((body ?? "").utf8),
        occasionalFields: OccasionalFields(
          ifMatch: ifMatch, idempotencyKey: idempotencyKey, lastEventID: lastEventID),
        exchange: exchange),
      now: now, isDraining: isDraining)
    if response == nil, let made = madeHere(for: exchange, now: now) { return Self.answer(made) }
    return response.map(Self.answer) ?? (0, "", nil, [:])
  }

  /// Does the work the API would do off the loop or over later turns here and now
  /// (`doDeferredWorkHere`), and returns the answer to `exchange` among its answers, if it
  /// asked.
  func madeHere(for exchange: UInt64, now: Instant = .zero) -> APIResponse? {
    guard api.doDeferredWorkHere(now: now) else { return nil }
    return api.takeLateAnswers().lazy.compactMap { answer -> APIResponse? in
      guard answer.exchange == exchange, case .response(let response) = answer.part else {
        return nil
      }
      return response
    }.first
  }

  static func answer(_ response: APIResponse) -> Answer {
    let text = String(decoding: response.body, as: UTF8.self)
    var headers = Dictionary(response.headers.map { ($0.name, $0.value) }) { $1 }
    headers["ETag"] = response.entityTag ?? headers["ETag"]
    return (response.status, text, try? JSON.parse(response.body), headers)
  }

  /// The answers to waiting requests that are ready, by exchange.
  func lateAnswers() -> [UInt64: Answer] {
    Dictionary(
      uniqueKeysWithValues: api.takeLateAnswers().compactMap { late in
        guard case .response(let response) = late.part else { return nil }
        return (late.exchange, Self.answer(response))
      })
  }

  @Test func operationalEndpoints() {
    #expect(call("GET", "/livez").body == #"{"status":"ok"}"#)
    #expect(call("GET", "/readyz").body == #"{"status":"ready"}"#)
    #expect(
      call("GET", "/health").body
        == #"{"status":"ok","version":"9.9.9","uptimeSeconds":0.0,"devices":1,"apps":0}"#)
  }

  /// While the server drains, health says so and readiness fails; the uptime counts from
  /// the start.
  @Test func operationalEndpointsWhileDraining() {
    let draining = Instant(milliseconds: 2_125)
    #expect(
      call("GET", "/health", now: draining, isDraining: true).body
        == #"{"status":"draining","version":"9.9.9","uptimeSeconds":2.125,"devices":1,"apps":0}"#
    )
    let readiness = call("GET", "/readyz", now: draining, isDraining: true)
    #expect(readiness.status == 503)
    #expect(readiness.body == #"{"status":"draining"}"#)
  }

  @Test func servesItsContractExactlyAsCommitted() throws {
    let response = call("GET", "/openapi.yaml")
    #expect(response.status == 200)
    let committed = try String(
      contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/openapi.yaml",
      encoding: .utf8)
    #expect(response.body == committed)
  }

  /// Members are found by their text, whatever escapes spell it; a member no reader asks for
  /// is named decoded.
  @Test func escapedKeysAndValuesReadAsTheirText() {
    #expect(call("POST", "/v1/apps", #"{"n\u0061me":"mail","memory\u004dB":10}"#).status == 201)
    let launch = call("POST", "/v1/apps/mail/events", #"[{"\u0074ype":"l\u0061unch"}]"#)
    #expect(launch.status == 200)
    #expect(launch.body.contains(#""event":{"type":"launch"},"previousState":"notRunning""#))
    let unknown = call("POST", "/v1/apps/mail/events", #"{"type":"home","x\u0041\n":1}"#)
    #expect(unknown.status == 422)
    #expect(unknown.json?["detail"] == .string("xA\n is not a known field"))
  }

  /// A device its client does not name is given an id by the server: `device-` and the
  /// number of devices made so far, one not taken.
  @Test func aDeviceCreatedWithoutAnIdIsNamedByTheServer() {
    let first = call("POST", "/v1/devices", "{}")
    #expect(first.status == 201)
    guard case .string(let id)? = first.json?["id"] else {
      Issue.record("no id in \(first.body)")
      return
    }
    #expect(id.hasPrefix("device-"))
    #expect(first.headers["Location"] == "/v1/devices/\(id)")
    #expect(call("GET", "/v1/devices/\(id)").status == 200)
    let number = Int(id.dropFirst("device-".count)) ?? 0
    #expect(call("POST", "/v1/devices", #"{"id":"device-\#(number + 1)"}"#).status == 201)
    let second = call("POST", "/v1/devices", #"{"clock":"manual"}"#)
    #expect(second.json?["id"] == .string("device-\(number + 2)"))
    #expect(second.json?["clock"] == .string("manual"))
  }

  /// Parallel workers label their devices, list them by label, and remove them all at once;
  /// labels are configuration: a reset and a snapshot keep them.
  @Test func devicesAreListedAndRemovedByLabel() {
    for (id, suite) in [("c1", "checkout"), ("c2", "checkout"), ("s1", "search")] {
      let body = #"{"id":"\#(id)","labels":{"worker":"w1","suite":"\#(suite)"}}"#
      #expect(call("POST", "/v1/devices", body).status == 201)
    }
    #expect(call("POST", "/v1/devices", #"{"id":"plain"}"#).status == 201)
    #expect(
      call("GET", "/v1/devices/c1").json?["labels"]
        == .object([("suite", .string("checkout")), ("worker", .string("w1"))]))
    #expect(call("GET", "/v1/devices/plain").json?["labels"] == .object([]))
    let listed = call("GET", "/v1/devices?label=suite=checkout").json?["devices"]
    guard case .array(let devices)? = listed else {
      Issue.record("no devices")
      return
    }
    #expect(devices.map { $0["id"] } == [.string("c1"), .string("c2")])
    #expect(call("POST", "/v1/devices/c1/reset").json?["labels"]?["suite"] == .string("checkout"))
    let snapshot = call("GET", "/v1/devices/c2/snapshot")
    #expect(snapshot.json?["device"]?["labels"]?["worker"] == .string("w1"))
    #expect(call("PUT", "/v1/devices/c2", snapshot.body).status == 200)

    let removed = call("DELETE", "/v1/devices?label=suite=checkout")
    #expect(removed.status == 200)
    #expect(removed.json?["removed"] == .array([.string("c1"), .string("c2")]))
    #expect(call("GET", "/v1/devices/c1").status == 404)
    #expect(call("GET", "/v1/devices/s1").status == 200)
    #expect(call("DELETE", "/v1/devices?label=suite=checkout").json?["removed"] == .array([]))
  }

  @Test(arguments: [
    ("DELETE", "/v1/devices", "", "label"),
    ("DELETE", "/v1/devices?label=suite", "", "label"),
    ("GET", "/v1/devices?label=suite=-x", "", "label"),
    ("POST", "/v1/devices", #"{"labels":{"suite":"a b"}}"#, "labels.suite"),
    ("POST", "/v1/devices", #"{"labels":{"suite":1}}"#, "labels"),
    ("POST", "/v1/devices", #"{"labels":["suite"]}"#, "labels"),
  ])
  func badLabelsAreRefusedByTheirField(method: String, path: String, body: String, field: String) {
    let before = call("GET", "/v1/devices").body
    let response = call(method, path, body.isEmpty ? nil : body)
    #expect(response.status == 422, "\(path) \(body): \(response.body)")
    #expect(response.body.contains(#""field":"\#(field)""#), "\(path) \(body): \(response.body)")
    #expect(call("GET", "/v1/devices").body == before)
  }

  @Test func aDeviceHoldsAtMostSixteenLabels() {
    let labels = (0...16).map { #""k\#($0)":"v""# }.joined(separator: ",")
    let response = call("POST", "/v1/devices", #"{"id":"many","labels":{\#(labels)}}"#)
    #expect(response.status == 422)
    #expect(response.body.contains(#""field":"labels""#))
  }

  /// A device created with an idle timeout is removed that long after the last request that
  /// reached it, by the server's timer as by any later request.
  @Test func aDeviceLeftIdleIsRemoved() {
    let created = call("POST", "/v1/devices", #"{"id":"w1","idleTimeoutSeconds":30}"#)
    #expect(created.json?["idleTimeoutSeconds"] == .double(30))
    #expect(call("GET", "/v1/devices/default").json?["idleTimeoutSeconds"] == .null)
    #expect(
      call("GET", "/v1/devices/w1/snapshot").json?["device"]?["idleTimeoutSeconds"] == .double(30))
    #expect(call("GET", "/v1/devices/w1", now: Instant.zero + .seconds(20)).status == 200)
    #expect(api.nextDeadline == Instant.zero + .seconds(50))
    api.fireDeadlines(now: Instant.zero + .seconds(50))
    #expect(call("GET", "/v1/devices/w1", now: Instant.zero + .seconds(50)).status == 404)
    let permanent = call("PUT", "/v1/devices/default", #"{"idleTimeoutSeconds":30}"#)
    #expect(permanent.status == 422)
    #expect(permanent.body.contains(#""field":"idleTimeoutSeconds""#))
  }

  /// Idle means unused: listing devices, metrics, health and the live page's list read every
  /// device without keeping any alive; a request to another device does not either.
  @Test func readingEveryDeviceKeepsNoneAlive() {
    call("POST", "/v1/devices", #"{"id":"w1","idleTimeoutSeconds":3}"#)
    call("POST", "/v1/devices", #"{"id":"w2","idleTimeoutSeconds":3}"#)
    for second in 1...2 {
      let now = Instant.zero + .seconds(second)
      #expect(call("GET", "/metrics", now: now).body.contains("\nlifecycled_devices 3\n"))
      #expect(call("GET", "/v1/devices", now: now).body.contains(#""id":"w1""#))
      #expect(call("GET", "/health", now: now).status == 200)
      #expect(call("GET", "/v1/devices/w2", now: now).status == 200)
    }
    #expect(api.nextDeadline == Instant.zero + .seconds(3))
    api.fireDeadlines(now: Instant.zero + .seconds(3))
    let listed = call("GET", "/v1/devices", now: Instant.zero + .seconds(3))
    #expect(!listed.body.contains(#""id":"w1""#) && listed.body.contains(#""id":"w2""#))
  }

  /// A device whose journal a client streams, or on which a request waits, is in use: its
  /// timeout does not remove it, and counts from the moment the last of them ends.
  @Test func anOpenStreamOrWaitKeepsItsDeviceAlive() {
    call("POST", "/v1/devices", #"{"id":"w1","idleTimeoutSeconds":3}"#)
    call("POST", "/v1/devices/w1/apps", #"{"name":"mail"}"#)
    #expect(call("GET", "/v1/devices/w1/journal/stream", exchange: 1).status == 0)
    #expect(
      call("GET", "/v1/devices/w1/apps/mail?waitFor=active&timeout=60", exchange: 2).status == 0)
    api.fireDeadlines(now: Instant.zero + .seconds(10))
    api.abandon(exchange: 1, now: Instant.zero + .seconds(10))
    api.fireDeadlines(now: Instant.zero + .seconds(20))
    #expect(call("GET", "/v1/devices", now: Instant.zero + .seconds(20)).body.contains(#""w1""#))
    api.abandon(exchange: 2, now: Instant.zero + .seconds(20))
    api.fireDeadlines(now: Instant.zero + .seconds(22.5))
    #expect(call("GET", "/v1/devices", now: Instant.zero + .seconds(22.5)).body.contains(#""w1""#))
    api.fireDeadlines(now: Instant.zero + .seconds(23))
    #expect(!call("GET", "/v1/devices", now: Instant.zero + .seconds(23)).body.contains(#""w1""#))
  }

  @Test func homeOnASceneAppAnswersAsTheContractShows() {
    #expect(call("POST", "/v1/apps", #"{"name":"mail"}"#).status == 201)
    #expect(call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#).status == 200)
    let home = call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    #expect(home.status == 200)
    #expect(
      home.body
        == #"{"device":"default","app":"mail","event":{"type":"home"},"previousState":"active","state":"background","#
        + #""callbacks":[{"seq":12,"time":0.0,"app":"mail","scene":"main","method":"sceneWillResignActive(_:)","notifications":["UIScene.willDeactivateNotification","UIApplication.willResignActiveNotification"],"state":"inactive","sceneState":"foregroundInactive"},"#
        + #"{"seq":14,"time":0.0,"app":"mail","scene":"main","method":"sceneDidEnterBackground(_:)","notifications":["UIScene.didEnterBackgroundNotification","UIApplication.didEnterBackgroundNotification"],"state":"background","sceneState":"background"}],"#
        + #""waitingCallbacks":[],"transitions":[{"seq":13,"time":0.0,"app":"mail","from":"active","to":"inactive","cause":"home"},{"seq":15,"time":0.0,"app":"mail","from":"inactive","to":"background","cause":"home"}],"#
        + #""effects":[],"lastSeq":15}"#)
  }

  @Test func scenarioStopsAtTheRefusedEventAndReportsWhatWasApplied() {
    call("POST", "/v1/devices", #"{"id":"ci-1"}"#)
    call("POST", "/v1/devices/ci-1/apps", #"{"name":"a","lifecycle":"appDelegate"}"#)
    let response = call(
      "POST", "/v1/devices/ci-1/apps/a/events",
      #"[{"type":"launch"},{"type":"beginBackgroundTask","name":"sync"},{"type":"closeSwitcher"},{"type":"home"}]"#
    )
    #expect(response.status == 409)
    #expect(response.json?["type"] == .string("urn:lifecycled:problem:event-refused"))
    #expect(response.json?["currentState"] == .string("active"))
    #expect(response.json?["failedIndex"] == .integer(2))
    guard case .array(let results)? = response.json?["results"] else {
      Issue.record("no results")
      return
    }
    #expect(results.count == 2)
    #expect(results[1]["result"] == .object([("taskId", .integer(1)), ("expiresAt", .null)]))
    #expect(call("GET", "/v1/devices/ci-1/apps/a").json?["state"] == .string("active"))
  }

  @Test func scenarioRefusedAtItsFirstEventReportsNoResults() {
    call("POST", "/v1/devices", #"{"id":"ci-1"}"#)
    call("POST", "/v1/devices/ci-1/apps", #"{"name":"a"}"#)
    let response = call(
      "POST", "/v1/devices/ci-1/apps/a/events", #"[{"type":"home"},{"type":"launch"}]"#)
    #expect(response.status == 409)
    #expect(response.json?["failedIndex"] == .integer(0))
    #expect(response.json?["results"] == .array([]))
    #expect(call("GET", "/v1/devices/ci-1/apps/a").json?["state"] == .string("notRunning"))
  }

  @Test func scenariosForMissingDevicesAndAppsAreNotFoundNotRefused() {
    call("POST", "/v1/devices", #"{"id":"ci-1"}"#)
    for target in ["/v1/devices/nope/apps/a/events", "/v1/devices/ci-1/apps/nope/events"] {
      let response = call("POST", target, #"[{"type":"launch"}]"#)
      #expect(response.status == 404)
      #expect(response.json?["failedIndex"] == nil)
      #expect(response.json?["results"] == nil)
    }
    let device = call("POST", "/v1/devices/nope/events", #"[{"type":"lock"}]"#)
    #expect(device.status == 404)
    #expect(device.json?["failedIndex"] == nil)
    #expect(device.json?["results"] == nil)
  }

  @Test func clockAdvanceFiresDeadlines() {
    call("POST", "/v1/apps", #"{"name":"mail"}"#)
    call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    let advance = call("POST", "/v1/devices/default/clock/advance", #"{"seconds":2.5}"#)
    #expect(advance.json?["advanced"] == .double(2.5))
    #expect(advance.json?["now"] == .double(2.5))
    guard case .array(let transitions)? = advance.json?["transitions"] else { return }
    #expect(transitions.first?["cause"] == .string("suspension"))
    #expect(transitions.first?["time"] == .double(2.0))
    #expect(
      call("GET", "/v1/devices/default/clock").body
        == #"{"device":"default","clock":"manual","now":2.5,"nextDeadline":null}"#)
  }

  /// A device's clock stays within ten years, the latest time a snapshot holds: an advance
  /// past it is refused and moves nothing, and the snapshot at the limit restores.
  @Test func theClockStopsAtTenYears() {
    #expect(
      call("POST", "/v1/devices/default/clock/advance", #"{"seconds":315359999}"#).status == 200)
    let past = call("POST", "/v1/devices/default/clock/advance", #"{"seconds":2}"#)
    #expect(past.status == 422)
    #expect(
      past.json?["detail"]
        == .string(
          "seconds would move the device's clock past 315360000 s (ten years), the latest it "
            + "reaches; it is at 315359999.0 s"))
    #expect(call("POST", "/v1/devices/default/clock/advance", #"{"seconds":1}"#).status == 200)
    let snapshot = call("GET", "/v1/devices/default/snapshot").body
    #expect(call("PUT", "/v1/devices/default", snapshot).status == 200)
    #expect(
      call("GET", "/v1/devices/default/clock").body
        == #"{"device":"default","clock":"manual","now":315360000.0,"nextDeadline":null}"#)
  }

  @Test func deviceEventsAnswerWithTheLockState() {
    let lock = call("POST", "/v1/devices/default/events", #"{"type":"lock"}"#)
    #expect(lock.json?["previousState"] == .string("unlocked"))
    #expect(lock.json?["state"] == .string("locked"))
    #expect(lock.json?["app"] == .null)
  }

  @Test func journalAndJetsamLog() {
    call("POST", "/v1/apps", #"{"name":"mail","lifecycle":"appDelegate"}"#)
    call(
      "POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"purge","reason":"jettisoned"}]"#
    )
    let journal = call("GET", "/v1/devices/default/journal?since=1&limit=2&app=mail")
    guard case .array(let entries)? = journal.json?["entries"] else { return }
    #expect(entries.count == 2)
    #expect(entries.first?["kind"] == .string("callback"))
    #expect(
      call("GET", "/v1/devices/default/jetsam").body
        == #"{"kills":[{"jetsamEvent":1,"time":0.0,"app":"mail","reason":"jettisoned","footprintMB":100,"state":"active"}],"dropped":0}"#
    )
    let callbacks = call("GET", "/v1/apps/mail/callbacks?limit=1")
    #expect(callbacks.body.hasPrefix(#"{"callbacks":[{"seq":2,"#))
  }

  /// Each request counts once in its series, whether that series was counted last, earlier,
  /// or never.
  @Test func requestSeriesCountEveryRequest() {
    var metrics = Metrics()
    let (a, b) = (RouteTemplate("/a"), RouteTemplate("/b"))  // of one length: told by their text
    let calls = [(a, 200), (a, 200), (b, 404), (a, 200), (a, 201), (b, 404)]
    for (route, status) in calls { metrics.count(request: route, status: status) }
    #expect(
      metrics.requests.map { "\($0.key.route) \($0.key.status) \($0.count)" } == [
        "/a 200 3", "/b 404 2", "/a 201 1",
      ])
  }

  @Test func metricsCountRequestsEventsTransitionsAndKills() {
    call("POST", "/v1/apps", #"{"name":"mail","lifecycle":"appDelegate"}"#)
    call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"crash"}]"#)
    call("GET", "/nowhere")
    let exposition = call("GET", "/metrics").body
    // The default device, the app with its counted exit and its crash report (MetricKit's), each
    // journal entry (no URL or task name among them).
    guard
      case .integer(let entries) = call("GET", "/v1/devices/default").json?["counters"]?[
        "journalEntries"]
    else { return #expect(Bool(false), "no journalEntries") }
    // The crash's report: the payload, its array, the diagnostic and its reason's text.
    let crashReport =
      MemoryLayout<DiagnosticPayload>.stride + 32 + MemoryLayout<CrashDiagnostic>.stride + 32
      + "Namespace SIGNAL, Code 0x6".utf8.count
    let stateBytes =
      2_560 + 1_120 + 192 + crashReport + entries * MemoryLayout<JournalEntry>.stride
    #expect(
      exposition == """
        # HELP lifecycled_http_requests_total Requests answered, by route and status.
        # TYPE lifecycled_http_requests_total counter
        lifecycled_http_requests_total{route="/v1/devices/{device}/apps",status="201"} 1
        lifecycled_http_requests_total{route="/v1/devices/{device}/apps/{app}/events",status="200"} 1
        lifecycled_http_requests_total{route="unmatched",status="404"} 1
        # HELP lifecycled_events_total Events applied, by type.
        # TYPE lifecycled_events_total counter
        lifecycled_events_total{type="crash"} 1
        lifecycled_events_total{type="launch"} 1
        # HELP lifecycled_transitions_total App state transitions.
        # TYPE lifecycled_transitions_total counter
        lifecycled_transitions_total 3
        # HELP lifecycled_kills_total Apps killed by the system, by cause and jetsam reason.
        # TYPE lifecycled_kills_total counter
        lifecycled_kills_total{cause="crash",reason=""} 1
        # HELP lifecycled_devices Devices.
        # TYPE lifecycled_devices gauge
        lifecycled_devices 1
        # HELP lifecycled_apps Apps on all devices.
        # TYPE lifecycled_apps gauge
        lifecycled_apps 1
        # HELP lifecycled_journal_dropped_total Journal entries dropped by the bounded journals of the current devices.
        # TYPE lifecycled_journal_dropped_total counter
        lifecycled_journal_dropped_total 0
        # HELP lifecycled_state_bytes Memory the simulator's state takes, as the engine counts it (maxMemoryMB bounds it).
        # TYPE lifecycled_state_bytes gauge
        lifecycled_state_bytes \(stateBytes)
        # HELP lifecycled_state_budget_bytes maxMemoryMB, in bytes.
        # TYPE lifecycled_state_budget_bytes gauge
        lifecycled_state_budget_bytes 1073741824

        """)
  }

  @Test func backgroundTasksPastTheLimitAre409AndChangeNothing() {
    let api = APITests { $0.limits.maxBackgroundTasksPerApp = 1 }
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"beginBackgroundTask"}]"#)
    let before = api.call("GET", "/v1/apps/mail").body
    let refused = api.call("POST", "/v1/apps/mail/events", #"{"type":"beginBackgroundTask"}"#)
    #expect(refused.status == 409)
    #expect(
      refused.body
        == #"{"type":"urn:lifecycled:problem:limit-reached","title":"A limit is reached","#
        + #""status":409,"detail":"app 'mail' holds 1 background tasks, the most allowed; "#
        + #"end one first"}"#)
    #expect(api.call("GET", "/v1/apps/mail").body == before)
  }

  @Test func pastTheMemoryBudgetGrowthIs507WhileReadsAndDeletesWork() {
    let api = APITests { $0.limits.memoryBudgetBytes = 2_560 + 2 * 1_120 }
    #expect(api.call("POST", "/v1/apps", #"{"name":"a"}"#).status == 201)
    #expect(api.call("POST", "/v1/apps", #"{"name":"b"}"#).status == 201)
    let full =
      #"{"type":"urn:lifecycled:problem:memory-budget-exhausted","#
      + #""title":"The simulator's memory budget is exhausted","status":507,"#
      + #""detail":"the simulator's state holds 4800 bytes, at or past maxMemoryMB (4800 bytes); "#
      + #"remove devices or apps, or reset, to go on","retainedBytes":4800,"budgetBytes":4800}"#
    for (path, body) in [
      ("/v1/apps", #"{"name":"c"}"#), ("/v1/devices", #"{"id":"x"}"#),
      ("/v1/apps/a/events", #"{"type":"launch"}"#),
      ("/v1/devices/default/events", #"{"type":"lock"}"#),
      ("/v1/devices/default/clock/advance", #"{"seconds":1}"#),
    ] {
      let response = api.call("POST", path, body)
      #expect(response.status == 507, "\(path)")
      #expect(response.body == full, "\(path)")
    }
    #expect(api.call("GET", "/v1/apps/b").status == 200)
    #expect(api.call("GET", "/v1/devices/default/journal").status == 200)
    #expect(api.call("DELETE", "/v1/apps/b").status == 204)
    #expect(api.call("POST", "/v1/apps/a/events", #"{"type":"launch"}"#).status == 200)
  }

  /// The names in a page of apps or devices, and its `hasMore`.
  func page(_ target: String, _ key: String) -> (names: [String], hasMore: Bool?) {
    let json = call("GET", target).json
    guard case .array(let elements)? = json?[key] else { return ([], nil) }
    let names = elements.compactMap { element -> String? in
      guard case .string(let name)? = element["name"] ?? element["id"] else { return nil }
      return name
    }
    guard case .bool(let hasMore)? = json?["hasMore"] else { return (names, nil) }
    return (names, hasMore)
  }

  @Test func appsAndDevicesArePagedByNameAfterTheLastOne() {
    for name in ["c", "a", "b"] {
      call("POST", "/v1/apps", #"{"name":"\#(name)"}"#)
      call("POST", "/v1/devices", #"{"id":"\#(name)"}"#)
    }
    #expect(page("/v1/apps", "apps") == (["a", "b", "c"], false))
    #expect(page("/v1/apps?limit=2", "apps") == (["a", "b"], true))
    #expect(page("/v1/apps?after=b&limit=2", "apps") == (["c"], false))
    #expect(page("/v1/apps?after=c", "apps") == ([], false))
    #expect(page("/v1/devices?limit=3", "devices") == (["a", "b", "c"], true))
    #expect(page("/v1/devices?after=c", "devices") == (["default"], false))
    #expect(call("GET", "/v1/apps?after=-x").status == 422)
  }

  /// However large the entries, a page stops soon after `Paging.maxBytes`; paging on from the
  /// last `seq` reads every entry exactly once.
  @Test func largeJournalsAreReadInPagesOfBoundedSize() {
    call("POST", "/v1/apps", #"{"name":"mail"}"#)
    let url = "app://" + String(repeating: "u", count: 2_000)
    for _ in 0..<600 {
      call("POST", "/v1/apps/mail/events", #"[{"type":"launch","url":"\#(url)"},{"type":"crash"}]"#)
    }
    var since = 0
    var seqs: [Int] = []
    var pages = 0
    while true {
      let response = call("GET", "/v1/devices/default/journal?limit=10000&since=\(since)")
      #expect(response.body.utf8.count < Paging.maxBytes + 4_096)
      guard case .array(let entries)? = response.json?["entries"],
        case .bool(let hasMore)? = response.json?["hasMore"]
      else { return #expect(Bool(false), "no page") }
      let pageSeqs = entries.compactMap { entry -> Int? in
        let seq = entry["seq"] ?? entry["callback"]?["seq"] ?? entry["transition"]?["seq"]
        guard case .integer(let value)? = seq else { return nil }
        return value
      }
      #expect(pageSeqs.count == entries.count)
      seqs += pageSeqs
      pages += 1
      guard hasMore, let last = pageSeqs.last else { break }
      since = last
    }
    #expect(pages > 1)
    #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
    guard case .object(let counters)? = call("GET", "/v1/devices/default").json?["counters"],
      case .integer(let kept)? = counters.first(where: { $0.0 == "journalEntries" })?.1
    else { return #expect(Bool(false), "no counters") }
    #expect(seqs.count == kept)
  }

  /// 50,000 unknown keys, or a key of 1,000 bytes, get a 422 of a kilobyte, not megabytes.
  @Test func validationProblemsStayShortWhateverTheBody() {
    let keys = (0..<50_000).map { #""k\#($0)":1"# }.joined(separator: ",")
    let many = call("POST", "/v1/apps", #"{"name":"a","# + keys + "}")
    #expect(many.status == 422)
    let listed = (0..<20).map { #"{"field":"k\#($0)","message":"is not a known field"}"# }
    #expect(
      many.body
        == #"{"type":"urn:lifecycled:problem:validation","title":"A field is invalid","#
        + #""status":422,"detail":"k0 is not a known field (50000 issues; the first 20 are "#
        + #"listed)","validation":["# + listed.joined(separator: ",") + "]}")
    let long = String(repeating: "é", count: 500)
    let shortened = String(repeating: "é", count: 62) + "…"
    #expect(
      call("POST", "/v1/apps", #"{"name":"a",""# + long + #"":1}"#).body
        == #"{"type":"urn:lifecycled:problem:validation","title":"A field is invalid","#
        + #""status":422,"detail":"\#(shortened) is not a known field","validation":"#
        + #"[{"field":"\#(shortened)","message":"is not a known field"}]}"#)
    #expect(call("GET", "/v1/apps/a").status == 404)
  }

  @Test func resetBringsBackTheStart() {
    call("POST", "/v1/devices", #"{"id":"x"}"#)
    #expect(call("POST", "/__admin/reset").status == 204)
    #expect(call("POST", "/__admin/reset").status == 204)
    #expect(call("GET", "/v1/devices/x").status == 404)
  }

  // MARK: Errors

  @Test func unknownPathsAndResourcesAre404() {
    #expect(call("GET", "/v2/devices").status == 404)
    #expect(call("GET", "/v1/devices/").status == 404)
    let missing = call("GET", "/v1/apps/ghost")
    #expect(missing.status == 404)
    #expect(
      missing.body
        == #"{"type":"urn:lifecycled:problem:not-found","title":"No such resource","status":404,"detail":"no app 'ghost' on device 'default'"}"#
    )
  }

  @Test(arguments: ["/v1/apps/..", "/v1/apps/.", "/v1/apps/%2e%2e", "/v1/devices/../apps"])
  func oddNamesInPathsAreNotFound(path: String) {
    #expect(call("GET", path).status == 404)
  }

  @Test func longNamesAreNotFoundAndCannotBeCreated() {
    let long = String(repeating: "x", count: 10_000)
    #expect(call("GET", "/v1/apps/\(long)").status == 404)
    #expect(call("POST", "/v1/apps", #"{"name":"\#(long)"}"#).status == 422)
  }

  /// Each JSON body is written into the storage of the last one given out once that one is
  /// gone; a body still held keeps its bytes, and one over `reusedBodyLimit` is not kept.
  @Test func aBodyStillHeldKeepsItsBytes() throws {
    func body(_ path: String) -> [UInt8] {
      api.handle(APIRequest(method: "GET", path: path[...]), now: .zero)?.body ?? []
    }
    func address(_ bytes: [UInt8]) -> UnsafePointer<UInt8>? {
      bytes.withUnsafeBufferPointer(\.baseAddress)
    }
    let first = body("/health")
    let text = String(decoding: first, as: UTF8.self)
    let second = body("/health")
    #expect(String(decoding: first, as: UTF8.self) == text)
    #expect(address(second) != address(first))
    #expect(address(second) == address(api.lastBody))
    post("/v1/apps", #"{"name":"mail"}"#)
    let scenario = Array(repeating: #"{"type":"launch"},{"type":"home"}"#, count: 50)
    let posted = call("POST", "/v1/apps/mail/events", "[\(scenario.joined(separator: ","))]")
    #expect(posted.status == 200)
    let page = call("GET", "/v1/devices/default/journal?since=0&limit=10000")
    #expect(page.status == 200)
    #expect(page.body.utf8.count > LifecycleAPI.reusedBodyLimit)
    #expect(api.lastBody.capacity == 0)
  }

  @Test func wrongMethodIs405WithAllow() {
    let response = call("PUT", "/v1/devices")
    #expect(response.status == 405)
    #expect(response.headers == ["Allow": "GET, POST, DELETE, HEAD"])
  }

  @Test func nonJSONBodyIs415() {
    #expect(call("POST", "/v1/apps", #"{"name":"a"}"#, mediaType: "text/plain").status == 415)
    #expect(
      call("POST", "/v1/apps", #"{"name":"a"}"#, mediaType: "application/json")
        .status == 201)
  }

  /// Each rule of a configuration's members (`ConfigurationForm`) refuses a value past it with
  /// a 422 naming the member and the rule, and nothing is made.
  @Test(arguments: [
    (
      "/v1/devices", #"{"memoryLimitMB":0}"#, "memoryLimitMB",
      "must be an integer from 1 to 1048576"
    ),
    (
      "/v1/devices", #"{"perAppLimitMB":1048577}"#, "perAppLimitMB",
      "must be an integer from 1 to 1048576"
    ),
    ("/v1/devices", #"{"clock":"slow"}"#, "clock", "must be one of manual, realtime"),
    ("/v1/devices", #"{"passcode":1}"#, "passcode", "must be true or false"),
    (
      "/v1/devices", #"{"idleTimeoutSeconds":0.5}"#, "idleTimeoutSeconds",
      "must be a number from 1.0 to 2592000.0"
    ),
    (
      "/v1/devices", #"{"labels":{"-k":"v"}}"#, "labels.-k",
      "key and value must each match \(Validation.namePattern)"
    ),
    (
      "/v1/apps", #"{"name":"a","lifecycle":"x"}"#, "lifecycle", "must be one of scene, appDelegate"
    ),
    (
      "/v1/apps", #"{"name":"a","backgroundMemoryMB":-1}"#, "backgroundMemoryMB",
      "must be an integer from 0 to 1048576"
    ),
    (
      "/v1/apps", #"{"name":"a","sceneMemoryMB":1048577}"#, "sceneMemoryMB",
      "must be an integer from 0 to 1048576"
    ),
    (
      "/v1/apps", #"{"name":"a","backgroundModes":["radio"]}"#, "backgroundModes",
      "must list only \(BackgroundMode.allCases.map(\.rawValue).joined(separator: ", "))"
    ),
    (
      "/v1/apps", #"{"name":"a","behavior":{"willEnterForegroundSeconds":86400.5}}"#,
      "behavior.willEnterForegroundSeconds", "must be a number from 0.0 to 86400.0"
    ),
    (
      "/v1/apps", #"{"name":"a","behavior":{"holdsFileLockAtSuspension":"yes"}}"#,
      "behavior.holdsFileLockAtSuspension", "must be true or false"
    ),
    (
      "/v1/apps", #"{"name":"a","permittedTaskIdentifiers":["t","t"]}"#, "permittedTaskIdentifiers",
      "must list at most 16 distinct identifiers of 1 to 256 bytes"
    ),
    (
      "/v1/apps", #"{"name":"a","permittedTaskIdentifiers":[""]}"#, "permittedTaskIdentifiers",
      "must list at most 16 distinct identifiers of 1 to 256 bytes"
    ),
    (
      "/v1/apps", #"{"name":"a","lifecycle":"appDelegate","sceneMemoryMB":1}"#, "sceneMemoryMB",
      "is for scene apps (lifecycle scene) only"
    ),
    (
      "/v1/apps", #"{"name":"a","sdkVersion":28}"#, "sdkVersion",
      "must be an integer from 13 to 27"
    ),
  ])
  func eachConfigurationRuleNamesItsMember(
    path: String, body: String, field: String, message: String
  ) {
    let before = call("GET", "/v1/devices").body + call("GET", "/v1/apps").body
    let response = call("POST", path, body)
    #expect(response.status == 422, "\(body): \(response.body)")
    #expect(
      response.json?["validation"]
        == .array([.object([("field", .string(field)), ("message", .string(message))])]),
      "\(body): \(response.body)")
    #expect(call("GET", "/v1/devices").body + call("GET", "/v1/apps").body == before)
  }

  @Test func malformedJSONIs400() {
    let response = call("POST", "/v1/apps", #"{"name":"a",}"#)
    #expect(response.status == 400)
    #expect(response.json?["detail"] == .string("an object key must be a string at byte 12"))
  }

  @Test func validationNamesEveryBadField() {
    let response = call(
      "POST", "/v1/apps",
      #"{"name":"-bad","memoryMB":-1,"color":"red","behavior":{"didEnterBackgroundSeconds":"slow"}}"#
    )
    #expect(response.status == 422)
    #expect(
      response.json?["validation"]
        == .array([
          .object([
            ("field", .string("memoryMB")),
            ("message", .string("must be an integer from 0 to 1048576")),
          ]),
          .object([
            ("field", .string("behavior.didEnterBackgroundSeconds")),
            ("message", .string("must be a number from 0.0 to 86400.0")),
          ]),
          .object([("field", .string("color")), ("message", .string("is not a known field"))]),
        ]))
    let invalidName = call("POST", "/v1/apps", #"{"name":"-bad"}"#)
    #expect(invalidName.status == 422)
    #expect(invalidName.json?["validation"] != nil)
  }

  /// Known members are told from unknown ones wherever they stand, the 64th member and beyond
  /// included: the count of issues says that only the 70 unknown ones were reported.
  @Test func unknownMembersAreFoundInLargeObjects() {
    let unknown = (0..<70).map { "x\($0)" }
    let members = unknown[..<63] + ["name", "memoryMB"] + unknown[63...]
    let body =
      "{"
      + members.map { #""\#($0)":"# + ($0 == "name" ? #""big""# : "1") }
      .joined(separator: ",") + "}"
    let response = call("POST", "/v1/apps", body)
    #expect(response.status == 422)
    guard case .array(let issues)? = response.json?["validation"] else {
      Issue.record("no validation list")
      return
    }
    #expect(issues.map { $0["field"] } == unknown.prefix(20).map { .string($0) })
    #expect(
      response.json?["detail"]
        == .string("x0 is not a known field (70 issues; the first 20 are listed)"))
    #expect(call("GET", "/v1/apps/big").status == 404)
  }

  @Test func eventValidation() {
    call("POST", "/v1/apps", #"{"name":"mail"}"#)
    #expect(call("POST", "/v1/apps/mail/events", #"{"type":"fly"}"#).status == 422)
    #expect(call("POST", "/v1/apps/mail/events", #"{"type":"lock"}"#).status == 422)
    #expect(call("POST", "/v1/apps/mail/events", #"{"type":"backgroundLaunch"}"#).status == 422)
    #expect(call("POST", "/v1/apps/mail/events", "[]").status == 422)
    let numbers = call(
      "POST", "/v1/apps/mail/events", #"{"type":"setMemory","memoryMB":9223372036854775808}"#)
    #expect(numbers.status == 422)
  }

  @Test func refusedEventIs409WithStateAndAllowedEvents() {
    call("POST", "/v1/apps", #"{"name":"mail"}"#)
    let response = call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    #expect(response.status == 409)
    #expect(
      response.body
        == #"{"type":"urn:lifecycled:problem:event-refused","title":"The event is impossible in the current state","status":409,"detail":"home refused: the event is not possible in the current state (state notRunning)","event":"home","currentState":"notRunning","allowedEvents":["launch","prewarm","backgroundLaunch","updateApp","reinstall"]}"#
    )
  }

  @Test func duplicatesAndTheDefaultDeviceAre409() {
    call("POST", "/v1/apps", #"{"name":"mail"}"#)
    #expect(call("POST", "/v1/apps", #"{"name":"mail"}"#).status == 409)
    #expect(call("DELETE", "/v1/devices/default").status == 409)
  }

  @Test func unknownQueryParametersAre422() {
    #expect(call("GET", "/v1/devices/default/journal?sinse=1").status == 422)
    #expect(call("GET", "/v1/devices/default/journal?limit=-1").status == 422)
    #expect(call("GET", "/v1/devices?x=1").status == 422)
    #expect(call("GET", "/v1/devices/default/journal?app=a%20b").status == 422)
    #expect(call("GET", "/v1/devices/default/journal?app=%6Dail").status == 200)
    #expect(call("GET", "/v1/devices/default/journal?app=%ZZ").status == 422)
  }

  /// Percent-decoded bytes that are not UTF-8 (a lone byte, a sequence cut short, an overlong
  /// form, an encoded surrogate, Latin-1) are refused by name; decoded UTF-8 goes on to the
  /// parameter's own check.
  @Test(arguments: ["%FF", "%C3", "%C0%AF", "%ED%A0%80", "m%E9il"])
  func queryValuesThatAreNotUTF8Are422(value: String) {
    let response = call("GET", "/v1/devices/default/journal?app=\(value)")
    #expect(response.status == 422)
    #expect(response.json?["detail"] == .string("app is not valid percent-encoded UTF-8"))
  }

  @Test func aQueryValueOfUTF8BeyondASCIIGoesOnToItsOwnCheck() {
    let response = call("GET", "/v1/devices/default/journal?app=m%C3%A9il")
    #expect(response.json?["detail"] == .string("app must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"))
  }
}

/// What `path` leads to with `method`: the route's template and the names it captured.
private func routing(_ method: String, _ path: String) -> String {
  switch Router(LifecycleAPI.routes).match(method: method, path: path[...]) {
  case .route(let route, let captures):
    "\(route.method) \(route.template) device=\(captures.device) app=\(captures.app)"
      + (captures.jetsamEvent == 0 ? "" : " jetsamEvent=\(captures.jetsamEvent)")
  case .methodNotAllowed(let template, let allowed):
    "405 \(template) allows \(allowed.joined(separator: ","))"
  case .notFound:
    "404"
  }
}

@Test(arguments: [
  ("GET", "/health", "GET /health device= app="), ("GET", "/livez", "GET /livez device= app="),
  ("GET", "/readyz", "GET /readyz device= app="), ("GET", "/metrics", "GET /metrics device= app="),
  ("GET", "/openapi.yaml", "GET /openapi.yaml device= app="), ("GET", "/", "GET / device= app="),
  ("GET", "/page.css", "GET /page.css device= app="),
  ("GET", "/page.js", "GET /page.js device= app="),
  ("POST", "/__admin/reset", "POST /__admin/reset device= app="),
  ("GET", "/v1/devices", "GET /v1/devices device= app="),
  ("POST", "/v1/devices", "POST /v1/devices device= app="),
  ("DELETE", "/v1/devices", "DELETE /v1/devices device= app="),
  ("GET", "/v1/devices/d1", "GET /v1/devices/{device} device=d1 app="),
  ("DELETE", "/v1/devices/d1", "DELETE /v1/devices/{device} device=d1 app="),
  ("POST", "/v1/devices/d1/events", "POST /v1/devices/{device}/events device=d1 app="),
  ("GET", "/v1/devices/d1/clock", "GET /v1/devices/{device}/clock device=d1 app="),
  (
    "POST", "/v1/devices/d1/clock/advance", "POST /v1/devices/{device}/clock/advance device=d1 app="
  ),
  ("GET", "/v1/devices/d1/journal", "GET /v1/devices/{device}/journal device=d1 app="),
  ("GET", "/v1/devices/d1/jetsam", "GET /v1/devices/{device}/jetsam device=d1 app="),
  (
    "GET", "/v1/devices/d1/jetsam/12/report",
    "GET /v1/devices/{device}/jetsam/{jetsamEvent}/report device=d1 app= jetsamEvent=12"
  ),
  (
    "GET", "/v1/devices/d1/jetsam/999999999999999/report",
    "GET /v1/devices/{device}/jetsam/{jetsamEvent}/report device=d1 app= jetsamEvent=999999999999999"
  ),
  ("GET", "/v1/devices/d1/apps", "GET /v1/devices/{device}/apps device=d1 app="),
  ("POST", "/v1/devices/d1/apps", "POST /v1/devices/{device}/apps device=d1 app="),
  ("GET", "/v1/devices/d1/apps/a", "GET /v1/devices/{device}/apps/{app} device=d1 app=a"),
  ("DELETE", "/v1/devices/d1/apps/a", "DELETE /v1/devices/{device}/apps/{app} device=d1 app=a"),
  (
    "POST", "/v1/devices/d1/apps/a/events",
    "POST /v1/devices/{device}/apps/{app}/events device=d1 app=a"
  ),
  (
    "GET", "/v1/devices/d1/apps/a/callbacks",
    "GET /v1/devices/{device}/apps/{app}/callbacks device=d1 app=a"
  ),
  ("GET", "/v1/apps", "GET /v1/devices/{device}/apps device=default app="),
  ("GET", "/v1/apps/a", "GET /v1/devices/{device}/apps/{app} device=default app=a"),
  ("POST", "/v1/apps/a/events", "POST /v1/devices/{device}/apps/{app}/events device=default app=a"),
  (
    "GET", "/v1/apps/a/callbacks",
    "GET /v1/devices/{device}/apps/{app}/callbacks device=default app=a"
  ),
  ("HEAD", "/v1/devices/d1", "GET /v1/devices/{device} device=d1 app="),
])
func everyPathTemplateRoutes(method: String, path: String, expected: String) {
  #expect(routing(method, path) == expected)
}

/// 405 lists exactly the methods the table declares for the template, HEAD with GET.
@Test(arguments: [
  ("PUT", "/v1/devices", "405 /v1/devices allows GET,POST,DELETE,HEAD"),
  ("POST", "/v1/devices/d1", "405 /v1/devices/{device} allows GET,PUT,DELETE,HEAD"),
  ("GET", "/v1/devices/d1/events", "405 /v1/devices/{device}/events allows POST"),
  ("DELETE", "/health", "405 /health allows GET,HEAD"), ("POST", "/", "405 / allows GET,HEAD"),
  ("GET", "/__admin/reset", "405 /__admin/reset allows POST"),
  ("PATCH", "/v1/apps/a", "405 /v1/devices/{device}/apps/{app} allows GET,DELETE,HEAD"),
])
func otherMethodsAre405WithTheDeclaredOnes(method: String, path: String, expected: String) {
  #expect(routing(method, path) == expected)
}

@Test(arguments: [
  "", "health", "//", "/index.html", "/page", "/health/", "/v1", "/v1/devices/",
  "/v1/devices//apps", "/v1/apps//events",
  "/v1/devices/d/apps/a/other", "/v1/devices/d/clock/back", "/v2/devices", "/v1/devices/d/x",
  "/v1/apps/a/events/more", "/__admin/resets", "/HEALTH", "/v1/apps/", "/v1/appsx",
  "/a/b/c/d/e/f/g/h/i/j", "/v1/devices/d/jetsam/0/report", "/v1/devices/d/jetsam/01/report",
  "/v1/devices/d/jetsam/-1/report", "/v1/devices/d/jetsam/1x/report",
  "/v1/devices/d/jetsam//report", "/v1/devices/d/jetsam/1000000000000000/report",
  "/v1/devices/d/jetsam/1", "/v1/devices/d/jetsam/1/report/x",
])
func otherPathsRouteNowhere(path: String) {
  #expect(routing("GET", path) == "404")
}

/// The contract states every limit as `Validation` defines it: each line names the field and
/// the bound, so a changed limit fails here until `openapi.yaml` says the same.
@Test func theContractStatesTheEnginesLimits() throws {
  let contract = try String(
    contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/openapi.yaml",
    encoding: .utf8)
  let lines = contract.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
  func states(_ line: String) -> Bool { lines.contains(line) }
  let memory = Validation.maxMemoryMB
  #expect(states(#"pattern: "\#(Validation.namePattern)""#))
  #expect(states("memoryMB: { type: integer, minimum: 0, maximum: \(memory) }"))
  #expect(
    states("seconds: { type: number, minimum: 0, maximum: \(Validation.maxAdvanceSeconds) }"))
  #expect(states("url: { type: string, minLength: 1, maxLength: \(Validation.maxURLBytes) }"))
  #expect(states("name: { type: string, maxLength: \(Validation.maxTaskNameBytes) }"))
  #expect(states("maxItems: \(Validation.maxScenarioEvents)"))
  #expect(
    states(
      ##"scenes: { type: array, maxItems: \##(Validation.maxScenesPerApp), items: { $ref: "#/components/schemas/SnapshotSceneSession" } }"##
    ))
  #expect(
    states(
      ##"backgroundWork: { type: array, maxItems: \##(Validation.maxBackgroundWorkPerApp), items: { $ref: "#/components/schemas/SnapshotBackgroundWork" } }"##
    ))
  #expect(states("maxItems: \(Validation.maxBackgroundWorkPerApp)"))
  #expect(states("schema: { type: integer, minimum: 0, maximum: \(Validation.maxPageSize) }"))
  #expect(
    states(
      "At most this many (default \(Validation.defaultPageSize)). A page also ends once its elements pass \(Paging.maxBytes >> 10) KiB of"
    ))
  // The names the journal's filters take, as the engine knows them.
  let methods = CallbackMethod.allCases.map { "\"\($0.rawValue)\"" }
  #expect(states("enum: [\(methods.joined(separator: ", "))]"))
}
