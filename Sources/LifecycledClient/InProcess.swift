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
/// stream sends no heartbeats (nothing sits between to keep alive), and its entries wait in
/// the process until read, however many (a server ends a stream read too slowly); and the work
/// a server does on worker threads (large bodies, pictures, snapshots) is done in the call.
public struct InProcessTransport: ClientTransport {
  /// The address the client is given: requests never leave the process.
  public static let serverURL = URL(string: "http://localhost")!  // a valid literal

  private let simulator: InProcessSimulator

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
    case .stream(let head, let pieces):
      return (
        Self.httpResponse(head), HTTPBody(pieces, length: .unknown, iterationBehavior: .single)
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
      authorization: fields[.authorization], ifMatch: fields[.ifMatch],
      idempotencyKey: fields[HTTPField.Name("Idempotency-Key")!],  // a valid literal
      lastEventID: fields[HTTPField.Name("Last-Event-ID")!])  // a valid literal
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
  /// An answer: a whole response, or a stream's head and its pieces as they come.
  enum Answer: Sendable {
    case whole(APIResponse)
    case stream(head: APIResponse, pieces: AsyncStream<ArraySlice<UInt8>>)
  }

  private let api: LifecycleAPI
  private let start = ContinuousClock.now
  private var exchanges: UInt64 = 0
  /// The requests answered later, by exchange.
  private var waiting: [UInt64: CheckedContinuation<Answer, any Error>] = [:]
  /// The streams open, by exchange.
  private var streams: [UInt64: AsyncStream<ArraySlice<UInt8>>.Continuation] = [:]
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
    case .streamHead(let head, _, _, _):
      let (pieces, continuation) = AsyncStream.makeStream(of: ArraySlice<UInt8>.self)
      continuation.onTermination = { _ in Task { await self.abandon(exchange) } }
      if !head.body.isEmpty { continuation.yield(head.body[...]) }
      streams[exchange] = continuation
      waiting.removeValue(forKey: exchange)?.resume(returning: .stream(head: head, pieces: pieces))
      api.streamDrained(exchange: exchange, now: now)  // what it holds is buffered here
    case .streamPiece(let piece):
      streams[exchange]?.yield(piece[...])
      api.streamDrained(exchange: exchange, now: now)
    case .streamEnd:
      streams.removeValue(forKey: exchange)?.finish()
    }
  }

  /// The client of `exchange` left: a wait is forgotten, a stream closed.
  private func abandon(_ exchange: UInt64) {
    guard waiting[exchange] != nil || streams[exchange] != nil else { return }
    api.abandon(exchange: exchange, now: now)
    waiting.removeValue(forKey: exchange)?.resume(throwing: CancellationError())
    streams.removeValue(forKey: exchange)?.finish()
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
