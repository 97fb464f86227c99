import JSONCore
public import LifecycleEngine

/// The lifecycle simulator's JSON API (SPEC section 5): requests in, responses out, against one
/// engine. No sockets, no HTTP framing: the service adapts it to the server.
public final class LifecycleAPI {
  public let engine: Engine
  private let version: String
  private let startedAt: Instant
  /// Told of every kill (crash, purge, watchdog, background time, jetsam) as it happens,
  /// whether a request or a deadline caused it.
  public var onKill: ((_ device: String, _ transition: Transition) -> Void)?
  private var metrics = Metrics()

  public init(engine: Engine, version: String, now: Instant) {
    self.engine = engine
    self.version = version
    startedAt = now
  }

  /// Fires every deadline of the realtime devices due by `now` (the server's timer calls it).
  public func fireDeadlines(now: Instant) {
    for activity in engine.advance(to: now) {
      record(activity.outcome, device: activity.device)
    }
  }

  /// When `fireDeadlines` is next due, on the host clock.
  public var nextDeadline: Instant? { engine.nextDeadline }

  /// Counts what an outcome did, and reports its kills.
  private func record(_ outcome: EventOutcome, device: String) {
    metrics.count(outcome)
    for transition in outcome.transitions where transition.to == .notRunning {
      guard transition.cause != .event(.terminate) else { continue }
      metrics.count(kill: transition)
      onKill?(device, transition)
    }
  }

  /// Answers one request at host time `now`.
  public func handle(_ request: APIRequest, now: Instant, isDraining: Bool = false) -> APIResponse {
    let route = Route(path: request.path)
    let response: APIResponse
    do {
      guard let route else {
        throw Problem(kind: .notFound, detail: "no resource at \(request.path)")
      }
      response = try respond(to: request, route: route, now: now, isDraining: isDraining)
    } catch let problem as Problem {
      response = problem.response
    } catch let error as EngineError {
      response = Problem(error).response
    } catch {
      preconditionFailure("handlers throw only problems and engine errors, not \(error)")
    }
    metrics.count(request: route?.template ?? "unmatched", status: response.status)
    return response
  }

