#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sizes a request must fit (RFC 9112 §3 and §2.3 ask servers to set them).
public struct HTTPLimits: Hashable, Sendable {
  /// The request line, without its CRLF; longer gets 414.
  public var maxRequestLineBytes = 8192
  /// Every field line after the request line, CRLFs included; more gets 431.
  public var maxHeaderBytes = 16384
  /// Header fields (and, separately, trailer fields); more gets 431.
  public var maxHeaderCount = 100
  /// The decoded body; more gets 413, before the body is read where its length is declared.
  public var maxBodyBytes = 1_048_576

  public init() {}
}

/// What the parser found in the bytes so far.
public enum HTTPParserEvent: Hashable, Sendable {
  case request(HTTPRequest)
  /// The request asks for `100 Continue` before it sends its body.
  case continueExpected
  /// The bytes are not an acceptable request; the parser accepts nothing more.
  case error(HTTPError)
}

/// A strict, incremental HTTP/1.1 request parser (RFC 9112): bytes in, requests out.
///
/// Feed bytes with `append`, then call `next()` until it returns nil (it needs more bytes).
/// Requests come out one at a time, so pipelined requests wait in the buffer until the caller
/// asks for them. Framing is strict: every line must end in CRLF, a bare CR or LF, whitespace
/// before a colon, obsolete line folding, a malformed or conflicting length, or a transfer
/// coding other than a final `chunked` is an error, and after an error the parser never looks
/// for another request.
public struct HTTPParser {
  public let limits: HTTPLimits
  @usableFromInline private(set) var buffer: [UInt8] = []
  /// The first byte not yet consumed.
  private var start = 0
  /// Where the search for the next LF resumes.
  private var scanFrom = 0
  private var state = State.requestLine
  @usableFromInline private(set) var request = HTTPRequest(method: "", target: "")
  /// Where the current request's field lines begin in the buffer.
  private var fieldsStart = 0
  /// What the current request's fields say about its framing, noted as they are read.
  private var framing = FramingFields()
  /// Bytes of field lines read for the current request (headers, then trailers).
  private var fieldBytes = 0
  private var fieldCount = 0
  /// Empty lines read since the last request.
  private var emptyLines = 0

  /// How many empty lines may come before a request line. RFC 9112 §2.2 asks servers to
  /// ignore at least one (some clients send a CRLF after a body); a connection that sends
  /// more is not sending requests, and gets 400 rather than a buffer that grows as it sends.
  public static let maxEmptyLinesBeforeRequest = 16

  /// The largest body storage kept for the next request's body, as bodies of API requests
  /// are: a larger one is let go with its request, not held (and counted) while the
  /// connection waits.
  static let keptBodyCapacity = 4096

  private enum State {
    case requestLine, headerFields
    case fixedBody(remaining: Int)
    case chunkSize
    case chunkData(remaining: Int)
    case chunkDataEnd
    case trailerFields
    case failed
  }

  public init(limits: HTTPLimits = HTTPLimits()) {
    self.limits = limits
  }

  /// Bytes received and not yet part of a delivered request.
  public var bufferedByteCount: Int { buffer.count - start }

  /// The memory the parser holds for requests being received: its buffer, the storage of field
  /// lines (kept from request to request), and the body of the request it is reading (a body's
  /// whole `Content-Length` from its head on), or the last one's storage if it is kept
  /// (`keptBodyCapacity`).
  @inlinable public var heldBytes: Int {
    buffer.capacity + request.headers.lines.capacity + request.body.capacity
  }

  /// Whether the request last delivered has a `Connection` field: one without needs no pass
  /// over its fields to know if it keeps the connection (`HTTPRequest.keepsAlive`).
  public var requestNamesConnection: Bool { framing.hasConnection }

  /// Part of a request has been read (so a timeout would cut it short).
  public var isMidRequest: Bool {
    if case .requestLine = state { return buffer.count > start }
    if case .failed = state { return false }
    return true
  }

