/// The time of a connection event: monotonic milliseconds for deadlines, and the HTTP date for
/// the `Date` header of any response the event produces.
public struct Moment: Hashable, Sendable {
  public var milliseconds: UInt64
  public var httpDate: String

  public init(milliseconds: UInt64, httpDate: String) {
    self.milliseconds = milliseconds
    self.httpDate = httpDate
  }
}

/// Limits and timeouts of one connection.
public struct ConnectionConfiguration: Hashable, Sendable {
  public var limits = HTTPLimits()
  /// A request's head must arrive within this, counted from its first byte (trickling does
  /// not extend it); a new connection must start one within it. Milliseconds.
  public var headerTimeout: UInt64 = 10_000
  /// The longest pause between two reads of a body.
  public var bodyTimeout: UInt64 = 10_000
  /// A whole request, from its first byte.
  public var requestTimeout: UInt64 = 30_000
  /// An idle keep-alive connection is closed after this.
  public var keepAliveTimeout: UInt64 = 5_000
  /// A response the peer does not read within this is abandoned with the connection.
  public var sendTimeout: UInt64 = 30_000
  /// After a response that closes the connection, what the peer still sends is read and
  /// dropped for at most this long, so that it reads the response rather than a reset.
  public var lingerTimeout: UInt64 = 2_000
  /// The last response on a connection carries `Connection: close`.
  public var maxRequestsPerConnection = 1000
  /// Reading stops while this many bytes wait unparsed (pipelined requests).
  public var maxBufferedBytes = 65_536

  public init() {}
}

/// How a connection waits with no request under way.
public enum IdleKind: CaseIterable, Sendable {
  /// Accepted, and not a byte received since: its allowance is the header timeout.
  case awaitingFirstRequest
  /// Kept alive after a response: its allowance is the keep-alive timeout.
  case betweenRequests
  /// Its last response sent, draining what the peer still sends: its allowance is the linger
  /// timeout.
  case lingering
}

/// One HTTP/1.1 connection as a pure state machine: keep-alive, pipelining one request at a
/// time, `100-continue`, timeouts, request limits and graceful quiescing.
///
/// The I/O shell reports what happened (`received`, `responded`, `writeCompleted`,
/// `peerClosed`, `deadlineReached`, `quiesce`), then performs `nextAction(at:)` until it
/// returns nil; it arms a timer for `deadline` and reads only while `wantsToRead`. Closing is
/// the machine's too: after the last response it lingers (RFC 9112 §9.6: shut down the sending
/// side, read and drop what the peer still sends, until it closes or `lingerTimeout` passes),
/// unless the peer has already closed or the response could not be sent.
public struct ConnectionStateMachine {
  /// What the shell must do.
  public enum Action: Hashable, Sendable {
    /// Hand the request to the responder and report its response with `responded`.
    case dispatch(HTTPRequest)
    /// Write these bytes and report `writeCompleted` (or close on a write error).
    case write(WireBytes)
    /// Shut down the sending side and keep reading: bytes received are dropped; the peer's
    /// EOF or the deadline brings `close`.
    case linger
    /// Close the connection; the machine is done.
    case close
  }

  private enum Phase {
    case reading
    case dispatched(keepAlive: Bool, minorVersion: Int, isHead: Bool)
    case writing(since: UInt64, closeAfter: Bool)
    case lingering(until: UInt64)
    case closed
  }

  public let configuration: ConnectionConfiguration
  private var parser: HTTPParser
  private var phase = Phase.reading
  private var pending: Action?
  /// When the connection last became idle (accepted, or a response finished).
  private var idleSince: UInt64
  /// The first byte of the request being read, if one has begun.
  private var requestStartedAt: UInt64?
  private var lastReadAt: UInt64
  private var requestsStarted = 0
  private var peerHasClosed = false
  private var quiescing = false
  /// The responder answers the dispatched request later (`responseDeferred`).
  private var awaitsLateResponse = false

  public init(configuration: ConnectionConfiguration = ConnectionConfiguration(), now: UInt64) {
    self.configuration = configuration
    parser = HTTPParser(limits: configuration.limits)
    idleSince = now
    lastReadAt = now
  }

  // MARK: Events

  public mutating func received(_ bytes: UnsafeBufferPointer<UInt8>, now: UInt64) {
    if case .lingering = phase { return }  // dropped: the peer sent it before our response
    parser.append(bytes)
    lastReadAt = now
    if requestStartedAt == nil, parser.bufferedByteCount > 0 { requestStartedAt = now }
  }

  /// Bytes received, from any sequence (tests).
  public mutating func received(_ bytes: some Sequence<UInt8>, now: UInt64) {
    Array(bytes).withUnsafeBufferPointer { received($0, now: now) }
  }

  /// The peer sent EOF: requests already received are still answered, then the connection
  /// closes; a request whose answer is deferred is abandoned, and the connection closes now.
  public mutating func peerClosed() {
    peerHasClosed = true
    if case .lingering = phase { close() }
    if awaitsLateResponse { close() }
  }

  /// The responder will answer the dispatched request later (a long poll): meanwhile the
  /// shell keeps reading, to notice the peer leave (`peerClosed`), and nothing times out.
  public mutating func responseDeferred() {
    guard case .dispatched = phase else {
      preconditionFailure("a deferred response without a dispatched request")
    }
    awaitsLateResponse = true
  }

