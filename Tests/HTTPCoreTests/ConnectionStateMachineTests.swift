import Testing

@testable import HTTPCore

let date = "Sun, 22 Nov 2026 00:00:00 GMT"
/// The fields every response carries, the HTTP layer's own errors' too, as they are written.
let protective =
  "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"
  + "Cross-Origin-Resource-Policy: same-origin\r\n"

func at(_ milliseconds: UInt64) -> Moment {
  Moment(milliseconds: milliseconds, httpDate: HTTPDateText(date))
}

extension ConnectionStateMachine {
  /// Every action due now.
  mutating func actions(at milliseconds: UInt64) -> [Action] {
    var actions: [Action] = []
    while let action = nextAction(at: at(milliseconds)) { actions.append(action) }
    return actions
  }

  mutating func receive(_ text: String, at milliseconds: UInt64) -> [Action] {
    received(Array(text.utf8), now: milliseconds)
    return actions(at: milliseconds)
  }
}

func wire(_ text: String) -> ConnectionStateMachine.Action {
  .write(WireBytes(head: Array(text.utf8)))
}

let get = "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
let ok = HTTPResponse(status: .ok, contentType: "text/plain", body: "ok")
let okOnTheWire =
  "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"

/// Checklist C7: every timer path and keep-alive decision on a virtual clock, byte for byte.
@Suite struct ConnectionStateMachineTests {
  var machine = ConnectionStateMachine(now: 0)

