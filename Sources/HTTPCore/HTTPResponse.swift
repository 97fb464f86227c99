import JSONCore

/// A response, before framing: the serializer adds Date, Content-Length and Connection.
public struct HTTPResponse: Hashable, Sendable {
  public var status: HTTPStatus
  public var headers: HTTPFields
  public var body: [UInt8]

  public init(status: HTTPStatus, headers: HTTPFields = HTTPFields(), body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A response whose body is `text` with the given content type.
  public init(status: HTTPStatus, contentType: String, body text: String) {
    self.init(
      status: status, headers: HTTPFields([("Content-Type", contentType)]), body: Array(text.utf8))
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
    wire(
      date: HTTPDateText(date), keepAlive: keepAlive, minorVersion: minorVersion,
      omitBody: omitBody)
  }

  /// The response on the wire, its head in storage of its own.
  func wire(
    date: HTTPDateText, keepAlive: Bool, minorVersion: Int = 1, omitBody: Bool = false
  ) -> WireBytes {
    var head: [UInt8] = []
    return wire(
      reusing: &head, date: date, keepAlive: keepAlive, minorVersion: minorVersion,
      omitBody: omitBody)
  }

  /// The response on the wire, its head written into `storage`, in place if nothing else
  /// holds it: a connection keeps one for its responses' heads, which saves an allocation
  /// each once the last one is sent.
  func wire(
    reusing storage: inout [UInt8], date: HTTPDateText, keepAlive: Bool, minorVersion: Int = 1,
    omitBody: Bool = false
  ) -> WireBytes {
    head(
      into: &storage, date: date, keepAlive: keepAlive, minorVersion: minorVersion,
      length: status.forbidsContent ? nil : body.count)
    return WireBytes(head: storage, body: omitBody || status.forbidsContent ? [] : body)
  }

  /// The head of a response whose body is streamed (`HTTPStream`): chunked for an HTTP/1.1
  /// client, else delimited by the end of the connection (and then `keepAlive` must be false).
  func streamHead(date: HTTPDateText, keepAlive: Bool, minorVersion: Int) -> [UInt8] {
    precondition(minorVersion > 0 || !keepAlive, "an HTTP/1.0 stream ends with its connection")
    var head: [UInt8] = []
    self.head(
      into: &head, date: date, keepAlive: keepAlive, minorVersion: minorVersion, length: nil)
    return head
  }

  /// The status line and fields: `Content-Length: length`, or with no length and content
  /// allowed, `Transfer-Encoding: chunked` for HTTP/1.1.
  private func head(
    into storage: inout [UInt8], date: HTTPDateText, keepAlive: Bool, minorVersion: Int,
    length: Int?
  ) {
    let capacity =
      96 + status.reason.utf8CodeUnitCount + date.withUTF8(\.count) + headers.lines.count
    // Written on the stack, then copied into the storage whole: appending piece by piece
    // costs more than the bytes themselves.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      var head = ByteWriter(buffer)
      head.write("HTTP/1.1 ")
      head.write(statusCode: status.code)
      head.write(" ")
      head.write(status.reason)
      head.write("\r\nDate: ")
      date.withUTF8 { head.write($0) }
      head.write("\r\n")
      headers.lines.withUnsafeBufferPointer { head.write($0) }
      if let length {
        head.write("Content-Length: ")
        head.write(decimal: length)
        head.write("\r\n")
      } else if !status.forbidsContent, minorVersion > 0 {
        head.write("Transfer-Encoding: chunked\r\n")
      }
      if !keepAlive {
        head.write("Connection: close\r\n")
      } else if minorVersion == 0 {
        head.write("Connection: keep-alive\r\n")
      }
      head.write("\r\n")
      storage.replaceContents(with: UnsafeBufferPointer(rebasing: buffer[..<head.count]))
    }
  }
}

/// A response whose body the responder writes in pieces, as it has them (Server-Sent Events):
/// the head goes out at once, each piece as it comes, and the body ends when the responder
/// says so. The connection keeps reading meanwhile, to notice the client leave.
///
/// A client that does not read what is sent cannot hold the server's memory: once more than
/// `ConnectionConfiguration.maxStreamBacklog` bytes wait to be sent, the stream ends with
/// `farewell` and the connection closes. A quiet stream sends `heartbeat` every
/// `heartbeatInterval`, so that proxies and clients do not take it for a dead connection.
public struct HTTPStream: Sendable {
  /// The status and fields; its body is the first piece.
  public var head: HTTPResponse
  public var heartbeat: [UInt8]
  /// Milliseconds without a byte sent after which `heartbeat` is.
  public var heartbeatInterval: UInt64
  /// The last piece sent to a client that fell behind.
  public var farewell: [UInt8]

  public init(
    head: HTTPResponse, heartbeat: [UInt8], heartbeatInterval: UInt64, farewell: [UInt8]
  ) {
    self.head = head
    self.heartbeat = heartbeat
    self.heartbeatInterval = heartbeatInterval
    self.farewell = farewell
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

  /// Copies the bytes from `offset` on, as many as `buffer` holds, into `buffer`: what is
  /// left to send once the first `offset` bytes have gone out, or the next part of it.
  public func copy(from offset: Int, into buffer: UnsafeMutableRawBufferPointer) {
    let headPart = head[min(offset, head.count)..<min(offset + buffer.count, head.count)]
    let bodyStart = min(max(offset - head.count, 0), body.count)
    let bodyPart = body[bodyStart..<min(bodyStart + buffer.count - headPart.count, body.count)]
    buffer.copyBytes(from: headPart)
    UnsafeMutableRawBufferPointer(rebasing: buffer[headPart.count...]).copyBytes(from: bodyPart)
  }

  /// Equal when the peer would receive the same bytes, however they are split.
  public static func == (lhs: WireBytes, rhs: WireBytes) -> Bool {
    lhs.joined == rhs.joined
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(joined)
  }
}

/// Writes the pieces of a message into a buffer sized for them in advance. Its preconditions
/// check that estimate, made from the same pieces: what a request holds cannot change it.
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
    // `bytes` is not empty and fits: the buffer is not empty either, so it has an address.
    (buffer.baseAddress! + count).initialize(from: base, count: bytes.count)
    count += bytes.count
  }

  @inline(__always)
  mutating func write(_ text: StaticString) {
    text.withUTF8Buffer { write($0) }
  }

  /// A status code: three digits, written as such (any other number as it is).
  mutating func write(statusCode code: Int) {
    guard (100...999).contains(code), count + 3 <= buffer.count else {
      return write(decimal: code)
    }
    buffer[count] = UInt8(ascii: "0") + UInt8(code / 100)
    buffer[count + 1] = UInt8(ascii: "0") + UInt8(code / 10 % 10)
    buffer[count + 2] = UInt8(ascii: "0") + UInt8(code % 10)
    count += 3
  }

  /// The decimal digits of a non-negative number.
  mutating func write(decimal number: Int) {
    if number >= 10 { write(decimal: number / 10) }
    precondition(count < buffer.count, "the message outgrew its estimate")
    buffer[count] = UInt8(ascii: "0") + UInt8(number % 10)
    count += 1
  }
}
