import Foundation
import HTTPCore
import Logging
import Synchronization
import Testing

@testable import HTTPServer

/// A server on port 0 running its loop on a thread of its own, for one test.
final class LiveServer: @unchecked Sendable {
  let server: HTTPServer
  let port: Int
  private let finished = DispatchSemaphore(value: 0)
  private var status: Int32 = -1

  init(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    responder: any HTTPResponder = TestResponder(), clientMemory: (any HTTPClientMemory)? = nil
  ) throws {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configuration.handlesSignals = false
    configuration.shutdownGrace = 1_000
    configuration.connection.lingerTimeout = 500
    configure(&configuration)
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    server = HTTPServer(
      configuration: configuration, responder: responder, clientMemory: clientMemory,
      logger: logger)
    port = try server.start()
    let thread = Thread { [self] in
      status = server.run()
      finished.signal()
    }
    thread.start()
  }

  /// Shuts the server down gracefully and returns `run()`'s status, or nil if it took
  /// longer than `seconds`.
  func stop(within seconds: Double = 5) -> Int32? {
    server.requestShutdown()
    return finished.wait(timeout: .now() + seconds) == .success ? status : nil
  }

  func connect(from source: String? = nil, receiveBuffer: Int32? = nil) -> RawClient {
    RawClient(port: port, from: source, receiveBuffer: receiveBuffer)
  }

  /// A request on a fresh connection: the control that shows the server still serves others.
  func freshRequestSucceeds() -> Bool {
    let client = connect()
    client.send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    return client.readUntilClosed().hasPrefix("HTTP/1.1 200 OK\r\n")
  }
}

/// Answers `/health`, `/echo` (the body back), `/big` (1 MiB) and `/slow` (after 300 ms);
/// defers `/later` until a `/release` (or the server's shutdown), and counts the deferred
/// requests whose clients left (`/abandoned`). `/stream` streams: `start` at once, `beat`
/// every 100 ms of quiet, then what `/publish` (`tick`) and `/flood` (4 pieces of 16 KiB)
/// send to every stream, until `/end` or the shutdown (`bye`); a client that falls behind is
/// sent `behind`. `/niceness` is answered from work off the loop: the nice values of the
/// worker thread that ran it and of the loop's thread, `worker/loop`. `/turn` answers how many
/// turns the loop has ended.
final class TestResponder: HTTPResponder, @unchecked Sendable {
  private var turns = 0
  private var streams: [UInt64] = []
  private var waiting: [UInt64] = []
  private var ready: [LateResponse] = []
  private var offLoop: [OffLoopWork] = []
  private var abandonedCount = 0
  /// Requests answered after a number of turns (`/putoff`), and the turns left for each.
  private var putOff: [(exchange: UInt64, turnsLeft: Int)] = []

  func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
    switch request.path {
    case "/later":
      waiting.append(context.exchange)
      return nil
    case "/niceness":
      let workerNiceness = Mutex(Int32(0))
      offLoop.append(
        OffLoopWork(
          run: { workerNiceness.withLock { $0 = Self.threadNiceness() } },
          finish: { [self] in
            let answer = "\(workerNiceness.withLock { $0 })/\(Self.threadNiceness())"
            ready.append(
              LateResponse(
                exchange: context.exchange,
                response: HTTPResponse(status: .ok, contentType: "text/plain", body: answer)))
          }))
      return nil
    case "/stream":
      streams.append(context.exchange)
      ready.append(
        LateResponse(
          exchange: context.exchange,
          part: .streamHead(
            HTTPStream(
              head: HTTPResponse(status: .ok, contentType: "text/plain", body: "start\n"),
              heartbeat: Array("beat\n".utf8), heartbeatInterval: 100,
              farewell: Array("behind\n".utf8)))))
      return nil
    case "/publish":
      ready += streams.map { LateResponse(exchange: $0, part: .streamPiece(Array("tick\n".utf8))) }
      return HTTPResponse(status: .ok, contentType: "text/plain", body: "\(streams.count)")
    case "/flood":
      let piece = [UInt8](repeating: UInt8(ascii: "f"), count: 16_384)
      for _ in 0..<4 {
        ready += streams.map { LateResponse(exchange: $0, part: .streamPiece(piece)) }
      }
      return HTTPResponse(status: .ok)
    case "/end":
      endStreams(with: nil)
      return HTTPResponse(status: .ok)
    case "/release":
      release("late")
      return HTTPResponse(status: .ok, contentType: "text/plain", body: "released")
    case "/turn":
      return HTTPResponse(status: .ok, contentType: "text/plain", body: "\(turns)")
    case "/putoff":
      putOff.append((context.exchange, 1_000))
      return nil
    case "/abandoned":
      return HTTPResponse(status: .ok, contentType: "text/plain", body: "\(abandonedCount)")
    case "/echo":
      return HTTPResponse(status: .ok, body: request.body)
    case "/big":
      return HTTPResponse(status: .ok, body: Self.big)
    case "/slow":
      usleep(300_000)
      return HTTPResponse(status: .ok, contentType: "text/plain", body: "slow")
    case "/readyz":
      return HTTPResponse(status: context.isDraining ? .serviceUnavailable : .ok)
    default:
      return HTTPResponse(status: .ok, contentType: "application/json", body: #"{"status":"ok"}"#)
    }
  }

