import CLibUV
import HTTPCore
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One accepted connection: the libuv shell around a `ConnectionStateMachine`.
///
/// It owns its handles (the socket and a timer) and requests (one write, one shutdown); each
/// handle's `data` points back to it. The server keeps it alive until both handles are closed,
/// so no callback ever finds it gone. Bytes handed to `uv_write` are its own copy, freed in the
/// write callback, which libuv calls even when the connection is closed underneath.
final class Connection {
  /// The server, which holds each connection until both its handles are closed. A strong
  /// `let`, not `unowned(unsafe)`: the compiler lends a `let` reference without a retain,
  /// where every use of an unowned one was a retain and a release. (The cycle ends when the
  /// server lets the closed connection go.)
  let server: HTTPServer
  let tcp: UnsafeMutablePointer<uv_tcp_t>
  private let timer: UnsafeMutablePointer<uv_timer_t>
  private let writeRequest: UnsafeMutablePointer<uv_write_t>
  private let shutdownRequest: UnsafeMutablePointer<uv_shutdown_t>
  @exclusivity(unchecked)  // the loop thread alone
  private var machine: ConnectionStateMachine
  private var pendingWrite: UnsafeMutableRawBufferPointer?
  /// An answer that did not go out at once, and how much of it was handed to writes so far:
  /// its rest is copied and written a part at a time (`writePartBytes`), as the client reads.
  private var unsent: (bytes: WireBytes, handedOver: Int)?
  private var isReading = false
  /// The turn of the loop in which a read last filled the buffer, if the last read did: more
  /// is likely waiting (`ReadPacing`).
  private var filledTheBufferInTurn: UInt64?
  private var armedDeadline: UInt64?
  /// The handles are being closed: libuv calls nothing of ours but the close callbacks.
  private var isClosing = false
  /// The request the responder answers later (or is streaming the answer to).
  private var deferred: DeferredExchange?
  private var openHandles = 2
  /// What the machine holds for requests being received, as `server.clientMemory` counts it;
  /// nil once a request was refused for want of room (the connection then counts nothing
  /// more of requests).
  private var countedBytes: Int? = 0
  /// Where the connection comes from, for the per-address limit.
  var peer: PeerAddress?
  /// How it is idle, and its neighbours among the server's idle connections of that kind
  /// (`IdleConnections` keeps them).
  var idleKind: IdleKind?
  var nextIdle: Connection?
  unowned(unsafe) var previousIdle: Connection?

  init(server: HTTPServer) {
    self.server = server
    tcp = .allocate(capacity: 1)
    timer = .allocate(capacity: 1)
    writeRequest = .allocate(capacity: 1)
    shutdownRequest = .allocate(capacity: 1)
    machine = ConnectionStateMachine(
      configuration: server.configuration.connection, now: uv_now(server.loop))
    uv_tcp_init(server.loop, tcp)
    uv_timer_init(server.loop, timer)
    let context = Unmanaged.passUnretained(self).toOpaque()
    tcp.pointee.data = context
    timer.pointee.data = context
    writeRequest.pointee.data = context
    shutdownRequest.pointee.data = context
  }

  deinit {
    pendingWrite?.deallocate()
    tcp.deallocate()
    timer.deallocate()
    writeRequest.deallocate()
    shutdownRequest.deallocate()
  }

  /// Begins serving, or with `refusal`, answers it at once and closes.
  func start(refusing refusal: HTTPError? = nil) {
    uv_tcp_nodelay(tcp, 1)
    if let refusal {
      machine.refuse(with: refusal, at: server.moment)
    } else {
      readWhatIsWaiting()
    }
    drive()
  }

  /// Reads what the client sent before it was accepted: a connection whose request already
  /// waits is never taken for a silent one the server may close (under a flood of arrivals,
  /// hundreds are accepted in one turn of the loop before any is read), and is answered a turn
  /// sooner.
  private func readWhatIsWaiting() {
    var descriptor: uv_os_fd_t = -1
    guard uv_fileno(cuv_handle(tcp), &descriptor) == 0 else { return }
    let buffer = server.readBuffer
    let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
    if count > 0 {
      machine.received(UnsafeBufferPointer(rebasing: buffer[..<count]), now: uv_now(server.loop))
    } else if count == 0 {
      machine.peerClosed()
    }
  }

