import JSONCore
import LifecycleEngine

/// Requests that wait for something to happen on a device (long polls): an app reaching a
/// state (`?waitFor=`), a journal entry after a `seq` (`?wait=`).
///
/// A wait holds no thread: the handler leaves it here and `LifecycleAPI.handle` answers
/// nothing (the server keeps the connection). After every request and every timer firing the
/// API checks the waits of devices whose version moved, and answers, in the order they were
/// made, those whose condition holds; a wait whose timeout passed is answered with the current
/// view. Each answer carries `Lifecycled-Wait: met`, `timeout` or `shutdown`.
struct Waits {
  /// Waits open at once, across all devices; beyond, a wait is refused with 503.
  static let limit = 256
  /// The longest a wait may ask for, in seconds.
  static let maxSeconds = 300
  /// What a wait asks for when it gives no timeout, in seconds.
  static let defaultSeconds = 30

  /// One waiting request.
  struct Wait {
    let exchange: UInt64
    let device: String
    /// The route's template, for the request metrics when it is answered.
    let template: String
    /// When it times out, on the host clock.
    let until: Instant
    /// The device as it was when the condition was last found false: its version and its
    /// number of apps.
    var checkedAt: DeviceShape
    /// Whether the condition holds; nil if its subject is gone (then the answer says so).
    let isMet: (Engine, Instant) -> Bool
    /// The answer, as the request would get it now.
    let answer: (LifecycleAPI, Instant) -> APIResponse
  }

  private(set) var waits: [Wait] = []
  /// Answers ready for the server, in order.
  private var ready: [(exchange: UInt64, response: APIResponse)] = []

  var isFull: Bool { waits.count >= Self.limit }

  mutating func add(_ wait: Wait) {
    waits.append(wait)
  }

  /// The earliest timeout, on the host clock.
  var nextTimeout: Instant? { waits.lazy.map(\.until).min() }

  /// Forgets the wait of a request whose client left, and its answer if it is ready.
  mutating func abandon(_ exchange: UInt64) {
    waits.removeAll { $0.exchange == exchange }
    ready.removeAll { $0.exchange == exchange }
  }

  /// Answers every wait whose condition holds, then every wait timed out by `now`, oldest
  /// timeout first; with `ending`, every wait (the server shuts down).
  mutating func check(_ api: LifecycleAPI, now: Instant, ending: Bool = false) {
    guard !waits.isEmpty else { return }
    var timedOut: [Wait] = []
    var open: [Wait] = []
    for var wait in waits {
      let shape = DeviceShape(api.engine, wait.device)
      if shape != wait.checkedAt {
        if shape.version == nil || wait.isMet(api.engine, now) {
          ready.append((wait.exchange, api.answer(wait, outcome: "met", now: now)))
          continue
        }
        wait.checkedAt = shape
      }
      if ending || wait.until <= now { timedOut.append(wait) } else { open.append(wait) }
    }
    for wait in timedOut.sorted(by: { $0.until < $1.until }) {
      ready.append(
        (wait.exchange, api.answer(wait, outcome: ending ? "shutdown" : "timeout", now: now)))
    }
    waits = open
  }

  /// The answers ready since the last call.
  mutating func takeReady() -> [(exchange: UInt64, response: APIResponse)] {
    defer { ready = [] }
    return ready
  }
}

/// What a wait's condition can depend on: when none of it changed, the condition has not.
struct DeviceShape: Equatable {
  let version: DeviceVersion?
  let appCount: Int?

  init(_ engine: Engine, _ device: String) {
    version = engine.lastVersion(of: device)
    appCount = engine.appCount(on: device)
  }
}

extension LifecycleAPI {
  /// Leaves a wait for the request, unless `isMet` holds already: then, or if it asks for no
  /// time at all, it is answered now.
  func wait(
    for request: borrowing RouteRequest, template: String, seconds: Duration,
    isMet: @escaping (Engine, Instant) -> Bool,
    answer: @escaping (LifecycleAPI, Instant) throws -> APIResponse
  ) throws -> APIResponse {
    let respond: (LifecycleAPI, Instant) -> APIResponse = { api, now in
      do { return try answer(api, now) } catch { return LifecycleAPI.response(to: error) }
    }
    if isMet(engine, request.now) || seconds == .zero {
      var response = try answer(self, request.now)
      response.headers.append(("Lifecycled-Wait", isMet(engine, request.now) ? "met" : "timeout"))
      return response
    }
    guard !waits.isFull else {
      throw Problem.full(
        .tooManyWaits, "\(Waits.limit) requests are waiting already; retry when one is answered")
    }
    waits.add(
      Waits.Wait(
        exchange: request.request.exchange, device: request.device, template: template,
        until: request.now + seconds, checkedAt: DeviceShape(engine, request.device),
        isMet: isMet, answer: respond))
    return .deferred
  }

  /// The answer to a wait, counted in the request metrics, with the device's `ETag`.
  fileprivate func answer(_ wait: Waits.Wait, outcome: String, now: Instant) -> APIResponse {
    var response = wait.answer(self, now)
    if (200..<300).contains(response.status), let version = engine.lastVersion(of: wait.device) {
      response.headers.append(("Lifecycled-Wait", outcome))
      response.entityTag = Self.entityTag(version)
    }
    metrics.count(request: wait.template, status: response.status)
    return response
  }
}
