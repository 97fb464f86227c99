import JSONCore
public import LifecycleEngine

/// The lifecycle simulator's JSON API (`openapi.yaml`): requests in, responses out, against one
/// engine. No sockets, no HTTP framing: the service adapts it to the server.
public final class LifecycleAPI {
  public let engine: Engine
  let version: String
  /// `health`'s constant text.
  let healthOpenings: (ok: [UInt8], draining: [UInt8])
  let startedAt: Instant
  /// Told of every kill (crash, purge, watchdog, background time, jetsam) as it happens,
  /// whether a request or a deadline caused it.
  @exclusivity(unchecked)  // set before serving, read for every event; one thread
  public var onKill: ((_ device: String, _ transition: Transition) -> Void)?
  @exclusivity(unchecked)  // one thread; see Engine
  var metrics = Metrics()
  private let router = Router(LifecycleAPI.routes)
  /// Where JSON responses are written: one buffer, kept and grown as needed, as the loop
  /// answers one request at a time (a buffer per response cost an allocation and a free).
  /// Only `json(_:_:)` touches it, and what it is given writes JSON, never a response.
  @exclusivity(unchecked)  // one thread; see Engine
  private var writer = JSONWriter(capacity: 4096)
  /// The last JSON body given out, kept to be written over: the server sends a response and
  /// drops it before it asks for the next, so its storage is then free again (it saves an
  /// allocation and a free). A body held longer (a stored response) is not written over, it
  /// is copied first. Bodies over `reusedBodyLimit` are not kept.
  @exclusivity(unchecked)  // one thread; see Engine
  private(set) var lastBody: [UInt8] = []
  /// The largest body whose storage is kept for the next.
  static let reusedBodyLimit = 65_536
  /// The values of the last JSON body read (`jsonBody(of:)`), kept to be written over as
  /// `lastBody` is; none that take more than `reusedBodyLimit`.
  @exclusivity(unchecked)  // one thread; see Engine
  private var lastValues: [JSONDocument.Value] = []

  /// Who may use the API.
  let access: AccessPolicy
  /// The `Host` the policy last allowed: a client sends the same one with every request, and
  /// reading it again (an address to parse, names to compare) would cost each request more
  /// than the rest of the check.
  @exclusivity(unchecked)  // one thread; see Engine
  var lastAllowedHost: String?
  /// Responses to requests made with an `Idempotency-Key`, for their retries.
  @exclusivity(unchecked)  // one thread; see Engine
  var idempotency = IdempotencyStore()

  /// The devices the engine starts with and `/__admin/reset` returns to.
  let fixtures: Fixtures?
  /// What the server may hold unsent for each open stream before it closes the stream
  /// (its backlog bound): counted in the memory budget for every open stream.
  public let streamBacklogBytes: Int

  /// An API on `engine`, to which it adds the `fixtures` (checked against its configuration);
  /// its server holds at most `streamBacklogBytes` unsent for each stream.
  public init(
    engine: Engine, version: String, now: Instant, access: AccessPolicy = AccessPolicy(),
    fixtures: Fixtures? = nil, streamBacklogBytes: Int = 262_144
  ) {
    self.engine = engine
    self.version = version
    healthOpenings = Self.healthOpenings(version: version)
    startedAt = now
    self.access = access
    self.streamBacklogBytes = streamBacklogBytes
    precondition(
      fixtures.map { $0.configuration == engine.configuration } ?? true,
      "fixtures are checked against the configuration of the engine they are loaded into")
    self.fixtures = fixtures
    loadFixtures(now: now)
    dropRetiredDevices()
  }

  /// Creates the fixtures' devices, replacing any with their ids.
  func loadFixtures(now: Instant) {
    engine.restoreAfresh(fixtures?.devices ?? [], now: now)
  }

  /// Requests waiting for something to happen.
  @exclusivity(unchecked)  // one thread; see Engine
  var waits = Waits()
  /// Journals streamed to clients.
  @exclusivity(unchecked)  // one thread; see Engine
  var streams = Streams()
  /// `heldBytes` as the engine last counted it.
  @exclusivity(unchecked)  // one thread; see Engine
  private var countedHeldBytes = 0