  func quiesce() {
    machine.quiesce()
    drive()
  }

  /// Closes at once: write errors, resets, the end of the shutdown grace.
  func abort() {
    guard !isClosing else { return }
    isClosing = true
    server.connectionIsClosing(self)
    if let countedBytes { server.clientMemory?.count(-countedBytes) }
    countedBytes = nil  // (a pending write is counted until its callback, which libuv still calls)
    if pendingWrite == nil { dropUnsent() }  // waiting for a turn: no callback comes to do it
    if let exchange = deferred?.exchange {  // the field alone: binding the tuple copies it
      endExchange(exchange)
      server.responder.abandoned(exchange: exchange)
    }
    uv_close(cuv_handle(tcp)) { handle in Connection.from(handle).handleClosed() }
    uv_close(cuv_handle(timer)) { handle in Connection.from(handle).handleClosed() }
  }

  // MARK: The machine's actions

  /// Performs the machine's actions until it waits for an event.
  private func drive() {
    guard !isClosing else { return }
    var now = server.moment
    while let action = machine.nextAction(at: now) {
      switch consume action {  // moved into its case: the request is not copied
      case .dispatch(let request):
        respond(to: request, at: now)
        now = server.moment  // as `respond` left it: after the responder's time
      case .write(let bytes):
        guard write(bytes) else { return followMachine() }
        writeCompleted(now: now.milliseconds)
      case .linger:
        shutDownSending()
      case .close:
        return abort()
      }
    }
    guard countHeldBytes(at: now) else { return drive() }  // to send the refusal
    followMachine()
  }

  /// Counts what the machine now holds for requests being received; false when the request
  /// outgrew the room there is, and the machine was told to refuse it. A refused connection
  /// counts nothing more: it closes once the refusal is out.
  private func countHeldBytes(at now: Moment) -> Bool {
    guard let memory = server.clientMemory, let counted = countedBytes else { return true }
    let held = machine.heldBytes
    guard held != counted else { return true }
    if held > counted, held > server.configuration.connection.maxBufferedBytes,
      !memory.hasRoom(for: held - counted)
    {
      memory.count(-counted)
      countedBytes = nil
      machine.cannotHoldRequest(at: now)
      return false
    }
    memory.count(held - counted)
    countedBytes = held
    return true
  }

  private func respond(to request: consuming HTTPRequest, at now: Moment) {
    let started = server.requestLog == nil ? 0 : uv_hrtime()
    let exchange = server.newExchange()
    let response = server.responder.respond(
      to: request,
      context: RequestContext(
        isDraining: server.isDraining, now: now.milliseconds, exchange: exchange))
    if let response {
      answer(request, with: response, startedAt: started)
    } else {
      deferred = DeferredExchange(exchange: exchange, request: request, started: started)
      server.deferredExchanges[exchange] = self
      machine.responseDeferred()
      server.startOffLoopWork()
    }
    server.deliverLateResponses()
  }

  /// Sends the answer to the request the responder deferred, or the next part of its
  /// stream, as it comes.
  func answerLate(_ part: LateResponse.Part) {
    guard let deferred, !isClosing else { return }
    let exchange = deferred.exchange
    switch part {
    case .response(let response):
      endExchange(exchange)
      answer(deferred.request, with: response, startedAt: deferred.started)
    case .streamHead(let stream):
      logAnswer(to: deferred.request, status: stream.head.status, startedAt: deferred.started)
      uv_update_time(server.loop)
      machine.streamStarted(stream, at: server.moment)
    case .streamPiece(let piece):
      if !machine.streamData(piece) {  // the client fell behind: its stream ends
        endExchange(exchange)
        server.responder.abandoned(exchange: exchange)
      }
    case .streamEnd:
      endExchange(exchange)
      machine.streamEnded()
    }
    drive()
  }

  /// The responder has nothing more to send for the exchange.
  private func endExchange(_ exchange: UInt64) {
    deferred = nil
    server.deferredExchanges[exchange] = nil
  }

  private func answer(
    _ request: HTTPRequest, with response: HTTPResponse, startedAt started: UInt64
  ) {
    logAnswer(to: request, status: response.status, startedAt: started)
    // The responder took time of its own: the write, the keep-alive allowance and the next
    // pipelined request's head count from now, not from when the request's bytes arrived.
    uv_update_time(server.loop)
    machine.responded(response, at: server.moment)
  }

