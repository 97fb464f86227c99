import Foundation
import HTTPCore
import Logging
import Synchronization
import Testing

@testable import HTTPServer

/// Framing, limits, slow and silent clients, faults and shutdown against a real libuv loop on
/// port 0, over real sockets. Serialized so that slow-client tests do not compete for the CPU.
@Suite(.serialized) struct LiveServerTests {
  static let get = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n"

  /// Runs `body` against a fresh server; afterwards the server must stop cleanly (status 0, so
  /// `uv_loop_close` found every handle closed) and leave no socket open on its port.
  func withServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    _ body: (LiveServer) throws -> Void
  ) throws {
    let live = try LiveServer(configure)
    #expect(openSockets(onPort: live.port) >= 1)  // its listener: the count sees this server
    try body(live)
    #expect(live.stop() == 0)
    #expect(openSockets(onPort: live.port) == 0)
  }

  @Test func getWithKeepAliveThenAnotherOnTheSameConnection() throws {
    try withServer { live in
      let client = live.connect()
      client.send(Self.get)
      let first = client.readResponse()
      #expect(first.hasPrefix("HTTP/1.1 200 OK\r\nDate: "))
      #expect(
        first.hasSuffix(
          "\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}"))
      #expect(client.status(of: Self.get) == 200)
    }
  }

  @Test(arguments: [
    (
      "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n",
      400
    ),
    ("GET / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: t\r\nX-Abc: \rxTransfer-Encoding: chunked\r\n\r\n", 400),
    ("GET / HTTP/1.1\nHost: t\n\n", 400),
    ("GET / HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxxYY0\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 4, 5\r\n\r\nbody", 400),
    ("GET / HTTP/9.9\r\nHost: t\r\n\r\n", 505),
    ("GET / HTTP/1.1\r\n\r\n", 400),
    ("GET /a b HTTP/1.1\r\nHost: t\r\n\r\n", 400),
    ("CONNECT t:443 HTTP/1.1\r\nHost: t\r\n\r\n", 501),
  ])
  func smugglingCorpusIsRefusedAndClosed_A(request: String, status: Int) throws {
    try withServer { live in
      let client = live.connect()
      client.send(request)
      let response = client.readUntilClosed()
      #expect(statusCode(response) == status)
      #expect(response.contains("\r\nConnection: close\r\n"))
      #expect(isSingleResponse(response), "exactly one response")
      #expect(live.freshRequestSucceeds())
    }
  }

  /// A connection that sends only CRLFs once made the server keep every byte (2 GB in
  /// seconds): now it is answered 400 after the bound and closed, having sent 1 MiB of them.
  @Test func floodOfEmptyLinesIsRefusedAndClosed() throws {
    try withServer { live in
      let client = live.connect()
      client.send(String(repeating: "\r\n", count: 524_288))
      let response = client.readUntilClosed()
      #expect(statusCode(response) == 400)
      #expect(response.hasSuffix(#""detail":"more than 16 empty lines before a request line"}"#))
      #expect(live.freshRequestSucceeds())
    }
  }

  @Test func pipelinedRequestsAreAnsweredInOrder() throws {
    try withServer { live in
      let client = live.connect()
      client.send(
        "GET /1 HTTP/1.1\r\nHost: t\r\n\r\nPOST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"
          + "GET /3 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
      let responses = client.readUntilClosed().components(separatedBy: "HTTP/1.1 200 OK")
        .dropFirst()
      #expect(responses.count == 3)
      #expect(responses.dropFirst().first?.hasSuffix("\r\n\r\nabc") == true)
    }
  }

  @Test func requestSentOneByteAtATimeIsServed() throws {
    try withServer { live in
      let client = live.connect()
      for byte in "GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8 {
        client.send([byte])
        usleep(2_000)
      }
      #expect(statusCode(client.readUntilClosed()) == 200)
    }
  }

  @Test func garbageAfterAValidRequestGets400AndClose() throws {
    try withServer { live in
      let client = live.connect()
      client.send(Self.get + "garbage\r\n\r\n")
      let response = client.readUntilClosed()
      #expect(response.hasPrefix("HTTP/1.1 200 OK"))
      #expect(response.contains("HTTP/1.1 400 Bad Request"))
    }
  }

  @Test func expectContinueIsAnsweredBeforeTheBody() throws {
    try withServer { live in
      let client = live.connect()
      client.send(
        "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
      #expect(client.readResponse() == "HTTP/1.1 100 Continue\r\n\r\n")
      client.send("hi")
      #expect(client.readResponse().hasSuffix("\r\n\r\nhi"))
    }
  }

  // MARK: B. Size limits

  @Test func hugeHeaderIs431() throws {
    try withServer { live in
      let client = live.connect()
      client.send(
        "GET / HTTP/1.1\r\nHost: t\r\nX: \(String(repeating: "a", count: 100_000))\r\n\r\n")
      #expect(statusCode(client.readUntilClosed()) == 431)
      #expect(live.freshRequestSucceeds())
    }
  }

  @Test func longRequestLineIs414() throws {
    try withServer { live in
      let client = live.connect()
      client.send("GET /\(String(repeating: "a", count: 9 * 1024)) HTTP/1.1\r\nHost: t\r\n\r\n")
      #expect(statusCode(client.readUntilClosed()) == 414)
    }
  }

  @Test func tooManyHeadersIs431() throws {
    try withServer { live in
      let client = live.connect()
      client.send(
        "GET / HTTP/1.1\r\nHost: t\r\n" + (0...100).map { "X-\($0): v\r\n" }.joined() + "\r\n")
      #expect(statusCode(client.readUntilClosed()) == 431)
    }
  }

  @Test func oversizedBodyGets413AndTheClientSeesIt() throws {
    try withServer { live in
      let client = live.connect()
      let head = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n"
      client.send(Array(head.utf8) + Array(repeating: UInt8(ascii: "x"), count: 2_000_000))
      #expect(statusCode(client.readUntilClosed()) == 413)
      #expect(live.freshRequestSucceeds())
    }
  }

  @Test func bodyAtExactlyTheLimitIsAccepted() throws {
    try withServer { live in
      let client = live.connect()
      let head =
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\nConnection: close\r\n\r\n"
      client.send(Array(head.utf8) + Array(repeating: UInt8(ascii: "y"), count: 1_048_576))
      let response = client.readUntilClosed()
      #expect(statusCode(response) == 200)
      #expect(response.utf8.count > 1_048_576)
    }
  }

  @Test func shortBodyTimesOutWith408() throws {
    try withServer({ $0.connection.bodyTimeout = 200 }) { live in
      let client = live.connect()
      client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n12345")
      #expect(statusCode(client.readUntilClosed()) == 408)
    }
  }

  @Test func thousandthRequestOnAConnectionClosesIt() throws {
    try withServer { live in
      let client = live.connect()
      for index in 1...1000 {
        client.send(Self.get)
        let response = client.readResponse()
        guard statusCode(response) == 200 else {
          Issue.record("request \(index): \(response)")
          return
        }
        #expect(response.contains("Connection: close") == (index == 1000))
      }
      #expect(client.serverClosed())
    }
  }

  // MARK: C. Slow clients

  @Test func silentConnectionIsClosedAfterTheHeaderTimeout() throws {
    try withServer({ $0.connection.headerTimeout = 200 }) { live in
      let client = live.connect()
      #expect(client.readUntilClosed() == "")
    }
  }

  @Test func slowlorisGets408AtTheHeaderTimeoutFromTheFirstByte() throws {
    try withServer({ $0.connection.headerTimeout = 400 }) { live in
      let client = live.connect()
      let started = Date()
      client.send("GET / HTTP/1.1\r\n")
      for _ in 0..<5 {
        usleep(100_000)
        client.send("X")
      }
      let response = client.readUntilClosed()
      #expect(statusCode(response) == 408)
      #expect(Date().timeIntervalSince(started) < 1.5)
    }
  }

  @Test func manySlowlorisConnectionsDoNotStarveOthers() throws {
    try withServer({ $0.connection.headerTimeout = 1_000 }) { live in
      let slow = (0..<200).map { _ in live.connect() }
      for client in slow { client.send("GET / HTTP/1.1\r\n") }
      for _ in 0..<5 {
        let started = Date()
        #expect(live.freshRequestSucceeds())
        #expect(Date().timeIntervalSince(started) < 1)
      }
      for client in slow { #expect(statusCode(client.readUntilClosed()) == 408) }
    }
  }

  @Test func idleKeepAliveConnectionIsClosed() throws {
    try withServer({ $0.connection.keepAliveTimeout = 200 }) { live in
      let client = live.connect()
      #expect(client.status(of: Self.get) == 200)
      #expect(client.serverClosed())
    }
  }

  /// The keep-alive allowance runs from when a response is written, not from when the bytes
  /// that asked for it arrived: a slow response (300 ms, past the 200 ms allowance) leaves the
  /// connection open for the next request.
  @Test func keepAliveAllowanceStartsAfterASlowResponse() throws {
    try withServer({ $0.connection.keepAliveTimeout = 200 }) { live in
      let client = live.connect()
      client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
      #expect(statusCode(client.readResponse()) == 200)
      usleep(50_000)
      #expect(client.status(of: Self.get) == 200)
    }
  }

  @Test func readerThatNeverReadsIsDroppedAfterTheSendTimeout() throws {
    try withServer({ $0.connection.sendTimeout = 300 }) { live in
      let client = live.connect()
      client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
      usleep(800_000)
      #expect(live.server.connectionCount == 0)
      #expect(live.freshRequestSucceeds())
    }
  }

  /// An answer the client does not read is held for it, and counted as such, until it goes
  /// out or the connection closes (here at the send timeout); the server serves others
  /// meanwhile and reads nothing more of this client's.
  @Test func anAnswerTheClientDoesNotReadIsCountedUntilItGoes() throws {
    let memory = CountingMemory()
    let live = try LiveServer({ $0.connection.sendTimeout = 1_000 }, clientMemory: memory)
    let client = live.connect(receiveBuffer: 4096)
    client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(memory.reaches { $0 > 4 << 20 })  // most of the 8 MiB the kernel has no room for
    #expect(live.freshRequestSucceeds())
    #expect(memory.bytes > 4 << 20)
    #expect(memory.reaches { $0 == 0 })
    #expect(live.server.connectionCount == 0)
    _ = client
    #expect(live.stop() == 0)
  }

  /// An answer too large to go out at once is copied and written a part at a time as the
  /// client reads (`Connection.writePartBytes`): a client reading through a small window gets
  /// it whole and in order, then the answer to the request it sent next, and nothing stays
  /// counted.
  @Test func aLargeAnswerGoesOutAPartAtATimeWholeAndInOrder() throws {
    let memory = CountingMemory()
    let live = try LiveServer(clientMemory: memory)
    let client = live.connect(receiveBuffer: 4096)
    client.send(
      "GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    )
    let responses = client.readUntilClosed().components(separatedBy: "HTTP/1.1 200 OK\r\n")
    #expect(responses.count == 3)
    let big = responses.dropFirst().first?.components(separatedBy: "\r\n\r\n").last
    #expect(big.map { Array($0.utf8) == TestResponder.big } == true)
    #expect(responses.last?.hasSuffix(#"{"status":"ok"}"#) == true)
    #expect(memory.reaches { $0 == 0 })
    #expect(live.stop() == 0)
  }

  /// Large answers to several clients at once go out a turn's share at a time
  /// (`WritePacing`): the parts that find a turn's room taken wait for the next turns. Each
  /// answer comes whole and in order, a request sent meanwhile is answered, and nothing stays
  /// counted.
  @Test func largeAnswersToManyAtOnceGoOutATurnsShareAtATime() throws {
    let memory = CountingMemory()
    let live = try LiveServer(clientMemory: memory)
    let busy = holdTheLoop(live)
    let clients = (0..<4).map { _ in live.connect() }
    let probe = live.connect()
    for client in clients {
      client.send("GET /big HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    }
    probe.send(Self.get)
    let answers = Mutex([[UInt8]](repeating: [], count: clients.count))
    DispatchQueue.concurrentPerform(iterations: clients.count) { index in
      let answer = clients[index].readBytesUntilClosed()
      answers.withLock { $0[index] = answer }
    }
    for answer in answers.withLock({ $0 }) {
      #expect(answer.starts(with: "HTTP/1.1 200 OK\r\n".utf8))
      #expect(Data(answer.suffix(TestResponder.big.count)) == Data(TestResponder.big))
      #expect(answer.count - TestResponder.big.count < 200, "a head, then the body alone")
    }
    #expect(statusCode(probe.readResponse()) == 200)
    #expect(busy.readResponse().hasSuffix("slow"))
    for idle in [probe, busy] { idle.shutdownWrite() }  // an idle connection's parser counts too
    #expect(memory.reaches { $0 == 0 })
    #expect(live.stop() == 0)
  }

  /// Clients that leave while their large answers wait for a turn (`WritePacing`) leave
  /// nothing counted, and the server serves the next client.
  @Test func clientsLeavingWhileTheirLargeAnswersWaitLeaveNothingCounted() throws {
    let memory = CountingMemory()
    let live = try LiveServer(clientMemory: memory)
    let busy = holdTheLoop(live)
    for _ in 0..<8 {
      let client = live.connect(receiveBuffer: 4096)
      client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
      client.reset()
    }
    #expect(busy.readResponse().hasSuffix("slow"))
    busy.shutdownWrite()  // its idle connection's parser counts too
    #expect(live.freshRequestSucceeds())
    #expect(memory.reaches { $0 == 0 })
    #expect(live.stop() == 0)
  }

  /// Answers still waiting for a turn when the shutdown's grace ends are let go with their
  /// connections: nothing stays counted. The clients connect first, so that their requests
  /// and the shutdown arrive in the same turn, once the loop is free again: the first answer
  /// takes the turn's room, the others wait, and a grace of 0 ends at the next turn's timers,
  /// before any waiting answer resumes.
  @Test func answersWaitingForATurnWhenTheGraceEndsLeaveNothingCounted() throws {
    let memory = CountingMemory()
    let live = try LiveServer({ $0.shutdownGrace = 0 }, clientMemory: memory)
    let clients = (0..<8).map { _ in live.connect(receiveBuffer: 4096) }
    #expect(live.freshRequestSucceeds())  // every client above is accepted by now
    let busy = holdTheLoop(live)
    usleep(50_000)  // the loop is inside /slow, for 300 ms: what follows arrives in one batch
    for client in clients { client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n") }
    live.server.requestShutdown()
    #expect(busy.readResponse().hasSuffix("slow"))
    #expect(memory.reaches { $0 == 0 })
    #expect(live.stop() == 0)
  }

  // MARK: D. Connection faults

  @Test func clientResetAfterItsRequestHarmsNothing() throws {
    try withServer { live in
      for _ in 0..<20 {
        let client = live.connect()
        client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        client.reset()
      }
      #expect(live.freshRequestSucceeds())
    }
  }

  @Test func halfClosedClientStillGetsItsResponse() throws {
    try withServer { live in
      let client = live.connect()
      client.send(Self.get)
      client.shutdownWrite()
      #expect(statusCode(client.readUntilClosed()) == 200)
    }
  }

  @Test func halfCloseMidHeadClosesWithoutAResponse() throws {
    try withServer { live in
      let client = live.connect()
      client.send("GET / HTTP/1.1\r\nHo")
      client.shutdownWrite()
      #expect(client.readUntilClosed() == "")
    }
  }

  @Test func connectionThePeerClosesIsFreedWithoutLingering() throws {
    try withServer({ $0.connection.lingerTimeout = 5_000 }) { live in
      let client = live.connect()
      #expect(client.status(of: Self.get) == 200)
      client.shutdownWrite()
      #expect(client.serverClosed())
      usleep(100_000)
      #expect(live.server.connectionCount == 0)
    }
  }

  @Test func thousandsOfEmptyConnectionsLeaveNothingBehind() throws {
    try withServer { live in
      for _ in 0..<2_000 { _ = live.connect() }
      #expect(live.freshRequestSucceeds())
    }
  }

  // MARK: E. Resources

  /// Each turn is counted by how long it worked: a responder that holds the loop 300 ms makes
  /// one turn longer than the last bound, and waiting for I/O counts in none.
  @Test func theLoopsTurnsAreMeasuredWithoutTheirWaits() throws {
    let live = try LiveServer()
    let client = live.connect()
    usleep(200_000)  // the loop waits: no turn works this long
    #expect(client.status(of: "GET /slow HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
    #expect(live.stop() == 0)
    let turns = live.server.loopTurns
    // Counted with the 200 ms wait, the longest would be 500 ms or the busy time 500 ms.
    #expect(turns.longestNanoseconds >= 300_000_000 && turns.longestNanoseconds < 450_000_000)
    #expect(try #require(turns.counts.last) < turns.count)
    #expect(turns.busyNanoseconds >= 300_000_000 && turns.busyNanoseconds < 450_000_000)
  }

  /// A turn is counted under every bound it is within, as a Prometheus histogram's buckets.
  @Test func turnsAreCountedUnderEveryBoundTheyAreWithin() {
    var turns = LoopTurns()
    for busy: UInt64 in [400_000, 1_500_000, 200_000_000] { turns.record(busy: busy) }
    #expect(turns.counts == [1, 1, 2, 2, 2, 2, 2, 2])
    #expect(turns.count == 3 && turns.longestNanoseconds == 200_000_000)
    #expect(turns.busyNanoseconds == 201_900_000)
  }

  /// A client whose request (`/slow`) holds the loop for 300 ms, so that what others send
  /// meanwhile waits whole in the kernel; its answer ends in `slow`.
  func holdTheLoop(_ live: LiveServer) -> RawClient {
    let busy = live.connect()
    busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
    return busy
  }

  /// Work the responder puts off to later turns (`hasPutOffWork`) keeps the loop turning
  /// with no I/O to wake it: an answer put off for 1,000 turns comes 1,000 turns later, and
  /// the connection then serves on.
  @Test func workPutOffToLaterTurnsKeepsTheLoopTurning() throws {
    try withServer { live in
      let client = live.connect()
      client.send("GET /turn HTTP/1.1\r\nHost: t\r\n\r\nGET /putoff HTTP/1.1\r\nHost: t\r\n\r\n")
      let turns = [client.readResponse(), client.readResponse()].compactMap {
        $0.components(separatedBy: "\r\n\r\n").last.flatMap { Int($0) }
      }
      #expect(turns.count == 2 && turns[1] - turns[0] >= 1_000)
      #expect(client.status(of: "GET /health HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
    }
  }

  /// A large body is read a buffer (64 KiB) a turn of the loop, after every other connection's
  /// read: what the kernel already holds of it is not all copied and handled in one turn while
  /// the others wait. The body arrives while the loop is busy (`/slow`), so that the kernel
  /// holds it whole, and still takes a turn per buffer: `/turn` before it and after it.
  @Test func aLargeBodyIsReadABufferATurn() throws {
    try withServer { live in
      let client = live.connect()
      #expect(client.status(of: "GET /health HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
      let busy = holdTheLoop(live)
      let body = String(repeating: "b", count: 256 << 10)
      client.send(
        "GET /turn HTTP/1.1\r\nHost: t\r\n\r\n"
          + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
          + "GET /turn HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
      let responses = client.readUntilClosed().components(separatedBy: "HTTP/1.1 200 OK")
      #expect(responses.count == 4)
      let turns = [responses[1], responses[3]].compactMap {
        $0.components(separatedBy: "\r\n\r\n").last.flatMap { Int($0) }
      }
      // The first read holds the first request; four more reads bring the rest.
      #expect(turns.count == 2 && turns[1] - turns[0] >= 4)
      #expect(busy.readResponse().hasSuffix("slow"))
    }
  }

  /// Eight clients sending bodies of 512 KiB at once, while the loop is busy: more than a turn
  /// reads (`ReadPacing`), so most reads are put off to a later turn. Each body comes back
  /// whole, and a request sent meanwhile is answered.
  @Test func bodiesComingAtOnceAreReadWholeATurnsShareAtATime() throws {
    try withServer { live in
      let probe = live.connect()
      #expect(probe.status(of: "GET /turn HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
      let busy = holdTheLoop(live)
      let senders = (0..<8).map { _ in live.connect() }
      let bodies = (0..<8).map { String(repeating: "\($0)", count: 512 << 10) }
      let echoed = Mutex([String](repeating: "", count: 8))
      DispatchQueue.concurrentPerform(iterations: 9) { index in
        guard index < 8 else {
          probe.send("GET /turn HTTP/1.1\r\nHost: t\r\n\r\n")
          return
        }
        senders[index].send(
          "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(512 << 10)\r\n"
            + "Connection: close\r\n\r\n\(bodies[index])")
        let response = senders[index].readUntilClosed()
        echoed.withLock { $0[index] = response }
      }
      for (index, response) in echoed.withLock({ $0 }).enumerated() {
        #expect(response.hasPrefix("HTTP/1.1 200 OK") && response.hasSuffix(bodies[index]))
      }
      #expect(probe.readResponse().hasPrefix("HTTP/1.1 200 OK"))
      #expect(busy.readResponse().hasSuffix("slow"))
    }
  }

  @Test func connectionsBeyondTheLimitWaitWhileEveryOneIsBusy() throws {
    try withServer({ $0.maxConnections = 2 }) { live in
      let first = live.connect()
      let second = live.connect()
      for client in [first, second] {
        client.send("GET /health HTTP/1.1\r\n")  // a request begun is never cut
      }
      usleep(50_000)
      let waiting = live.connect()
      waiting.setTimeout(seconds: 0.3)
      waiting.send(Self.get)
      #expect(waiting.readResponse() == "")
      waiting.setTimeout(seconds: 5)
      first.send("Host: t\r\nConnection: close\r\n\r\n")
      #expect(statusCode(first.readUntilClosed()) == 200)
      #expect(statusCode(waiting.readResponse()) == 200)
      second.send("Host: t\r\n\r\n")
      #expect(statusCode(second.readResponse()) == 200)
    }
  }

  @Test func atTheLimitTheIdleConnectionWhoseAllowanceEndsFirstMakesRoom() throws {
    try withServer({ $0.maxConnections = 2 }) { live in
      let older = live.connect()
      #expect(older.status(of: Self.get) == 200)
      usleep(20_000)
      let newer = live.connect()
      #expect(newer.status(of: Self.get) == 200)
      let arriving = live.connect()
      arriving.setTimeout(seconds: 1)  // before the older one's keep-alive allowance ends
      #expect(arriving.status(of: Self.get) == 200)
      #expect(older.serverClosed())
      #expect(newer.status(of: Self.get) == 200)
    }
  }

  @Test func silentConnectionsMakeRoomLongBeforeTheirHeaderTimeout() throws {
    try withServer({
      $0.maxConnections = 8
      $0.connection.headerTimeout = 60_000
    }) { live in
      let silent = (0..<8).map { _ in
        usleep(5_000)  // each allowance ends a few milliseconds after the one before
        return live.connect()
      }
      let arriving = live.connect()
      arriving.setTimeout(seconds: 2)
      #expect(arriving.status(of: Self.get) == 200)
      #expect(silent[0].serverClosed())
      silent[1].setTimeout(seconds: 0.2)
      #expect(!silent[1].serverClosed())
    }
  }

  /// A client that has been served keeps its idle connection while silent ones remain to be
  /// closed, though its keep-alive allowance ends long before their header timeout.
  @Test func silentConnectionsMakeRoomBeforeAServedClientsIdleOne() throws {
    try withServer({ $0.maxConnections = 3 }) { live in
      let served = live.connect()
      #expect(served.status(of: Self.get) == 200)
      let silent = [live.connect(), live.connect()]
      let arriving = silent.map { _ in live.connect() }
      for (index, client) in arriving.enumerated() {
        client.setTimeout(seconds: 2)
        #expect(client.status(of: Self.get) == 200)
        #expect(silent[index].serverClosed())
      }
      #expect(served.status(of: Self.get) == 200)
    }
  }

  @Test func anAddressPastItsLimitIsAnswered503WhileOthersAreServed() throws {
    try withServer({ $0.maxConnectionsPerAddress = 2 }) { live in
      let busy = (0..<2).map { _ in live.connect(from: "127.0.0.2") }
      for client in busy { client.send("GET /health HTTP/1.1\r\n") }
      usleep(50_000)
      let refused = live.connect(from: "127.0.0.2")
      let detail =
        #"{"type":"about:blank","title":"Service Unavailable","status":503,"#
        + #""detail":"this address has 2 connections open, all busy; retry when one closes"}"#
      let response = refused.readUntilClosed()
      #expect(statusCode(response) == 503)
      #expect(response.contains("\r\nConnection: close\r\n"))
      #expect(response.hasSuffix("\r\n\r\n" + detail))
      let other = live.connect(from: "127.0.0.3")
      #expect(other.status(of: Self.get) == 200)
      busy[0].send("Host: t\r\n\r\n")
      #expect(statusCode(busy[0].readResponse()) == 200)
    }
  }

  @Test func anAddressAtItsLimitGivesUpItsOwnIdleConnection() throws {
    try withServer({ $0.maxConnectionsPerAddress = 2 }) { live in
      let otherIdle = live.connect(from: "127.0.0.3")  // idle longest, but another address's
      #expect(otherIdle.status(of: Self.get) == 200)
      let idle = live.connect(from: "127.0.0.2")
      #expect(idle.status(of: Self.get) == 200)
      let busy = live.connect(from: "127.0.0.2")
      busy.send("GET /health HTTP/1.1\r\n")
      usleep(50_000)
      let arriving = live.connect(from: "127.0.0.2")
      #expect(arriving.status(of: Self.get) == 200)
      #expect(idle.serverClosed())
      #expect(otherIdle.status(of: Self.get) == 200)
    }
  }

  @Test func healthAnswersNewClientsWhileThousandsOfSilentSocketsCycle() throws {
    try withServer { live in
      let cycling = Cycler(port: live.port, sockets: 2_000)
      defer { cycling.stop() }
      cycling.waitUntilFull()
      for _ in 0..<20 {
        let client = live.connect()
        client.setTimeout(seconds: 1)  // a tenth of the header timeout they would wait before
        #expect(client.status(of: Self.get) == 200)
      }
      #expect(live.server.connectionCount <= live.server.configuration.maxConnections)
    }
  }

  // MARK: F. Shutdown

  @Test func shutdownWithNoConnectionsIsQuick() throws {
    let live = try LiveServer()
    #expect(openSockets(onPort: live.port) == 1)
    let started = Date()
    #expect(live.stop() == 0)
    #expect(Date().timeIntervalSince(started) < 1)
    #expect(openSockets(onPort: live.port) == 0)
  }

  @Test func shutdownClosesIdleConnections() throws {
    let live = try LiveServer()
    let clients = (0..<10).map { _ in live.connect() }
    for client in clients {
      #expect(client.status(of: Self.get) == 200)
    }
    #expect(live.stop() == 0)
    for client in clients { #expect(client.serverClosed()) }
  }

  @Test func responseBeingWrittenAtShutdownIsDeliveredWhole() throws {
    let live = try LiveServer()
    let client = live.connect()
    client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
    usleep(100_000)
    live.server.requestShutdown()
    let response = client.readUntilClosed()
    #expect(statusCode(response) == 200)
    #expect(isSingleResponse(response))
    #expect(live.stop() == 0)
  }

  /// A shutdown asked for before the server starts, or after its loop has closed, does
  /// nothing: the loop's wakeup is not signalled when it is not there (libuv would abort).
  @Test func shutdownAskedForBeforeStartOrAfterTheEndDoesNothing() throws {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    HTTPServer(configuration: HTTPServerConfiguration(), responder: TestResponder(), logger: logger)
      .requestShutdown()
    let live = try LiveServer()
    #expect(live.stop() == 0)
    for _ in 0..<3 { live.server.requestShutdown() }  // an abort here ends the whole run
    #expect(live.server.connectionCount == 0)
  }

  @Test func stuckClientIsForceClosedAtTheGraceDeadline() throws {
    let live = try LiveServer { $0.shutdownGrace = 300 }
    let client = live.connect()
    client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
    usleep(100_000)
    let started = Date()
    #expect(live.stop() == 0)
    #expect(Date().timeIntervalSince(started) < 2)
    _ = client
  }

  @Test func requestInFlightAtShutdownIsAnsweredWithConnectionClose() throws {
    let live = try LiveServer()
    let client = live.connect()
    client.send("GET /readyz HTTP/1.1\r\n")
    usleep(50_000)
    live.server.requestShutdown()
    usleep(50_000)
    client.send("Host: t\r\n\r\n")
    let response = client.readUntilClosed()
    #expect(statusCode(response) == 503)
    #expect(response.contains("\r\nConnection: close\r\n"))
    #expect(live.stop() == 0)
  }

  // MARK: W. Deferred responses (long polls)

  static let later = "GET /later HTTP/1.1\r\nHost: t\r\n\r\n"

  @Test func aDeferredRequestIsAnsweredWhenReleasedAndItsConnectionServesOn_W1() throws {
    try withServer { live in
      let waiting = live.connect()
      waiting.send(Self.later)
      usleep(50_000)
      let other = live.connect()
      #expect(other.status(of: "GET /release HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
      let answer = waiting.readResponse()
      #expect(statusCode(answer) == 200)
      #expect(answer.hasSuffix("\r\n\r\nlate"))
      #expect(waiting.status(of: Self.get) == 200)
    }
  }

  @Test func aRequestPipelinedBehindADeferredOneIsAnsweredAfterIt_W2() throws {
    try withServer { live in
      let waiting = live.connect()
      waiting.send(Self.later + Self.get)
      usleep(50_000)
      #expect(live.connect().status(of: "GET /release HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
      let text = waiting.readResponse() + waiting.readResponse()
      #expect(text.hasSuffix(#"{"status":"ok"}"#))
      #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
      #expect(text.contains("\r\n\r\nlateHTTP/1.1 200 OK\r\n"))
    }
  }

  @Test func aClientLeavingMidWaitIsNoticedAndFreed_W3() throws {
    try withServer { live in
      for leave in [{ (client: RawClient) in client.shutdownWrite() }, { $0.reset() }] {
        let waiting = live.connect()
        waiting.send(Self.later)
        usleep(50_000)
        leave(waiting)
      }
      usleep(100_000)
      let check = live.connect()
      check.send("GET /abandoned HTTP/1.1\r\nHost: t\r\n\r\n")
      #expect(check.readResponse().hasSuffix("\r\n\r\n2"))
      #expect(live.server.connectionCount == 1)
    }
  }

  @Test func aWaitAtShutdownIsAnsweredWithConnectionClose_W4() throws {
    let live = try LiveServer()
    let waiting = live.connect()
    waiting.send(Self.later)
    usleep(50_000)
    live.server.requestShutdown()
    let answer = waiting.readUntilClosed()
    #expect(statusCode(answer) == 200)
    #expect(answer.contains("\r\nConnection: close\r\n"))
    #expect(answer.hasSuffix("drained"))
    #expect(live.stop() == 0)
    #expect(openSockets(onPort: live.port) == 0)
  }

  @Test func workOffTheLoopRunsAtALowerPriorityThanTheLoop_W5() throws {
    try withServer { live in
      let client = live.connect()
      client.send("GET /niceness HTTP/1.1\r\nHost: t\r\n\r\n")
      #expect(client.readResponse().hasSuffix("\r\n\r\n10/0"))
    }
  }

  // MARK: S. Streamed responses

  static let stream = "GET /stream HTTP/1.1\r\nHost: t\r\n\r\n"

  @Test func aStreamSendsChunksAsTheyComeThenEndsAndTheConnectionServesOn_S1() throws {
    try withServer { live in
      let watcher = live.connect()
      watcher.send(Self.stream)
      let head = watcher.read(through: "start\n\r\n")
      #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(head.contains("\r\nTransfer-Encoding: chunked\r\n"))
      #expect(head.hasSuffix("\r\n\r\n6\r\nstart\n\r\n"))
      #expect(live.connect().status(of: "GET /publish HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
      #expect(watcher.read(through: "\r\n") == "5\r\ntick\n\r\n")
      #expect(live.connect().status(of: "GET /end HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
      #expect(watcher.read(through: "0\r\n\r\n") == "0\r\n\r\n")
      #expect(watcher.status(of: Self.get) == 200)
    }
  }

  @Test func aQuietStreamSendsHeartbeats_S2() throws {
    try withServer { live in
      let watcher = live.connect()
      watcher.send(Self.stream)
      _ = watcher.read(through: "start\n\r\n")
      #expect(
        watcher.read(through: "beat\n\r\n5\r\nbeat\n\r\n") == "5\r\nbeat\n\r\n5\r\nbeat\n\r\n")
    }
  }

  /// One client reads nothing: it falls behind and is closed with the farewell, while another
  /// stream is sent every byte and the server answers others throughout.
  static let floods = 100
  /// What a stream is sent by the floods: 4 chunks of 16 KiB each, with their framing.
  static let floodBytes = floods * 4 * ("4000\r\n".utf8.count + 16_384 + 2)

  @Test func aClientThatFallsBehindIsToldAndClosedAndSlowsNoOne_S3() throws {
    try withServer { live in
      let stalled = live.connect(receiveBuffer: 4096)
      stalled.send(Self.stream)
      _ = stalled.read(through: "start\n\r\n")
      let reader = live.connect()
      reader.send(Self.stream)
      _ = reader.read(through: "start\n\r\n")
      // The reader reads each flood before the next: it never falls behind, however the
      // threads are scheduled, while the stalled client reads nothing.
      let flooder = live.connect()
      var readerBytes = 0
      var chunk = [UInt8](repeating: 0, count: 65_536)
      for flood in 1...Self.floods {
        #expect(flooder.status(of: "GET /flood HTTP/1.1\r\nHost: t\r\n\r\n") == 200)
        while readerBytes < flood * Self.floodBytes / Self.floods {
          let count = recv(reader.fd, &chunk, chunk.count, 0)
          guard count > 0 else { break }
          readerBytes += count
        }
      }
      #expect(readerBytes == Self.floodBytes)
      #expect(live.freshRequestSucceeds())
      let stalledText = stalled.readUntilClosed()
      #expect(stalledText.hasSuffix("7\r\nbehind\n\r\n0\r\n\r\n"))
      #expect(stalledText.utf8.count < Self.floodBytes)
      let check = live.connect()
      check.send("GET /abandoned HTTP/1.1\r\nHost: t\r\n\r\n")
      #expect(check.readResponse().hasSuffix("\r\n\r\n1"))
    }
  }

  @Test func aClientLeavingAStreamIsNoticedAndFreed_S4() throws {
    try withServer { live in
      let watcher = live.connect()
      watcher.send(Self.stream)
      _ = watcher.read(through: "start\n\r\n")
      watcher.reset()
      usleep(100_000)
      let check = live.connect()
      check.send("GET /publish HTTP/1.1\r\nHost: t\r\n\r\n")
      #expect(check.readResponse().hasSuffix("\r\n\r\n0"))  // no stream left to publish to
      #expect(live.server.connectionCount == 1)
    }
  }

  @Test func aStreamAtShutdownGetsItsLastPieceAndIsClosed_S5() throws {
    let live = try LiveServer()
    let watcher = live.connect()
    watcher.send(Self.stream)
    _ = watcher.read(through: "start\n\r\n")
    live.server.requestShutdown()
    #expect(watcher.readUntilClosed() == "4\r\nbye\n\r\n0\r\n\r\n")
    #expect(live.stop() == 0)
    #expect(openSockets(onPort: live.port) == 0)
  }
}