  /// Fires every deadline of the realtime devices due by `now`, answers the waits that then
  /// hold or time out and streams the new entries (the server's timer calls it).
  public func fireDeadlines(now: Instant) {
    let generation = engine.devicesGeneration
    for activity in engine.advance(to: now) {
      record(activity.outcome.transitions, device: activity.device)
    }
    // Devices left idle past their timeout are gone.
    if engine.devicesGeneration != generation { forgetStaleIdempotencyKeys() }
    waits.check(self, device: nil, now: now)
    waits.endExpired(self, now: now)
    streams.check(engine, now: now)
    streams.endExpired(now: now)
    settleClientHolds(now: now)
  }

  /// What the API holds for clients beside the engine's state: stored responses, waits,
  /// streams with all the server may hold unsent for each (`streamBacklogBytes`), the costly
  /// reads being made and the last one made, the bodies being read, what the server holds
  /// for requests it is still receiving, and the devices let go of that are not yet dropped.
  var heldBytes: Int {
    idempotency.bytes + waits.count * Waits.retainedBytesPerWait
      + streams.count * (Streams.retainedBytesPerStream + streamBacklogBytes) + clientBytes
      + costlyReads.heldBytes + bodyReads.heldBytes + answerBytes + scenarioRuns.heldBytes
      + deviceDrops.heldBytes
  }

  /// What the answer being written takes (its writer's buffer), while a scenario's events,
  /// whose outcomes it holds, are applied (`results`): each event after the first is refused
  /// if the budget has no room left.
  @exclusivity(unchecked)  // one thread; see Engine
  var answerBytes = 0

  /// Devices the engine let go of, waiting to be dropped off the loop.
  @exclusivity(unchecked)  // one thread; see Engine
  var deviceDrops = DeviceDrops()

  /// Pictures and snapshots made off the loop, and the last one made.
  @exclusivity(unchecked)  // one thread; see Engine
  var costlyReads = CostlyReads()
  /// Metric families the host adds to `/metrics`, in Prometheus' text format (the server's
  /// loop: the API knows nothing of it).
  public var hostMetrics: (() -> String)?
  /// Scenarios answered over several turns, and the requests waiting for their devices.
  @exclusivity(unchecked)  // one thread; see Engine
  var scenarioRuns = ScenarioRuns()
  /// The server is shutting down (`shutDown`): what waited is handled as its requests were.
  @exclusivity(unchecked)  // one thread; see Engine
  var isShuttingDown = false
  /// Large request bodies being read off the loop.
  @exclusivity(unchecked)  // one thread; see Engine
  var bodyReads = BodyReads()
  /// The answers of the costly reads made since `takeLateAnswers` last asked.
  @exclusivity(unchecked)  // one thread; see Engine
  var madeAnswers: [LateAnswer] = []

  /// What the server holds for clients, as it counts them (`countHeldForClients`): requests
  /// it is still receiving (their heads and bodies so far), answers they have not read.
  @exclusivity(unchecked)  // one thread; see Engine
  private var clientBytes = 0

  /// Whether the memory budget has room for `bytes` more held for clients.
  public func hasRoomForClients(_ bytes: Int) -> Bool {
    engine.retainedBytes + bytes <= engine.configuration.limits.memoryBudgetBytes
  }

  /// 507: what a client asks the server to hold would not fit the memory budget.
  var budgetExhausted: Problem {
    Problem(
      EngineError.memoryBudgetExhausted(
        retainedBytes: engine.retainedBytes,
        budgetBytes: engine.configuration.limits.memoryBudgetBytes))
  }

  /// Counts `delta` bytes more (or fewer) held for clients, in the budget.
  public func countHeldForClients(_ delta: Int) {
    clientBytes += delta
    countHeldBytes()
  }

  /// Counts `heldBytes` in the engine's memory budget and tells the engine which devices
  /// open streams and waits keep in use (`Engine.setDevicesInUse`), after anything that may
  /// have changed them.
  func settleClientHolds(now: Instant) {
    countHeldBytes()
    guard waits.count + streams.count > 0 || hasDevicesInUse else { return }
    let inUse = waits.deviceIDs.union(streams.deviceIDs)
    engine.setDevicesInUse(inUse, now: now)
    hasDevicesInUse = !inUse.isEmpty
  }

  /// Counts `heldBytes` in the engine's memory budget (`Engine.hostBytes`).
  func countHeldBytes() {
    let held = heldBytes
    guard held != countedHeldBytes else { return }
    engine.hostBytes = held
    countedHeldBytes = held
  }

  /// Whether the engine was last told of a device in use.
  @exclusivity(unchecked)  // one thread; see Engine
  private var hasDevicesInUse = false

