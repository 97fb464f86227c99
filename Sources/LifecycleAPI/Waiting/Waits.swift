import JSONCore
import LifecycleEngine

/// Requests that wait for something to happen on a device (long polls): an app reaching a
/// state (`?waitFor=`), a journal entry after a `seq` (`?wait=`).
///
/// A wait holds no thread: the handler leaves it here and `LifecycleAPI.handle` answers
/// nothing (the server keeps the connection). After every request and every timer firing the
/// API checks the waits of the devices that may have changed, and answers, in the order they
/// were made, those whose condition now holds; a wait whose timeout passed is answered with
/// the current view. Each answer carries `Lifecycled-Wait: met`, `timeout` or `shutdown`.
///
/// A check costs nothing for a device whose version and apps did not change. Journal waits
/// are matched entry by entry against the new entries alone: each new entry finds its waiters
/// by the filters it matches (`JournalFilter.all(matching:)`), so its cost depends neither on
/// the journal's length nor on how many waits are open. A device reset, replaced or removed
/// answers all its waits at once.
struct Waits {
  /// Waits open at once, across all devices; beyond, a wait is refused with 503.
  static let limit = 256
  /// The longest a wait may ask for, in seconds.
  static let maxSeconds = 300
  /// What a wait asks for when it gives no timeout, in seconds.
  static let defaultSeconds = 30
  /// What an open wait holds, counted in the memory budget: its entries here, its closures
  /// and the request's texts, measured beside its connection's own cost (Benchmarks/README.md,
  /// "Memory"), rounded up.
  static let retainedBytesPerWait = 1_536

  /// What a wait waits for.
  enum Condition {
    /// The app to be in the state (or gone).
    case appState(app: String, state: AppState)
    /// A journal entry after seq `after` that the filter matches.
    case journalEntry(JournalFilter, after: Int)
  }

  /// One waiting request.
  struct Wait {
    let exchange: UInt64
    let device: String
    /// The route's template, for the request metrics when it is answered.
    let template: RouteTemplate
    /// When it times out, on the host clock.
    let until: Instant
    let condition: Condition
    /// The answer, as the request would get it now.
    let answer: (LifecycleAPI, Instant) -> APIResponse

    /// The seq after which a journal wait waits for an entry.
    var after: Int {
      guard case .journalEntry(_, let after) = condition else { return .max }
      return after
    }
  }

  /// The waits of one device, and the device as their last check left it.
  private struct DeviceWaits {
    /// In the order they were made.
    var exchanges: [UInt64] = []
    var checkedAt: DeviceShape
    /// The seq through which the journal waits have been matched.
    var through: Int
    /// The journal waits, by their filter.
    var byFilter: [JournalFilter: [UInt64]] = [:]
    var appWaits = 0
  }

  private var waits: [UInt64: Wait] = [:]
  private var devices: [String: DeviceWaits] = [:]
  /// Answers ready for the server, in order.
  private var ready: [(exchange: UInt64, response: APIResponse)] = []
  /// Journal entries matched against journal waits so far: the work their checks did.
  private(set) var entriesMatched = 0

  var isFull: Bool { waits.count >= Self.limit }
  var count: Int { waits.count }
  /// The devices some request waits on.
  var deviceIDs: Set<String> { Set(waits.values.lazy.map(\.device)) }

  /// Leaves `wait`, whose condition does not hold now, to be answered later.
  mutating func add(_ wait: Wait, _ api: LifecycleAPI, now: Instant) {
    check(api, device: wait.device, now: now)  // earlier waits matched up to now first
    waits[wait.exchange] = wait
    let shape = DeviceShape(api.engine, wait.device)
    devices[wait.device, default: DeviceWaits(checkedAt: shape, through: shape.version?.seq ?? 0)]
      .exchanges.append(wait.exchange)
    switch wait.condition {  // the device's entry is there: the line above made it
    case .appState: devices[wait.device]!.appWaits += 1
    case .journalEntry(let filter, _):
      devices[wait.device]!.byFilter[filter, default: []].append(wait.exchange)
    }
  }

  /// The earliest timeout, on the host clock (asked once a turn of the server's loop).
  var nextTimeout: Instant? {
    guard !waits.isEmpty else { return nil }
    return waits.values.lazy.map(\.until).min()
  }

  /// Forgets the wait of a request whose client left, and its answer if it is ready.
  mutating func abandon(_ exchange: UInt64) {
    remove(exchange)
    ready.removeAll { $0.exchange == exchange }
  }

