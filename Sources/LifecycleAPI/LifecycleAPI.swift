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
      return .json(200, .object([("status", .string("ok"))]))
    case (.readyz, _):
      return isDraining
        ? .json(503, .object([("status", .string("draining"))]))
        : .json(200, .object([("status", .string("ready"))]))
    case (.health, _):
      return .json(200, health(now: now, isDraining: isDraining))
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
      return .json(200, .object([("devices", .array(engine.devices(now: now).map(View.device)))]))
    case (.devices, _):
      let spec = try Decode.device(try body(of: request))
      return .json(201, View.device(try engine.createDevice(spec, now: now)))
    case (.device(let id), "GET"):
      return .json(200, View.device(try engine.device(id, now: now)))
    case (.device(let id), _):
      try engine.removeDevice(id, now: now)
      return APIResponse(status: 204, contentType: "application/json", body: [])
    case (.deviceEvents(let device), _):
      return try deviceEvents(try body(of: request), device: device, now: now)
    case (.clock(let device), _):
      let snapshot = try engine.device(device, now: now)
      return .json(
        200,
        .object([
          ("device", .string(device)), ("clock", .string(snapshot.clock.rawValue)),
          ("now", View.time(snapshot.now)), ("nextDeadline", View.time(snapshot.nextDeadline)),
        ]))
    case (.clockAdvance(let device), _):
      return try advance(try body(of: request), device: device, now: now)
    case (.journal(let device), _):
      let page = try engine.journal(
        of: device, since: try query.integer("since") ?? 0, app: try query.name("app"),
        limit: try query.integer("limit", max: 10_000) ?? 1_000, now: now)
      return .json(
        200,
        .object([
          ("entries", .array(page.entries.map(View.journalEntry))),
          ("dropped", .integer(page.dropped)),
        ]))
    case (.jetsam(let device), _):
      let page = try engine.jetsamLog(of: device, now: now)
      return .json(
        200,
        .object([
          ("kills", .array(page.records.map(View.jetsamRecord))),
          ("dropped", .integer(page.dropped)),
        ]))
    case (.apps(let device), "GET"):
      return .json(
        200, .object([("apps", .array(try engine.apps(on: device, now: now).map(View.app)))]))
    case (.apps(let device), _):
      let spec = try Decode.app(try body(of: request))
      return .json(201, View.app(try engine.createApp(spec, on: device, now: now)))
    case (.app(let device, let app), "GET"):
      return .json(200, View.app(try engine.app(app, on: device, now: now)))
    case (.app(let device, let app), _):
      try engine.removeApp(app, on: device, now: now)
      return APIResponse(status: 204, contentType: "application/json", body: [])
    case (.appEvents(let device, let app), _):
      return try appEvents(try body(of: request), app: app, device: device, now: now)
    case (.callbacks(let device, let app), _):
      let callbacks = try engine.callbacks(
        of: app, on: device, since: try query.integer("since") ?? 0,
        limit: try query.integer("limit", max: 10_000) ?? 1_000, now: now)
      return .json(200, .object([("callbacks", .array(callbacks.map(View.callback)))]))
    }
  }

  // MARK: Events

  private func appEvents(_ body: JSON, app: String, device: String, now: Instant) throws
    -> APIResponse
  {
    let (events, isArray) = try Decode.events(body, Decode.appEvent)
    var results: [JSON] = []
    for (index, event) in events.enumerated() {
      let before = try engine.state(of: app, on: device, now: now)
      do {
        let outcome = try engine.apply(event, to: app, on: device, now: now)
        metrics.count(event: event.type)
        record(outcome, device: device)
        let after = try engine.state(of: app, on: device, now: now)
        results.append(
          eventResult(
            outcome, device: device, app: app, event: View.event(.app(event)),
            previousState: before.rawValue, state: after.rawValue))
      } catch {
        throw refusal(error, at: index, applied: results, isArray: isArray)
      }
    }
    return .json(200, isArray ? .object([("results", .array(results))]) : results[0])
  }

  private func deviceEvents(_ body: JSON, device: String, now: Instant) throws -> APIResponse {
    let (events, isArray) = try Decode.events(body, Decode.deviceEvent)
    var results: [JSON] = []
    for (index, event) in events.enumerated() {
      let before = try engine.isLocked(device, now: now)
      do {
        let outcome = try engine.apply(event, on: device, now: now)
        metrics.count(event: event.type)
        record(outcome, device: device)
        let after = try engine.isLocked(device, now: now)
        results.append(
          eventResult(
            outcome, device: device, app: nil, event: View.event(.device(event)),
            previousState: before ? "locked" : "unlocked", state: after ? "locked" : "unlocked"))
      } catch {
        throw refusal(error, at: index, applied: results, isArray: isArray)
      }
    }
    return .json(200, isArray ? .object([("results", .array(results))]) : results[0])
  }

  /// The response of one event (SPEC section 5).
  private func eventResult(
    _ outcome: EventOutcome, device: String, app: String?, event: JSON, previousState: String,
    state: String
  ) -> JSON {
    .object([
      ("device", .string(device)), ("app", app.map(JSON.string) ?? .null), ("event", event),
      ("previousState", .string(previousState)), ("state", .string(state)),
      ("callbacks", .array(outcome.callbacks.map(View.callback))),
      ("transitions", .array(outcome.transitions.map(View.transition))),
      (
        "effects",
        .array(
          outcome.effects(excluding: app).map { effect in
            .object([
              ("app", .string(effect.app)),
              ("previousState", .string(effect.previousState.rawValue)),
              ("state", .string(effect.state.rawValue)),
            ])
          })
      ),
      ("result", View.result(outcome.result)),
    ])
  }

  /// A refused event of a scenario: the results already applied go with the refusal.
  private func refusal(_ error: EngineError, at index: Int, applied: [JSON], isArray: Bool)
    -> Problem
  {
    var problem = Problem(error)
    if isArray {
      problem.extensions += [("failedIndex", .integer(index)), ("results", .array(applied))]
    }
    return problem
  }

  private func advance(_ body: JSON, device: String, now: Instant) throws -> APIResponse {
    var fields = Fields(body)
    let seconds = fields.seconds("seconds", in: 0...315_360_000, required: true)
    if let problem = fields.problem() { throw problem }
    let outcome = try engine.advanceClock(of: device, by: seconds ?? .zero, now: now)
    record(outcome, device: device)
    let snapshot = try engine.device(device, now: now)
    return .json(
      200,
      .object([
        ("advanced", .double((seconds ?? .zero).secondsValue)), ("now", View.time(snapshot.now)),
        ("callbacks", .array(outcome.callbacks.map(View.callback))),
        ("transitions", .array(outcome.transitions.map(View.transition))),
      ]))
  }

  private func health(now: Instant, isDraining: Bool) -> JSON {
    .object([
      ("status", .string(isDraining ? "draining" : "ok")), ("version", .string(version)),
      ("uptimeSeconds", .double((now - startedAt).secondsValue)),
      ("devices", .integer(engine.deviceCount)), ("apps", .integer(engine.appCount)),
    ])
  }

  // MARK: Plumbing

  /// The JSON body of a request that must have one.
  private func body(of request: APIRequest) throws(Problem) -> JSON {
    let mediaType = request.contentType.map {
      $0.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }.lowercased()
    }
    guard mediaType == "application/json" else {
      throw Problem(
        kind: .unsupportedMediaType,
        detail: "the body must be application/json, not \(request.contentType ?? "absent")")
    }
    do {
      return try JSON.parse(request.body)
    } catch {
      throw Problem(kind: .invalidJSON, detail: error.description)
    }
  }
}
