import CLibUV
import CPacing
import HTTPCore
public import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An HTTP/1.1 server on its own libuv loop.
///
/// Everything happens on the thread that calls `run()`: sockets, timers, signals and the
/// responder. Only `requestShutdown()` may be called from another thread. On SIGTERM or
/// SIGINT (or `requestShutdown`) the server stops accepting, answers `/readyz`-style probes as
/// draining, lets requests in flight finish with `Connection: close`, closes idle connections,
/// force-closes what is left after the grace period, and `run()` returns 0. A second signal
/// during shutdown makes `run()` return at once with 128 + the signal number.
public final class HTTPServer: @unchecked Sendable {
  public let configuration: HTTPServerConfiguration
  let responder: any HTTPResponder
  /// Each timer client with the timer armed to its next deadline.
  private let clientTimers: [ClientTimer]
  /// Told of every request answered, if requests are logged.
  let requestLog: (any HTTPRequestLog)?
  /// Where what connections hold for clients (requests being received, answers not read) is
  /// counted, if anywhere.
  let clientMemory: (any HTTPClientMemory)?
  let logger: Logger

  let loop: UnsafeMutablePointer<uv_loop_t>
  private let listener: UnsafeMutablePointer<uv_tcp_t>
  private let wakeup: UnsafeMutablePointer<uv_async_t>
  /// Whether `wakeup` can be signalled: from `start` until shutdown closes it. Its lock is held
  /// across each signal, which other threads send (`requestShutdown`) while the loop may be
  /// closing it.
  private let wakeupIsOpen = Mutex(false)
  private let graceTimer: UnsafeMutablePointer<uv_timer_t>
  /// Runs at the end of each turn of the loop (`HTTPResponder.turnEnded`).
  private let turnEnd: UnsafeMutablePointer<uv_prepare_t>
  /// Active while the responder has work put off to the next turn
  /// (`HTTPResponder.hasPutOffWork`): the loop then polls for I/O without waiting.
  private let nextTurn: UnsafeMutablePointer<uv_idle_t>
  private let signals: [UnsafeMutablePointer<uv_signal_t>]
  /// One buffer for every read: libuv fills it and the connection copies out at once.
  let readBuffer: UnsafeMutableBufferPointer<UInt8>

  @exclusivity(unchecked)  // the loop thread alone
  private var connections: [ObjectIdentifier: Connection] = [:]
  /// Open connections per client address, for `maxConnectionsPerAddress`.
  private var connectionsPerAddress: [PeerAddress: Int] = [:]
  /// Those of the connections the server may close to make room, in the order it would.
  @exclusivity(unchecked)  // the loop thread alone
  var idleConnections = IdleConnections()
  /// How long the loop's turns worked (`LoopTurns`), measured at each turn's end.
  @exclusivity(unchecked)  // the loop thread alone
  public private(set) var loopTurns = LoopTurns()
  /// When the last turn ended, and how long the loop had waited for I/O by then (ns).
  private var lastTurnEnd: (at: UInt64, idle: UInt64) = (0, 0)
  /// How much each turn reads (`ReadPacing`).
  @exclusivity(unchecked)  // the loop thread alone
  var readPacing = ReadPacing()
  /// How much each turn writes of large answers (`WritePacing`), and the connections whose
  /// next part waits for a turn with room, in the order they came.
  @exclusivity(unchecked)  // the loop thread alone
  var writePacing = WritePacing()
  @exclusivity(unchecked)  // the loop thread alone
  var awaitingWriteTurn: [Connection] = []
  /// The connections whose request the responder answers later, by exchange.
  @exclusivity(unchecked)  // the loop thread alone
  var deferredExchanges: [UInt64: Connection] = [:]
  private var exchanges: UInt64 = 0
  private var acceptPending = false
  private var state = State.idle
  private var dateSecond = -1
  private var httpDate = HTTPDateText("")

  private enum State {
    case idle, running, draining, stopped
    case aborted(status: Int32)
  }