  /// Answers the waits of `device`, or of every device if nil, whose condition holds.
  mutating func check(_ api: LifecycleAPI, device: String?, now: Instant) {
    guard !waits.isEmpty else { return }
    guard let device else {
      for device in Array(devices.keys) { check(api, device: device, now: now) }
      return
    }
    guard var waiting = devices[device] else { return }
    let shape = DeviceShape(api.engine, device)
    guard shape != waiting.checkedAt else { return }
    var met: Set<UInt64> = []
    if shape.version?.incarnation != waiting.checkedAt.version?.incarnation {
      met = Set(waiting.exchanges)  // reset, replaced or removed: answered as it is now
    } else {
      if waiting.byFilter.isEmpty {
        waiting.through = shape.version?.seq ?? waiting.through
      } else {
        matchNewEntries(of: device, api.engine, now: now, &waiting, into: &met)
      }
      if waiting.appWaits > 0 {
        for exchange in waiting.exchanges {
          guard case .appState(let app, let state) = waits[exchange]?.condition else { continue }
          let current = try? api.engine.state(ofApp: app, on: device, now: now)
          if current.map({ $0 == state }) ?? true { met.insert(exchange) }
        }
      }
    }
    waiting.checkedAt = shape
    devices[device] = waiting
    guard !met.isEmpty else { return }
    for exchange in waiting.exchanges where met.contains(exchange) {
      answer(exchange, outcome: "met", api, now: now)
    }
  }

  /// Finds the journal waits that the device's entries since the last check match; all of
  /// them if entries left the bounded journal before they could be matched.
  private mutating func matchNewEntries(
    of device: String, _ engine: Engine, now: Instant, _ waiting: inout DeviceWaits,
    into met: inout Set<UInt64>
  ) {
    guard let page = try? engine.journal(of: device, since: waiting.through, now: now),
      page.lastSeq > waiting.through
    else { return }
    if page.oldestSeq > waiting.through + 1 {
      for exchanges in waiting.byFilter.values { met.formUnion(exchanges) }
    }
    entriesMatched += page.entries.count
    for entry in page.entries {
      for filter in JournalFilter.all(matching: entry) {
        for exchange in waiting.byFilter[filter] ?? []
        where waits[exchange].map({ entry.seq > $0.after }) == true {
          met.insert(exchange)
        }
      }
    }
    waiting.through = page.lastSeq
  }

  /// Answers every wait timed out by `now`, oldest timeout first; with `ending`, every wait
  /// (the server shuts down) once those whose condition holds are answered as met.
  mutating func endExpired(_ api: LifecycleAPI, now: Instant, ending: Bool = false) {
    guard !waits.isEmpty else { return }
    if ending { check(api, device: nil, now: now) }
    let expired = waits.values.filter { ending || $0.until <= now }
      .sorted { ($0.until, $0.exchange) < ($1.until, $1.exchange) }
    for wait in expired {
      answer(wait.exchange, outcome: ending ? "shutdown" : "timeout", api, now: now)
    }
  }

  /// The answers ready since the last call.
  mutating func takeReady() -> [(exchange: UInt64, response: APIResponse)] {
    defer { ready = [] }
    return ready
  }

  private mutating func answer(
    _ exchange: UInt64, outcome: String, _ api: LifecycleAPI, now: Instant
  ) {
    guard let wait = remove(exchange) else { return }
    ready.append((exchange, api.answer(wait, outcome: outcome, now: now)))
  }

  @discardableResult
  private mutating func remove(_ exchange: UInt64) -> Wait? {
    guard let wait = waits.removeValue(forKey: exchange) else { return nil }
    devices[wait.device]?.exchanges.removeAll { $0 == exchange }
    switch wait.condition {
    case .appState: devices[wait.device]?.appWaits -= 1
    case .journalEntry(let filter, _):
      devices[wait.device]?.byFilter[filter]?.removeAll { $0 == exchange }
      if devices[wait.device]?.byFilter[filter]?.isEmpty == true {
        devices[wait.device]?.byFilter[filter] = nil
      }
    }
    if devices[wait.device]?.exchanges.isEmpty == true { devices[wait.device] = nil }
    return wait
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
  /// Leaves a wait for the request, unless its condition holds already (`isMet`): then, or if
  /// it asks for no time at all, it is answered now.
  func wait(
    for request: borrowing RouteRequest, seconds: Duration,
    condition: Waits.Condition, isMet: Bool,
    answer: @escaping (LifecycleAPI, Instant) throws -> APIResponse
  ) throws -> APIResponse {
    if isMet || seconds == .zero {
      var response = try answer(self, request.now)
      response.headers.append(("Lifecycled-Wait", isMet ? "met" : "timeout"))
      return response
    }
    guard !waits.isFull else {
      throw Problem.full(
        .tooManyWaits, "\(Waits.limit) requests are waiting already; retry when one is answered")
    }
    waits.add(
      Waits.Wait(
        exchange: request.request.exchange, device: request.device, template: request.template,
        until: request.now + seconds, condition: condition,
        answer: { api, now in
          do { return try answer(api, now) } catch { return LifecycleAPI.response(to: error) }
        }),
      self, now: request.now)
    return .deferred
  }

  /// The answer to a wait, finished as an immediate one is: tagged, and counted in the
  /// request metrics under its route.
  fileprivate func answer(_ wait: Waits.Wait, outcome: String, now: Instant) -> APIResponse {
    var response = wait.answer(self, now)
    if (200..<300).contains(response.status) {
      response.headers.append(("Lifecycled-Wait", outcome))
    }
    tag(&response, with: wait.device)
    metrics.count(request: wait.template, status: response.status)
    return response
  }
}
