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

  /// Who may use the API.
  let access: AccessPolicy
  /// The `Host` the policy last allowed: a client sends the same one with every request, and
  /// reading it again (an address to parse, names to compare) would cost each request more
  /// than the rest of the check.
  @exclusivity(unchecked)  // one thread; see Engine
  private var lastAllowedHost: String?
  /// Responses to requests made with an `Idempotency-Key`, for their retries.
  @exclusivity(unchecked)  // one thread; see Engine
  private var idempotency = IdempotencyStore()

  /// The devices the engine starts with and `/__admin/reset` returns to.
  let fixtures: Fixtures?
  /// What the server may hold unsent for each open stream before it closes the stream
  /// (its backlog bound): counted in the memory budget for every open stream.
  let streamBacklogBytes: Int

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
  /// reads being made and the last one made, and what the server holds for requests it is
  /// still receiving.
  var heldBytes: Int {
    idempotency.bytes + waits.count * Waits.retainedBytesPerWait
      + streams.count * (Streams.retainedBytesPerStream + streamBacklogBytes) + receivingBytes
      + costlyReads.heldBytes
  }

  /// Pictures and snapshots made off the loop, and the last one made.
  @exclusivity(unchecked)  // one thread; see Engine
  var costlyReads = CostlyReads()
  /// The answers of the costly reads made since `takeLateAnswers` last asked.
  @exclusivity(unchecked)  // one thread; see Engine
  private var madeAnswers: [LateAnswer] = []

  /// What the server holds for requests it is still receiving (their heads and bodies so far),
  /// as it counts them (`countReceiving`).
  @exclusivity(unchecked)  // one thread; see Engine
  private var receivingBytes = 0

  /// Whether the memory budget has room for `bytes` more of requests being received.
  public func hasRoomForReceiving(_ bytes: Int) -> Bool {
    engine.retainedBytes + bytes <= engine.configuration.limits.memoryBudgetBytes
  }

  /// Counts `delta` bytes more (or fewer) held for requests being received, in the budget.
  public func countReceiving(_ delta: Int) {
    receivingBytes += delta
    countHeldBytes()
  }

  /// Counts `heldBytes` in the engine's memory budget and tells the engine which devices
  /// open streams and waits keep in use (`Engine.setDevicesInUse`), after anything that may
  /// have changed them.
  private func settleClientHolds(now: Instant) {
    countHeldBytes()
    guard waits.count + streams.count > 0 || hasDevicesInUse else { return }
    let inUse = waits.deviceIDs.union(streams.deviceIDs)
    engine.setDevicesInUse(inUse, now: now)
    hasDevicesInUse = !inUse.isEmpty
  }

  /// Counts `heldBytes` in the engine's memory budget (`Engine.hostBytes`).
  private func countHeldBytes() {
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

  /// The costly reads to make off the loop (`make`, on any thread), each with what to do on
  /// the loop once it is made (`finish`: it is kept and answers its requests, as late answers).
  public func takeCostlyReads() -> [(make: @Sendable () -> Void, finish: () -> Void)] {
    costlyReads.takeUnstarted().map { answer in (answer.make, { self.made(answer) }) }
  }

  /// Makes the costly reads here and now, for a host without worker threads (tests, fuzzers):
  /// their answers then come out of `takeLateAnswers`. False if there were none.
  public func makeCostlyReadsHere() -> Bool {
    let reads = takeCostlyReads()
    for read in reads {
      read.make()
      read.finish()
    }
    return !reads.isEmpty
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
  /// its last entries (the server shuts down).
  public func shutDown(now: Instant) {
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
    var template = "unmatched"
    do {
      try checkAccess(request)
      switch router.match(method: request.method, path: request.path) {
      case .route(let route, let captures):
        let device = captures.device
        template = route.template
        if route.isDeviceScoped { touched = device }
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
          isDraining: isDraining)
        do {
          response = try route.handler(self, routed)
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
    return response
  }

  /// Gives a successful answer about `device`, now or later, the device's version as its
  /// `ETag`: the one place an answer is tagged.
  func tag(_ response: inout APIResponse, with device: String) {
    guard (200..<300).contains(response.status), !response.isDeferred,
      let version = engine.lastVersion(of: device)
    else { return }
    response.entityTag = Self.entityTag(version)
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

  /// Refuses a request the `AccessPolicy` does not let through: a foreign `Host` (421), an
  /// `Origin` neither allowed nor the server's own (403), a `/v1` or `/__admin` request
  /// without the token (401).
  private func checkAccess(_ request: borrowing APIRequest) throws(Problem) {
    if let host = request.host, host != lastAllowedHost {
      guard access.allows(host: host) else {
        throw Problem(
          kind: .misdirected,
          detail: "'\(host)' is not an address of this server; a name it should answer for "
            + "belongs in allowedHosts (LIFECYCLED_ALLOWED_HOSTS)")
      }
      lastAllowedHost = host
    }
    if request.originIsRepeated {
      throw Problem(
        kind: .forbiddenOrigin,
        detail: "a request from a web page has one Origin field; this one has several")
    }
    if let origin = request.origin, !access.allows(origin: origin, host: request.host) {
      throw Problem(
        kind: .forbiddenOrigin,
        detail: "requests from web pages are refused unless their origin is in allowedOrigins "
          + "(LIFECYCLED_ALLOWED_ORIGINS) or this server's own, at an address, localhost or a "
          + "name allowedHosts lists; '\(origin)' is not")
    }
    if access.authToken != nil, request.path.hasPrefix("/v1") || request.path.hasPrefix("/__admin"),
      !access.authorizes(request.authorization)
    {
      var problem = Problem(
        kind: .unauthorized,
        detail: request.authorization == nil
          ? "this server requires 'Authorization: Bearer <token>' (authToken)"
          : "the bearer token is not this server's")
      problem.headers = [
        (
          "WWW-Authenticate",
          request.authorization == nil ? "Bearer" : #"Bearer error="invalid_token""#
        )
      ]
      throw problem
    }
  }

  /// A request made with an `Idempotency-Key`: its key and fingerprint; nil for other
  /// requests, and for requests other than a `POST` about a device, which need none.
  private func retry(of request: borrowing APIRequest, to route: Route) throws(Problem)
    -> IdempotencyStore.Retry?
  {
    guard route.method == "POST", route.isDeviceScoped, let key = request.idempotencyKey else {
      return nil
    }
    return IdempotencyStore.Retry(
      key: try Self.idempotencyKey(key),
      fingerprint: IdempotencyStore.fingerprint(
        method: request.method, path: request.path, query: request.query, body: request.body))
  }

  /// The response kept for an earlier request with this key, marked as replayed; 422 if that
  /// request was another one.
  private func storedResponse(
    to retry: IdempotencyStore.Retry, on device: String, now: Instant
  ) throws(Problem) -> APIResponse? {
    guard let stored = idempotency.entry(for: retry.key, on: device, now: now) else { return nil }
    guard stored.fingerprint == retry.fingerprint else {
      var problem = Problem.validation(
        "Idempotency-Key",
        "\(retry.key) was first used on device '\(device)' for another request; a retry "
          + "must repeat its method, path, query and body")
      problem.kind = .idempotencyKeyReused
      throw problem
    }
    var response = stored.response
    response.headers.append(("Idempotent-Replayed", "true"))
    return response
  }

  /// Keeps a response for the retries of its request: one that changed or refused something
  /// (2xx, 409), not one that was invalid, which a retry gets again anyway.
  private func keep(
    _ response: APIResponse, for retry: IdempotencyStore.Retry, on device: String, now: Instant
  ) {
    guard (200..<300).contains(response.status) || response.status == 409,
      let incarnation = engine.lastVersion(of: device)?.incarnation
    else { return }
    idempotency.store(
      response, for: retry.key, on: device, incarnation: incarnation,
      fingerprint: retry.fingerprint, now: now)
  }

  /// Forgets the `Idempotency-Key` responses of devices that were reset, replaced or removed:
  /// a key belongs to one incarnation of its device.
  private func forgetStaleIdempotencyKeys() {
    idempotency.forgetStale { [engine] in engine.lastVersion(of: $0)?.incarnation }
  }

  /// The `ETag` of a device version: strong, opaque to clients.
  static func entityTag(_ version: DeviceVersion) -> String {
    // Written byte by byte, with no intermediate strings: nearly every response has one. Made
    // exactly as long as it is, it fits in the String itself (up to 15 bytes): no allocation.
    func digits(_ number: Int) -> Int { number < 10 ? 1 : 1 + digits(number / 10) }
    let length = digits(version.incarnation) + digits(version.seq) + 3
    return String(unsafeUninitializedCapacity: length) { buffer in
      var count = 0
      func write(_ number: Int) {
        let start = count
        var rest = number
        repeat {
          buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
          count += 1
          rest /= 10
        } while rest > 0
        buffer[start..<count].reverse()
      }
      buffer[0] = UInt8(ascii: "\"")
      count = 1
      write(version.incarnation)
      buffer[count] = UInt8(ascii: "-")
      count += 1
      write(version.seq)
      buffer[count] = UInt8(ascii: "\"")
      return count + 1
    }
  }

  /// Refuses a state-changing request whose `If-Match` (RFC 9110, 13.1.1) names neither `*`
  /// nor the device's current version: 412, and the request changes nothing. Weak tags, and a
  /// value that is not a list of tags, never match. Handlers call it once the request is known
  /// to be valid and its device and app to exist, just before they change anything (RFC 9110,
  /// 13.2.2: a request that would fail anyway fails as it would without the condition).
  func checkPrecondition(_ request: borrowing RouteRequest) throws {
    guard let condition = request.request.ifMatch else { return }
    if !request.app.isEmpty {
      _ = try engine.app(request.app, on: request.device, now: request.now)
    }
    let current = Self.entityTag(try engine.version(of: request.device, now: request.now))
    let tags = Self.entityTags(condition) ?? []
    guard !tags.contains(where: { $0 == "*" || $0 == current }) else { return }
    var problem = Problem(
      kind: .preconditionFailed,
      detail: tags.isEmpty
        ? "If-Match \(condition) is not * or a list of entity tags such as \(current)"
        : "If-Match \(condition) does not name device '\(request.device)' as it is now, \(current)")
    problem.headers = [("ETag", current)]
    throw problem
  }

  /// An `Idempotency-Key` value: a Structured Fields string (`"..."`, as the draft has it) or
  /// the bare text, 1 to `IdempotencyStore.maxKeyBytes` visible ASCII characters.
  static func idempotencyKey(_ value: String) throws(Problem) -> String {
    let quoted = value.utf8.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
    let key = quoted ? String(value.dropFirst().dropLast()) : value
    guard (1...IdempotencyStore.maxKeyBytes).contains(key.utf8.count),
      key.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") })
    else {
      throw Problem.validation(
        "Idempotency-Key",
        "must be 1 to \(IdempotencyStore.maxKeyBytes) visible ASCII characters, quoted or not")
    }
    return key
  }

  /// The members of an `If-Match` value: `*` alone, or entity tags (RFC 9110, 8.8.3), weak or
  /// strong, in a list whose empty members are skipped; nil if it is neither.
  static func entityTags(_ value: String) -> [Substring]? {
    func trimmed(_ text: Substring) -> Substring {
      var text = text
      while text.first == " " || text.first == "\t" { text.removeFirst() }
      while text.last == " " || text.last == "\t" { text.removeLast() }
      return text
    }
    func isEntityTag(_ text: Substring) -> Bool {
      let opaque = text.hasPrefix("W/") ? text.dropFirst(2) : text
      return opaque.utf8.count >= 2 && opaque.first == "\"" && opaque.last == "\""
        && opaque.utf8.dropFirst().dropLast().allSatisfy {
          $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80
        }
    }
    let members = value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
      .filter { !$0.isEmpty }
    if members == ["*"] { return members }
    return !members.isEmpty && members.allSatisfy(isEntityTag) ? members : nil
  }

  /// Refuses a body that is not JSON on any request that changes state, whether or not its
  /// handler reads the body: a page's form or `text/plain` post must not reset the simulator.
  private func checkMediaType(_ request: borrowing APIRequest) throws(Problem) {
    guard !request.body.isEmpty, request.method != "GET", request.method != "HEAD",
      request.mediaType != "application/json"
    else { return }
    throw .notJSON(request.mediaType)
  }

  /// A JSON response whose body `write` writes.
  func json(_ status: Int, _ write: (inout JSONWriter) -> Void) -> APIResponse {
    withWriter { writer in
      write(&writer)
      return APIResponse(status: status, contentType: "application/json", body: writer.bytes)
    }
  }

  /// Calls `body` with the API's writer, emptied: every response is written into the same
  /// buffer, which keeps the capacity the largest needed.
  func withWriter<Result, Failure>(
    _ body: (inout JSONWriter) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    writer.removeAll()
    return try body(&writer)
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

extension RouteRequest {
  /// The JSON body of a request that must have one.
  func jsonBody() throws(Problem) -> JSONDocument {
    guard request.mediaType == "application/json" else { throw .notJSON(request.mediaType) }
    do {
      return try JSONDocument.parse(request.body)
    } catch {
      throw Problem(kind: .invalidJSON, detail: error.description)
    }
  }
}
