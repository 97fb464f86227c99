import JSONCore
import LifecycleEngine

/// Scenarios answered over several turns of the loop, and the requests waiting for their
/// devices, so that no scenario holds the loop however long its answer (a hundred memory
/// warnings to a thousand running apps write 22 MB).
///
/// A request writes at most `sliceBytes` of a scenario's answer (and at least one event's
/// result): a scenario with more is parked, and each later turn writes the next slice of the
/// first one parked, which then goes to the back. Until it is answered its device is held:
/// requests about that device wait here, in the order they came, and are handled once it is
/// answered (at most `handledPerTurn` a turn), so that each sees the device as the whole
/// scenario left it; the device's deadlines wait too (`Engine.beginScenario`). Requests about
/// other devices are served meanwhile. What both hold counts in the memory budget
/// (`heldBytes`): a request that would not fit is refused (507) rather than kept.
struct ScenarioRuns {
  /// How much of a scenario's answer one turn writes: a turn then takes about a millisecond
  /// (measured: `Benchmarks/README.md`, "Stalls"), as a page of a journal does.
  static let sliceBytes = 65_536
  /// How many waiting requests one turn handles once their device is free.
  static let handledPerTurn = 16
  /// The most apps of a device an atomic scenario or a dry run copies on the loop (about 3 µs
  /// an app); a larger device is copied on a worker thread, held meanwhile.
  static let appsCopiedOnTheLoop = 64

  /// Scenarios waiting for the copy of their device, being made off the loop.
  private var copying: [CopyingScenario] = []
  /// Those of `copying` not yet handed to a thread (`takeUnstartedCopies`).
  private var unstartedCopies: [CopyingScenario] = []
  private var parked: [any ParkedScenario] = []
  /// The requests waiting for each device, in the order they came.
  private var waiting: [String: WaitingRequests] = [:]
  /// What the copies being made, the parked answers and the waiting requests hold.
  private(set) var heldBytes = 0

  /// Whether nothing is copied or parked and no request waits: requests go their way at once.
  var isEmpty: Bool { copying.isEmpty && parked.isEmpty && waiting.isEmpty }

  /// Whether a turn has work here: a parked scenario to write, or a request waiting for a
  /// device that nothing holds any more (a device being copied is the worker's meanwhile).
  var hasWorkForATurn: Bool {
    !parked.isEmpty || waiting.keys.contains { !holdsByScenario($0) }
  }

  /// Whether a request about `device` must wait: a scenario holds it, or requests before it
  /// wait.
  func holds(_ device: String) -> Bool {
    waiting[device] != nil || holdsByScenario(device)
  }

  private func holdsByScenario(_ device: String) -> Bool {
    parked.contains { $0.address.device == device }
      || copying.contains { $0.address.device == device }
  }

  /// What a request that waits holds: its body, its path and query, and its fields.
  static func heldBytes(of request: borrowing APIRequest) -> Int {
    256 + request.body.count + request.path.utf8.count + (request.query?.utf8.count ?? 0)
  }

  mutating func copy(_ scenario: CopyingScenario) {
    heldBytes += scenario.heldBytes
    copying.append(scenario)
    unstartedCopies.append(scenario)
  }

  /// The copies to make off the loop that no thread has been given yet.
  mutating func takeUnstartedCopies() -> [CopyingScenario] {
    defer { unstartedCopies = [] }
    return unstartedCopies
  }

  /// A copy is made: its scenario begins (and may be parked).
  mutating func copied(_ scenario: CopyingScenario) {
    copying.removeAll { $0 === scenario }
    heldBytes -= scenario.heldBytes
  }

  mutating func park(_ scenario: any ParkedScenario) {
    heldBytes += scenario.heldBytes
    parked.append(scenario)
  }

  /// The first scenario parked, to write its next slice; `park` it again if it is not done.
  mutating func takeFirstParked() -> (any ParkedScenario)? {
    guard !parked.isEmpty else { return nil }
    let first = parked.removeFirst()
    heldBytes -= first.heldBytes
    return first
  }

  mutating func wait(_ request: consuming APIRequest, for device: String) {
    heldBytes += Self.heldBytes(of: request)
    waiting[device, default: WaitingRequests()].append(request)
  }

  /// The first request waiting for a device no scenario holds, out of the queue.
  mutating func takeNextWaiting() -> APIRequest? {
    guard let device = waiting.keys.first(where: { !holdsByScenario($0) }),
      let request = waiting[device]?.takeFirst()  // in place: the queue is not copied
    else { return nil }
    if waiting[device]?.isEmpty == true { waiting[device] = nil }
    heldBytes -= Self.heldBytes(of: request)
    return request
  }
}

/// The work put off to later turns of the loop: long scenarios' next slices, and the requests
/// waiting for their devices.
extension LifecycleAPI {
  /// Whether work was put off to later turns of the loop (`continuePutOffWork`), or devices
  /// the engine let go of wait to be dropped off it (`takeOffLoopWork`).
  public var hasPutOffWork: Bool {
    (!scenarioRuns.isEmpty && scenarioRuns.hasWorkForATurn) || deviceDrops.hasUnstarted
  }

