import JSONCore
import LifecycleEngine

/// A request as the API sees it: no framing, no connection, only what routing and decoding use.
public struct APIRequest: Sendable {
  public var method: String
  /// The path without its query, such as `/v1/devices/ci-1/apps`.
  public var path: Substring
  /// The raw query after `?`, if any.
  public var query: Substring?
  /// The body's media type, `type/subtype` in lowercase without parameters (as
  /// `HTTPFields.mediaType` reads `Content-Type`), if sent.
  public var mediaType: String?
  public var body: [UInt8]
  /// `Host`, `Origin` and `Authorization`, for the `AccessPolicy`.
  public var host: String?
  /// The first `Origin`; `originIsRepeated` when the request has more than one (RFC 6454,
  /// 7.2: a browser sends one at most), which the policy refuses whatever they say.
  public var origin: String?
  public var originIsRepeated = false
  public var authorization: String?
  /// `If-Match`: the request applies only to the device in one of these versions.
  public var ifMatch: String?
  /// `Idempotency-Key`: a retry of this request gets the first one's response.
  public var idempotencyKey: String?
  /// `Last-Event-ID`: a journal stream's client reconnects after this seq.
  public var lastEventID: String?
  /// The request's number on the server: a request that waits is answered under it later
  /// (`LifecycleAPI.takeLateResponses`).
  public var exchange: UInt64

  @inlinable  // built for every request: inlined, its fields are stored in place
  public init(
    method: String, path: Substring, query: Substring? = nil, mediaType: String? = nil,
    body: [UInt8] = [], host: String? = nil, origin: String? = nil, authorization: String? = nil,
    ifMatch: String? = nil, idempotencyKey: String? = nil, lastEventID: String? = nil,
    exchange: UInt64 = 0
  ) {
    self.exchange = exchange
    self.method = method
    self.path = path
    self.query = query
    self.mediaType = mediaType
    self.body = body
    self.host = host
    self.origin = origin
    self.authorization = authorization
    self.ifMatch = ifMatch
    self.idempotencyKey = idempotencyKey
    self.lastEventID = lastEventID
  }
}

/// A response as the API produces it; the HTTP layer adds the framing.
public struct APIResponse: Sendable {
  public var status: Int
  public var contentType: String
  /// Fields the response needs besides its content type, such as `Allow` on a 405 or
  /// `Location` on a 201.
  public var headers: [(name: String, value: String)]
  /// The `ETag` of the device the response is about. Apart from `headers` because nearly
  /// every response has one, and an array of fields for each would cost an allocation.
  public var entityTag: String?
  public var body: [UInt8]

  public init(
    status: Int, contentType: String, headers: [(name: String, value: String)] = [],
    body: [UInt8]
  ) {
    self.status = status
    self.contentType = contentType
    self.headers = headers
    self.body = body
  }

  /// 204: done, nothing to say.
  static let noContent = APIResponse(status: 204, contentType: "application/json", body: [])

  /// No answer yet: the request waits (`Waits`).
  static let deferred = APIResponse(status: 0, contentType: "", body: [])

  var isDeferred: Bool { status == 0 }
}

/// An answer, or a part of one, to a request that waited (`Waits`) or streams (`Streams`).
public struct LateAnswer: Sendable {
  /// The request's number, from `APIRequest.exchange`.
  public var exchange: UInt64
  public var part: Part

  /// The whole response, or a stream's head, one of its pieces, or its end.
  public enum Part: Sendable {
    case response(APIResponse)
    /// The stream's response, whose body is its first piece; what it sends after
    /// `heartbeatMilliseconds` of quiet; what it sends last to a client that fell behind.
    case streamHead(
      APIResponse, heartbeat: [UInt8], heartbeatMilliseconds: Int64, farewell: [UInt8])
    case streamPiece([UInt8])
    case streamEnd
  }
}

