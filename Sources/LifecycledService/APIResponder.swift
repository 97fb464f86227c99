import CMalloc
import HTTPCore
import HTTPServer
import LifecycleAPI
import LifecycleEngine
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The service's version, as `--version` and `/health` report it.
public enum Version {
  public static let current = "0.1.0"
}

/// Serves the JSON API over the HTTP server: converts the messages, gives the engine the loop's
/// clock as its host time, fires realtime deadlines on the server's timer, counts what the
/// server holds for clients (requests being received, answers not read) in the memory budget,
/// logs every kill, and returns memory to the system when the state shrinks (on a worker
/// thread: `HeapTrimmer`).
final class APIResponder: HTTPResponder, HTTPTimerClient, HTTPClientMemory {
  let api: LifecycleAPI
  // Read and changed by every request, on the loop thread alone: no dynamic exclusivity
  // checks, which cost more than the reads (see Engine).
  @exclusivity(unchecked)
  private var heap = HeapTrimmer()
  @exclusivity(unchecked)
  private var lastHost = ""
  /// The fields of the last response that had some of its own (nearly every one: its
  /// `ETag`): the next one's are written into the same storage once that response is gone.
  @exclusivity(unchecked)
  private var lastOwnFields = HTTPFields()
  /// A trim was started and waits to be handed to a worker thread (`takeOffLoopWork`).
  private var trimWaitsForThread = false
  /// Returns the heap's free pages to the system, on a worker thread.
  private let trimHeap: @Sendable () -> Void

  /// - Parameters:
  ///   - streamBacklogBytes: what the server holds unsent for a stream before closing it.
  ///   - now: the loop clock when the service starts, in milliseconds.
  ///   - trimHeap: returns the heap's free pages to the system (the allocator's own call).
  init(
    configuration: EngineConfiguration, access: AccessPolicy, fixtures: Fixtures?,
    streamBacklogBytes: Int, now: UInt64, logger: Logger,
    trimHeap: @escaping @Sendable () -> Void = { cmalloc_release_free_pages() }
  ) {
    self.trimHeap = trimHeap
    let start = Instant(milliseconds: Int64(now))
    api = LifecycleAPI(
      engine: Engine(configuration: configuration, now: start), version: Version.current,
      now: start, access: access, fixtures: fixtures, streamBacklogBytes: streamBacklogBytes)
    api.onKill = { device, transition in
      var metadata: Logger.Metadata = [
        "device": "\(device)", "app": "\(transition.app)", "cause": "\(transition.cause.name)",
        "state": "\(transition.from.rawValue)", "time": "\(transition.time.seconds)",
      ]
      if let code = transition.terminationCode { metadata["code"] = "\(code.rawValue)" }
      if case .jetsam(let reason) = transition.cause { metadata["reason"] = "\(reason.rawValue)" }
      logger.notice("lifecycle.kill", metadata: metadata)
    }
  }

  var nextDeadline: UInt64? {
    let simulator = api.nextDeadline.map { UInt64(max(0, $0.milliseconds)) }
    guard let trim = heap.dueAt else { return simulator }
    return min(simulator ?? trim, trim)
  }

  func timerFired(now: UInt64) {
    api.fireDeadlines(now: Instant(milliseconds: Int64(now)))
    startTrimIfDue(now: now)
  }

  /// Starts a trim of the heap if one is due: it waits for the end of the turn, which hands it
  /// to a worker thread (`hasPutOffWork`, `takeOffLoopWork`).
  private func startTrimIfDue(now: UInt64) {
    if heap.startTrimIfDue(now: now) { trimWaitsForThread = true }
  }

  /// The fields of a response of `contentType`, with those every response carries
  /// (`HTTPFields.protective`: a foreign `<img>` of a timeline, say, would tell whether a
  /// device exists). The JSON ones, which nearly every response has, are made once.
  private static func headers(contentType: String?) -> HTTPFields {
    switch contentType {
    case nil: plainHeaders
    case "application/json": jsonHeaders
    case let other?: HTTPFields([("Content-Type", other)] + plainFields)
    }
  }

  private static let plainFields = HTTPFields.protective
  private static let plainHeaders = HTTPFields(plainFields)
  private static let jsonHeaders = HTTPFields([("Content-Type", "application/json")] + plainFields)

  /// The request fields the API reads, found in one pass over each request's fields.
  private static let fieldNames: HTTPFieldNames = [
    "content-type", "host", "origin", "authorization", "if-match", "idempotency-key",
    "last-event-id",
  ]

