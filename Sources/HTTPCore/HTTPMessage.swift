/// Header fields in the order received, looked up case-insensitively.
public struct HTTPHeaders: Hashable, Sendable, Sequence {
  public private(set) var fields: [(name: String, value: String)] = []

  public init(_ fields: [(name: String, value: String)] = []) {
    self.fields = fields
  }

  /// No fields yet, with room for `minimumCapacity` of them.
  public init(minimumCapacity: Int) {
    fields.reserveCapacity(minimumCapacity)
  }

  public mutating func append(name: String, value: String) {
    fields.append((name, value))
  }

  /// The first value of the field `name`, compared without regard to case.
  public subscript(name: String) -> String? {
    fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
  }

  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    fields.makeIterator()
  }

  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for field in fields {
      hasher.combine(field.name)
      hasher.combine(field.value)
    }
  }
}

/// A response status: code and reason phrase.
public struct HTTPStatus: Hashable, Sendable {
  public var code: Int
  public var reason: String

  public init(_ code: Int, _ reason: String) {
    self.code = code
    self.reason = reason
  }

  public static let ok = HTTPStatus(200, "OK")
  public static let created = HTTPStatus(201, "Created")
  public static let noContent = HTTPStatus(204, "No Content")
  public static let badRequest = HTTPStatus(400, "Bad Request")
  public static let notFound = HTTPStatus(404, "Not Found")
  public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
  public static let requestTimeout = HTTPStatus(408, "Request Timeout")
  public static let conflict = HTTPStatus(409, "Conflict")
  public static let contentTooLarge = HTTPStatus(413, "Content Too Large")
  public static let uriTooLong = HTTPStatus(414, "URI Too Long")
  public static let unsupportedMediaType = HTTPStatus(415, "Unsupported Media Type")
  public static let expectationFailed = HTTPStatus(417, "Expectation Failed")
  public static let unprocessableContent = HTTPStatus(422, "Unprocessable Content")
  public static let requestHeaderFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
  public static let internalServerError = HTTPStatus(500, "Internal Server Error")
  public static let notImplemented = HTTPStatus(501, "Not Implemented")
  public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
  public static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")

  /// The status for `code`, with its reason phrase from RFC 9110 when it is one of those above.
  public init(code: Int) {
    self = Self.known.first { $0.code == code } ?? HTTPStatus(code, "Status \(code)")
  }

  private static let known: [HTTPStatus] = [
    .ok, .created, .noContent, .badRequest, .notFound, .methodNotAllowed, .requestTimeout,
    .conflict, .contentTooLarge, .uriTooLong, .unsupportedMediaType, .expectationFailed,
    .unprocessableContent, .requestHeaderFieldsTooLarge, .internalServerError, .notImplemented,
    .serviceUnavailable, .httpVersionNotSupported,
  ]

  /// Whether a response with this status never carries content (RFC 9110 §6.4.1).
  var forbidsContent: Bool { code < 200 || code == 204 || code == 304 }
}

/// A response, before framing: the serializer adds Date, Content-Length and Connection.
public struct HTTPResponse: Hashable, Sendable {
  public var status: HTTPStatus
  public var headers: HTTPHeaders
  public var body: [UInt8]

  public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A response whose body is `text` with the given content type.
  public init(status: HTTPStatus, contentType: String, body text: String) {
    self.init(
      status: status, headers: HTTPHeaders([("Content-Type", contentType)]), body: Array(text.utf8))
  }

