import JSONCore
public import LifecycleEngine

/// The lifecycle simulator's JSON API (SPEC section 5): requests in, responses out, against one
/// engine. No sockets, no HTTP framing: the service adapts it to the server.
public final class LifecycleAPI {
  public let engine: Engine
  let version: String
  let startedAt: Instant
  /// Told of every kill (crash, purge, watchdog, background time, jetsam) as it happens,
  /// whether a request or a deadline caused it.
  public var onKill: ((_ device: String, _ transition: Transition) -> Void)?
  var metrics = Metrics()
  private let router = Router(LifecycleAPI.routes)

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
  func record(_ outcome: EventOutcome, device: String) {
    metrics.count(outcome)
    for transition in outcome.transitions where transition.to == .notRunning {
      guard transition.cause != .event(.terminate) else { continue }
      metrics.count(kill: transition)
      onKill?(device, transition)
    }
  }

  /// Answers one request at host time `now`.
  public func handle(_ request: consuming APIRequest, now: Instant, isDraining: Bool = false)
    -> APIResponse
  {
    let response: APIResponse
    var template: String?
    do {
      switch router.match(method: request.method, path: request.path) {
      case .route(let route, let device, let app):
        template = route.template.description
        let query = try Query(request.query, allowed: route.queryParameters)
        let routed = RouteRequest(
          request: consume request, device: device, app: app, query: query, now: now,
          isDraining: isDraining)
        response = try route.handler(self, routed)
      case .methodNotAllowed(let matched, let allowed):
        template = matched.description
        throw Problem(
          kind: .methodNotAllowed,
          detail: "\(request.path) allows \(allowed.joined(separator: ", "))", allow: allowed)
      case .notFound:
        throw Problem(kind: .notFound, detail: "no resource at \(request.path)")
      }
    } catch let problem as Problem {
      response = problem.response
    } catch let error as EngineError {
      response = Problem(error).response
    } catch {
      preconditionFailure("handlers throw only problems and engine errors, not \(error)")
    }
    metrics.count(request: template ?? "unmatched", status: response.status)
    return response
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

extension RouteRequest {
  /// The JSON body of a request that must have one.
  func jsonBody() throws(Problem) -> JSONDocument {
    guard let contentType = request.contentType, LifecycleAPI.isJSON(contentType) else {
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
}