  /// The head is complete and the body is being read.
  public var isReadingBody: Bool {
    switch state {
    case .fixedBody, .chunkSize, .chunkData, .chunkDataEnd, .trailerFields: true
    default: false
    }
  }

  /// Bytes received, in order. (Concrete, not generic over sequences: called from another
  /// module, a generic append was not specialized and copied byte by byte.)
  public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    var bytes = bytes
    if start == buffer.count, !bytes.isEmpty {
      // A body's bytes with nothing unread before them go straight into the body: copied
      // once, not into the buffer first (a large body is nearly all such reads).
      switch state {
      case .fixedBody(let remaining):
        state = .fixedBody(remaining: remaining - appendToBody(&bytes, upTo: remaining))
      case .chunkData(let remaining):
        state = .chunkData(remaining: remaining - appendToBody(&bytes, upTo: remaining))
      default:
        break
      }
    }
    buffer.append(contentsOf: bytes)
  }

  /// Moves up to `count` of `bytes` into the body, leaving the rest; returns how many it moved.
  private mutating func appendToBody(_ bytes: inout UnsafeBufferPointer<UInt8>, upTo count: Int)
    -> Int
  {
    let taken = min(count, bytes.count)
    reserveBody(taken)
    request.body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<taken]))
    bytes = UnsafeBufferPointer(rebasing: bytes[taken...])
    return taken
  }

  /// Bytes received, from any sequence (tests, the fuzzer).
  public mutating func append(_ bytes: some Sequence<UInt8>) {
    Array(bytes).withUnsafeBufferPointer { append($0) }
  }

  /// The next request, expectation or error in the bytes so far; nil when it needs more.
  public mutating func next() -> HTTPParserEvent? {
    do {
      return try parse()
    } catch {
      state = .failed
      return .error(error)
    }
  }

  private mutating func parse() throws(HTTPError) -> HTTPParserEvent? {
    while true {
      switch state {
      case .failed:
        return nil
      case .requestLine:
        let limit = limits.maxRequestLineBytes
        let tooLong = { HTTPError(.uriTooLong, "the request line is longer than \(limit) bytes") }
        guard let line = try nextLine(limit: limit, tooLong: tooLong) else {
          return nil
        }
        if line.isEmpty {
          emptyLines += 1
          guard emptyLines <= Self.maxEmptyLinesBeforeRequest else {
            throw .badRequest(
              "more than \(Self.maxEmptyLinesBeforeRequest) empty lines before a request line")
          }
          continue
        }
        emptyLines = 0
        let head = try withBytes(line, Self.requestLine)
        request.method = head.method
        request.target = head.target
        request.minorVersion = head.minorVersion
        if !request.body.isEmpty { request.body.removeAll(keepingCapacity: true) }
        framing = FramingFields()
        (fieldBytes, fieldCount) = (0, 0)
        fieldsStart = start
        state = .headerFields
      case .headerFields:
        guard let line = try nextFieldLine() else { return nil }
        if line.isEmpty {
          buffer.withUnsafeBufferPointer { all in
            request.headers.replaceLines(
              with: UnsafeBufferPointer(rebasing: all[fieldsStart..<line.lowerBound]))
          }
          if let event = try finishHead() { return event }
        } else {
          framing.record(
            try withBytes(line) { line throws(HTTPError) in try Self.framingNote(line) })
        }
      case .fixedBody(let remaining):
        let taken = takeBody(upTo: remaining)
        guard taken == remaining else {
          state = .fixedBody(remaining: remaining - taken)
          return nil
        }
        return completeRequest()
      case .chunkSize:
        let tooLong = { HTTPError.badRequest("a chunk size line is longer than 1024 bytes") }
        guard let line = try nextLine(limit: 1024, tooLong: tooLong) else { return nil }
        let allowance = limits.maxBodyBytes - request.body.count
        let size = try withBytes(line) { line throws(HTTPError) in
          try Self.chunkSize(line, atMost: allowance, maxBodyBytes: limits.maxBodyBytes)
        }
        state = size == 0 ? .trailerFields : .chunkData(remaining: size)
        if size == 0 { (fieldBytes, fieldCount) = (0, 0) }
        // The chunk's room is made at once, as a declared length's is: grown piece by piece, a
        // large chunk leaves each smaller storage it outgrew in the heap (counted nowhere).
        reserveBody(size)
      case .chunkData(let remaining):
        let taken = takeBody(upTo: remaining)
        guard taken == remaining else {
          state = .chunkData(remaining: remaining - taken)
          return nil
        }
        state = .chunkDataEnd
      case .chunkDataEnd:
        guard buffer.count - start >= 2 else { return nil }
        guard buffer[start] == .cr, buffer[start + 1] == .lf else {
          throw .badRequest("chunk data is not followed by CRLF")
        }
        start += 2
        scanFrom = start
        state = .chunkSize
      case .trailerFields:
        guard let line = try nextFieldLine() else { return nil }
        if line.isEmpty { return completeRequest() }
        _ = try withBytes(line, Self.field)  // validated, then dropped: no trailer is acted upon
      }
    }
  }

  // MARK: Lines

  /// Where the next CRLF-terminated line (without its CRLF) is in the buffer, consumed; nil
  /// until one is complete. `tooLong` makes the error for a line over `limit` (only then: it
  /// costs a string).
  private mutating func nextLine(limit: Int, tooLong: () -> HTTPError) throws(HTTPError)
    -> Range<Int>?
  {
    guard let lf = Self.firstIndex(of: .lf, in: buffer, from: max(start, scanFrom)) else {
      scanFrom = buffer.count
      if buffer.count - start > limit + 1 { throw tooLong() }  // +1: its CR may have arrived
      return nil
    }
    // The same verdict however the bytes were split: too long before anything else.
    if lf - start > limit + 1 { throw tooLong() }
    guard lf > start, buffer[lf - 1] == .cr else { throw .badRequest("a line ends in a bare LF") }
    let line = start..<(lf - 1)
    if line.count > limit { throw tooLong() }
    if Self.firstIndex(of: .cr, in: buffer, from: start, to: lf - 1) != nil {
      throw .badRequest("a line contains a bare CR")
    }
    start = lf + 1
    scanFrom = start
    return line
  }

  /// Calls `body` with the buffered bytes in `range`, borrowed rather than sliced: a slice of
  /// the buffer retains and releases it, which cost more than checking a short line.
  ///
  /// The view is unchecked in release builds: every `range` is a line `nextLine` found in the
  /// buffer. What the checks of a line take of it are ranges up to a byte they found in it
  /// (`firstIndex`, `lastIndex`) or after a guard on its count in the same condition.
  private func withBytes<Result>(
    _ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws(HTTPError) -> Result
  ) throws(HTTPError) -> Result {
    try buffer.withUnsafeBufferPointer { (all) throws(HTTPError) -> Result in
      try body(UnsafeBufferPointer(rebasing: all[range]))
    }
  }

  /// The index of the first `byte` in `bytes[from..<to]`, found by libc's `memchr` (many bytes
  /// a step; a generic search on a slice costs several instructions a byte).
  private static func firstIndex(
    of byte: UInt8, in bytes: [UInt8], from: Int, to end: Int? = nil
  ) -> Int? {
    bytes.withUnsafeBytes { storage in
      let end = end ?? storage.count
      guard from < end, let base = storage.baseAddress,
        let found = memchr(base + from, Int32(byte), end - from)
      else { return nil }
      return base.distance(to: found)
    }
  }

  /// The next header or trailer field line, counted against the field limits.
  private mutating func nextFieldLine() throws(HTTPError) -> Range<Int>? {
    let maxHeaderBytes = limits.maxHeaderBytes
    let tooLarge = {
      HTTPError(
        .requestHeaderFieldsTooLarge, "the header fields are larger than \(maxHeaderBytes) bytes")
    }
    let budget = limits.maxHeaderBytes - fieldBytes - 2
    guard let line = try nextLine(limit: max(budget, 0), tooLong: tooLarge) else { return nil }
    fieldBytes += line.count + 2
    if !line.isEmpty {
      fieldCount += 1
      if fieldCount > limits.maxHeaderCount {
        throw HTTPError(
          .requestHeaderFieldsTooLarge, "more than \(limits.maxHeaderCount) header fields")
      }
    }
    return line
  }

  // MARK: Framing

  /// Checks the head and chooses the body's framing (RFC 9112 §6).
  private mutating func finishHead() throws(HTTPError) -> HTTPParserEvent? {
    if framing.hosts > 1 || (framing.hosts == 0 && request.minorVersion == 1) {
      throw .badRequest("an HTTP/1.1 request needs exactly one Host header field")
    }
    if !framing.transferEncodings.isEmpty {
      if request.minorVersion == 0 {
        throw .badRequest("Transfer-Encoding in an HTTP/1.0 request")
      }
      if framing.contentLengthCount > 0 {
        throw .badRequest("both Transfer-Encoding and Content-Length")
      }
      let codings = framing.transferEncodings.flatMap {
        $0.split(separator: ",", omittingEmptySubsequences: false)
      }
      .map { $0.trimmingOWS() }
      let isChunked = { (coding: Substring) in coding.equalsIgnoringASCIICase("chunked") }
      guard let last = codings.last, isChunked(last), codings.filter(isChunked).count == 1,
        !codings.contains("")
      else { throw .badRequest("chunked is not the final transfer coding, exactly once") }
      if let other = codings.first(where: { !isChunked($0) }) {
        throw HTTPError(.notImplemented, "the transfer coding \(other) is not implemented")
      }
      state = .chunkSize
    } else if framing.contentLengthCount > 0 {
      guard framing.contentLengthCount == 1 else {
        throw .badRequest("more than one Content-Length")
      }
      guard let bytes = framing.contentLength else {
        throw .badRequest("Content-Length is not a decimal number")
      }
      if bytes > limits.maxBodyBytes {
        throw HTTPError(
          .contentTooLarge, "the body is larger than \(limits.maxBodyBytes) bytes")
      }
      state = .fixedBody(remaining: bytes)
      request.body.reserveCapacity(bytes)
    } else {
      return completeRequest()
    }
    if let expectation = framing.expectation {
      guard expectation.equalsIgnoringASCIICase("100-continue") else {
        throw HTTPError(.expectationFailed, "only the expectation 100-continue is supported")
      }
      if buffer.count == start { return .continueExpected }
    }
    return nil
  }

  /// Moves up to `count` buffered bytes into the body; returns how many it moved.
  private mutating func takeBody(upTo count: Int) -> Int {
    let taken = min(count, buffer.count - start)
    reserveBody(taken)
    request.body.append(contentsOf: buffer[start..<(start + taken)])
    start += taken
    if start >= 65536 { compact() }
    scanFrom = start
    return taken
  }

  /// Makes room for `count` more bytes of body: a chunked body's storage doubles, but never
  /// past the limit (a body of declared length has its room from the head on, a chunk from its
  /// size line on).
  private mutating func reserveBody(_ count: Int) {
    let needed = request.body.count + count
    if needed > request.body.capacity {
      request.body.reserveCapacity(
        min(max(needed, 2 * request.body.capacity), max(needed, limits.maxBodyBytes)))
    }
  }

  private mutating func completeRequest() -> HTTPParserEvent {
    let complete = request
    // The field lines' storage, and a small body's, stay for the next request's, which reuses
    // them once this one is dropped: an allocation less each per request.
    if request.body.capacity > Self.keptBodyCapacity { request.body = [] }
    state = .requestLine
    // Consumed bytes are dropped a few kilobytes at a time: removing a range from the array
    // after every request would cost a few hundred instructions, nearly all for no bytes moved.
    if start >= 4096 { compact() }
    return .request(complete)
  }

  /// Drops the consumed bytes, so the buffer holds only what is still to be parsed.
  private mutating func compact() {
    buffer.removeSubrange(..<start)
    start = 0
    scanFrom = 0
  }
}