  private func logAnswer(to request: HTTPRequest, status: HTTPStatus, startedAt started: UInt64) {
    server.requestLog?.requestAnswered(
      request, status: status, microseconds: (uv_hrtime() - started) / 1000)
  }

  /// Tells the machine, and the server if a stream's client now has everything it was sent.
  private func writeCompleted(now: UInt64) {
    if machine.writeCompleted(now: now), let exchange = deferred?.exchange {
      server.drainedStreams.append(exchange)
    }
  }

  /// Writes `bytes`, head and body in one call (of the body at most `writePartBytes`: the
  /// kernel would copy as much as its buffer takes); true if they all went out at once, false
  /// if a write is pending (its callback continues) or failed (the connection is closing).
  private func write(_ bytes: WireBytes) -> Bool {
    let total = bytes.head.count + bytes.body.count
    let isLarge = WritePacing.paces(bodyBytes: bytes.body.count)
    guard !isLarge || server.writePacing.mayWrite else {  // the turn has no room: a later one
      server.clientMemory?.count(total)  // an answer the client has not read
      unsent = (bytes, 0)
      server.awaitingWriteTurn.append(self)
      return false
    }
    let written = bytes.head.withUnsafeBytes { head in
      bytes.body.withUnsafeBytes { body in
        withUnsafeTemporaryAllocation(of: uv_buf_t.self, capacity: 2) { buffers in
          buffers[0] = Self.buffer(head)
          buffers[1] = Self.buffer(
            UnsafeRawBufferPointer(rebasing: body.prefix(Self.writePartBytes)))
          return uv_try_write(cuv_stream(tcp), buffers.baseAddress, body.isEmpty ? 1 : 2)
        }
      }
    }
    if isLarge { server.writePacing.wrote(Int(max(written, 0))) }
    if written == total { return true }
    guard written >= 0 || written == UV_EAGAIN.rawValue else {
      abort()
      return false
    }
    let sent = Int(max(written, 0))
    server.clientMemory?.count(total - sent)  // an answer the client has not read
    unsent = (bytes, sent)
    writeNextPart()
    return false
  }

  /// How much of an answer that did not go out at once one write copies and sends: the rest
  /// of a large answer (a scenario's of 22 MB) is not all copied in one turn of the loop.
  static let writePartBytes = 262_144

  /// Writes the next part of `unsent`, in a copy of our own that lives until the callback,
  /// if the turn has room for it (`WritePacing`); else it waits for a turn that has.
  func writeNextPart() {
    guard !isClosing, let (bytes, handedOver) = unsent else { return }
    let isLarge = WritePacing.paces(bodyBytes: bytes.body.count)
    guard !isLarge || server.writePacing.mayWrite else {
      return server.awaitingWriteTurn.append(self)
    }
    let total = bytes.head.count + bytes.body.count
    let part = UnsafeMutableRawBufferPointer.allocate(
      byteCount: min(total - handedOver, Self.writePartBytes), alignment: 1)
    bytes.copy(from: handedOver, into: part)
    unsent = handedOver + part.count < total ? (bytes, handedOver + part.count) : nil
    pendingWrite = part
    if isLarge { server.writePacing.wrote(part.count) }
    var buffer = Self.buffer(UnsafeRawBufferPointer(part))
    let status = uv_write(writeRequest, cuv_stream(tcp), &buffer, 1) { request, status in
      Connection.from(request).writeFinished(status: status)
    }
    if status != 0 { writeFinished(status: status) }  // no callback comes: let go here
  }

