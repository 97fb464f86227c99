public import HTTPCore

/// Answers requests. The server calls it on its loop thread, one request at a time, and knows
/// nothing of what the responses mean.
///
/// A responder may answer a request later (a long poll): `respond` returns nil, and the answer
/// comes out of `takeLateResponses`, which the server calls after every response, every timer
/// firing, every abandoned request and every drained stream. Until then the connection waits,
/// holding no thread. The answer may be a stream (`HTTPStream`): its head, then pieces as they
/// come, then its end, each a `LateResponse`.
public protocol HTTPResponder: AnyObject {
  /// The response to `request`, or nil to answer it later under `context.exchange`.
  func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse?
  /// The answers to deferred requests that are ready, in the order to send them.
  func takeLateResponses() -> [LateResponse]
  /// The client of a deferred request closed its connection: no answer is wanted (and one
  /// already ready must be dropped: the server asks only while some request waits).
  func abandoned(exchange: UInt64)
  /// The loop is about to wait for I/O: work the responder put off over this turn's requests
  /// and timers (a stream's new entries, sent once for all of them) is to be done now; its
  /// answers are then asked for.
  func turnEnded()
  /// Whether `turnEnded` left work for the next turn (a long answer written a slice a turn):
  /// the loop then does not wait for I/O before that turn.
  var hasPutOffWork: Bool { get }
  /// A stream's client has read everything sent so far: a stream that catches up on a
  /// backlog of its own sends its next part now (so that it never falls behind by itself).
  func streamDrained(exchange: UInt64)
  /// The server is shutting down: every deferred request must be answered, and every stream
  /// ended, now.
  func serverIsDraining()
  /// Work to run on another thread, asked for after every request the responder deferred and
  /// every turn that did work it had put off: what would stall every connection if done on
  /// the loop (drawing a large picture).
  func takeOffLoopWork() -> [OffLoopWork]
}

extension HTTPResponder {
  public func takeLateResponses() -> [LateResponse] { [] }
  public func abandoned(exchange: UInt64) {}
  public func turnEnded() {}
  public var hasPutOffWork: Bool { false }
  public func streamDrained(exchange: UInt64) {}
  public func serverIsDraining() {}
  public func takeOffLoopWork() -> [OffLoopWork] { [] }
}

/// Work a responder hands off the loop: `run` on one of libuv's worker threads, then `finish`
/// back on the loop, after which the answers it made come out of `takeLateResponses`.
public struct OffLoopWork {
  public var run: @Sendable () -> Void
  public var finish: () -> Void

  public init(run: @escaping @Sendable () -> Void, finish: @escaping () -> Void) {
    self.run = run
    self.finish = finish
  }
}

/// The answer, or part of the answer, to a request the responder deferred.
public struct LateResponse: Sendable {
  public var exchange: UInt64
  public var part: Part

  /// What comes: the whole response, or a stream's head, piece or end.
  public enum Part: Sendable {
    case response(HTTPResponse)
    case streamHead(HTTPStream)
    case streamPiece([UInt8])
    case streamEnd
  }

  public init(exchange: UInt64, part: Part) {
    self.exchange = exchange
    self.part = part
  }

  public init(exchange: UInt64, response: HTTPResponse) {
    self.init(exchange: exchange, part: .response(response))
  }
}

/// Work the application wants run at times of its choosing, such as the simulator's
/// deadlines or a log's flush. The server keeps a timer per client armed to its
/// `nextDeadline`, re-arming it at the end of every turn of the loop and after every firing.
public protocol HTTPTimerClient: AnyObject {
  /// When `timerFired` is next due, on the loop's clock in milliseconds; nil for never.
  var nextDeadline: UInt64? { get }
  func timerFired(now: UInt64)
}

/// Where the memory the server holds for clients is counted: requests being received (their
/// heads and bodies as they arrive, a body's whole `Content-Length` from its head on) and
/// answers the client has not read yet (what a write left unsent, until it goes out or the
/// connection closes). The server counts every connection's, and asks for room before one
/// holds more than `ConnectionConfiguration`'s `maxBufferedBytes` of a request (what reading a
/// head and pipelined requests needs): past the room, that request is answered 503 and its
/// connection closed, and the others are served. A connection reads nothing more while an
/// answer waits to be sent.
public protocol HTTPClientMemory: AnyObject {
  /// Whether `bytes` more would fit.
  func hasRoom(for bytes: Int) -> Bool
  /// Counts `delta` bytes more held (fewer, when negative).
  func count(_ delta: Int)
}

/// Where the server reports each request it answered: an access log, apart from the `Logger`
/// of events, so that a line per request can be written without building metadata.
public protocol HTTPRequestLog: AnyObject {
  /// `request` was answered with `status` after `microseconds` in the responder.
  func requestAnswered(_ request: HTTPRequest, status: HTTPStatus, microseconds: UInt64)
}

/// What the server tells a responder besides the request.
public struct RequestContext: Sendable {
  /// The server is shutting down: readiness probes should fail.
  public var isDraining: Bool
  /// The loop's monotonic clock, in milliseconds.
  public var now: UInt64
  /// The request's number on this server, under which a deferred answer comes back.
  public var exchange: UInt64

  public init(isDraining: Bool, now: UInt64, exchange: UInt64 = 0) {
    self.isDraining = isDraining
    self.now = now
    self.exchange = exchange
  }
}

/// The server's settings: where to listen, connection limits and timeouts, shutdown.
public struct HTTPServerConfiguration: Sendable, Hashable {
  /// An IPv4 or IPv6 address; `localhost` means 127.0.0.1.
  public var host = "127.0.0.1"
  /// 0 picks a free port (`HTTPServer.start` returns it).
  public var port = 8080
  public var connection = ConnectionConfiguration()
  /// At this many open connections, a new one takes the place of an idle one (lingering, then
  /// silent since accepted, then kept alive between requests: `IdleConnections`); if every
  /// connection is busy with a request, new ones wait in the kernel's backlog.
  public var maxConnections = 1024
  /// Connections from one address beyond this take the place of an idle one from the same
  /// address or, if none is idle, are answered 503 and closed: one client cannot hold every
  /// slot. Half of `maxConnections` by default.
  public var maxConnectionsPerAddress = 512
  /// After SIGTERM, connections still open after this are closed. Milliseconds.
  public var shutdownGrace: UInt64 = 8_000
  /// Whether SIGTERM and SIGINT start a graceful shutdown (off for servers embedded in tests).
  public var handlesSignals = true

  public init() {}
}
