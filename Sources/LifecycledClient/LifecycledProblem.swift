import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A request the server refused: its status and its problem details (RFC 9457), such as a
/// 409 `event-refused` with the events the app allows in its state, or a 422 naming each field.
///
/// ```swift
/// do {
///   try await mail.post(.home)
/// } catch let problem as LifecycledProblem where problem.kind == .eventRefused {
///   #expect(problem.currentState == .app(.notRunning))
/// }
/// ```
public struct LifecycledProblem: Error, Sendable, Hashable, CustomStringConvertible {
  /// The HTTP status, 400 to 599.
  public let status: Int
  /// What went wrong, from the problem's `type`.
  public let kind: Kind
  /// The problem type as sent, such as `urn:lifecycled:problem:event-refused`.
  public let type: String
  public let title: String
  public let detail: String
  /// For a refused event, the event.
  public let event: Components.Schemas.EventType?
  /// For a refused event, the app's or device's state.
  public let currentState: State?
  /// For a refused event, the events the state allows.
  public let allowedEvents: [Components.Schemas.EventType]
  /// For a refused event of a scenario, its index; the events before it were applied (unless
  /// the scenario was atomic), with these results.
  public let failedIndex: Int?
  public let appliedResults: [Components.Schemas.EventResponse]
  /// For a 422, each field and what is wrong with it.
  public let validation: [Field]

  /// The problem types of the API (`openapi.yaml`), and any other.
  public enum Kind: Sendable, Hashable {
    case invalidJSON, validation, notFound, methodNotAllowed, unsupportedMediaType
    case alreadyExists, limitReached, permanent, eventRefused
    /// `BGTaskScheduler.submit(_:)` refused the request: `BGTaskScheduler.Error.Code`.
    case taskNotPermitted, tooManyPendingTaskRequests, taskSchedulingUnavailable
    case immediateRunIneligible
    case noDeadline, preconditionFailed, idempotencyKeyReused, unauthorized, forbiddenOrigin
    case misdirected, memoryBudgetExhausted, tooManyWaits, tooManyStreams
    /// A type this client does not know (a later server's, or a proxy's `about:blank`).
    case other(String)

    private static let byName: [String: Kind] = [
      "invalid-json": .invalidJSON, "validation": .validation, "not-found": .notFound,
      "method-not-allowed": .methodNotAllowed, "unsupported-media-type": .unsupportedMediaType,
      "already-exists": .alreadyExists, "limit-reached": .limitReached,
      "permanent": .permanent, "event-refused": .eventRefused,
      "bgtaskscheduler-not-permitted": .taskNotPermitted,
      "bgtaskscheduler-too-many-pending-task-requests": .tooManyPendingTaskRequests,
      "bgtaskscheduler-unavailable": .taskSchedulingUnavailable,
      "bgtaskscheduler-immediate-run-ineligible": .immediateRunIneligible,
      "no-deadline": .noDeadline,
      "precondition-failed": .preconditionFailed,
      "idempotency-key-reused": .idempotencyKeyReused, "unauthorized": .unauthorized,
      "forbidden-origin": .forbiddenOrigin, "misdirected-request": .misdirected,
      "memory-budget-exhausted": .memoryBudgetExhausted, "too-many-waits": .tooManyWaits,
      "too-many-streams": .tooManyStreams,
    ]

    /// The kind of a problem `type`.
    init(type: String) {
      let prefix = "urn:lifecycled:problem:"
      self =
        type.hasPrefix(prefix)
        ? Self.byName[String(type.dropFirst(prefix.count))] ?? .other(type) : .other(type)
    }
  }

  /// The state a refused event found: the app's, or the device's for a device event.
  public enum State: Sendable, Hashable {
    case app(Components.Schemas.AppState)
    case device(Components.Schemas.DeviceState)
  }

  /// One field of a refused body, by its path (`behavior.didEnterBackgroundSeconds`, `[2].type`).
  public struct Field: Sendable, Hashable, Decodable {
    public let field: String
    public let message: String
  }

  public var description: String { "\(status) \(type): \(detail)" }
}

extension LifecycledProblem: Decodable {
  private enum CodingKeys: String, CodingKey {
    case status, type, title, detail, event, currentState, allowedEvents, failedIndex, results
    case validation
  }

  public init(from decoder: any Decoder) throws {
    let members = try decoder.container(keyedBy: CodingKeys.self)
    status = try members.decode(Int.self, forKey: .status)
    type = try members.decode(String.self, forKey: .type)
    kind = Kind(type: type)
    title = try members.decode(String.self, forKey: .title)
    detail = try members.decode(String.self, forKey: .detail)
    event = try members.decodeIfPresent(Components.Schemas.EventType.self, forKey: .event)
    currentState = try members.decodeIfPresent(String.self, forKey: .currentState).flatMap {
      Components.Schemas.AppState(rawValue: $0).map(State.app)
        ?? Components.Schemas.DeviceState(rawValue: $0).map(State.device)
    }
    allowedEvents =
      try members.decodeIfPresent([Components.Schemas.EventType].self, forKey: .allowedEvents)
      ?? []
    failedIndex = try members.decodeIfPresent(Int.self, forKey: .failedIndex)
    appliedResults =
      try members.decodeIfPresent([Components.Schemas.EventResponse].self, forKey: .results) ?? []
    validation = try members.decodeIfPresent([Field].self, forKey: .validation) ?? []
  }

  /// A refusal that is not the server's problem body (a proxy's answer, say).
  init(status: Int, title: String, detail: String) {
    self.status = status
    kind = .other("about:blank")
    type = "about:blank"
    self.title = title
    self.detail = detail
    event = nil
    currentState = nil
    allowedEvents = []
    failedIndex = nil
    appliedResults = []
    validation = []
  }
}

/// Throws a response the server refused (4xx, 5xx) as its ``LifecycledProblem``, before the
/// generated client turns it into one of each operation's own cases.
struct ProblemMiddleware: ClientMiddleware {
  /// Problem bodies are small; a larger one is not a problem body.
  static let maxBodyBytes = 64 * 1024

  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?) {
    let (response, responseBody) = try await next(request, body, baseURL)
    guard response.status.kind == .clientError || response.status.kind == .serverError,
      let responseBody
    else { return (response, responseBody) }
    let bytes = try await Data(collecting: responseBody, upTo: Self.maxBodyBytes)
    if let problem = try? JSONDecoder().decode(LifecycledProblem.self, from: bytes) {
      throw problem
    }
    // Not the server's problem body (a proxy's answer, say): the status says what it can.
    throw LifecycledProblem(
      status: response.status.code, title: response.status.reasonPhrase,
      detail: String(decoding: bytes, as: UTF8.self))
  }
}
