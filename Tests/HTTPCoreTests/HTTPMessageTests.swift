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

  /// A date held inline reads back as it was given, and compares and hashes by its text.
  @Test func datesHeldInlineKeepTheirText() {
    let date = HTTPDate.string(secondsSince1970: 784_111_777)
    #expect(HTTPDateText(date).description == date)
    #expect(HTTPDateText("D").description == "D")
    #expect(HTTPDateText(date) == HTTPDateText(date))
    #expect(HTTPDateText(date) != HTTPDateText(HTTPDate.string(secondsSince1970: 784_111_778)))
    #expect(HTTPDateText("D") != HTTPDateText("D\0"))
    #expect(Set([HTTPDateText(date), HTTPDateText(date), HTTPDateText("D")]).count == 2)
  }

  /// The status line carries the code's three digits, and a code outside 100 to 999 (which no
  /// response of the server's has) as it is; a code without a phrase of its own, an empty one
  /// after its space (RFC 9112 §4).
  @Test(arguments: [
    (200, "HTTP/1.1 200 OK"), (412, "HTTP/1.1 412 Precondition Failed"),
    (507, "HTTP/1.1 507 Insufficient Storage"),
    (101, "HTTP/1.1 101 "), (599, "HTTP/1.1 599 "), (99, "HTTP/1.1 99 "), (1000, "HTTP/1.1 1000 "),
  ])
  func statusLinesCarryTheCode(code: Int, line: String) {
    let bytes = HTTPResponse(status: HTTPStatus(code: code)).wire(date: "D", keepAlive: true)
    #expect(String(decoding: bytes.head, as: UTF8.self).hasPrefix(line + "\r\n"))
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

  /// However much of a response went out, the parts copied after it, of any size, are the
  /// rest of its bytes in order, across the head and the body.
  @Test func partsCopiedAfterEverySplitAreTheRest() {
    let bytes = HTTPResponse(status: .ok, contentType: "text/plain", body: "hello")
      .wire(date: "D", keepAlive: true)
    let whole = bytes.joined
    #expect(bytes.body == Array("hello".utf8))
    for sent in 0...whole.count {
      for size in 1...whole.count + 1 {
        var rest: [UInt8] = []
        var offset = sent
        while offset < whole.count {
          let part = UnsafeMutableRawBufferPointer.allocate(
            byteCount: min(size, whole.count - offset), alignment: 1)
          defer { part.deallocate() }
          bytes.copy(from: offset, into: part)
          rest += part
          offset += part.count
        }
        #expect(rest == Array(whole[sent...]), "after \(sent), parts of \(size)")
      }
    }
  }

  @Test func headerLookupIgnoresCase() {
    let headers = HTTPFields([("Content-Type", "a"), ("content-type", "b")])
    #expect(headers["CONTENT-TYPE"] == "a")
    #expect(headers["content-type"] == "a")
    #expect(headers["Content-Length"] == nil)
  }

  /// One pass finds the first value of each name asked, by its index, names of the same
  /// length told apart; names not sent are not reported, fields not asked for not either.
  @Test func firstValuesOfSeveralNamesComeFromOnePass() {
    let headers = HTTPFields([
      ("Host", "a"), ("If-Match", "\"1\""), ("HOST", "b"), ("Content-Type", "text/plain"),
      ("Accept", "*/*"), ("A-Field-Longer-Than-Any-Name", "x"), ("Pragma", "no-cache"),
    ])
    var found: [Int: String] = [:]
    let names: HTTPFieldNames = ["content-type", "origin", "host", "if-match", "accept"]
    headers.forFirstValues(of: names) { index, value in
      #expect(found[index] == nil, "each name is reported once")
      found[index] = String(decoding: value, as: UTF8.self)
    }
    #expect(found == [0: "text/plain", 2: "a", 3: "\"1\"", 4: "*/*"])
  }

  /// A response's fields go out as they were appended, after the status line and Date.
  @Test func appendedFieldsAreWrittenInOrder() {
    var headers = HTTPFields([("Content-Type", "text/plain")])
    headers.append(name: "Allow", value: "GET, HEAD")
    let bytes = HTTPResponse(status: .methodNotAllowed, headers: headers, body: Array("no".utf8))
      .wire(date: "D", keepAlive: false)
    #expect(
      String(decoding: bytes.joined, as: UTF8.self)
        == "HTTP/1.1 405 Method Not Allowed\r\nDate: D\r\nContent-Type: text/plain\r\n"
        + "Allow: GET, HEAD\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno")
    #expect(headers.map(\.name) == ["Content-Type", "Allow"])
  }

  /// A head is written into the storage the last one had once nothing else holds it (over it
  /// in place when it is as long); a head still held, not yet sent, keeps its bytes.
  @Test func headsReuseTheStorageOfTheLastOne() {
    var storage: [UInt8] = []
    func head(_ date: String) -> [UInt8] {
      HTTPResponse(status: .ok, body: Array("a".utf8))
        .wire(reusing: &storage, date: HTTPDateText(date), keepAlive: true).head
    }
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    func address(_ bytes: [UInt8]) -> UnsafePointer<UInt8>? {
      bytes.withUnsafeBufferPointer(\.baseAddress)
    }
    _ = head("D1")
    let place = address(storage)
    let held = head("D2")
    #expect(address(held) == place)
    let next = head("D3")
    #expect(text(held) == "HTTP/1.1 200 OK\r\nDate: D2\r\nContent-Length: 1\r\n\r\n")
    #expect(text(next) == "HTTP/1.1 200 OK\r\nDate: D3\r\nContent-Length: 1\r\n\r\n")
    #expect(address(next) != place)
    #expect(text(head("Day 4")) == "HTTP/1.1 200 OK\r\nDate: Day 4\r\nContent-Length: 1\r\n\r\n")
  }

  /// Fields replaced by others take their lines in the storage they had when nothing else
  /// holds it, and fields still held elsewhere (a response not yet written) keep theirs.
  @Test func replacedFieldsReuseStorageNothingElseHolds() {
    func storage(_ fields: HTTPFields) -> UnsafePointer<UInt8>? {
      fields.lines.withUnsafeBufferPointer(\.baseAddress)
    }
    let shared = HTTPFields([("Content-Type", "application/json"), ("Cache-Control", "no-store")])
    var fields = HTTPFields([("Location", "/v1/devices/ci-1/apps/mail"), ("ETag", #""1-2""#)])
    let before = storage(fields)
    fields.replaceAll(with: shared)
    #expect(fields == shared)
    #expect(storage(fields) == before)
    fields.append(name: "ETag", value: #""1-3""#)
    let held = fields
    fields.replaceAll(with: shared)
    fields.append(name: "ETag", value: #""1-4""#)
    #expect(held.map(\.value) == ["application/json", "no-store", #""1-3""#])
    #expect(fields.map(\.value) == ["application/json", "no-store", #""1-4""#])
    #expect(storage(fields) != storage(held))
    // Lines as long as those before: written over them, unless they are held.
    var tag = HTTPFields([("ETag", #""1-3""#)])
    let sent = tag
    tag.replaceAll(with: HTTPFields([("ETag", #""1-4""#)]))
    #expect(sent.map(\.value) == [#""1-3""#])
    #expect(tag.map(\.value) == [#""1-4""#])
    let place = storage(tag)
    tag.replaceAll(with: HTTPFields([("ETag", #""1-5""#)]))
    #expect(tag.map(\.value) == [#""1-5""#])
    #expect(storage(tag) == place)
  }

  /// `Content-Type`'s media type: type and subtype in any case, parameters and whitespace
  /// dropped (RFC 9110 §8.3.1).
  @Test(arguments: [
    ("application/json", "application/json"), ("Application/JSON", "application/json"),
    ("application/json ; charset=utf-8", "application/json"),
    ("application/json;charset=utf-8", "application/json"),
    ("application/jsonx", "application/jsonx"), ("text/json", "text/json"),
    ("application/ json", "application/ json"), ("", ""),
  ])
  func mediaTypeIsTheLowercasedEssence(contentType: String, expected: String) {
    #expect(HTTPFields([("content-TYPE", contentType)]).mediaType == expected)
    #expect(HTTPFields([("Accept", contentType)]).mediaType == nil)
  }

  /// Field names, tokens and media types compare without regard to ASCII case, and only ASCII.
  @Test(arguments: [
    ("Content-Length", "content-length", true), ("HOST", "host", true), ("host", "hosts", false),
    ("Expect", "expecT", true), ("K\u{C4}", "k\u{E4}", false), ("", "", true),
  ])
  func asciiCaseIsIgnoredAndNothingElse(first: String, second: String, equal: Bool) {
    var (a, b) = (first, second)
    #expect(a.withUTF8 { a in b.withUTF8 { a.equalsIgnoringASCIICase($0) } } == equal)
  }

  @Test func problemDetailsAreEscaped() {
    let body = HTTPError(.badRequest, "a \"quote\"\n").response.body
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"a \"quote\"\n"}"#)
  }
}

/// The parser's check of targets and field values, eight bytes at a time, against the plain
/// one byte at a time: every byte that matters at every place of a buffer longer than two
/// words.
@Test(arguments: [UInt8(0x20), 0x21])
func wordAtATimeCheckAgreesWithTheByteCheck(lowest: UInt8) {
  let isValue = { (byte: UInt8) in byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
  let allowed = lowest == 0x21 ? { (byte: UInt8) in byte > 0x20 && byte < 0x7F } : isValue
  let probes: [UInt8] = [0x00, 0x09, 0x0A, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
  for length in [0, 1, 7, 8, 9, 17, 24] {
    for place in 0..<max(length, 1) {
      for probe in probes {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        if length > 0 { bytes[place] = probe }
        let expected = bytes.allSatisfy(allowed)
        let checked = bytes.withUnsafeBufferPointer {
          $0.allSatisfy(printableFrom: lowest, orElse: allowed)
        }
        #expect(checked == expected, "byte \(probe) at \(place) of \(length)")
      }
    }
  }
}
