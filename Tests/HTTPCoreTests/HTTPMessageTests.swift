import Testing

@testable import HTTPCore

@Suite struct HTTPMessageTests {
  @Test(arguments: [
    (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
    (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
    (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
    (1_795_305_599, "Sat, 21 Nov 2026 23:59:59 GMT"),
    (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
  ])
  func httpDates(seconds: Int, expected: String) {
    #expect(HTTPDate.string(secondsSince1970: seconds) == expected)
  }

  @Test func noContentResponsesCarryNoLength() {
    let bytes = HTTPResponse(status: .noContent).wire(date: "D", keepAlive: true).joined
    #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 204 No Content\r\nDate: D\r\n\r\n")
  }

  @Test func headResponsesSendNoBodyButItsLength() {
    let bytes = HTTPResponse(status: .ok, contentType: "text/plain", body: "hello")
      .wire(date: "D", keepAlive: true, omitBody: true)
    #expect(bytes.body.isEmpty)
    #expect(
      String(decoding: bytes.joined, as: UTF8.self)
        == "HTTP/1.1 200 OK\r\nDate: D\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n")
  }

  /// However much of a response went out, what is left is the rest of its bytes.
  @Test func unsentBytesAreTheRestAfterEverySplit() {
    let bytes = HTTPResponse(status: .ok, contentType: "text/plain", body: "hello")
      .wire(date: "D", keepAlive: true)
    let whole = bytes.joined
    #expect(bytes.body == Array("hello".utf8))
    for sent in 0...whole.count {
      #expect(bytes.unsent(afterSending: sent) == Array(whole[sent...]), "after \(sent)")
    }
  }

  @Test func headerLookupIgnoresCase() {
    let headers = HTTPHeaders([("Content-Type", "a"), ("content-type", "b")])
    #expect(headers["CONTENT-TYPE"] == "a")
    #expect(headers["content-type"] == "a")
    #expect(headers["Content-Length"] == nil)
  }

  @Test func problemDetailsAreEscaped() {
    let body = HTTPError(.badRequest, "a \"quote\"\n").response.body
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"a \"quote\"\n"}"#)
  }
}