  func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
    let (targetAuthority, path, query) = request.parts
    // An absolute-form target names the host itself, whatever `Host` says (RFC 9112 §3.2.2).
    let authority = targetAuthority.map(String.init)
    var message = APIRequest(
      method: request.method, path: path, query: query, body: request.body,
      host: authority, exchange: context.exchange)
    request.headers.forFirstValues(of: Self.fieldNames) { index, bytes in
      let text = { String(decoding: bytes, as: UTF8.self) }
      switch index {
      case 0: message.mediaType = HTTPFields.mediaType(of: bytes)
      case 1: if authority == nil { message.host = host(bytes) }
      case 2: message.occasionalFields.update { $0.origin = text() }
      case 3: message.occasionalFields.update { $0.authorization = text() }
      case 4: message.occasionalFields.update { $0.ifMatch = text() }
      case 5: message.occasionalFields.update { $0.idempotencyKey = text() }
      default: message.occasionalFields.update { $0.lastEventID = text() }
      }
    }
    if message.origin != nil {  // a page's request: is it the only one?
      var origins = 0
      request.headers.forEachValue(of: "origin") { _ in
        origins += 1
        return origins < 2
      }
      message.originIsRepeated = origins > 1
    }
    let response = api.handle(
      consume message, now: Instant(milliseconds: Int64(context.now)),
      isDraining: context.isDraining)
    guard let response else { return nil }
    return http(consume response)
  }

  /// `Host` as text: the last one made, when a request sends the same bytes, as clients do
  /// with every request (making a String checks the bytes as UTF-8, which costs more).
  private func host(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    var last = lastHost
    let isSame = last.withUTF8 { last in
      last.count == bytes.count
        && (bytes.isEmpty || memcmp(last.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
    }
    if !isSame { lastHost = String(decoding: bytes, as: UTF8.self) }
    return lastHost
  }

  func takeLateResponses() -> [LateResponse] {
    api.takeLateAnswers().map { answer in
      switch answer.part {
      case .response(let response):
        LateResponse(exchange: answer.exchange, response: http(response))
      case .streamHead(let head, let heartbeat, let interval, let farewell):
        LateResponse(
          exchange: answer.exchange,
          part: .streamHead(
            HTTPStream(
              head: http(head), heartbeat: heartbeat,
              heartbeatInterval: UInt64(interval), farewell: farewell)))
      case .streamPiece(let piece):
        LateResponse(exchange: answer.exchange, part: .streamPiece(piece))
      case .streamEnd:
        LateResponse(exchange: answer.exchange, part: .streamEnd)
      }
    }
  }

  func hasRoom(for bytes: Int) -> Bool {
    api.hasRoomForClients(bytes)
  }

  func count(_ delta: Int) {
    api.countHeldForClients(delta)
  }

  func takeOffLoopWork() -> [OffLoopWork] {
    var work = api.takeOffLoopWork().map { work in
      OffLoopWork(run: work.run, finish: { work.finish(Self.now) })
    }
    if trimWaitsForThread {
      trimWaitsForThread = false
      work.append(
        OffLoopWork(run: trimHeap, finish: { self.heap.trimFinished() }))
    }
    return work
  }

  func abandoned(exchange: UInt64) {
    api.abandon(exchange: exchange, now: Self.now)
  }

  func turnEnded() {
    // Whatever changed the state this turn: requests, connections letting go of what they
    // held, devices freed on worker threads (a reset's, with no request after it).
    heap.observe(retainedBytes: api.engine.retainedBytes)
    if heap.dueAt != nil { startTrimIfDue(now: monotonicMilliseconds()) }  // the clock if due
    if api.hasPutOffWork { api.continuePutOffWork(now: Self.now) }
    guard api.hasStreams else { return }  // every turn: not even the clock unless needed
    api.flushStreams(now: Self.now)
  }

  var hasPutOffWork: Bool { api.hasPutOffWork || trimWaitsForThread }

  func streamDrained(exchange: UInt64) {
    api.streamDrained(exchange: exchange, now: Self.now)
  }

  func serverIsDraining() {
    api.shutDown(now: Self.now)
  }

  /// The loop's clock, as the engine's host time.
  private static var now: Instant { Instant(milliseconds: Int64(monotonicMilliseconds())) }

  /// The HTTP response that carries `response`.
  private func http(_ response: APIResponse) -> HTTPResponse {
    let shared = Self.headers(contentType: response.sentContentType)
    guard !response.headers.isEmpty || response.version != nil else {
      return HTTPResponse(
        status: HTTPStatus(code: response.status), headers: shared, body: response.body)
    }
    var fields = HTTPFields()
    swap(&fields, &lastOwnFields)  // held here alone once the last response is gone
    fields.replaceAll(with: shared)
    for (name, value) in response.headers { fields.append(name: name, value: value) }
    if let version = response.version {
      LifecycleAPI.withEntityTag(of: version) { fields.append(name: "ETag", value: $0) }
    }
    lastOwnFields = fields
    return HTTPResponse(
      status: HTTPStatus(code: response.status), headers: fields, body: response.body)
  }
}

extension Optional where Wrapped == OccasionalFields {
  /// Sets one of the fields, making them first for the request's first one: a request that
  /// sends none has nothing to make and nothing to drop.
  fileprivate mutating func update(_ change: (inout OccasionalFields) -> Void) {
    var fields = take() ?? OccasionalFields()
    change(&fields)
    self = fields
  }
}