  private func release(_ text: String) {
    ready += waiting.map {
      LateResponse(
        exchange: $0,
        response: HTTPResponse(status: .ok, contentType: "text/plain", body: text))
    }
    waiting = []
  }

  /// `/big`'s body: 8 MiB of letters in a cycle of 23, which no part of a power of two
  /// repeats, so that a part out of place shows.
  static let big: [UInt8] = {
    var bytes = (0..<23).map { UInt8(ascii: "a") + UInt8($0) }
    while bytes.count < 8 << 20 { bytes += bytes }  // whole cycles, doubled
    return Array(bytes.prefix(8 << 20))
  }()

  func turnEnded() {
    turns += 1
    for index in putOff.indices { putOff[index].turnsLeft -= 1 }
    for done in putOff where done.turnsLeft == 0 {
      ready.append(
        LateResponse(
          exchange: done.exchange,
          response: HTTPResponse(status: .ok, contentType: "text/plain", body: "\(turns)")))
    }
    putOff.removeAll { $0.turnsLeft == 0 }
  }

  var hasPutOffWork: Bool { !putOff.isEmpty }

  func takeLateResponses() -> [LateResponse] {
    defer { ready = [] }
    return ready
  }

  func takeOffLoopWork() -> [OffLoopWork] {
    defer { offLoop = [] }
    return offLoop
  }

  /// The calling thread's nice value (on Linux, `getpriority` of 0 is the calling thread).
  private static func threadNiceness() -> Int32 {
    getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
  }

  private func endStreams(with last: String?) {
    for exchange in streams {
      if let last {
        ready.append(LateResponse(exchange: exchange, part: .streamPiece(Array(last.utf8))))
      }
      ready.append(LateResponse(exchange: exchange, part: .streamEnd))
    }
    streams = []
  }

  func abandoned(exchange: UInt64) {
    streams.removeAll { $0 == exchange }
    waiting.removeAll { $0 == exchange }
    ready.removeAll { $0.exchange == exchange }
    abandonedCount += 1
  }

  func serverIsDraining() {
    endStreams(with: "bye\n")
    release("drained")
  }
}

/// A blocking TCP client that sends exactly the bytes it is given. Sendable: its only state is
/// its socket, and a test has one thread at a time use it.
final class RawClient: @unchecked Sendable {
  let fd: Int32
  /// Bytes received past the last response `readResponse` returned: the start of the next.
  private var unread: [UInt8] = []

