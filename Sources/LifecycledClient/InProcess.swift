import Foundation
import HTTPTypes
import LifecycleAPI
import LifecycleEngine
import OpenAPIRuntime

extension Lifecycled {
  /// A client of a simulator in this process: no server, no binary, no Docker, on every
  /// platform the client supports (an iOS Simulator test target too).
  ///
  /// ```swift
  /// let lifecycled = Lifecycled.inProcess()
  /// let device = try await lifecycled.createDevice()
  /// ```
  ///
  /// Every request goes through the same contract and handlers a server runs
  /// (``InProcessTransport``). Devices get a manual clock unless they ask for another, as with
  /// a server a test starts. Each call makes a simulator of its own.
  ///
  /// - Parameter configuration: The engine's settings: a server's defaults, with manual
  ///   clocks, unless given. Its device defaults must make a valid device (a precondition,
  ///   whose message names each member out of its range).
  /// - Returns: A client of a new simulator.
  public static func inProcess(configuration: EngineConfiguration = .inProcess) -> Lifecycled {
    Lifecycled(
      serverURL: InProcessTransport.serverURL,
      transport: InProcessTransport(configuration: configuration))
  }
}

extension EngineConfiguration {
  /// A server's defaults, with the `default` device's clock manual: what a test starts.
  public static var inProcess: EngineConfiguration {
    var configuration = EngineConfiguration()
    configuration.deviceDefaults.clock = .manual
    return configuration
  }
}

/// Hands each request to the API in this process, as a server's loop would: the same
/// handlers, problems and bodies, with no socket between.
///
/// What differs from a server, by design: nothing bounds a request's size or its time to
/// arrive (there is no network); a realtime device's clock, a wait's timeout and a stream's
/// new entries are driven by a task on the process's clock, not a loop's timer; a journal
/// stream sends no heartbeats (nothing sits between to keep alive); and the work a server
/// does on worker threads (large bodies, pictures, snapshots) is done in the call. A stream
/// read too slowly ends as a server's does: past what a server holds unsent for it
/// (`streamBacklogBytes`), its reader is sent `end` (`behind`) and it closes.
public struct InProcessTransport: ClientTransport {
  /// The address the client is given: requests never leave the process.
  public static let serverURL = URL(string: "http://localhost")!  // a valid literal

  private let simulator: InProcessSimulator

  /// A transport to a new simulator in this process.
  ///
  /// - Parameter configuration: The engine's settings (`EngineConfiguration.inProcess`
  ///   unless given).
  public init(configuration: EngineConfiguration = .inProcess) {
    simulator = InProcessSimulator(configuration: configuration)
  }

  public func send(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
  ) async throws -> (HTTPResponse, HTTPBody?) {
    var bytes: [UInt8] = []
    if let body { bytes = try await [UInt8](collecting: body, upTo: .max) }
    switch try await simulator.answer(Self.apiRequest(request, body: bytes)) {
    case .whole(let response):
      return (Self.httpResponse(response), response.body.isEmpty ? nil : HTTPBody(response.body))
    case .stream(let head, let pieces, let backlog):
      let read = pieces.map { piece in
        backlog.read(piece.count)
        return piece
      }
      return (
        Self.httpResponse(head), HTTPBody(read, length: .unknown, iterationBehavior: .single)
      )
    }
  }

  /// The API's view of `request`: what a server reads from the request's head.
  static func apiRequest(_ request: HTTPRequest, body: [UInt8]) -> APIRequest {
    let target = request.path ?? "/"
    let question = target.firstIndex(of: "?")
    let fields = request.headerFields
    return APIRequest(
      method: request.method.rawValue, path: Substring(target[..<(question ?? target.endIndex)]),
      query: question.map { Substring(target[target.index(after: $0)...]) },
      mediaType: fields[.contentType].map(Self.mediaType), body: body, host: "localhost",
      occasionalFields: OccasionalFields(
        authorization: fields[.authorization], ifMatch: fields[.ifMatch],
        idempotencyKey: fields[HTTPField.Name("Idempotency-Key")!],  // a valid literal
        lastEventID: fields[HTTPField.Name("Last-Event-ID")!]))  // a valid literal
  }

  /// `type/subtype` of a `Content-Type` value, in lowercase without parameters.
  static func mediaType(_ value: String) -> String {
    value.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
  }

  /// The HTTP response that carries `response`, with the fields a server would send.
  static func httpResponse(_ response: APIResponse) -> HTTPResponse {
    var fields = HTTPFields()
    if let type = response.sentContentType { fields[.contentType] = type }
    for (name, value) in response.headers {
      if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
    }
    if let tag = response.entityTag { fields[.eTag] = tag }
    return HTTPResponse(status: .init(code: response.status), headerFields: fields)
  }
}

