/// The time of a connection event: monotonic milliseconds for deadlines, and the HTTP date for
/// the `Date` header of any response the event produces.
public struct Moment: Hashable, Sendable {
  public var milliseconds: UInt64
  public var httpDate: HTTPDateText

  public init(milliseconds: UInt64, httpDate: HTTPDateText) {
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
  /// A streamed response (`HTTPStream`) whose client lets more than this many bytes wait to
  /// be sent is ended with its farewell, and the connection closed.
  public var maxStreamBacklog = 262_144

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
/// time, `100-continue`, streamed responses, timeouts, request limits and graceful quiescing.
///
/// The I/O shell reports what happened (`received`, `responded`, `streamStarted`,
/// `streamData`, `streamEnded`, `writeCompleted`, `peerClosed`, `deadlineReached`,
/// `quiesce`), then performs `nextAction(at:)` until it returns nil; it arms a timer for `deadline` and reads only while `wantsToRead`. Closing is
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

  /// Plain values, so that changing the phase (three times a request) drops nothing: the
  /// stream's state, which holds references, is apart (`stream`).
  private enum Phase {
    case reading
    case dispatched(keepAlive: Bool, minorVersion: Int, isHead: Bool)
    case writing(since: UInt64, closeAfter: Bool)
    /// A streamed response is under way: its state is `stream`.
    case streaming
    case lingering(until: UInt64)
    case closed
  }

  /// A streamed response under way.
  struct Stream {
    /// Pieces are sent as HTTP/1.1 chunks; else the body ends with the connection.
    let chunked: Bool
    var closeAfter: Bool
    let heartbeat: [UInt8]
    let heartbeatInterval: UInt64
    let farewell: [UInt8]
    /// Framed bytes not yet handed to the shell.
    var backlog: [UInt8] = []
    /// When the write under way began; nil if none is.
    var writingSince: UInt64?
    /// When the last write finished (or the stream began).
    var lastSentAt: UInt64
    /// The body's end is in the backlog: nothing more is framed.
    var isEnding = false

    mutating func append(piece: [UInt8]) {
      guard !piece.isEmpty else { return }
      guard chunked else { return backlog.append(contentsOf: piece) }
      backlog.append(contentsOf: String(piece.count, radix: 16).utf8)
      backlog.append(contentsOf: [0x0D, 0x0A])
      backlog.append(contentsOf: piece)
      backlog.append(contentsOf: [0x0D, 0x0A])
    }

    mutating func end() {
      if chunked { backlog.append(contentsOf: Array("0\r\n\r\n".utf8)) }
      isEnding = true
    }
  }

  public let configuration: ConnectionConfiguration
  @usableFromInline private(set) var parser: HTTPParser
  private var phase = Phase.reading {
    didSet {  // leaving the streaming phase lets the stream's state go
      if case .streaming = phase { return }
      if stream != nil { stream = nil }
    }
  }
  /// The streamed response under way while the phase is `streaming`; nil in every other.
  private(set) var stream: Stream?
  private var pending: Action?
  /// The storage of the last response's head, which the next one reuses once it is sent (a
  /// few hundred bytes: heads are the server's own fields).
  private var headStorage: [UInt8] = []
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
    if case .streaming = phase { close() }
  }

