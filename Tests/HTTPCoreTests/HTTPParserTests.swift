import Testing

@testable import HTTPCore

/// Every event the parser produces for `bytes`, fed in pieces cut at `cuts`.
func events(_ bytes: [UInt8], cuts: [Int] = [], limits: HTTPLimits = HTTPLimits())
  -> [HTTPParserEvent]
{
  var parser = HTTPParser(limits: limits)
  var events: [HTTPParserEvent] = []
  var from = 0
  for cut in cuts + [bytes.count] {
    parser.append(bytes[from..<cut])
    from = cut
    while let event = parser.next() { events.append(event) }
  }
  return events
}

func events(_ text: String, limits: HTTPLimits = HTTPLimits()) -> [HTTPParserEvent] {
  events(Array(text.utf8), limits: limits)
}

/// The first request `text` produces, recording an issue if there is none.
func firstRequest(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPRequest?
{
  guard case .request(let request) = events(text).first else {
    Issue.record("no request", sourceLocation: sourceLocation)
    return nil
  }
  return request
}

/// The status of the error `text` produces, or nil if it produces none.
func errorStatus(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Int? {
  for case .error(let error) in events(text, limits: limits) { return error.status.code }
  return nil
}

/// Framing and smuggling (RFC 9112 sections 3, 6 and 7) and the size limits.
@Suite struct HTTPParserTests {
  /// The token table's constants are exactly `tchar` (RFC 9110 §5.6.2).
  @Test func tokenCharactersAreExactlyTchar() {
    let tchar = Set(
      "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    for byte in UInt8.min...UInt8.max {
      #expect(byte.isTokenCharacter == tchar.contains(byte), "byte \(byte)")
    }
  }

  @Test func simpleGet() {
    #expect(
      events("GET /health?x=1 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n") == [
        .request(
          HTTPRequest(
            method: "GET", target: "/health?x=1",
            headers: HTTPFields([("Host", "a"), ("Accept", "*/*")])))
      ])
  }

  @Test(
    arguments: [
      ("/health", "/health", nil), ("/a?b=1", "/a", "b=1"), ("/a?", "/a", ""),
      ("/a?b?c", "/a", "b?c"),
    ] as [(String, String, String?)])
  func targetsSplitAtTheirFirstQuestionMark(target: String, path: String, query: String?) {
    let request = HTTPRequest(method: "GET", target: target)
    #expect(request.path == path)
    #expect(request.query == query.map { $0[...] })
    #expect(request.path == path)
  }

  @Test func postWithContentLength() {
    let parsed = events("POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody")
    #expect(parsed.count == 1)
    guard case .request(let request) = parsed.first else { return }
    #expect(request.body == Array("body".utf8))
    #expect(request.path == "/e")
    #expect(request.query == nil)
  }

  @Test func chunkedBodyIsDecoded() {
    let text =
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
      + "4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nChecksum: x\r\n\r\n"
    guard let request = firstRequest(text) else { return }
    #expect(String(decoding: request.body, as: UTF8.self) == "Wikipedia")
  }

  @Test func fieldValuesLoseTheirOptionalWhitespace() {
    guard case .request(let request) = events("GET / HTTP/1.1\r\nHost:  a \t\r\nX:\r\n\r\n").first
    else { return }
    #expect(request.headers.map(\.value) == ["a", ""])
  }

  @Test func receivedFieldsAreFoundWithoutRegardToCase() {
    let text =
      "GET / HTTP/1.1\r\nHost: a\r\nContent-TYPE:  text/x \r\ncontent-type: second\r\n"
      + "X-Empty:\r\n\r\n"
    guard let request = firstRequest(text) else { return }
    #expect(request.headers["content-type"] == "text/x")
    #expect(request.headers["CONTENT-TYPE"] == "text/x")
    #expect(request.headers["X-Empty"] == "")
    #expect(request.headers["Accept"] == nil)
    #expect(request.headers.map(\.name) == ["Host", "Content-TYPE", "content-type", "X-Empty"])
  }

  @Test(arguments: [
    ("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close", false),
    ("HTTP/1.1", "Connection: keep-alive\r\nconnection: Upgrade, CLOSE", false),
    ("HTTP/1.0", "", false), ("HTTP/1.0", "Connection: Keep-Alive", true),
    ("HTTP/1.0", "Connection: te,  keep-alive ", true),
  ])
  func keepAliveFollowsTheVersionAndEveryConnectionField(
    version: String, fields: String, keepAlive: Bool
  ) {
    let text = "GET / \(version)\r\nHost: a\r\n" + (fields.isEmpty ? "" : fields + "\r\n") + "\r\n"
    guard let request = firstRequest(text) else { return }
    #expect(request.keepAlive == keepAlive)
  }

  @Test func contentLengthMayHaveLeadingZeros() {
    let text = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0000000000000000004\r\n\r\nbody"
    guard let request = firstRequest(text) else { return }
    #expect(request.body == Array("body".utf8))
  }

  /// An absolute-form target is kept as sent: its path is the one after its authority, and
  /// its authority is there for the server to take as `Host` (RFC 9112 §3.2.2).
  @Test func absoluteFormTargetsHaveAPathAndAnAuthority() {
    for (target, path, query, authority): (String, String, String?, String?) in [
      ("http://h:1/a?b", "/a", "b", "h:1"), ("HTTPS://evil.example?q", "/", "q", "evil.example"),
      ("http://h", "/", nil, "h"), ("/a?x", "/a", "x", nil),
    ] {
      guard
        case .request(let request) = events("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n").first
      else {
        Issue.record("\(target) was not parsed")
        continue
      }
      #expect(request.target == target)
      #expect(request.path == path[...] && request.query == query?[...])
      #expect(request.authority.map(String.init) == authority)
    }
  }

  /// An empty authority, or one with userinfo, is no host to check (RFC 9110 §4.2.1, §4.2.4).
  @Test func anAbsoluteFormTargetWithoutAHostOrWithUserinfoIsRefused() {
    for target in ["http:///a", "http://user@h/a", "http://?x"] {
      #expect(
        events("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
          == [.error(.badRequest("the request target's authority is empty or has userinfo"))])
    }
  }

  @Test func http10NeedsNoHostAndDefaultsToClose() {
    guard case .request(let request) = events("GET / HTTP/1.0\r\n\r\n").first else { return }
    #expect(request.minorVersion == 0)
    #expect(!request.keepAlive)
  }

  @Test func leadingEmptyLinesAreIgnored() {
    #expect(events("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n").count == 1)
    let most = String(repeating: "\r\n", count: HTTPParser.maxEmptyLinesBeforeRequest)
    #expect(
      events(
        most + "GET / HTTP/1.1\r\nHost: a\r\n\r\n" + most + "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n"
      )
      .count == 2)
  }

  /// A stream of CRLFs once made the parser keep every byte it skipped (gigabytes from one
  /// connection): past the bound it is a 400, whatever the bytes' split.
  @Test func tooManyEmptyLinesBeforeARequestAreRefused() {
    let flood = String(repeating: "\r\n", count: HTTPParser.maxEmptyLinesBeforeRequest + 1)
    #expect(
      events(flood + "GET / HTTP/1.1\r\nHost: a\r\n\r\n") == [
        .error(.badRequest("more than 16 empty lines before a request line"))
      ])
    let endless = Array(String(repeating: "\r\n", count: 1000).utf8)
    #expect(
      events(endless, cuts: Array(stride(from: 2, to: endless.count, by: 2))) == [
        .error(.badRequest("more than 16 empty lines before a request line"))
      ])
  }

  // MARK: A. Framing and smuggling

  @Test func contentLengthWithTransferEncodingIsRefused() {
    let text =
      "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
      + "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n"
    #expect(
      events(text) == [.error(HTTPError(.badRequest, "both Transfer-Encoding and Content-Length"))])
  }

  @Test(arguments: [
    ("Transfer-Encoding : chunked", "A2 space before the colon"),
    ("X-Abc: \rxTransfer-Encoding: chunked", "A3 bare CR in a value"),
    ("X-Abc: a\r\n b", "A5 obsolete line folding"),
    ("X\0: a", "A9 NUL in a name"),
    ("X: a\0b", "A9 NUL in a value"),
    ("X\r: a", "A9 CR in a name"),
    ("X: \u{7F}", "DEL in a value"),
    ("Nocolon", "a field without colon"),
    (": value", "an empty field name"),
  ])
  func malformedFieldLinesAre400(field: String, row: String) {
    #expect(errorStatus("GET / HTTP/1.1\r\nHost: a\r\n\(field)\r\n\r\n") == 400, "\(row)")
  }

  @Test func bareLFLineEndingsAre400() {
    #expect(errorStatus("GET / HTTP/1.1\nHost: a\n\n") == 400)
    #expect(errorStatus("GET / HTTP/1.1\r\nHost: a\n\r\n") == 400)
  }

  @Test(arguments: [
    "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked",
    "Transfer-Encoding: chunked, gzip",
    "Transfer-Encoding: xchunked",
    "Transfer-Encoding: chunked,",
  ])
  func transferEncodingsOtherThanAFinalChunkedAre400(fields: String) {
    #expect(errorStatus("POST / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n\r\n") == 400)
  }

  @Test func transferCodingsBeforeChunkedAreNotImplemented() {
    #expect(
      errorStatus("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == 501)
  }

  @Test func transferEncodingInHTTP10Is400() {
    #expect(errorStatus("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") == 400)
  }

  @Test(arguments: [
    "2\r\nxxYY0\r\n\r\n", "2\nxx\r\n0\r\n\r\n", "2\r\nxx\r\n0\r\n\n", "g\r\n", "2 x\r\nxx\r\n",
  ])
  func malformedChunksAre400(body: String) {
    #expect(
      errorStatus("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\(body)") == 400)
  }

  @Test(arguments: [
    "Content-Length: 4\r\nContent-Length: 4", "Content-Length: 4, 5", "Content-Length: +4",
    "Content-Length: -1", "Content-Length: 1 2", "Content-Length:",
    "Content-Length: 99999999999999999999", "Content-Length: 9223372036854775808",
    "Content-Length: 0x10",
  ])
  func malformedContentLengthsAre400(field: String) {
    #expect(errorStatus("POST / HTTP/1.1\r\nHost: a\r\n\(field)\r\n\r\nbody") == 400)
  }

  @Test(arguments: ["GET / HTTP/9.9", "GET / HTTP/2.0", "GET / HTTP/0.9"])
  func otherMajorVersionsAre505(line: String) {
    #expect(errorStatus("\(line)\r\nHost: a\r\n\r\n") == 505)
  }

  @Test(arguments: ["GET / HTTP/1", "GET / HTTP/1.10", "GET / http/1.1", "GET / HTTP/1.x"])
  func malformedVersionsAre400(line: String) {
    #expect(errorStatus("\(line)\r\nHost: a\r\n\r\n") == 400)
  }

  @Test func hostMustAppearExactlyOnceInHTTP11() {
    #expect(errorStatus("GET / HTTP/1.1\r\n\r\n") == 400)
    #expect(errorStatus("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
    #expect(errorStatus("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
  }

  @Test(arguments: ["GET /a b HTTP/1.1", "GET  / HTTP/1.1", "GET / HTTP/1.1 ", "G@T / HTTP/1.1"])
  func malformedRequestLinesAre400(line: String) {
    #expect(errorStatus("\(line)\r\nHost: a\r\n\r\n") == 400)
  }

  /// What is wrong with a request line is said the same whether or not its last nine bytes
  /// look like a space and a version (the parser takes them as such without a search).
  @Test(arguments: [
    ("GET HTTP/1 1", "the HTTP version is malformed"),
    ("GET /x HTTP/1 1", "the HTTP version is malformed"),
    ("GET  HTTP/1.1", "the request target is empty or has a byte that is not visible ASCII"),
    ("GET HTTP/1.1", "the request line is not 'method target version'"),
    (" /x HTTP/1.1", "the request line is not 'method target version'"),
    ("GET /a b HTTP/1.1", "the request target is empty or has a byte that is not visible ASCII"),
    ("GET / HTTP/1.1 ", "the HTTP version is malformed"),
    ("GET /xHTTP/1.1", "the request line is not 'method target version'"),
  ])
  func requestLineErrorsSayWhatIsWrong(line: String, detail: String) {
    let details = events("\(line)\r\nHost: a\r\n\r\n").compactMap { event -> String? in
      guard case .error(let error) = event else { return nil }
      return error.detail
    }
    #expect(details == [detail])
  }

  @Test func connectIsNotImplemented() {
    #expect(errorStatus("CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n") == 501)
  }

  @Test(arguments: ["GETT", "TRACE", "QUERY", "BREW"])
  func otherMethodTokensAreTheApplicationsToAnswer(method: String) {
    guard case .request(let request) = events("\(method) / HTTP/1.1\r\nHost: a\r\n\r\n").first
    else {
      Issue.record("\(method) was refused")
      return
    }
    #expect(request.method == method)
  }

  @Test func requestTargetsMustBeVisibleASCII() {
    #expect(errorStatus("GET /caf\u{E9} HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    #expect(errorStatus("GET a HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    #expect(errorStatus("GET * HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    #expect(errorStatus("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") == nil)
  }

  @Test func pipelinedRequestsComeOutOneAtATimeInOrder() {
    let text =
      "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nxGET /3 HTTP/1.1\r\nHost: a\r\n\r\n"
    let targets = events(text).compactMap { event -> String? in
      guard case .request(let request) = event else { return nil }
      return request.target
    }
    #expect(targets == ["/1", "/2", "/3"])
  }

  /// The parser writes each request's field lines where the last one's were: a request still
  /// held (a response deferred, a test's list) keeps its own fields while the next is read.
  @Test func aRequestKeepsItsFieldsWhileTheNextIsRead() {
    let text =
      "GET /1 HTTP/1.1\r\nHost: a\r\nIf-Match: \"1-1\"\r\n\r\n"
      + "GET /2 HTTP/1.1\r\nHost: b\r\n\r\nGET /3 HTTP/1.1\r\nHost: c\r\nAccept: */*\r\n\r\n"
    let fields = events(text).compactMap { event -> [String]? in
      guard case .request(let request) = event else { return nil }
      return request.headers.map { "\($0.name): \($0.value)" }
    }
    #expect(
      fields == [["Host: a", "If-Match: \"1-1\""], ["Host: b"], ["Host: c", "Accept: */*"]])
  }

  /// Each request has its own body, whichever came before it: none after one with a body, and
  /// its own bytes, however long, while the one before is still held.
  @Test func aRequestsBodyIsItsOwn() {
    let large = String(repeating: "x", count: HTTPParser.keptBodyCapacity + 1)
    let text =
      "POST /1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nfirst"
      + "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n"
      + "POST /3 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nab"
      + "POST /4 HTTP/1.1\r\nHost: a\r\nContent-Length: \(large.utf8.count)\r\n\r\n\(large)"
      + "GET /5 HTTP/1.1\r\nHost: a\r\n\r\n"
    let bodies = events(text).compactMap { event -> String? in
      guard case .request(let request) = event else { return nil }
      return String(decoding: request.body, as: UTF8.self)
    }
    #expect(bodies == ["first", "", "ab", large, ""])
    var parser = HTTPParser(limits: HTTPLimits())
    for request in [
      "POST /1 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
      "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
    ] {
      parser.append(Array(request.utf8)[...])
      guard case .request(let parsed) = parser.next() else {
        Issue.record("no request")
        return
      }
      #expect(parsed.body == (request.hasPrefix("POST") ? Array("abc".utf8) : []))
    }
  }

  /// Consumed bytes are dropped a few kilobytes at a time, not after every request: requests
  /// on either side of a drop, and one cut across it, come out whole and in order.
  @Test(arguments: [[], [4090, 4100, 4103], Array(stride(from: 97, to: 10_000, by: 997))])
  func longRunsOfPipelinedRequestsComeOutWhole(cuts: [Int]) {
    let requests = (0..<200).map {
      "POST /\($0) HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n\($0 % 10)ab"
    }
    let bytes = Array(requests.joined().utf8)
    #expect(bytes.count > 10_000)
    let parsed = events(bytes, cuts: cuts).map { event -> String in
      guard case .request(let request) = event else { return "not a request: \(event)" }
      return request.target + " " + String(decoding: request.body, as: UTF8.self)
    }
    #expect(parsed == (0..<200).map { "/\($0) \($0 % 10)ab" })
  }

  @Test func garbageAfterAValidRequestIsAnErrorAndNothingMore() {
    let parsed = events("GET / HTTP/1.1\r\nHost: a\r\n\r\nxyz\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
    #expect(parsed.count == 2)
    #expect(parsed.last.map { if case .error = $0 { true } else { false } } == true)
  }

  @Test func nothingIsParsedAfterAnError() {
    var parser = HTTPParser()
    parser.append("BAD\r\n".utf8)
    #expect(parser.next() != nil)
    parser.append("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
    #expect(parser.next() == nil)
  }

  @Test func expectContinueIsSignalledBeforeTheBody() {
    var parser = HTTPParser()
    parser.append(
      "PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n".utf8)
    #expect(parser.next() == .continueExpected)
    #expect(parser.next() == nil)
    parser.append("ok".utf8)
    guard case .request(let request) = parser.next() else {
      Issue.record("no request")
      return
    }
    #expect(request.body == Array("ok".utf8))
    #expect(
      errorStatus("PUT / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n") == 417
    )
  }

  // MARK: B. Size limits

  @Test func oversizedHeaderIs431() {
    let big = String(repeating: "a", count: 100_000)
    #expect(errorStatus("GET / HTTP/1.1\r\nHost: a\r\nX: \(big)\r\n\r\n") == 431)
    // Refused before the line ends: the parser never holds more than the limit.
    #expect(errorStatus("GET / HTTP/1.1\r\nHost: a\r\nX: \(big)") == 431)
  }

  @Test func oversizedRequestLineIs414() {
    let target = "/" + String(repeating: "a", count: 9 * 1024)
    #expect(errorStatus("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n") == 414)
    #expect(errorStatus("GET \(target)") == 414)
  }

  @Test func tooManyHeaderFieldsIs431() {
    let fields = (0..<99).map { "X-\($0): v\r\n" }.joined()
    #expect(errorStatus("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n") == nil)
    #expect(errorStatus("GET / HTTP/1.1\r\nHost: a\r\nY: 1\r\n\(fields)\r\n") == 431)
  }

  @Test func declaredBodyOverTheLimitIs413BeforeReadingIt() {
    #expect(
      events("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n") == [
        .error(HTTPError(.contentTooLarge, "the body is larger than 1048576 bytes"))
      ])
  }

  @Test func bodyExactlyAtTheLimitIsAccepted() {
    var limits = HTTPLimits()
    limits.maxBodyBytes = 10
    let text = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789"
    #expect(errorStatus(text, limits: limits) == nil)
    #expect(events(text, limits: limits).count == 1)
    #expect(
      errorStatus(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n5\r\n",
        limits: limits) == 413)
  }

  /// A body's bytes that come after its head go straight into the body, not through the
  /// buffer: what the parser holds while reading 1 MiB in reads of 64 KiB is the body and its
  /// head, held (and counted) whole from the head on, or from a chunk's size line on, and the
  /// request after it in the last read comes out whole.
  @Test(arguments: [false, true])
  func bodyBytesGoStraightIntoTheBody(chunked: Bool) {
    let length = 1 << 20
    let body = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let head =
      "POST / HTTP/1.1\r\nHost: a\r\n"
      + (chunked
        ? "Transfer-Encoding: chunked\r\n\r\n\(String(length, radix: 16))\r\n"
        : "Content-Length: \(length)\r\n\r\n")
    let next = "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"
    var parser = HTTPParser()
    parser.append(head.utf8)
    #expect(parser.next() == nil)
    #expect(parser.heldBytes >= length, "held \(parser.heldBytes)")
    var parsed: [HTTPParserEvent] = []
    for start in stride(from: 0, to: length, by: 65_536) {
      var read = Array(body[start..<(start + 65_536)])
      if start + 65_536 == length { read += Array(((chunked ? "\r\n0\r\n\r\n" : "") + next).utf8) }
      parser.append(read[...])
      while let event = parser.next() { parsed.append(event) }
      if parsed.isEmpty {
        #expect(parser.heldBytes <= length + 4_096 + 1_024, "held \(parser.heldBytes)")
      }
    }
    guard parsed.count == 2, case .request(let request) = parsed[0],
      case .request(let after) = parsed[1]
    else { return #expect(Bool(false), "\(parsed.count) events") }
    #expect(request.body == body)
    #expect(after.target == "/next" && after.body.isEmpty)
  }

  @Test func extraBytesAfterABodyAreTheNextRequest() {
    let parsed = events("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n0123456789\r\n\r\n")
    #expect(parsed.count == 2)
    #expect(parsed.last.map { if case .error = $0 { true } else { false } } == true)
  }

  // MARK: Chunk-split invariance

  static let corpus = [
    "GET /a HTTP/1.1\r\nHost: a\r\nX: 1\r\n\r\n",
    "POST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
      + "GET /c HTTP/1.0\r\n\r\n",
    "PUT / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: 1\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n",
    "GET / HTTP/1.1\nHost: a\r\n\r\n",
  ]

  @Test(arguments: corpus)
  func splittingAtEveryPositionGivesTheSameEvents(text: String) {
    let bytes = Array(text.utf8)
    let whole = events(bytes)
    for cut in 0...bytes.count {
      #expect(events(bytes, cuts: [cut]) == whole, "cut at \(cut)")
    }
    #expect(events(bytes, cuts: Array(0..<bytes.count)) == whole, "one byte at a time")
  }
}