  private func respond(to request: APIRequest, route: Route, now: Instant, isDraining: Bool)
    throws -> APIResponse
  {
    let method = request.method == "HEAD" ? "GET" : request.method
    guard route.methods.contains(method) else {
      let allowed = route.methods + (route.methods.contains("GET") ? ["HEAD"] : [])
      throw Problem(
        kind: .methodNotAllowed,
        detail: "\(request.path) allows \(allowed.joined(separator: ", "))", allow: allowed)
    }
    let query = try Query(request.query, allowed: route.queryParameters)
    switch (route, method) {
    case (.livez, _):
      return .json(200, "status", "ok")
    case (.readyz, _):
      return isDraining ? .json(503, "status", "draining") : .json(200, "status", "ready")
    case (.health, _):
      return health(now: now, isDraining: isDraining)
    case (.metrics, _):
      return APIResponse(
        status: 200, contentType: "text/plain; version=0.0.4",
        body: Array(metrics.exposition(devices: engine.devices(now: now)).utf8))
    case (.openapi, _):
      return APIResponse(
        status: 200, contentType: "application/yaml", body: Array(OpenAPIDocument.yaml.utf8))
    case (.reset, _):
      engine.reset(now: now)
      return APIResponse(status: 204, contentType: "application/json", body: [])
    case (.devices, "GET"):
      let devices = engine.devices(now: now)
      return .json(200) { w in
        w.object { w in
          w.key("devices")
          w.array(devices) { $0.device($1) }
        }
      }
    case (.devices, _):
      let device = try engine.createDevice(try Decode.device(try body(of: request)), now: now)
      return .json(201) { $0.device(device) }
    case (.device(let id), "GET"):
      let device = try engine.device(id, now: now)
      return .json(200) { $0.device(device) }
    case (.device(let id), _):
      try engine.removeDevice(id, now: now)
      return APIResponse(status: 204, contentType: "application/json", body: [])
    case (.deviceEvents(let device), _):
      return try deviceEvents(try body(of: request), device: device, now: now)
    case (.clock(let device), _):
      let snapshot = try engine.device(device, now: now)
      return .json(200) { w in
        w.object { w in
          w.member("device", unescaped: device)
          w.member("clock", snapshot.clock)
          w.member("now", time: snapshot.now)
          w.member("nextDeadline", time: snapshot.nextDeadline)
        }
      }
    case (.clockAdvance(let device), _):
      return try advance(try body(of: request), device: device, now: now)
    case (.journal(let device), _):
      let page = try engine.journal(
        of: device, since: try query.integer("since") ?? 0, app: try query.appName("app"),
        limit: try query.integer("limit", max: 10_000) ?? 1_000, now: now)
      return .json(200) { w in
        w.object { w in
          w.key("entries")
          w.array(page.entries) { $0.journalEntry($1) }
          w.member("dropped", page.dropped)
        }
      }
    case (.jetsam(let device), _):
      let page = try engine.jetsamLog(of: device, now: now)
      return .json(200) { w in
        w.object { w in
          w.key("kills")
          w.array(page.records) { $0.jetsamRecord($1) }
          w.member("dropped", page.dropped)
        }
      }
    case (.apps(let device), "GET"):
      let apps = try engine.apps(on: device, now: now)
      return .json(200) { w in
        w.object { w in
          w.key("apps")
          w.array(apps) { $0.app($1) }
        }
      }
    case (.apps(let device), _):
      let spec = try Decode.app(try body(of: request))
      let app = try engine.createApp(spec, on: device, now: now)
      return .json(201) { $0.app(app) }
    case (.app(let device, let app), "GET"):
      let snapshot = try engine.app(app, on: device, now: now)
      return .json(200) { $0.app(snapshot) }
    case (.app(let device, let app), _):
      try engine.removeApp(app, on: device, now: now)
      return APIResponse(status: 204, contentType: "application/json", body: [])
    case (.appEvents(let device, let app), _):
      return try appEvents(try body(of: request), app: app, device: device, now: now)
    case (.callbacks(let device, let app), _):
      let callbacks = try engine.callbacks(
        of: app, on: device, since: try query.integer("since") ?? 0,
        limit: try query.integer("limit", max: 10_000) ?? 1_000, now: now)
      return .json(200) { w in
        w.object { w in
          w.key("callbacks")
          w.callbacks(callbacks)
        }
      }
    }
  }

  // MARK: Events

  private func appEvents(_ body: JSONDocument, app: String, device: String, now: Instant) throws
    -> APIResponse
  {
    let (events, isArray) = try Decode.events(body, Decode.appEvent)
    return try results(isArray: isArray, device: device, app: app) { write throws(EngineError) in
      try engine.apply(events, to: app, on: device, now: now) { event, outcome in
        metrics.count(event: event.type)
        guard let subject = outcome.subject else { preconditionFailure("an app event's outcome") }
        write(
          AppliedEvent(
            event: .app(event), outcome: outcome, previousState: .app(subject.previousState),
            state: .app(subject.state)))
      }
    }
  }

  private func deviceEvents(_ body: JSONDocument, device: String, now: Instant) throws
    -> APIResponse
  {
    let (events, isArray) = try Decode.events(body, Decode.deviceEvent)
    return try results(isArray: isArray, device: device, app: nil) { write throws(EngineError) in
      try engine.apply(events, on: device, now: now) { event, outcome, locked in
        metrics.count(event: event.type)
        write(
          AppliedEvent(
            event: .device(event), outcome: outcome,
            previousState: .device(locked: locked.before), state: .device(locked: locked.after)))
      }
    }
  }

  /// An event the engine applied, with what its result reports.
  private struct AppliedEvent {
    var event: RecordedEvent
    var outcome: EventOutcome
    var previousState: ReportedState
    var state: ReportedState
  }