  public init(
    configuration: HTTPServerConfiguration, responder: any HTTPResponder,
    timerClients: [any HTTPTimerClient] = [], requestLog: (any HTTPRequestLog)? = nil,
    clientMemory: (any HTTPClientMemory)? = nil, logger: Logger
  ) {
    self.configuration = configuration
    self.responder = responder
    clientTimers = timerClients.map(ClientTimer.init)
    self.requestLog = requestLog
    self.clientMemory = clientMemory
    self.logger = logger
    loop = .allocate(capacity: 1)
    listener = .allocate(capacity: 1)
    wakeup = .allocate(capacity: 1)
    graceTimer = .allocate(capacity: 1)
    turnEnd = .allocate(capacity: 1)
    nextTurn = .allocate(capacity: 1)
    signals = configuration.handlesSignals ? [.allocate(capacity: 1), .allocate(capacity: 1)] : []
    readBuffer = .allocate(capacity: 65_536)
  }

  deinit {
    for handle in [
      UnsafeMutableRawPointer(listener), UnsafeMutableRawPointer(wakeup),
      UnsafeMutableRawPointer(graceTimer), UnsafeMutableRawPointer(turnEnd),
      UnsafeMutableRawPointer(nextTurn),
    ]
      + signals.map(UnsafeMutableRawPointer.init)
    {
      handle.deallocate()
    }
    loop.deallocate()
    readBuffer.deallocate()
  }

  /// The number of open connections.
  public var connectionCount: Int { connections.count }