  /// The responder will answer the dispatched request later (a long poll): meanwhile the
  /// shell keeps reading, to notice the peer leave (`peerClosed`), and nothing times out.
  ///
  /// This and the two below check the shell's use of the machine, not anything a peer sends:
  /// the shell calls them only for the request the machine itself dispatched.
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
        reusing: &headStorage, date: now.httpDate, keepAlive: keepOpen,
        minorVersion: minorVersion, omitBody: isHead))
  }

  /// The responder's answer to the request last dispatched is a stream: its head and first
  /// piece go out now, the rest with `streamData` and `streamEnded`.
  public mutating func streamStarted(_ stream: HTTPStream, at now: Moment) {
    guard case .dispatched(let keepAlive, let minorVersion, _) = phase else {
      preconditionFailure("a stream without a dispatched request")
    }
    awaitsLateResponse = false
    let chunked = minorVersion > 0
    let keepOpen = keepAlive && chunked && !quiescing
    var state = Stream(
      chunked: chunked, closeAfter: !keepOpen, heartbeat: stream.heartbeat,
      heartbeatInterval: stream.heartbeatInterval, farewell: stream.farewell,
      lastSentAt: now.milliseconds)
    state.backlog = stream.head.streamHead(
      date: now.httpDate, keepAlive: keepOpen, minorVersion: minorVersion)
    state.append(piece: stream.head.body)
    self.stream = state
    phase = .streaming
  }

  /// The next piece of the streamed response; false if the stream no longer takes any: it
  /// has ended, or its client fell more than `maxStreamBacklog` bytes behind, and it now
  /// ends with its farewell (the responder should stop producing for it).
  public mutating func streamData(_ piece: [UInt8]) -> Bool {
    let maxBacklog = configuration.maxStreamBacklog
    return updateStream { stream in
      guard !stream.isEnding else { return false }
      stream.append(piece: piece)
      guard stream.backlog.count > maxBacklog else { return true }
      stream.backlog = []  // what it was not handed is dropped: the farewell goes next
      stream.append(piece: stream.farewell)
      stream.end()
      stream.closeAfter = true
      return false
    } ?? false
  }

  /// The streamed response is complete.
  public mutating func streamEnded() {
    updateStream { stream in
      if !stream.isEnding { stream.end() }
    }
  }

  /// Changes the stream under way, if there is one, in place: its backlog is not copied.
  @discardableResult
  private mutating func updateStream<Result>(_ change: (inout Stream) -> Result) -> Result? {
    guard stream != nil else { return nil }
    return change(&stream!)
  }

  /// The write last asked for is done. Returns whether a stream's client now has everything
  /// it was sent (and the stream can take more).
  @discardableResult
  public mutating func writeCompleted(now: UInt64) -> Bool {
    switch phase {
    case .writing(_, let closeAfter):
      finishResponse(closingAfter: closeAfter, now: now)
      return false
    case .streaming:
      return updateStream { stream in
        stream.writingSince = nil
        stream.lastSentAt = now
        return stream.backlog.isEmpty && !stream.isEnding
      } ?? false
    default:
      return false
    }
  }

  /// The response is sent: keep the connection for the next request, or close it.
  private mutating func finishResponse(closingAfter closeAfter: Bool, now: UInt64) {
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

  /// The memory held for the request being received (`HTTPParser.heldBytes`).
  /// Inlinable, so that the shell reads it in place after every turn: a call from another
  /// module copies the whole machine first.
  @inlinable public var heldBytes: Int { parser.heldBytes }

  /// The server has no room for what the request being read holds (its memory budget is
  /// spent): it gets 503 and the connection closes; a connection past its request (answered,
  /// waiting or streaming) closes at once. What the parser held is let go now, not when the
  /// connection is closed.
  public mutating func cannotHoldRequest(at now: Moment) {
    parser = HTTPParser(limits: configuration.limits)
    guard case .reading = phase else { return close() }
    fail(
      with: HTTPError(
        .serviceUnavailable,
        "the server's memory budget has no room for this request now; send it again later"),
      at: now)
  }

  /// The server will not serve this connection (too many from its address): it answers
  /// `error` at once and closes, whatever the peer sends.
  public mutating func refuse(with error: HTTPError, at now: Moment) {
    fail(with: error, at: now)
  }

  /// The timer armed for `deadline` fired: a request cut short gets 408, an idle connection
  /// or a stalled write is closed silently, a quiet stream sends its heartbeat.
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
    case .streaming:
      guard stream?.writingSince == nil else { return close() }  // as a stalled write
      updateStream { stream in
        stream.append(piece: stream.heartbeat)
        stream.lastSentAt = now.milliseconds  // due again an interval on
      }
    case .dispatched, .closed:
      break
    }
  }

  // MARK: Decisions

  /// The next thing the shell must do, or nil until another event.
  public mutating func nextAction(at now: Moment) -> Action? {
    if let action = pending.take() {  // moved out, not copied (a copy retained its bytes)
      return action
    }
    if case .streaming = phase, let stream {
      guard stream.writingSince == nil else { return nil }
      if !stream.backlog.isEmpty {
        return updateStream { stream in
          stream.writingSince = now.milliseconds
          defer { stream.backlog = [] }
          return .write(WireBytes(head: stream.backlog))
        }
      }
      guard stream.isEnding else { return nil }
      finishResponse(closingAfter: stream.closeAfter || quiescing, now: now.milliseconds)
      return nextAction(at: now)
    }
    guard case .reading = phase else { return nil }
    switch parser.next() {
    case .request(let request):
      requestsStarted += 1
      requestStartedAt = parser.bufferedByteCount > 0 ? now.milliseconds : nil
      phase = .dispatched(
        keepAlive: request.keepsAlive(readingFields: parser.requestNamesConnection)
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

  /// What the machine waits for once `nextAction` has nothing to do: `wantsToRead`,
  /// `idleKind` and `deadline` together. Mutating only so that a shell that keeps the machine
  /// in a class reads it in place: a getter would be called on a copy of the whole machine.
  public mutating func waiting() -> (wantsToRead: Bool, idleKind: IdleKind?, deadline: UInt64?) {
    (wantsToRead, idleKind, deadline)
  }

  /// When the shell must call `deadlineReached`, in monotonic milliseconds.
  @inline(__always)  // read in place by `waiting`: a call would copy the machine
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
    case .streaming:
      guard let stream else { return nil }
      if let since = stream.writingSince { return since + configuration.sendTimeout }
      return stream.isEnding ? nil : stream.lastSentAt + stream.heartbeatInterval
    case .dispatched, .closed:
      return nil
    }
  }

  /// Whether the shell should read: between responses, while a response is deferred or
  /// streamed, and not past the buffer limit.
  @inline(__always)  // read in place by `waiting`: a call would copy the machine
  public var wantsToRead: Bool {
    let hasRoom = !peerHasClosed && parser.bufferedByteCount < configuration.maxBufferedBytes
    switch phase {
    case .reading, .streaming: return hasRoom
    case .dispatched: return awaitsLateResponse && hasRoom
    case .lingering: return true
    case .writing, .closed: return false
    }
  }

  /// How the connection is idle, if it is: then the server may close it to make room for
  /// another (RFC 9112 §9.3: a client must expect an idle connection to close). Nil while a
  /// request is under way: a request begun is never cut.
  @inline(__always)  // read in place by `waiting`: a call would copy the machine
  public var idleKind: IdleKind? {
    switch phase {
    case .reading:
      guard pending == nil, requestStartedAt == nil, parser.bufferedByteCount == 0 else {
        return nil
      }
      return requestsStarted == 0 ? .awaitingFirstRequest : .betweenRequests
    case .lingering: return .lingering
    case .dispatched, .writing, .streaming, .closed: return nil
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