  /// The response to events that `apply` applies in order, handing each to the function it is
  /// given, which writes its result as it comes: one event's result, or a scenario's as
  /// `{"results": [...]}`. A refused event ends the scenario with a problem that carries the
  /// results already applied.
  private func results(
    isArray: Bool, device: String, app: String?,
    _ apply: ((AppliedEvent) -> Void) throws(EngineError) -> Void
  ) throws(Problem) -> APIResponse {
    var writer = JSONWriter(capacity: 4096)
    if isArray {
      writer.beginObject()
      writer.key("results")
      writer.beginArray()
    }
    let resultsStart = writer.position
    var appliedCount = 0
    do {
      try apply { applied in
        record(applied.outcome, device: device)
        writer.eventResult(
          applied.outcome, device: device, app: app, event: applied.event,
          previousState: applied.previousState, state: applied.state)
        appliedCount += 1
      }
    } catch {
      var problem = Problem(error)
      // A missing device or app (found before the first event) is a 404 for the resource,
      // not a refused event of the scenario.
      let isMissing =
        switch error {
        case .unknownDevice, .unknownApp: true
        default: false
        }
      if isArray, !isMissing {
        let results = JSONText(array: writer.text(from: resultsStart))
        problem.extensions += [
          ("failedIndex", JSONText(.integer(appliedCount))), ("results", results),
        ]
      }
      throw problem
    }
    if isArray {
      writer.endArray()
      writer.endObject()
    }
    return APIResponse(status: 200, contentType: "application/json", body: writer.bytes)
  }

  private func advance(_ body: JSONDocument, device: String, now: Instant) throws -> APIResponse {
    var fields = Fields(body)
    let seconds = fields.seconds("seconds", in: 0...315_360_000, required: true) ?? .zero
    if let problem = fields.problem() { throw problem }
    let outcome = try engine.advanceClock(of: device, by: seconds, now: now)
    record(outcome, device: device)
    let snapshot = try engine.device(device, now: now)
    return .json(200) { w in
      w.object { w in
        w.member("advanced", seconds: seconds)
        w.member("now", time: snapshot.now)
        w.key("callbacks")
        w.callbacks(outcome.callbacks)
        w.key("transitions")
        w.transitions(outcome.transitions)
      }
    }
  }

  private func health(now: Instant, isDraining: Bool) -> APIResponse {
    .json(200) { w in
      w.object { w in
        w.member("status", unescaped: isDraining ? "draining" : "ok")
        w.member("version", version)
        w.member("uptimeSeconds", milliseconds: now.milliseconds - startedAt.milliseconds)
        w.member("devices", engine.deviceCount)
        w.member("apps", engine.appCount)
      }
    }
  }

  // MARK: Plumbing

  /// The JSON body of a request that must have one.
  private func body(of request: APIRequest) throws(Problem) -> JSONDocument {
    guard let contentType = request.contentType, Self.isJSON(contentType) else {
      throw Problem(
        kind: .unsupportedMediaType,
        detail: "the body must be application/json, not \(request.contentType ?? "absent")")
    }
    do {
      return try JSONDocument.parse(request.body)
    } catch {
      throw Problem(kind: .invalidJSON, detail: error.description)
    }
  }

  /// Whether a `Content-Type` names `application/json` (in any case, parameters allowed).
  static func isJSON(_ contentType: String) -> Bool {
    if contentType == "application/json" { return true }  // what nearly every client sends
    let isOWS = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    let expected: StaticString = "application/json"
    var text = contentType
    return text.withUTF8 { bytes in
      var start = 0
      var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
      while start < end, isOWS(bytes[start]) { start += 1 }
      while end > start, isOWS(bytes[end - 1]) { end -= 1 }
      guard end - start == expected.utf8CodeUnitCount else { return false }
      return (0..<(end - start)).allSatisfy { offset in
        let sent = bytes[start + offset]
        let wanted = expected.utf8Start[offset]
        return sent == wanted
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(sent) && sent | 0x20 == wanted
      }
    }
  }
}