/// The API and its engine, used from one task at a time, and the requests waiting for their
/// answers: the host a server's loop would be.
actor InProcessSimulator {
  /// An answer: a whole response, or a stream's head and its pieces as they come, with what
  /// of them is still unread.
  enum Answer: Sendable {
    case whole(APIResponse)
    case stream(head: APIResponse, pieces: AsyncStream<ArraySlice<UInt8>>, backlog: StreamBacklog)
  }

  /// An open stream: where its pieces go, what of them is unread, what it ends with when its
  /// reader falls behind.
  private struct OpenStream {
    let pieces: AsyncStream<ArraySlice<UInt8>>.Continuation
    let backlog: StreamBacklog
    let farewell: [UInt8]
  }

  private let api: LifecycleAPI
  private let start = ContinuousClock.now
  private var exchanges: UInt64 = 0
  /// The requests answered later, by exchange.
  private var waiting: [UInt64: CheckedContinuation<Answer, any Error>] = [:]
  /// The streams open, by exchange.
  private var streams: [UInt64: OpenStream] = [:]
  /// The task that fires the API's next deadline.
  private var timer: Task<Void, Never>?
  private var timerDeadline: Instant?

  init(configuration: EngineConfiguration) {
    let now = Instant.zero
    api = LifecycleAPI(
      engine: Engine(configuration: configuration, now: now), version: "in-process", now: now)
  }

  /// The process's clock since this simulator began, as the engine's host time.
  private var now: Instant {
    let elapsed = start.duration(to: .now).components
    return Instant(
      milliseconds: elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)
  }

  /// The answer to `request`, once there is one.
  func answer(_ request: APIRequest) async throws -> Answer {
    exchanges += 1
    var request = request
    request.exchange = exchanges
    let exchange = exchanges
    if let response = api.handle(request, now: now) {
      settle()  // what the request changed reaches streams and waits
      return .whole(response)
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiting[exchange] = continuation
        settle()
      }
    } onCancel: {
      Task { await self.abandon(exchange) }
    }
  }

  /// Does what a server's loop does after a request or a timer: the work put off, the
  /// streams' new entries, the answers that came of them; then arms the timer for the next
  /// deadline.
  private func settle() {
    while true {
      _ = api.doDeferredWorkHere(now: now)
      api.flushStreams(now: now)
      let answers = api.takeLateAnswers()
      if answers.isEmpty { break }
      for answer in answers { deliver(answer) }
    }
    armTimer()
  }

  private func deliver(_ answer: LateAnswer) {
    let exchange = answer.exchange
    switch answer.part {
    case .response(let response):
      waiting.removeValue(forKey: exchange)?.resume(returning: .whole(response))
    case .streamHead(let head, _, _, let farewell):
      let (pieces, continuation) = AsyncStream.makeStream(of: ArraySlice<UInt8>.self)
      continuation.onTermination = { _ in Task { await self.abandon(exchange) } }
      let stream = OpenStream(pieces: continuation, backlog: StreamBacklog(), farewell: farewell)
      streams[exchange] = stream
      waiting.removeValue(forKey: exchange)?.resume(
        returning: .stream(head: head, pieces: pieces, backlog: stream.backlog))
      send(head.body, to: exchange)
    case .streamPiece(let piece):
      send(piece, to: exchange)
    case .streamEnd:
      streams.removeValue(forKey: exchange)?.pieces.finish()
    }
  }

  /// Hands `bytes` to the reader of stream `exchange`, or, past what a server would hold
  /// unsent for it, ends the stream with its farewell.
  private func send(_ bytes: [UInt8], to exchange: UInt64) {
    guard let stream = streams[exchange] else { return }
    guard bytes.isEmpty || stream.backlog.handOver(bytes.count) <= api.streamBacklogBytes else {
      streams[exchange] = nil
      stream.pieces.yield(stream.farewell[...])
      stream.pieces.finish()
      api.abandon(exchange: exchange, now: now)
      return
    }
    if !bytes.isEmpty { stream.pieces.yield(bytes[...]) }
    api.streamDrained(exchange: exchange, now: now)  // what it holds is buffered here
  }

  /// The client of `exchange` left: a wait is forgotten, a stream closed.
  private func abandon(_ exchange: UInt64) {
    guard waiting[exchange] != nil || streams[exchange] != nil else { return }
    api.abandon(exchange: exchange, now: now)
    waiting.removeValue(forKey: exchange)?.resume(throwing: CancellationError())
    streams.removeValue(forKey: exchange)?.pieces.finish()
    settle()
  }

  /// Fires the API's next deadline (a realtime device's work, a wait's timeout) when due.
  private func armTimer() {
    let deadline = api.nextDeadline
    guard deadline != timerDeadline else { return }
    timer?.cancel()
    timerDeadline = deadline
    guard let deadline else { return }
    let due = start + .milliseconds(deadline.milliseconds)
    timer = Task { [weak self] in
      guard (try? await Task.sleep(until: due, clock: .continuous)) != nil else { return }
      await self?.fire()
    }
  }

  private func fire() {
    timerDeadline = nil
    api.fireDeadlines(now: now)
    settle()
  }
}

/// The bytes of a stream handed to its reader and not read yet: the simulator adds, the
/// reader's task takes away.
final class StreamBacklog: @unchecked Sendable {
  private let lock = NSLock()
  private var unread = 0

  /// Counts `count` more bytes handed over; the bytes now unread.
  func handOver(_ count: Int) -> Int {
    lock.withLock {
      unread += count
      return unread
    }
  }

  /// Counts `count` bytes read.
  func read(_ count: Int) {
    lock.withLock { unread -= count }
  }
}