  /// Binds and listens; returns the port (the one picked, for port 0).
  public func start() throws(ServerError) -> Int {
    signal(SIGPIPE, SIG_IGN)
    try check(uv_loop_init(loop), "uv_loop_init")
    try check(cuv_measure_idle_time(loop), "uv_loop_configure")
    let context = Unmanaged.passUnretained(self).toOpaque()
    uv_tcp_init(loop, listener)
    uv_async_init(loop, wakeup) { handle in HTTPServer.from(handle).beginShutdown(signal: nil) }
    wakeupIsOpen.withLock { $0 = true }
    uv_timer_init(loop, graceTimer)
    uv_prepare_init(loop, turnEnd)
    uv_idle_init(loop, nextTurn)
    for timer in clientTimers { timer.initialize(on: loop, server: self) }
    for handle in [
      cuv_handle(listener), cuv_handle(wakeup), cuv_handle(graceTimer), cuv_handle(turnEnd),
      cuv_handle(nextTurn),
    ] {
      handle?.pointee.data = context
    }
    for (handle, number) in zip(signals, [SIGTERM, SIGINT]) {
      uv_signal_init(loop, handle)
      handle.pointee.data = context
      uv_signal_start(
        handle, { handle, number in HTTPServer.from(handle).beginShutdown(signal: number) }, number)
    }
    do {
      var address = sockaddr_storage()
      try resolve(configuration.host, port: configuration.port, into: &address)
      try withUnsafePointer(to: &address) { pointer throws(ServerError) in
        try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          socketAddress throws(ServerError) in
          try check(
            uv_tcp_bind(listener, socketAddress, 0),
            "bind \(configuration.host):\(configuration.port)")
        }
      }
      try check(
        uv_listen(cuv_stream(listener), 511) { handle, status in
          HTTPServer.from(handle).connectionArrived(status: status)
        }, "listen on \(configuration.host):\(configuration.port)")
    } catch {
      closeServerHandles()
      uv_run(loop, UV_RUN_DEFAULT)
      uv_loop_close(loop)
      state = .stopped
      throw error
    }
    state = .running
    lastTurnEnd = (uv_hrtime(), 0)
    uv_prepare_start(turnEnd) { handle in HTTPServer.from(handle).endTurn() }
    armClientTimers()
    return boundPort
  }

  /// Runs the loop until shutdown completes; returns the process exit status.
  public func run() -> Int32 {
    uv_run(loop, UV_RUN_DEFAULT)
    if case .aborted(let status) = state { return status }
    let closed = uv_loop_close(loop)
    if closed != 0 { logger.error("shutdown.leak", metadata: ["uv_loop_close": "\(closed)"]) }
    logger.info("shutdown.complete")
    return closed == 0 ? 0 : 1
  }

  /// Starts a graceful shutdown; safe from any thread, and at any time: before `start` and
  /// once the shutdown has closed the loop's handles, it does nothing.
  public func requestShutdown() {
    wakeupIsOpen.withLock { isOpen in
      if isOpen { uv_async_send(wakeup) }
    }
  }

  /// The port the listener is bound to.
  public var boundPort: Int {
    var address = sockaddr_storage()
    var length = Int32(MemoryLayout<sockaddr_storage>.size)
    withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        _ = uv_tcp_getsockname(listener, $0, &length)
      }
    }
    return withUnsafeBytes(of: address) { bytes in
      Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))  // sin_port and sin6_port, network order
    }
  }

  // MARK: Time

  /// Now, for connection state machines: the loop's clock and the current HTTP date.
  var moment: Moment {
    let second = time(nil)
    if second != dateSecond {
      dateSecond = second
      httpDate = HTTPDateText(HTTPDate.string(secondsSince1970: second))
    }
    return Moment(milliseconds: uv_now(loop), httpDate: httpDate)
  }

  var isDraining: Bool {
    if case .running = state { return false }
    return true
  }

  /// What the end of each turn of the loop does, before it waits for I/O. A method, so that
  /// the server and its responder are borrowed, not retained at each use.
  private func endTurn() {
    let hadPutOffWork = responder.hasPutOffWork
    responder.turnEnded()
    if hadPutOffWork { startOffLoopWork() }  // what the requests it handled need
    deliverLateResponses()
    readPacing.turnEnded()
    writePacing.turnEnded()
    armClientTimers()
    measureTurn()
    resumePacedWrites()  // the next turn's first writes
    keepTurning(responder.hasPutOffWork || !awaitingWriteTurn.isEmpty)
  }

  /// Lets the loop wait for I/O, or not while work is put off to the next turn.
  private func keepTurning(_ hasWork: Bool) {
    guard hasWork != (uv_is_active(cuv_handle(nextTurn)) != 0) else { return }
    if hasWork {
      uv_idle_start(nextTurn) { _ in }  // its being active is what counts
    } else {
      uv_idle_stop(nextTurn)
    }
  }

  /// Writes the next parts of the large answers that waited for a turn with room
  /// (`WritePacing`), first come first, as a turn begins; those it has no room for wait on.
  private func resumePacedWrites() {
    var resumed = 0
    while resumed < awaitingWriteTurn.count, writePacing.mayWrite {
      awaitingWriteTurn[resumed].writeNextPart()
      resumed += 1
    }
    awaitingWriteTurn.removeFirst(resumed)
  }

  /// Counts the turn that ends: the time since the last one ended, less the loop's wait for
  /// I/O in between.
  private func measureTurn() {
    let now = uv_hrtime()
    let idle = uv_metrics_idle_time(loop)
    let waited = idle - lastTurnEnd.idle
    let elapsed = now - lastTurnEnd.at
    loopTurns.record(busy: elapsed > waited ? elapsed - waited : 0)
    lastTurnEnd = (now, idle)
  }

  // MARK: Deferred responses

  /// A number for the next request: the key of its answer if the responder defers it.
  func newExchange() -> UInt64 {
    exchanges += 1
    return exchanges
  }

  /// Streams whose client has read everything, for `responder.streamDrained`.
  @exclusivity(unchecked)  // the loop thread alone
  var drainedStreams: [UInt64] = []

  /// Sends the responder's answers to deferred requests, in its order, to the connections
  /// still waiting for them; tells it of drained streams first, and again as long as that
  /// brings answers that drain more.
  func deliverLateResponses() {
    while !deferredExchanges.isEmpty {  // nothing waits: nothing to ask for
      let drained = drainedStreams
      drainedStreams.removeAll()
      for exchange in drained where deferredExchanges[exchange] != nil {
        responder.streamDrained(exchange: exchange)
      }
      let answers = responder.takeLateResponses()
      for late in answers {
        deferredExchanges[late.exchange]?.answerLate(late.part)
      }
      guard !answers.isEmpty, !drainedStreams.isEmpty else { break }
    }
    if !drainedStreams.isEmpty { drainedStreams.removeAll() }
  }

  // MARK: Work off the loop

  /// Runs the responder's work off the loop (`HTTPResponder.takeOffLoopWork`) on libuv's
  /// worker threads, which yield to the loop's thread where both share a core
  /// (`pacing_work_for_loop`); each finishes on the loop, and its answers are sent.
  func startOffLoopWork() {
    for work in responder.takeOffLoopWork() {
      let request = UnsafeMutablePointer<uv_work_t>.allocate(capacity: 1)
      request.pointee.data = Unmanaged.passRetained(OffLoopJob(work, server: self)).toOpaque()
      let status = uv_queue_work(
        loop, request,
        { request in
          pacing_work_for_loop()
          OffLoopJob.of(request).work.run()
        },
        { request, _ in
          let job = Unmanaged<OffLoopJob>.fromOpaque(request!.pointee.data).takeRetainedValue()
          request!.deallocate()
          job.work.finish()  // run or cancelled: the responder answers either way
          job.server.deliverLateResponses()
        })
      if status != 0 {  // never for a valid request: run it here rather than lose it
        Unmanaged<OffLoopJob>.fromOpaque(request.pointee.data).release()
        request.deallocate()
        work.run()
        work.finish()
      }
    }
  }

  /// A piece of off-loop work and its server, behind a libuv work request. Its worker reads
  /// only `work.run`, which is `Sendable`; the rest is touched on the loop alone.
  private final class OffLoopJob: @unchecked Sendable {
    let work: OffLoopWork
    let server: HTTPServer

    init(_ work: OffLoopWork, server: HTTPServer) {
      self.work = work
      self.server = server
    }

    static func of(_ request: UnsafeMutablePointer<uv_work_t>?) -> OffLoopJob {
      Unmanaged<OffLoopJob>.fromOpaque(request!.pointee.data).takeUnretainedValue()
    }
  }

  // MARK: Timer clients

  /// Arms each client's timer to its next deadline if that moved; called at the end of every
  /// turn of the loop, before it waits, and after every firing.
  func armClientTimers() {
    guard case .running = state else { return }
    for timer in clientTimers { timer.arm() }
  }

  /// One timer client and the libuv timer armed to its next deadline.
  private final class ClientTimer {
    let client: any HTTPTimerClient
    let handle = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var armedDeadline: UInt64?
    /// The server outlives its timers.
    private unowned(unsafe) var server: HTTPServer!

    init(_ client: any HTTPTimerClient) {
      self.client = client
    }

    deinit { handle.deallocate() }

    /// The server holds its client timers as long as their handles are open.
    func initialize(on loop: UnsafeMutablePointer<uv_loop_t>, server: HTTPServer) {
      self.server = server
      uv_timer_init(loop, handle)
      handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    func arm() {
      let deadline = client.nextDeadline
      guard deadline != armedDeadline else { return }
      armedDeadline = deadline
      guard let deadline else {
        uv_timer_stop(handle)
        return
      }
      let now = uv_now(handle.pointee.loop)
      uv_timer_start(
        handle,
        { handle in
          let timer = Unmanaged<ClientTimer>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
          timer.armedDeadline = nil
          timer.client.timerFired(now: uv_now(handle!.pointee.loop))
          timer.arm()
          timer.server.deliverLateResponses()
        }, deadline > now ? deadline - now : 0, 0)
    }
  }

  // MARK: Connections

  private func connectionArrived(status: Int32) {
    guard status == 0 else {
      logger.warning("accept.failed", metadata: ["error": "\(errorName(status))"])
      return
    }
    guard connections.count < configuration.maxConnections else {
      // libuv stops polling the listener until we accept: one arrival, at most one reclaimed.
      acceptPending = true
      reclaimIdleConnection { _ in true }
      return
    }
    accept()
  }

  private func accept() {
    acceptPending = false
    let connection = Connection(server: self)
    guard uv_accept(cuv_stream(listener), cuv_stream(connection.tcp)) == 0 else {
      connection.abort()
      return
    }
    connections[ObjectIdentifier(connection)] = connection
    guard let peer = PeerAddress(of: connection.tcp) else { return connection.abort() }
    connection.peer = peer
    let fromPeer = connectionsPerAddress[peer, default: 0] + 1
    connectionsPerAddress[peer] = fromPeer
    guard
      fromPeer <= configuration.maxConnectionsPerAddress
        || reclaimIdleConnection(where: { $0.peer == peer && $0 !== connection })
    else {
      return connection.start(
        refusing: HTTPError(
          .serviceUnavailable,
          "this address has \(configuration.maxConnectionsPerAddress) connections open, "
            + "all busy; retry when one closes"))
    }
    connection.start()
  }

  /// Closes the first idle connection among those `included`, in the order of
  /// `IdleConnections`; false if all of them are busy with requests.
  @discardableResult
  private func reclaimIdleConnection(where included: (Connection) -> Bool) -> Bool {
    guard let idle = idleConnections.first(where: included) else { return false }
    idle.abort()
    return true
  }

  /// Called when a connection begins to close: it no longer counts against its address, and
  /// cannot be chosen to make room. Its descriptor counts until `connectionDidClose`.
  func connectionIsClosing(_ connection: Connection) {
    idleConnections.place(connection, as: nil)
    if let peer = connection.peer {
      let remaining = connectionsPerAddress[peer, default: 1] - 1
      connectionsPerAddress[peer] = remaining == 0 ? nil : remaining
    }
  }

  /// Called once both of a connection's handles are closed.
  func connectionDidClose(_ connection: Connection) {
    connections[ObjectIdentifier(connection)] = nil
    if acceptPending, case .running = state { accept() }
    if case .draining = state, connections.isEmpty { finishShutdown() }
  }

  // MARK: Shutdown

  private func beginShutdown(signal number: Int32?) {
    switch state {
    case .running:
      state = .draining
      logger.info(
        "shutdown.begin",
        metadata: [
          "signal": "\(number.map(signalName) ?? "none")",
          "connections": .stringConvertible(connections.count),
        ])
      uv_close(cuv_handle(listener), nil)
      uv_timer_start(
        graceTimer, { timer in HTTPServer.from(timer).graceExpired() }, configuration.shutdownGrace,
        0)
      for connection in connections.values { connection.quiesce() }
      responder.serverIsDraining()
      deliverLateResponses()
      if connections.isEmpty { finishShutdown() }
    case .draining:
      guard let number else { return }
      logger.warning("shutdown.forced", metadata: ["signal": "\(signalName(number))"])
      state = .aborted(status: 128 + number)
      uv_stop(loop)
    case .idle, .stopped, .aborted:
      break
    }
  }

  private func graceExpired() {
    logger.warning(
      "shutdown.grace_expired", metadata: ["connections": .stringConvertible(connections.count)])
    for connection in connections.values { connection.abort() }
  }

  private func finishShutdown() {
    state = .stopped
    closeAuxiliaryHandles()
  }

  private func closeServerHandles() {
    uv_close(cuv_handle(listener), nil)
    closeAuxiliaryHandles()
  }

  private func closeAuxiliaryHandles() {
    wakeupIsOpen.withLock { $0 = false }
    for handle in auxiliaryHandles { uv_close(handle, nil) }
  }

  /// The handles besides the listener that keep the loop alive until shutdown completes.
  private var auxiliaryHandles: [UnsafeMutablePointer<uv_handle_t>?] {
    [cuv_handle(wakeup), cuv_handle(graceTimer), cuv_handle(turnEnd), cuv_handle(nextTurn)]
      + clientTimers.map { cuv_handle($0.handle) }
      + signals.map { cuv_handle($0) }
  }

  // MARK: C plumbing

  /// The server a handle belongs to: every libuv handle begins with its `data` field.
  static func from(_ handle: UnsafeMutableRawPointer?) -> HTTPServer {
    let data = handle!.load(as: UnsafeMutableRawPointer.self)
    return Unmanaged<HTTPServer>.fromOpaque(data).takeUnretainedValue()
  }

  private func resolve(_ host: String, port: Int, into address: inout sockaddr_storage)
    throws(ServerError)
  {
    let name = host == "localhost" ? "127.0.0.1" : host
    let found = withUnsafeMutablePointer(to: &address) { pointer in
      let asIPv4 = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
        uv_ip4_addr(name, Int32(port), $0)
      }
      guard asIPv4 != 0 else { return true }
      return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
        uv_ip6_addr(name, Int32(port), $0)
      } == 0
    }
    guard found else { throw ServerError(message: "'\(host)' is not an IPv4 or IPv6 address") }
  }

  private func check(_ status: Int32, _ what: @autoclosure () -> String) throws(ServerError) {
    guard status == 0 else { throw ServerError(message: "\(what()): \(errorName(status))") }
  }
}

/// Why the server could not start.
public struct ServerError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// libuv's name for an error code, such as `EADDRINUSE`.
func errorName(_ status: Int32) -> String {
  String(cString: uv_err_name(status))
}

/// `SIGTERM` for 15: the signals the server handles by name, others by number.
func signalName(_ number: Int32) -> String {
  switch number {
  case SIGTERM: "SIGTERM"
  case SIGINT: "SIGINT"
  default: "\(number)"
  }
}