  /// The response on the wire.
  ///
  /// - Parameters:
  ///   - keepAlive: false adds `Connection: close`; an HTTP/1.0 client asking to keep the
  ///     connection gets `Connection: keep-alive`.
  ///   - omitBody: for HEAD: the headers describe the body, which is not sent.
  public func wire(
    date: String, keepAlive: Bool, minorVersion: Int = 1, omitBody: Bool = false
  ) -> WireBytes {
    let capacity =
      96 + status.reason.utf8.count + date.utf8.count
      + headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    // Written on the stack, then copied into an array of its exact size: one allocation, and
    // appending piece by piece costs more than the bytes themselves. (Not
    // `init(unsafeUninitializedCapacity:)`: it looks up the array's storage type at run time,
    // which costs more than the copy.)
    let head = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      var head = ByteWriter(buffer)
      head.write("HTTP/1.1 ")
      head.write(decimal: status.code)
      head.write(" ")
      head.write(status.reason)
      head.write("\r\nDate: ")
      head.write(date)
      head.write("\r\n")
      for (name, value) in headers.fields {
        head.write(name)
        head.write(": ")
        head.write(value)
        head.write("\r\n")
      }
      if !status.forbidsContent {
        head.write("Content-Length: ")
        head.write(decimal: body.count)
        head.write("\r\n")
      }
      if !keepAlive {
        head.write("Connection: close\r\n")
      } else if minorVersion == 0 {
        head.write("Connection: keep-alive\r\n")
      }
      head.write("\r\n")
      return [UInt8](UnsafeBufferPointer(rebasing: buffer[..<head.count]))
    }
    return WireBytes(head: head, body: omitBody || status.forbidsContent ? [] : body)
  }
}

/// Bytes to send: a head, then a body sent from where its maker left it (one `writev`, the
/// body never copied in behind the head).
public struct WireBytes: Hashable, Sendable {
  public var head: [UInt8]
  public var body: [UInt8]

  public init(head: [UInt8], body: [UInt8] = []) {
    self.head = head
    self.body = body
  }

  /// Head and body in one run, as the peer receives them.
  public var joined: [UInt8] { head + body }

  /// What is left to send once the first `count` bytes have gone out.
  public func unsent(afterSending count: Int) -> [UInt8] {
    Array(head[min(count, head.count)...]) + body[min(max(count - head.count, 0), body.count)...]
  }

  /// Equal when the peer would receive the same bytes, however they are split.
  public static func == (lhs: WireBytes, rhs: WireBytes) -> Bool {
    lhs.joined == rhs.joined
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(joined)
  }
}

extension StringProtocol {
  /// ASCII case-insensitive equality, as header names and tokens compare.
  func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
    guard utf8.count == other.utf8.count else { return false }  // most lookups end here
    let fast = utf8.withContiguousStorageIfAvailable { mine in
      other.utf8.withContiguousStorageIfAvailable { theirs in
        mine.elementsEqual(theirs) { asciiLowercased($0) == asciiLowercased($1) }
      }
    }
    if let fast, let result = fast { return result }
    return utf8.elementsEqual(other.utf8) { asciiLowercased($0) == asciiLowercased($1) }
  }

  /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
  func trimmingOWS() -> Substring {
    let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    let string = Substring(self)
    guard let first = string.firstIndex(where: { !isOWS($0) }),
      let last = string.lastIndex(where: { !isOWS($0) })
    else { return "" }
    return string[first...last]
  }
}

/// Writes the pieces of a message into a buffer sized for them in advance.
private struct ByteWriter {
  let buffer: UnsafeMutableBufferPointer<UInt8>
  private(set) var count = 0

  init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
    self.buffer = buffer
  }

  @inline(__always)
  mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
    precondition(count + bytes.count <= buffer.count, "the message outgrew its estimate")
    guard let base = bytes.baseAddress else { return }
    (buffer.baseAddress! + count).initialize(from: base, count: bytes.count)
    count += bytes.count
  }

  @inline(__always)
  mutating func write(_ text: StaticString) {
    text.withUTF8Buffer { write($0) }
  }

  @inline(__always)
  mutating func write(_ text: String) {
    if text.utf8.withContiguousStorageIfAvailable({ write($0) }) == nil {
      Array(text.utf8).withUnsafeBufferPointer { write($0) }
    }
  }

  /// The decimal digits of a non-negative number.
  mutating func write(decimal number: Int) {
    if number >= 10 { write(decimal: number / 10) }
    precondition(count < buffer.count, "the message outgrew its estimate")
    buffer[count] = UInt8(ascii: "0") + UInt8(number % 10)
    count += 1
  }
}

func asciiLowercased(_ byte: UInt8) -> UInt8 {
  (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
}