  /// When `fireDeadlines` is next due, on the host clock: a realtime deadline, or a wait's or
  /// a stream's timeout.
  public var nextDeadline: Instant? {
    func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
      guard let a, let b else { return a ?? b }
      return min(a, b)
    }
    return earliest(earliest(engine.nextDeadline, waits.nextTimeout), streams.nextTimeout)
  }

  /// The answers to requests that waited and the parts of streams, by exchange, in the order
  /// to send them.
  public func takeLateAnswers() -> [LateAnswer] {
    defer { madeAnswers = [] }
    return waits.takeReady().map {
      LateAnswer(exchange: $0.exchange, part: .response($0.response))
    } + streams.takeReady() + madeAnswers
  }

  /// The work to do off the loop (`run`, on any thread), each with what to do on the loop
  /// once it is done (`finish`, at host time `now`; its answers then come out of
  /// `takeLateAnswers`): the costly reads to make (each is kept and answers its requests), the
  /// large bodies to read (each request is then handled), the copies of devices that
  /// scenarios wait for (each then begins), and the large devices let go of (`DeviceDrops`).
  public func takeOffLoopWork() -> [(run: @Sendable () -> Void, finish: (_ now: Instant) -> Void)] {
    costlyReads.takeUnstarted().map { answer in (answer.make, { _ in self.made(answer) }) }
      + bodyReads.takeUnstarted().map { reading in
        (reading.read, { now in self.handle(reading, now: now) })
      }
      + scenarioRuns.takeUnstartedCopies().map { scenario in
        (scenario.make, { now in self.copied(scenario, now: now) })
      }
      + deviceDrops.takeUnstarted().map { device in (device.drop, { _ in self.dropped(device) }) }
  }

  /// Does the work put off the loop (`takeOffLoopWork`) and to later turns of it
  /// (`continuePutOffWork`) here and now, for a host without worker threads or a loop (tests,
  /// fuzzers): its answers then come out of `takeLateAnswers`. False if there was none.
  public func doDeferredWorkHere(now: Instant) -> Bool {
    var didWork = false
    while true {
      let work = takeOffLoopWork()
      for piece in work {
        piece.run()
        piece.finish(now)
      }
      if hasPutOffWork {
        continuePutOffWork(now: now)
      } else if work.isEmpty {
        return didWork
      }
      didWork = true
    }
  }

  /// A costly read is made: it is kept, and answers every request that waited for it.
  private func made(_ answer: CostlyReads.Answer) {
    costlyReads.finished(answer)
    let response = answer.response
    for (exchange, template) in answer.requests {
      metrics.count(request: template, status: response.status)
      madeAnswers.append(LateAnswer(exchange: exchange, part: .response(response)))
    }
    countHeldBytes()
  }

  /// A request's body is read: the request is handled again, with what the body was read
  /// into, and answered (a late answer; unless it waits again, as a long poll does). A client
  /// that left meanwhile changes nothing: its request is handled all the same.
  private func handle(_ reading: BodyReads.Reading, now: Instant) {
    bodyReads.finished(reading)
    let response = handle(reading.request, now: now)
    bodyReads.handled()
    if let response {
      madeAnswers.append(LateAnswer(exchange: reading.request.exchange, part: .response(response)))
    }
  }

  /// The client of a waiting request or a stream left, or fell behind, at host time `now`.
  public func abandon(exchange: UInt64, now: Instant) {
    waits.abandon(exchange)
    streams.abandon(exchange)
    settleClientHolds(now: now)
  }

  /// The client of a stream has read everything it was sent.
  public func streamDrained(exchange: UInt64, now: Instant) {
    streams.drained(exchange, engine: engine, now: now)
  }

  /// Whether any journal stream is open.
  public var hasStreams: Bool { !streams.isEmpty }

  /// Sends the streams the new entries of the requests since the last call: once a turn of
  /// the server's loop, so that a stream gets one piece for all of them.
  public func flushStreams(now: Instant) {
    guard hasStreams else { return }
    streams.flush(engine, now: now)
    settleClientHolds(now: now)  // streams of devices reset or removed have ended
  }

  /// Answers every waiting request now, with the current view, and ends every stream, after
  /// its last entries (the server shuts down). Parked scenarios are written to their end, and
  /// the requests waiting for their devices handled.
  public func shutDown(now: Instant) {
    isShuttingDown = true
    while hasPutOffWork { continuePutOffWork(now: now) }
    waits.endExpired(self, now: now, ending: true)
    streams.flush(engine, now: now)
    streams.endAll(reason: "shutdown")
    settleClientHolds(now: now)
  }

  /// Counts what an outcome did, and reports its kills.
  func record(_ transitions: [Transition], device: String) {
    metrics.count(transitions: transitions)
    for transition in transitions where transition.isKill {
      metrics.count(kill: transition)
      onKill?(device, transition)
    }
  }

  /// Answers one request at host time `now`; nil if it waits (`Waits`) or streams
  /// (`Streams`), to be answered by `takeLateAnswers`. The entries it records reach streams
  /// at the next `flushStreams`.
  public func handle(_ request: consuming APIRequest, now: Instant, isDraining: Bool = false)
    -> APIResponse?
  {
    handle(request, now: now, isDraining: isDraining, hasWaited: false)
  }

  /// `handle(_:now:isDraining:)`, for a request that came in (which waits if its device is
  /// held: `ScenarioRuns`) or one that has waited its turn.
  func handle(
    _ request: consuming APIRequest, now: Instant, isDraining: Bool, hasWaited: Bool
  ) -> APIResponse? {
    /// The device the request may have changed; nil for any.
    var touched: String?
    let generation = engine.devicesGeneration
    defer {
      if engine.devicesGeneration != generation { forgetStaleIdempotencyKeys() }
      waits.check(self, device: touched, now: now)
      streams.touch(touched)
      settleClientHolds(now: now)
    }
    var response: APIResponse
    var template = RouteTemplate.unmatched
    do {
      try checkAccess(request)
      switch router.match(method: request.method, path: request.path) {
      case .route(let route, let captures):
        let device = captures.device
        template = route.template
        if route.isDeviceScoped { touched = device }
        if route.isDeviceScoped, !hasWaited, !scenarioRuns.isEmpty, scenarioRuns.holds(device) {
          try wait(request, for: device)
          return nil
        }
        try checkMediaType(request)
        let query = try Query(request.query, allowed: route.queryParameters)
        let retry = try retry(of: request, to: route)
        if let retry, let stored = try storedResponse(to: retry, on: device, now: now) {
          response = stored
          break
        }
        let routed = RouteRequest(
          request: consume request, template: route.template, device: device,
          app: captures.app, jetsamEvent: captures.jetsamEvent, query: query, now: now,
          isDraining: isDraining, retry: retry)
        do {
          response = try route.handler(self, routed)
        } catch is ReadingOffLoop {
          response = .deferred  // handled again once its body is read
        } catch {
          response = Self.response(to: error)  // a refusal is kept for a retry too
        }
        if route.isDeviceScoped { tag(&response, with: device) }
        if let retry { keep(response, for: retry, on: device, now: now) }
      case .methodNotAllowed(let matched, let allowed):
        template = matched
        throw Problem(
          kind: .methodNotAllowed,
          detail: "\(request.path) allows \(allowed.joined(separator: ", "))",
          headers: [("Allow", allowed.joined(separator: ", "))])
      case .notFound:
        throw Problem(kind: .notFound, detail: "no resource at \(request.path)")
      }
    } catch {
      response = Self.response(to: error)
    }
    if response.isDeferred { return nil }
    metrics.count(request: template, status: response.status)
    return consume response  // moved out past the defer above, not copied
  }

  /// Gives a successful answer about `device`, now or later, the device's version as its
  /// `ETag`: the one place an answer is tagged.
  func tag(_ response: inout APIResponse, with device: String) {
    guard (200..<300).contains(response.status), !response.isDeferred,
      let version = engine.lastVersion(of: device)
    else { return }
    response.version = version
  }
}