/// An error answered as an RFC 9457 problem document with a stable `type`.
struct Problem: Error {
  /// The problem types this API uses; `urn:lifecycled:problem:<name>` on the wire.
  enum Kind: String {
    case invalidJSON = "invalid-json"
    case validation
    case notFound = "not-found"
    case methodNotAllowed = "method-not-allowed"
    case unsupportedMediaType = "unsupported-media-type"
    case alreadyExists = "already-exists"
    case limitReached = "limit-reached"
    case permanent
    case eventRefused = "event-refused"
    /// `BGTaskScheduler.submit(_:)` refusals, one type per `BGTaskScheduler.Error.Code`.
    case taskNotPermitted = "bgtaskscheduler-not-permitted"
    case tooManyPendingTaskRequests = "bgtaskscheduler-too-many-pending-task-requests"
    case taskSchedulingUnavailable = "bgtaskscheduler-unavailable"
    case noDeadline = "no-deadline"
    case preconditionFailed = "precondition-failed"
    case idempotencyKeyReused = "idempotency-key-reused"
    case unauthorized
    case forbiddenOrigin = "forbidden-origin"
    case misdirected = "misdirected-request"
    case memoryBudgetExhausted = "memory-budget-exhausted"
    case tooManyWaits = "too-many-waits"
    case tooManyStreams = "too-many-streams"

    var status: Int {
      switch self {
      case .invalidJSON: 400
      case .unauthorized: 401
      case .forbiddenOrigin: 403
      case .misdirected: 421
      case .notFound: 404
      case .methodNotAllowed: 405
      case .unsupportedMediaType: 415
      case .validation, .idempotencyKeyReused: 422
      case .alreadyExists, .limitReached, .permanent, .eventRefused, .noDeadline,
        .taskNotPermitted, .tooManyPendingTaskRequests, .taskSchedulingUnavailable:
        409
      case .preconditionFailed: 412
      case .memoryBudgetExhausted: 507
      case .tooManyWaits, .tooManyStreams: 503
      }
    }

    var title: String {
      switch self {
      case .invalidJSON: "The body is not valid JSON"
      case .validation: "A field is invalid"
      case .notFound: "No such resource"
      case .methodNotAllowed: "Method not allowed"
      case .unsupportedMediaType: "The body must be application/json"
      case .alreadyExists: "The resource already exists"
      case .limitReached: "A limit is reached"
      case .permanent: "The resource cannot be removed"
      case .eventRefused: "The event is impossible in the current state"
      case .taskNotPermitted: "BGTaskScheduler refused the request: notPermitted"
      case .tooManyPendingTaskRequests:
        "BGTaskScheduler refused the request: tooManyPendingTaskRequests"
      case .taskSchedulingUnavailable: "BGTaskScheduler refused the request: unavailable"
      case .noDeadline: "No deadline is pending"
      case .preconditionFailed: "The device is no longer in the version If-Match names"
      case .idempotencyKeyReused: "The Idempotency-Key was first used for another request"
      case .unauthorized: "A bearer token is required"
      case .forbiddenOrigin: "Requests from this origin are not allowed"
      case .misdirected: "This server does not answer for this host"
      case .memoryBudgetExhausted: "The simulator's memory budget is exhausted"
      case .tooManyWaits: "Too many requests are waiting"
      case .tooManyStreams: "Too many journal streams are open"
      }
    }
  }

  /// 503 with `Retry-After: 1`: a bounded table (waits, streams) is full for now.
  static func full(_ kind: Kind, _ detail: String) -> Problem {
    var problem = Problem(kind: kind, detail: detail)
    problem.headers = [("Retry-After", "1")]
    return problem
  }

  var kind: Kind
  var detail: String
  /// Extension members, such as `currentState` and `allowedEvents`.
  var extensions: [(String, JSONText)] = []
  /// Fields the response carries, such as `Allow` on a 405.
  var headers: [(name: String, value: String)] = []