  /// The responder's answer to the request last dispatched.
  public mutating func responded(_ response: HTTPResponse, at now: Moment) {
    guard case .dispatched(let keepAlive, let minorVersion, let isHead) = phase else {
      preconditionFailure("responded without a dispatched request")
    }
    awaitsLateResponse = false
    let keepOpen = keepAlive && !quiescing
    phase = .writing(since: now.milliseconds, closeAfter: !keepOpen)
    pending = .write(
      response.wire(
        date: now.httpDate, keepAlive: keepOpen, minorVersion: minorVersion, omitBody: isHead))
  }

  public mutating func writeCompleted(now: UInt64) {
    guard case .writing(_, let closeAfter) = phase else { return }
    if closeAfter {
      closeAfterSending(now: now)
    } else {
      phase = .reading
      idleSince = now
    }
  }

  /// The server is shutting down: idle connections close now, a request in progress is
  /// answered with `Connection: close`.
  public mutating func quiesce() {
    quiescing = true
  }

  /// The server will not serve this connection (too many from its address): it answers
  /// `error` at once and closes, whatever the peer sends.
  public mutating func refuse(with error: HTTPError, at now: Moment) {
    fail(with: error, at: now)
  }

  /// The timer armed for `deadline` fired: a request cut short gets 408, an idle connection
  /// or a stalled write is closed silently.
  public mutating func deadlineReached(at now: Moment) {
    guard let deadline, now.milliseconds >= deadline else { return }
    switch phase {
    case .reading where requestStartedAt != nil:
      requestStartedAt = nil
      fail(with: HTTPError(.requestTimeout, "the request did not arrive in time"), at: now)
    case .reading:
      closeAfterSending(now: now.milliseconds)  // idle too long
    case .writing, .lingering:
      close()  // a response the peer does not read cannot be waited out
    case .dispatched, .closed:
      break
    }
  }

  // MARK: Decisions

  /// The next thing the shell must do, or nil until another event.
  public mutating func nextAction(at now: Moment) -> Action? {
    if let action = pending {
      pending = nil
      return action
    }
    guard case .reading = phase else { return nil }
    switch parser.next() {
    case .request(let request):
      requestsStarted += 1
      requestStartedAt = parser.bufferedByteCount > 0 ? now.milliseconds : nil
      phase = .dispatched(
        keepAlive: request.keepAlive
          && requestsStarted < configuration.maxRequestsPerConnection,
        minorVersion: request.minorVersion, isHead: request.method == "HEAD")
      return .dispatch(request)
    case .continueExpected:
      phase = .writing(since: now.milliseconds, closeAfter: false)
      return .write(WireBytes(head: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)))
    case .error(let error):
      fail(with: error, at: now)
      return nextAction(at: now)
    case nil:
      if peerHasClosed || (quiescing && !parser.isMidRequest) {
        closeAfterSending(now: now.milliseconds)
        return nextAction(at: now)
      }
      return nil
    }
  }

  /// When the shell must call `deadlineReached`, in monotonic milliseconds.
  public var deadline: UInt64? {
    switch phase {
    case .reading:
      guard let started = requestStartedAt else {
        let allowance =
          requestsStarted == 0 ? configuration.headerTimeout : configuration.keepAliveTimeout
        return idleSince + allowance
      }
      guard parser.isReadingBody else { return started + configuration.headerTimeout }
      return min(
        lastReadAt + configuration.bodyTimeout, started + configuration.requestTimeout)
    case .writing(let since, _):
      return since + configuration.sendTimeout
    case .lingering(let until):
      return until
    case .dispatched, .closed:
      return nil
    }
  }

  /// Whether the shell should read: between responses and while a response is deferred, and
  /// not past the buffer limit.
  public var wantsToRead: Bool {
    switch phase {
    case .reading: !peerHasClosed && parser.bufferedByteCount < configuration.maxBufferedBytes
    case .dispatched:
      awaitsLateResponse && !peerHasClosed
        && parser.bufferedByteCount < configuration.maxBufferedBytes
    case .lingering: true
    case .writing, .closed: false
    }
  }

  /// How the connection is idle, if it is: then the server may close it to make room for
  /// another (RFC 9112 §9.3: a client must expect an idle connection to close). Nil while a
  /// request is under way: a request begun is never cut.
  public var idleKind: IdleKind? {
    switch phase {
    case .reading:
      guard pending == nil, requestStartedAt == nil, parser.bufferedByteCount == 0 else {
        return nil
      }
      return requestsStarted == 0 ? .awaitingFirstRequest : .betweenRequests
    case .lingering: return .lingering
    case .dispatched, .writing, .closed: return nil
    }
  }

  public var isClosed: Bool {
    if case .closed = phase { return pending == nil }
    return false
  }

  /// Everything is sent: linger while the peer may still send, else close.
  private mutating func closeAfterSending(now: UInt64) {
    guard !peerHasClosed else { return close() }
    phase = .lingering(until: now + configuration.lingerTimeout)
    pending = .linger
  }

  private mutating func close() {
    phase = .closed
    pending = .close
  }

  private mutating func fail(with error: HTTPError, at now: Moment) {
    phase = .writing(since: now.milliseconds, closeAfter: true)
    pending = .write(error.response.wire(date: now.httpDate, keepAlive: false))
  }
}