extension LifecycleAPI {
  /// The problem document that answers what a handler or a check threw.
  static func response(to error: any Error) -> APIResponse {
    switch error {
    case let problem as Problem: problem.response
    case let error as EngineError: Problem(error).response
    // Nothing else is thrown: handlers and checks throw `Problem`s and call the engine, which
    // throws `EngineError`s (typed), whatever a request holds.
    default: preconditionFailure("handlers throw only problems and engine errors, not \(error)")
    }
  }

  /// A JSON response whose body `write` writes.
  func json(_ status: Int, _ write: (inout JSONWriter) -> Void) -> APIResponse {
    withWriter { writer in
      write(&writer)
      return APIResponse(status: status, contentType: "application/json", body: body(of: writer))
    }
  }

  /// What `writer` wrote, in the storage the last body had (`lastBody`).
  func body(of writer: borrowing JSONWriter) -> [UInt8] {
    guard writer.position <= Self.reusedBodyLimit else {
      lastBody = []
      return writer.bytes
    }
    writer.withBytes { lastBody.replaceContents(with: $0) }
    return lastBody
  }

  /// Calls `body` with the API's writer, emptied: every response is written into the same
  /// buffer, which keeps the capacity the largest needed.
  func withWriter<Result, Failure>(
    _ body: (inout JSONWriter) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    writer.removeAll()
    return try body(&writer)
  }