  var response: APIResponse {
    APIResponse(
      status: kind.status, contentType: "application/problem+json", headers: headers,
      body: JSONWriter.problem(
        type: "urn:lifecycled:problem:\(kind.rawValue)", title: kind.title, status: kind.status,
        detail: detail, extensions: extensions))
  }

  /// 415: a body that is not `application/json`.
  static func notJSON(_ mediaType: String?) -> Problem {
    Problem(
      kind: .unsupportedMediaType,
      detail: "the body must be application/json, not \(mediaType ?? "absent")")
  }

  static func validation(_ field: String, _ message: String) -> Problem {
    Fields.problem([ValidationIssue(field: field, message: message)])!  // nil only for none
  }
}

extension Problem {
  /// The problem an engine error answers with.
  init(_ error: EngineError) {
    switch error {
    case .unknownDevice(let id):
      self.init(kind: .notFound, detail: "no device '\(id)'")
    case .unknownApp(let device, let app):
      self.init(kind: .notFound, detail: "no app '\(app)' on device '\(device)'")
    case .unknownJetsamEvent(let device, let number, let kept):
      let log =
        kept.isEmpty
        ? "it has had none"
        : "its log keeps events \(kept.lowerBound) to \(kept.upperBound - 1)"
          + (kept.lowerBound > 1 ? " (older ones are dropped: jetsamLogSize)" : "")
      self.init(kind: .notFound, detail: "no jetsam event \(number) on device '\(device)': \(log)")
    case .deviceExists(let id):
      self.init(kind: .alreadyExists, detail: "a device '\(id)' exists already")
    case .appExists(let device, let app):
      self.init(
        kind: .alreadyExists, detail: "an app '\(app)' exists on device '\(device)' already")
    case .defaultDeviceIsPermanent:
      self.init(kind: .permanent, detail: "the default device cannot be removed; reset it instead")
    case .tooManyDevices(let limit):
      self.init(kind: .limitReached, detail: "at most \(limit) devices")
    case .tooManyApps(let device, let limit):
      self.init(kind: .limitReached, detail: "at most \(limit) apps on device '\(device)'")
    case .tooManyBackgroundTasks(let app, let limit):
      self.init(
        kind: .limitReached,
        detail: "app '\(app)' holds \(limit) background tasks, the most allowed; end one first")
    case .tooManyWaitingCallbacks(let app, let limit):
      self.init(
        kind: .limitReached,
        detail:
          "so many callbacks wait behind the busy main thread of app '\(app)' that this event "
          + "could queue more than \(limit) (maxWaitingCallbacksPerApp); let its "
          + "didEnterBackground return first (advance the clock past busyUntil)")
    case .memoryBudgetExhausted(let retained, let budget):
      self.init(
        kind: .memoryBudgetExhausted,
        detail:
          "the simulator's state holds \(retained) bytes, at or past maxMemoryMB "
          + "(\(budget) bytes); remove devices or apps, or reset, to go on",
        extensions: [
          ("retainedBytes", JSONText(.integer(retained))),
          ("budgetBytes", JSONText(.integer(budget))),
        ])
    case .invalid(let issues):
      self = Fields.problem(issues)!  // `.invalid` is thrown with issues only, never with none
    case .refused(let refusal):
      let kind: Kind =
        switch refusal.reason.taskSchedulerError {
        case .notPermitted: .taskNotPermitted
        case .tooManyPendingTaskRequests: .tooManyPendingTaskRequests
        case .unavailable: .taskSchedulingUnavailable
        case nil: .eventRefused
        }
      self.init(
        kind: kind,
        detail:
          "\(refusal.event.rawValue) refused: \(refusal.reason.detail) (state \(refusal.currentState))",
        extensions: [
          ("event", JSONText(.string(refusal.event.rawValue))),
          ("currentState", JSONText(.string(refusal.currentState))),
          (
            "allowedEvents", JSONText { $0.array(refusal.allowedEvents) { $0.string($1.rawValue) } }
          ),
        ])
    }
  }
}