  /// A libuv buffer over `bytes`, which it does not copy.
  private static func buffer(_ bytes: UnsafeRawBufferPointer) -> uv_buf_t {
    uv_buf_init(
      UnsafeMutableRawPointer(mutating: bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
      UInt32(bytes.count))
  }

  private func writeFinished(status: Int32) {
    if let pendingWrite {
      server.clientMemory?.count(-pendingWrite.count)
      pendingWrite.deallocate()
    }
    pendingWrite = nil
    if isClosing || status != 0 { dropUnsent() }
    guard !isClosing else { return }
    guard status == 0 else { return abort() }
    guard unsent == nil else { return writeNextPart() }
    writeCompleted(now: uv_now(server.loop))
    drive()
    if !server.drainedStreams.isEmpty { server.deliverLateResponses() }
  }

  /// Lets go of what of an answer was not handed to the kernel yet, and of its count.
  private func dropUnsent() {
    guard let (bytes, handedOver) = unsent else { return }
    server.clientMemory?.count(handedOver - bytes.head.count - bytes.body.count)
    unsent = nil
  }

  /// Reads only while the machine wants bytes, has the timer fire by its deadline, and keeps
  /// the connection's place among the idle ones the server may close.
  ///
  /// The timer is re-armed only when the deadline moves earlier: the keep-alive deadline moves
  /// later with every request, and a timer that fires early finds nothing due and re-arms.
  private func followMachine() {
    guard !isClosing else { return }
    let waiting = machine.waiting()
    setReading(waiting.wantsToRead)
    server.idleConnections.place(self, as: waiting.idleKind)
    guard let deadline = waiting.deadline, armedDeadline.map({ deadline < $0 }) ?? true else {
      return
    }
    armedDeadline = deadline
    let now = uv_now(server.loop)
    uv_timer_start(
      timer, { timer in Connection.from(timer).timerFired() }, deadline > now ? deadline - now : 0,
      0)
  }

  private func setReading(_ wanted: Bool) {
    guard wanted != isReading else { return }
    isReading = wanted
    guard wanted else {
      uv_read_stop(cuv_stream(tcp))
      return
    }
    uv_read_start(
      cuv_stream(tcp),
      { handle, _, buffer in
        let connection = Connection.from(handle)
        let readBuffer = connection.server.readBuffer
        // No room is no read: libuv calls `didRead` with `UV_ENOBUFS`.
        buffer!.pointee = uv_buf_init(
          UnsafeMutableRawPointer(readBuffer.baseAddress!).assumingMemoryBound(to: CChar.self),
          connection.server.readPacing.mayRead(lastFilledIn: connection.filledTheBufferInTurn)
            ? UInt32(readBuffer.count) : 0)
      },
      { stream, count, _ in Connection.from(stream).didRead(count) })
  }

  /// Takes what one read brought.
  private func didRead(_ count: Int) {
    // `UV_ENOBUFS`: no room was given (`ReadPacing`); the poll reports it again next turn.
    guard !isClosing, count != Int(UV_ENOBUFS.rawValue) else { return }
    if count > 0 {
      machine.received(
        UnsafeBufferPointer(rebasing: server.readBuffer[..<count]), now: uv_now(server.loop))
      filledTheBufferInTurn = server.readPacing.read(count, capacity: server.readBuffer.count)
    } else if count == Int(UV_EOF.rawValue) {
      machine.peerClosed()
    } else {
      return abort()  // a read error, such as a reset
    }
    drive()
  }

  private func timerFired() {
    armedDeadline = nil
    guard !isClosing else { return }
    machine.deadlineReached(at: server.moment)
    drive()
    if !server.drainedStreams.isEmpty { server.deliverLateResponses() }
  }

  // MARK: Closing

  /// Shuts our side down after the last response; the machine keeps reading (and dropping)
  /// until the peer closes or its linger deadline passes (RFC 9112 §9.6: without it, unread
  /// request bytes make the kernel send a reset that can destroy the response before the
  /// client reads it).
  private func shutDownSending() {
    let status = uv_shutdown(shutdownRequest, cuv_stream(tcp)) { request, status in
      if status != 0 { Connection.from(request).abort() }
    }
    if status != 0 { abort() }
  }

  private func handleClosed() {
    openHandles -= 1
    if openHandles == 0 { server.connectionDidClose(self) }
  }

  /// The connection a handle or request belongs to: every libuv handle and request begins
  /// with its `data` field.
  static func from(_ handleOrRequest: UnsafeMutableRawPointer?) -> Connection {
    let data = handleOrRequest!.load(as: UnsafeMutableRawPointer.self)
    return Unmanaged<Connection>.fromOpaque(data).takeUnretainedValue()
  }
}

/// A request the responder answers later, or is streaming the answer to: its exchange and
/// when it began. A type of its own, not a tuple: a request answered at once was dropped
/// through the optional tuple's destroy, which the compiler shares between types and runs
/// through their metadata, on every request.
private struct DeferredExchange {
  let exchange: UInt64
  let request: HTTPRequest
  let started: UInt64
}