  /// Does one turn's share of the work put off (`ScenarioRuns`): the next slice of the first
  /// scenario parked, then up to `ScenarioRuns.handledPerTurn` of the requests waiting for
  /// devices no scenario holds any more. Their answers come out of `takeLateAnswers`.
  public func continuePutOffWork(now: Instant) {
    if let scenario = scenarioRuns.takeFirstParked() {
      if let response = scenario.writeNextSlice(self, now: now) {
        answerLate(response, to: scenario.address, now: now)
      } else {
        scenarioRuns.park(scenario)
      }
      answerBytes = 0
      waits.check(self, device: scenario.address.device, now: now)
      streams.touch(scenario.address.device)
    }
    for _ in 0..<ScenarioRuns.handledPerTurn {
      guard let request = scenarioRuns.takeNextWaiting() else { break }
      let exchange = request.exchange
      if let response = handle(request, now: now, isDraining: isShuttingDown, hasWaited: true) {
        madeAnswers.append(LateAnswer(exchange: exchange, part: .response(response)))
      }
    }
    settleClientHolds(now: now)
  }

  /// The answer to a request given later, sent as `handle` would have sent it: tagged, kept for
  /// its retries and counted.
  private func answerLate(_ response: APIResponse, to address: LateAddress, now: Instant) {
    var response = response
    tag(&response, with: address.device)
    if let retry = address.retry { keep(response, for: retry, on: address.device, now: now) }
    metrics.count(request: address.template, status: response.status)
    madeAnswers.append(LateAnswer(exchange: address.exchange, part: .response(response)))
  }

  /// The copy of a scenario's device is made: the scenario begins, and is answered or parked.
  func copied(_ scenario: CopyingScenario, now: Instant) {
    scenarioRuns.copied(scenario)
    let response = scenario.begin(now: now)
    if !response.isDeferred { answerLate(response, to: scenario.address, now: now) }
    waits.check(self, device: scenario.address.device, now: now)
    streams.touch(scenario.address.device)
    settleClientHolds(now: now)
  }

  /// Keeps a request about a device a scenario holds until its turn comes
  /// (`ScenarioRuns`); 507 if what it holds would not fit the memory budget.
  func wait(_ request: consuming APIRequest, for device: String) throws(Problem) {
    guard hasRoomForClients(ScenarioRuns.heldBytes(of: request)) else {
      throw budgetExhausted
    }
    scenarioRuns.wait(request, for: device)
  }

}

/// Where a request's answer goes when it is given later, and what `LifecycleAPI.handle` would
/// have done with it: tagged with its device's version, kept for its retries, counted under
/// its route.
struct LateAddress {
  let device: String
  let exchange: UInt64
  let template: RouteTemplate
  let retry: IdempotencyStore.Retry?
}

/// An atomic scenario or a dry run waiting for the copy of its device, made off the loop
/// (`HeldDevice.copy`); then it begins on the loop (`begin`), which answers it or parks it.
final class CopyingScenario: @unchecked Sendable {
  private let held: HeldDevice
  /// What the copy holds while it is made: about the device's own size.
  let heldBytes: Int
  let address: LateAddress
  /// Begins the scenario on the copy and writes its first slice: its answer, or `.deferred`
  /// once parked.
  private let begin: (DeviceCopy, Instant) -> APIResponse
  /// Written by `make` on a worker thread, read on the loop once it is made.
  private var made: DeviceCopy?

  init(
    held: HeldDevice, bytes: Int, address: LateAddress,
    begin: @escaping (DeviceCopy, Instant) -> APIResponse
  ) {
    self.held = held
    heldBytes = 256 + bytes
    self.address = address
    self.begin = begin
  }

  /// Makes the copy: on any thread, once.
  @Sendable func make() { made = held.copy() }

  /// Begins the scenario on the copy (made here if `make` did not run: its work was
  /// cancelled).
  func begin(now: Instant) -> APIResponse { begin(made ?? held.copy(), now) }
}

/// Requests in the order they came, each taken once, from the first.
private struct WaitingRequests {
  private var requests: [APIRequest?] = []
  private var first = 0

  var isEmpty: Bool { first == requests.count }

  mutating func append(_ request: consuming APIRequest) { requests.append(request) }

  mutating func takeFirst() -> APIRequest {
    defer { first += 1 }
    return requests[first].take()!  // `isEmpty` is false: the caller checked
  }
}

/// A scenario's answer parked between its slices.
protocol ParkedScenario: AnyObject {
  var address: LateAddress { get }
  /// What it holds: its answer so far, with the room reserved for the rest. (The copy of the
  /// device an atomic scenario or a dry run changes, the engine counts.)
  var heldBytes: Int { get }
  /// Writes its next slice (`LifecycleAPI.slice`); the response once every event is applied
  /// or one is refused.
  func writeNextSlice(_ api: LifecycleAPI, now: Instant) -> APIResponse?
}

/// The parked answer of a scenario of `Event`s, with the writer its slices are written into.
final class ParkedAnswer<Event: PostedEvent>: ParkedScenario {
  private var answer: ScenarioAnswer<Event>
  let address: LateAddress
  private var writer = JSONWriter(capacity: 4096)

  /// Parks `answer`, whose first slice `first` holds the end of (`ScenarioAnswer.keep`), to go
  /// to `address`.
  init(_ answer: ScenarioAnswer<Event>, address: LateAddress, after first: borrowing JSONWriter) {
    self.answer = answer
    self.address = address
    first.withBytes { writer.raw($0) }
  }
  var heldBytes: Int { 256 + writer.reservedBytes + answer.earlier.capacity }

  func writeNextSlice(_ api: LifecycleAPI, now: Instant) -> APIResponse? {
    api.slice(&answer, into: &writer, now: now)
  }
}