  /// Connects to 127.0.0.1 at `port`, from the loopback address `source` if one is given
  /// (every 127.x.y.z is this machine), so that a test can be several clients.
  ///
  /// With `receiveBuffer`, the kernel holds at most about that many bytes it has not read
  /// (set before connecting, so that the window it offers is that small).
  init(port: Int, from source: String? = nil, receiveBuffer: Int32? = nil) {
    // Close-on-exec: a test that starts a process must not hand it this socket.
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    if var receiveBuffer {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
    }
    if let source {
      var local = Self.address(source, port: 0)
      let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      precondition(bound == 0, "bind to \(source) failed: \(errno)")
    }
    var address = Self.address("127.0.0.1", port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    precondition(connected == 0, "connect failed: \(errno)")
    setTimeout(seconds: 5)
  }

  private static func address(_ ipv4: String, port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(ipv4)
    return address
  }

  deinit { close(fd) }

  func setTimeout(seconds: Double) {
    var timeout = timeval(
      tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  @discardableResult
  func send(_ text: String) -> Bool { send(Array(text.utf8)) }

  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  /// Everything until the server closes (or the timeout passes), as text.
  func readUntilClosed() -> String {
    String(decoding: readBytesUntilClosed(), as: UTF8.self)
  }

  func readBytesUntilClosed() -> [UInt8] { readBytes(until: { _ in false }) }

  /// Whether the server closed the connection: EOF within the timeout.
  func serverClosed() -> Bool {
    var byte: UInt8 = 0
    return unread.isEmpty && recv(fd, &byte, 1, 0) == 0
  }

  /// One response: its head and as much body as its Content-Length says. What arrived after
  /// it (pipelined answers can come in one packet) is kept for the next read.
  func readResponse() -> String {
    var end: Int?
    let bytes = readBytes { bytes in
      end = Self.endOfResponse(in: bytes)
      return end != nil
    }
    let whole = end ?? bytes.count
    unread = Array(bytes[whole...])
    return String(decoding: bytes[..<whole], as: UTF8.self)
  }

  /// Where the first response in `bytes` ends, if all of it is there.
  private static func endOfResponse(in bytes: [UInt8]) -> Int? {
    let separator = Array("\r\n\r\n".utf8)
    guard
      let headEnd = bytes.indices.dropLast(3).first(where: {
        bytes[$0..<$0 + 4].elementsEqual(separator)
      })
    else { return nil }
    let length =
      String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\r\n")
      .first { $0.lowercased().hasPrefix("content-length:") }
      .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
    let end = headEnd + 4 + length
    return bytes.count >= end ? end : nil
  }

  /// What arrives until `marker` has (or the server closes, or the timeout passes), as text.
  func read(through marker: String) -> String {
    String(
      decoding: readBytes { String(decoding: $0, as: UTF8.self).contains(marker) }, as: UTF8.self)
  }

  /// Sends `request` and reads its response: the status code (nil if none came).
  func status(of request: String) -> Int? {
    send(request)
    return statusCode(readResponse())
  }

  /// Half-closes: the server sees EOF, and can still answer.
  func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

  /// Closes with a reset (SO_LINGER 0) instead of a FIN.
  func reset() {
    var linger = Foundation.linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Foundation.linger>.size))
    shutdown(fd, Int32(SHUT_RDWR))
  }

  private func readBytes(until complete: ([UInt8]) -> Bool) -> [UInt8] {
    var bytes = unread
    unread = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while !complete(bytes) {
      let count = recv(fd, &chunk, chunk.count, 0)
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return bytes
  }
}

/// Open sockets of this process whose local port is `port`: a server's listener and accepted
/// connections.
///
/// Read from /proc/net/tcp and tcp6; sockets in TIME_WAIT belong to no process (inode 0), and
/// another process's (a test run beside this one) are not this server's: neither is counted.
/// Tests in other suites run alongside in this process, and a client of theirs may be given
/// `port` as its own ephemeral port: a socket whose peer is another listener is theirs.
func openSockets(onPort port: Int) -> Int {
  let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  let ownInodes = Set(
    descriptors.compactMap { descriptor -> Substring? in
      guard
        let target = try? FileManager.default.destinationOfSymbolicLink(
          atPath: "/proc/self/fd/\(descriptor)"),
        target.hasPrefix("socket:[")
      else { return nil }
      return Substring(target.dropFirst("socket:[".count).dropLast())
    })
  /// Local port, remote port, state and inode of every socket.
  let sockets = ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { table in
    let lines = (try? String(contentsOfFile: table, encoding: .utf8))?.split(separator: "\n") ?? []
    return lines.dropFirst().compactMap {
      line -> (local: Int, remote: Int, state: Substring, inode: Substring)? in
      let fields = line.split(separator: " ")
      guard fields.count > 9,
        let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
        let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
      else { return nil }
      return (local, remote, fields[3], fields[9])
    }
  }
  let listeners = Set(sockets.filter { $0.state == "0A" }.map(\.local))
  return sockets.filter { socket in
    socket.local == port && ownInodes.contains(socket.inode) && !listeners.contains(socket.remote)
  }.count
}

/// Whether `text` is exactly one response: a head and the body its Content-Length announces.
func isSingleResponse(_ text: String) -> Bool {
  let bytes = Array(text.utf8)
  guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: Array("\r\n\r\n".utf8)) })
  else { return false }
  let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
  let length =
    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
    .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
  return bytes.count == end + 4 + length
}

/// The status code of a raw response.
func statusCode(_ response: String) -> Int? {
  guard response.hasPrefix("HTTP/1.1 ") else { return nil }
  return Int(response.dropFirst(9).prefix(3))
}

/// A hostile client on a thread of its own: it holds `sockets` connections that never send a
/// byte, and keeps replacing the oldest with a new one until stopped.
final class Cycler: @unchecked Sendable {
  private let full = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var stopping = false

  init(port: Int, sockets: Int) {
    Thread { [self] in
      var open: [RawClient] = []
      open.reserveCapacity(sockets)
      while !lock.withLock({ stopping }) {
        open.append(RawClient(port: port))
        if open.count == sockets { full.signal() }
        if open.count > sockets { open.removeFirst() }
      }
      open.removeAll()
      done.signal()
    }.start()
  }

  func waitUntilFull() { full.wait() }

  /// Closes every socket and returns once they are closed.
  func stop() {
    lock.withLock { stopping = true }
    done.wait()
  }
}

/// What the server counts as held for clients, read from the test's thread: a budget with room
/// for everything.
final class CountingMemory: HTTPClientMemory, @unchecked Sendable {
  private let counted = Mutex(0)

  var bytes: Int { counted.withLock { $0 } }

  func hasRoom(for bytes: Int) -> Bool { true }

  func count(_ delta: Int) { counted.withLock { $0 += delta } }

  /// Whether `condition` holds of the count within `seconds`, as the server's thread gets to it.
  func reaches(within seconds: Double = 5, _ condition: (Int) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition(bytes) {
      guard Date() < deadline else { return false }
      usleep(5_000)
    }
    return true
  }
}
