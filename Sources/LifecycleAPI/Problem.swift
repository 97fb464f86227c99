import JSONCore
import LifecycleEngine

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
    case immediateRunIneligible = "bgtaskscheduler-immediate-run-ineligible"
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
        .taskNotPermitted, .tooManyPendingTaskRequests, .taskSchedulingUnavailable,
        .immediateRunIneligible:
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
      case .immediateRunIneligible:
        "BGTaskScheduler refused the request: immediateRunIneligible"
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
          + "could queue more than \(limit) (maxWaitingCallbacksPerApp); let its busy "
          + "callback return first (advance the clock past busyUntil)")
    case .countsExhausted(let device, let highest):
      self.init(
        kind: .limitReached,
        detail:
          "device '\(device)' has counted to \(highest), within \(Validation.countHeadroom) of "
          + "\(Validation.maxCount), the most a snapshot holds; reset it or put a snapshot with "
          + "lower counts to go on")
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
        case .immediateRunIneligible: .immediateRunIneligible
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