  /// Lets go of the writer's buffer if a scenario's answer grew it past what the largest page
  /// of a list or a journal takes: its tens of megabytes are not kept for the next answer, and
  /// nothing would count them once it is sent.
  func letGoOfALargeWriter() {
    if writer.reservedBytes > 1 << 19 { writer = JSONWriter(capacity: 4096) }
  }

  /// 201: the resource `write` writes was created at `location`.
  func created(at location: String, _ write: (inout JSONWriter) -> Void) -> APIResponse {
    var response = json(201, write)
    response.headers = [("Location", location)]
    return response
  }

  /// A JSON response of one object with one string member, such as `{"status":"ok"}`.
  func json(_ status: Int, _ name: StaticString, _ value: String) -> APIResponse {
    json(status) { $0.object { $0.member(name, value) } }
  }
}

extension LifecycleAPI {
  /// The JSON body of a request that must have one, its values written into the storage the
  /// last body's had (`lastValues`).
  ///
  /// A body of more than `BodyReads.offLoopBytes` is parsed off the loop: the first time the
  /// request is handled, its reading begins and `ReadingOffLoop` is thrown; once it is parsed,
  /// the request is handled again and gets the document.
  func jsonBody(of request: borrowing RouteRequest) throws -> JSONDocument {
    if request.request.body.count > BodyReads.offLoopBytes {
      return try readOffLoop(request) { body throws(Problem) in try Self.parsedJSON(body) }
    }
    try requireJSON(request)
    defer {
      let stride = MemoryLayout<JSONDocument.Value>.stride
      if lastValues.capacity * stride > Self.reusedBodyLimit { lastValues = [] }
    }
    return try Self.parsedJSON(request.request.body, reusing: &lastValues)
  }

  /// What the request's JSON body was read into off the loop (`BodyReads`), by `read` on a
  /// worker thread; or, the first time the request is handled, begins that reading (415 for a
  /// body not declared JSON, 507 if what it holds would not fit the memory budget) and throws
  /// `ReadingOffLoop`: the request waits. A body that could not be read is its problem, thrown.
  func readOffLoop<Value: Sendable>(
    _ request: borrowing RouteRequest,
    _ read: @escaping @Sendable ([UInt8]) throws(Problem) -> Value
  ) throws -> Value {
    try requireJSON(request)
    switch bodyReads.made(for: request.request.exchange) {
    case .failure(let problem)?: throw problem
    case .success(let value as Value)?: return value
    case .success?:
      // Read as another type, which one handler never asks for: read here rather than fail.
      return try read(request.request.body)
    case nil:
      let reading = BodyReads.Reading(request.request) { body in
        Result { () throws(Problem) in try read(body) }.map { $0 }
      }
      guard hasRoomForClients(reading.heldBytes) else { throw budgetExhausted }
      bodyReads.start(reading)
      throw ReadingOffLoop()
    }
  }

  /// 415 unless the request's body is declared JSON.
  func requireJSON(_ request: borrowing RouteRequest) throws(Problem) {
    let mediaType = request.request.mediaType
    guard mediaType == "application/json" else { throw .notJSON(mediaType) }
  }

  /// `bytes` parsed as JSON into storage of their own; a problem if they are not JSON.
  static func parsedJSON(_ bytes: [UInt8]) throws(Problem) -> JSONDocument {
    var storage: [JSONDocument.Value] = []
    return try parsedJSON(bytes, reusing: &storage)
  }

  /// `bytes` parsed as JSON, its values written into `storage`; a problem if they are not.
  static func parsedJSON(_ bytes: [UInt8], reusing storage: inout [JSONDocument.Value])
    throws(Problem) -> JSONDocument
  {
    do {
      return try JSONDocument.parse(bytes, reusing: &storage)
    } catch {
      throw Problem(kind: .invalidJSON, detail: error.description)
    }
  }
}