  @Test mutating func requestResponseKeepAlive() {
    #expect(machine.deadline == 10_000)
    #expect(
      machine.receive(get, at: 5) == [
        .dispatch(
          HTTPRequest(method: "GET", target: "/", headers: HTTPFields([("Host", "a")])))
      ])
    #expect(!machine.wantsToRead)
    #expect(machine.deadline == nil)
    machine.responded(ok, at: at(6))
    #expect(machine.actions(at: 6) == [wire(okOnTheWire)])
    #expect(machine.deadline == 30_006)
    machine.writeCompleted(now: 7)
    #expect(machine.actions(at: 7) == [])
    #expect(machine.wantsToRead)
    #expect(machine.deadline == 5_007)
  }

  /// Whether a request keeps its connection, by its version and `Connection` fields (RFC 9112
  /// §9.3): the machine, which reads the fields only when the parser noted one, decides as
  /// `HTTPRequest.keepAlive`, which reads them always.
  @Test(arguments: [
    ("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close\r\n", false),
    ("HTTP/1.1", "CONNECTION: Keep-Alive, Close\r\n", false),
    ("HTTP/1.1", "Connection: upgrade\r\nConnection: close\r\n", false),
    ("HTTP/1.1", "Connection: upgrade\r\n", true), ("HTTP/1.0", "", false),
    ("HTTP/1.0", "connection: keep-alive\r\n", true),
  ])
  mutating func keepingTheConnectionFollowsTheVersionAndFields(
    version: String, fields: String, keeps: Bool
  ) {
    let request = "GET / \(version)\r\nHost: a\r\n\(fields)\r\n"
    #expect(firstRequest(request)?.keepAlive == keeps)
    _ = machine.receive(request, at: 0)
    machine.responded(ok, at: at(1))
    guard case .write(let bytes) = machine.actions(at: 1).first else {
      Issue.record("no response written")
      return
    }
    #expect(String(decoding: bytes.head, as: UTF8.self).contains("Connection: close") == !keeps)
  }

  /// A deferred response (a long poll): the machine keeps reading, to see the peer leave, and
  /// nothing times out; the late answer goes out like any other, with the next request after.
  @Test mutating func aDeferredResponseWaitsReadingWithoutADeadline() {
    _ = machine.receive(get, at: 0)
    machine.responseDeferred()
    #expect(machine.wantsToRead)
    #expect(machine.deadline == nil)
    #expect(machine.idleKind == nil)
    #expect(machine.receive(get, at: 60_000) == [])
    machine.responded(ok, at: at(90_000))
    #expect(machine.actions(at: 90_000) == [wire(okOnTheWire)])
    machine.writeCompleted(now: 90_000)
    #expect(
      machine.actions(at: 90_000) == [
        .dispatch(HTTPRequest(method: "GET", target: "/", headers: HTTPFields([("Host", "a")])))
      ])
    #expect(!machine.wantsToRead)
  }

  @Test mutating func aPeerLeavingADeferredResponseClosesAtOnce() {
    _ = machine.receive(get, at: 0)
    machine.responseDeferred()
    machine.peerClosed()
    #expect(machine.actions(at: 1) == [.close])
    #expect(machine.isClosed)
  }

  @Test mutating func idleKeepAliveConnectionClosesSilently() {
    _ = machine.receive(get, at: 0)
    machine.responded(ok, at: at(0))
    _ = machine.actions(at: 0)
    machine.writeCompleted(now: 0)
    machine.deadlineReached(at: at(4_999))
    #expect(machine.actions(at: 4_999) == [])
    machine.deadlineReached(at: at(5_000))
    #expect(machine.actions(at: 5_000) == [.linger])
    #expect(!machine.isClosed)
  }

  /// A connection is idle (the server may close it) only while no request is under way, and
  /// says how: silent since accepted, between requests, or lingering after its last response.
  @Test mutating func idleKindFollowsTheConnectionsLife() {
    #expect(machine.idleKind == .awaitingFirstRequest)
    _ = machine.receive("G", at: 1)
    #expect(machine.idleKind == nil, "a request begun is never cut")
    _ = machine.receive(String(get.dropFirst()), at: 2)
    #expect(machine.idleKind == nil)
    machine.responded(ok, at: at(3))
    _ = machine.actions(at: 3)
    #expect(machine.idleKind == nil)
    machine.writeCompleted(now: 4)
    _ = machine.actions(at: 4)
    #expect(machine.idleKind == .betweenRequests)
    _ = machine.receive("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", at: 5)
    #expect(machine.idleKind == nil)
    machine.responded(ok, at: at(6))
    _ = machine.actions(at: 6)
    machine.writeCompleted(now: 7)
    #expect(machine.actions(at: 7) == [.linger])
    #expect(machine.idleKind == .lingering)
    machine.peerClosed()
    _ = machine.actions(at: 8)
    #expect(machine.idleKind == nil)
  }

  /// After the last response the connection lingers: what the peer sends is dropped, and its
  /// EOF closes the connection (RFC 9112 §9.6).
  @Test mutating func lingeringDropsWhatThePeerSendsUntilItCloses() {
    _ = machine.receive("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", at: 0)
    machine.responded(ok, at: at(1))
    _ = machine.actions(at: 1)
    machine.writeCompleted(now: 2)
    #expect(machine.actions(at: 2) == [.linger])
    #expect(machine.wantsToRead)
    #expect(machine.deadline == 2_002)
    #expect(machine.receive(get + get, at: 3) == [])
    machine.peerClosed()
    #expect(machine.actions(at: 4) == [.close])
    #expect(machine.isClosed)
    #expect(!machine.wantsToRead)
  }

  @Test mutating func lingeringEndsAtItsDeadline() {
    var configuration = ConnectionConfiguration()
    configuration.lingerTimeout = 300
    machine = ConnectionStateMachine(configuration: configuration, now: 0)
    machine.deadlineReached(at: at(10_000))
    #expect(machine.actions(at: 10_000) == [.linger])
    #expect(machine.deadline == 10_300)
    machine.deadlineReached(at: at(10_299))
    #expect(machine.actions(at: 10_299) == [])
    machine.deadlineReached(at: at(10_300))
    #expect(machine.actions(at: 10_300) == [.close])
    #expect(machine.isClosed)
  }

  /// Nothing is left to drain once the peer has closed, and a response it does not read
  /// cannot be waited out: both close at once.
  @Test mutating func noLingerAfterThePeerClosedOrAStalledWrite() {
    _ = machine.receive(get, at: 0)
    machine.peerClosed()
    machine.responded(ok, at: at(1))
    _ = machine.actions(at: 1)
    machine.writeCompleted(now: 2)
    #expect(machine.actions(at: 2) == [.close])
    var stalled = ConnectionStateMachine(now: 0)
    _ = stalled.receive(get, at: 0)
    stalled.responded(ok, at: at(1))
    _ = stalled.actions(at: 1)
    stalled.deadlineReached(at: at(30_001))
    #expect(stalled.actions(at: 30_001) == [.close])
  }

  @Test mutating func newConnectionThatSendsNothingClosesSilently() {
    machine.deadlineReached(at: at(10_000))
    #expect(machine.actions(at: 10_000) == [.linger])
  }

  @Test mutating func trickledHeadTimesOutFromItsFirstByte() {
    _ = machine.receive("GET / HTTP/1.1\r\n", at: 1_000)
    for second in 2...10 {
      _ = machine.receive("X", at: UInt64(second) * 1_000)
      #expect(machine.deadline == 11_000)
    }
    machine.deadlineReached(at: at(11_000))
    #expect(
      machine.actions(at: 11_000) == [
        wire(
          "HTTP/1.1 408 Request Timeout\r\nDate: \(date)\r\nContent-Type: application/problem+json\r\n"
            + protective + "Content-Length: 107\r\nConnection: close\r\n\r\n"
            + #"{"type":"about:blank","title":"Request Timeout","status":408,"detail":"the request did not arrive in time"}"#
        )
      ])
    machine.writeCompleted(now: 11_001)
    #expect(machine.actions(at: 11_001) == [.linger])
  }

  @Test mutating func slowBodyIsBoundedBetweenReadsAndInTotal() {
    _ = machine.receive("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n", at: 0)
    #expect(machine.deadline == 10_000)
    for second in 1...25 {
      _ = machine.receive("x", at: UInt64(second) * 1_000)
    }
    #expect(machine.deadline == 30_000)
    machine.deadlineReached(at: at(30_000))
    guard case .write(let bytes) = machine.actions(at: 30_000).first else {
      Issue.record("no 408")
      return
    }
    #expect(
      String(decoding: bytes.joined, as: UTF8.self).hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
  }

  @Test mutating func stalledWriteIsAbandonedAfterTheSendTimeout() {
    _ = machine.receive(get, at: 0)
    machine.responded(ok, at: at(0))
    _ = machine.actions(at: 0)
    machine.deadlineReached(at: at(30_000))
    #expect(machine.actions(at: 30_000) == [.close])
  }

  @Test mutating func protocolErrorIsAnsweredThenTheConnectionCloses() {
    #expect(
      machine.receive("GET / HTTP/1.1\r\nHost: a\r\nX : y\r\n\r\n", at: 0) == [
        wire(
          "HTTP/1.1 400 Bad Request\r\nDate: \(date)\r\nContent-Type: application/problem+json\r\n"
            + protective + "Content-Length: 134\r\nConnection: close\r\n\r\n"
            + #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"a header field name is not a token (whitespace before the colon?)"}"#
        )
      ])
    #expect(!machine.wantsToRead)
    machine.writeCompleted(now: 1)
    #expect(machine.actions(at: 1) == [.linger])
  }

  /// A body the server has no room for: the machine holds its whole length from the head on,
  /// and once told, answers 503, lets go of it at once and closes.
  @Test mutating func aRequestTheServerCannotHoldIsRefusedAndLetGo() {
    #expect(
      machine.receive(
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\nxyz", at: 0) == [])
    #expect(machine.heldBytes >= 100_000)
    machine.cannotHoldRequest(at: at(1))
    #expect(machine.heldBytes == 0)
    let detail =
      "the server's memory budget has no room for this request now; send it again later"
    let body =
      #"{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"\#(detail)"}"#
    #expect(
      machine.actions(at: 1) == [
        wire(
          "HTTP/1.1 503 Service Unavailable\r\nDate: \(date)\r\n"
            + "Content-Type: application/problem+json\r\n" + protective
            + "Content-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body)
      ])
    machine.writeCompleted(now: 2)
    #expect(machine.actions(at: 2) == [.linger])
  }

  @Test mutating func clientAskingToCloseGetsConnectionClose() {
    _ = machine.receive("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", at: 0)
    machine.responded(ok, at: at(0))
    guard case .write(let bytes) = machine.actions(at: 0).first else { return }
    #expect(String(decoding: bytes.joined, as: UTF8.self).contains("\r\nConnection: close\r\n"))
    machine.writeCompleted(now: 0)
    #expect(machine.actions(at: 0) == [.linger])
  }

  @Test mutating func http10KeepAliveIsConfirmed() {
    _ = machine.receive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", at: 0)
    machine.responded(ok, at: at(0))
    guard case .write(let bytes) = machine.actions(at: 0).first else { return }
    #expect(
      String(decoding: bytes.joined, as: UTF8.self).contains("\r\nConnection: keep-alive\r\n"))
  }

  @Test mutating func headResponsesCarryTheLengthButNoBody() {
    _ = machine.receive("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", at: 0)
    machine.responded(ok, at: at(0))
    #expect(
      machine.actions(at: 0) == [
        wire(
          "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n"
        )
      ])
  }

  @Test mutating func pipelinedRequestsAreAnsweredOneAtATime() {
    let actions = machine.receive(get + "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n", at: 0)
    #expect(actions.count == 1)
    machine.responded(ok, at: at(1))
    #expect(machine.actions(at: 1) == [wire(okOnTheWire)])
    machine.writeCompleted(now: 2)
    guard case .dispatch(let second) = machine.actions(at: 2).first else {
      Issue.record("the second request was not dispatched")
      return
    }
    #expect(second.target == "/2")
  }

  /// Each response's head is written where the last one's was: bytes still held of an earlier
  /// response (a shell's pending write, a test's list) stay as they were sent.
  @Test mutating func aResponseKeepsItsHeadWhileTheNextIsWritten() {
    _ = machine.receive(get + get, at: 0)
    machine.responded(ok, at: at(1))
    let first = machine.actions(at: 1)
    machine.writeCompleted(now: 2)
    _ = machine.actions(at: 2)
    machine.responded(
      HTTPResponse(status: .notFound, contentType: "text/plain", body: "no"), at: at(3))
    let second = machine.actions(at: 3)
    #expect(first == [wire(okOnTheWire)])
    #expect(
      second == [
        wire(
          "HTTP/1.1 404 Not Found\r\nDate: \(date)\r\nContent-Type: text/plain\r\n"
            + "Content-Length: 2\r\n\r\nno")
      ])
  }

  @Test mutating func theLastAllowedRequestGetsConnectionClose() {
    var configuration = ConnectionConfiguration()
    configuration.maxRequestsPerConnection = 3
    machine = ConnectionStateMachine(configuration: configuration, now: 0)
    for request in 1...3 {
      _ = machine.receive(get, at: 0)
      machine.responded(ok, at: at(0))
      guard case .write(let bytes) = machine.actions(at: 0).first else { return }
      #expect(
        String(decoding: bytes.joined, as: UTF8.self).contains("Connection: close")
          == (request == 3))
      machine.writeCompleted(now: 0)
    }
    #expect(machine.actions(at: 0) == [.linger])
  }

  @Test mutating func halfClosedPeerStillGetsItsResponse() {
    machine.received(Array(get.utf8), now: 0)
    machine.peerClosed()
    guard case .dispatch = machine.actions(at: 0).first else { return }
    machine.responded(ok, at: at(0))
    #expect(machine.actions(at: 0) == [wire(okOnTheWire)])
    machine.writeCompleted(now: 0)
    #expect(machine.actions(at: 0) == [.close])
  }

  @Test mutating func peerClosingMidHeadClosesWithoutAResponse() {
    _ = machine.receive("GET / HT", at: 0)
    machine.peerClosed()
    #expect(machine.actions(at: 0) == [.close])
  }

  @Test mutating func expectContinueGetsA100BeforeTheBody() {
    #expect(
      machine.receive(
        "PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", at: 0)
        == [wire("HTTP/1.1 100 Continue\r\n\r\n")])
    machine.writeCompleted(now: 1)
    guard case .dispatch(let request) = machine.receive("ok", at: 2).first else {
      Issue.record("no request")
      return
    }
    #expect(request.body == Array("ok".utf8))
  }

  @Test mutating func quiescingClosesAnIdleConnectionNow() {
    machine.quiesce()
    #expect(machine.actions(at: 0) == [.linger])
  }

  @Test mutating func quiescingLetsARequestInFlightFinishWithConnectionClose() {
    _ = machine.receive(get, at: 0)
    machine.quiesce()
    machine.responded(ok, at: at(1))
    guard case .write(let bytes) = machine.actions(at: 1).first else { return }
    #expect(String(decoding: bytes.joined, as: UTF8.self).hasSuffix("Connection: close\r\n\r\nok"))
    machine.writeCompleted(now: 2)
    #expect(machine.actions(at: 2) == [.linger])
  }

  @Test mutating func quiescingLetsAPartialRequestArriveFirst() {
    _ = machine.receive("GET / HTTP/1.1\r\n", at: 0)
    machine.quiesce()
    #expect(machine.actions(at: 0) == [])
    guard case .dispatch = machine.receive("Host: a\r\n\r\n", at: 1).first else {
      Issue.record("no request")
      return
    }
  }

  @Test mutating func readingPausesWhenTooMuchIsBuffered() {
    var configuration = ConnectionConfiguration()
    configuration.maxBufferedBytes = 100
    machine = ConnectionStateMachine(configuration: configuration, now: 0)
    machine.received(Array(repeating: UInt8(ascii: "a"), count: 50), now: 0)
    #expect(machine.wantsToRead)
    machine.received(Array(repeating: UInt8(ascii: "a"), count: 50), now: 0)
    #expect(!machine.wantsToRead)
  }
}

/// Streamed responses (`HTTPStream`): exact framing, heartbeats on the virtual clock, the
/// backlog bound, and how a stream ends.
@Suite struct StreamedResponseTests {
  var machine = ConnectionStateMachine(now: 0)
  let stream = HTTPStream(
    head: HTTPResponse(status: .ok, contentType: "text/event-stream", body: "first\n"),
    heartbeat: Array(":\n\n".utf8), heartbeatInterval: 15_000, farewell: Array("bye\n".utf8))
  static let head =
    "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: text/event-stream\r\n"
    + "Transfer-Encoding: chunked\r\n\r\n"

  init() {
    _ = machine.receive(get, at: 0)
    machine.responseDeferred()
  }

  /// Starts the stream at 0 and has its head written.
  mutating func startStreaming() {
    machine.streamStarted(stream, at: at(0))
    _ = machine.actions(at: 0)
    machine.writeCompleted(now: 0)
  }

  @Test mutating func piecesGoOutAsChunksAndTheEndLetsTheConnectionServeOn() {
    machine.streamStarted(stream, at: at(1))
    #expect(machine.actions(at: 1) == [wire(Self.head + "6\r\nfirst\n\r\n")])
    #expect(machine.deadline == 30_001)  // a stalled write is given up like a response's
    let drained = machine.writeCompleted(now: 2)
    #expect(drained)  // the client has everything: the stream can take more
    #expect(machine.wantsToRead)  // to see the client leave
    #expect(machine.idleKind == nil)  // never reclaimed as idle
    let taken1 = machine.streamData(Array("0123456789abcdefg".utf8))
    #expect(taken1)
    let taken2 = machine.streamData(Array("x".utf8))
    #expect(taken2)
    #expect(machine.actions(at: 3) == [wire("11\r\n0123456789abcdefg\r\n1\r\nx\r\n")])
    machine.writeCompleted(now: 3)
    machine.streamEnded()
    let taken3 = machine.streamData(Array("late".utf8))
    #expect(!taken3)
    #expect(
      machine.actions(at: 4) == [wire("0\r\n\r\n")])
    #expect(machine.stream != nil)
    machine.writeCompleted(now: 4)
    #expect(machine.receive(get, at: 5).count == 1)  // the next request, on the same connection
    #expect(machine.stream == nil)  // its state, heartbeat and farewell let go with it
  }

  @Test mutating func aQuietStreamSendsItsHeartbeatOnTime() {
    startStreaming()
    #expect(machine.deadline == 15_000)
    machine.deadlineReached(at: at(14_999))
    #expect(machine.actions(at: 14_999) == [])
    machine.deadlineReached(at: at(15_000))
    #expect(machine.actions(at: 15_000) == [wire("3\r\n:\n\n\r\n")])
    machine.writeCompleted(now: 15_001)
    #expect(machine.deadline == 30_001)
    let taken4 = machine.streamData(Array("e".utf8))
    #expect(taken4)
    _ = machine.actions(at: 20_000)
    machine.writeCompleted(now: 20_000)
    #expect(machine.deadline == 35_000)  // counted from the last byte sent
  }

  @Test mutating func aClientThatFallsBehindGetsTheFarewellAndIsClosed() {
    var configuration = ConnectionConfiguration()
    configuration.maxStreamBacklog = 20
    machine = ConnectionStateMachine(configuration: configuration, now: 0)
    _ = machine.receive(get, at: 0)
    machine.responseDeferred()
    machine.streamStarted(stream, at: at(0))
    _ = machine.actions(at: 0)  // the head's write stays under way: the client reads nothing
    let taken5 = machine.streamData(Array("0123456789".utf8))
    #expect(taken5)  // 15 framed bytes wait
    let taken6 = machine.streamData(Array("more".utf8))
    #expect(!taken6)  // 24: behind
    let taken7 = machine.streamData(Array("after".utf8))
    #expect(!taken7)
    let drained = machine.writeCompleted(now: 1)
    #expect(!drained)  // the farewell waits
    #expect(machine.actions(at: 1) == [wire("4\r\nbye\n\r\n0\r\n\r\n")])
    machine.writeCompleted(now: 2)
    #expect(machine.actions(at: 2) == [.linger])
  }

  @Test mutating func aStreamWhoseWriteStallsIsClosed() {
    machine.streamStarted(stream, at: at(0))
    _ = machine.actions(at: 0)
    machine.deadlineReached(at: at(30_000))
    #expect(machine.actions(at: 30_000) == [.close])
  }

  @Test mutating func aClientLeavingAStreamClosesItAtOnce() {
    startStreaming()
    machine.peerClosed()
    #expect(machine.actions(at: 1) == [.close])
  }

  @Test mutating func anHTTP10StreamIsDelimitedByTheConnectionsEnd() {
    machine = ConnectionStateMachine(now: 0)
    _ = machine.receive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", at: 0)
    machine.responseDeferred()
    machine.streamStarted(stream, at: at(0))
    #expect(
      machine.actions(at: 0) == [
        wire(
          "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: text/event-stream\r\n"
            + "Connection: close\r\n\r\nfirst\n")
      ])
    machine.writeCompleted(now: 0)
    let taken8 = machine.streamData(Array("x".utf8))
    #expect(taken8)
    machine.streamEnded()
    #expect(machine.actions(at: 1) == [wire("x")])
    machine.writeCompleted(now: 1)
    #expect(machine.actions(at: 1) == [.linger])
  }

  @Test mutating func aStreamEndedWhileQuiescingClosesTheConnection() {
    startStreaming()
    machine.quiesce()
    machine.streamEnded()
    #expect(machine.actions(at: 1) == [wire("0\r\n\r\n")])
    machine.writeCompleted(now: 1)
    #expect(machine.actions(at: 1) == [.linger])
  }
}
