#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One complete request, as the parser delivers it.
public struct HTTPRequest: Hashable, Sendable {
  public var method: String
  /// The request target as sent (origin-form, or the path of an absolute-form target).
  public var target: String
  /// The minor version: `1` for HTTP/1.1 (and any 1.x above it), `0` for HTTP/1.0.
  public var minorVersion: Int
  public var headers: Fields
  public var body: [UInt8]

  public init(
    method: String, target: String, minorVersion: Int = 1, headers: Fields = Fields(),
    body: [UInt8] = []
  ) {
    self.method = method
    self.target = target
    self.minorVersion = minorVersion
    self.headers = headers
    self.body = body
  }

  /// The target split at its first `?`: the path, and the query after it if there is one.
  public var pathAndQuery: (path: Substring, query: Substring?) {
    guard let mark = queryMark else { return (target[...], nil) }
    return (target[..<mark], target[target.utf8.index(after: mark)...])
  }

  /// The target without its query.
  public var path: Substring { pathAndQuery.path }

  /// The query after `?`, if any.
  public var query: Substring? { pathAndQuery.query }

  /// Where the `?` that starts the query is.
  private var queryMark: String.Index? {
    let offset = target.utf8.withContiguousStorageIfAvailable {
      $0.firstIndex(of: UInt8(ascii: "?"))
    }
    guard let offset else { return target.utf8.firstIndex(of: UInt8(ascii: "?")) }
    return offset.map { target.utf8.index(target.utf8.startIndex, offsetBy: $0) }
  }

  /// Whether the client wants the connection kept open after the response (RFC 9112 §9.3).
  public var keepAlive: Bool {
    var asksToKeepAlive = false
    for value in headers.values(of: "connection") {
      for token in value.split(separator: ",").lazy.map({ $0.trimmingOWS() }) {
        if token.equalsIgnoringASCIICase("close") { return false }
        if token.equalsIgnoringASCIICase("keep-alive") { asksToKeepAlive = true }
      }
    }
    return minorVersion >= 1 || asksToKeepAlive
  }

  /// A request's header fields, kept as the field lines it sent: a String is made only for a
  /// value someone asks for. (Making a String of every name and value cost more than the rest
  /// of parsing, and most, such as `Host` and `Content-Length`, are never read again.)
  public struct Fields: Sendable, Sequence {
    /// `name:value` lines, optional whitespace around the value, each ending in CRLF; the
    /// parser has checked every one.
    private let lines: [UInt8]

    /// Field lines the parser has checked.
    init(lines: [UInt8]) {
      self.lines = lines
    }

    /// No fields.
    public init() {
      lines = []
    }

    /// These fields, in this order.
    public init(_ fields: [(name: String, value: String)]) {
      lines = Array(fields.map { "\($0.name): \($0.value)\r\n" }.joined().utf8)
    }

    /// The first value of the field `name`, compared without regard to case.
    public subscript(name: String) -> String? {
      var name = name
      return name.withUTF8 { name in
        var found: String?
        forEachField { fieldName, value in
          guard fieldName.equalsIgnoringASCIICase(name) else { return true }
          found = String(decoding: value, as: UTF8.self)
          return false
        }
        return found
      }
    }

    /// Every value of the field `name`, compared without regard to case, in order.
    func values(of name: StaticString) -> [String] {
      var values: [String] = []
      let name = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
      forEachField { fieldName, value in
        if fieldName.equalsIgnoringASCIICase(name) {
          values.append(String(decoding: value, as: UTF8.self))
        }
        return true
      }
      return values
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
      var fields: [(name: String, value: String)] = []
      forEachField { name, value in
        fields.append(
          (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        return true
      }
      return fields.makeIterator()
    }

    /// Calls `body` with each field's name and value (without its optional whitespace), in
    /// order, while it returns true.
    @inline(__always)
    private func forEachField(
      _ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool
    ) {
      lines.withUnsafeBufferPointer { lines in
        guard let base = lines.baseAddress else { return }
        // libc's memchr finds the colon and the CR: the lines were checked, so both are there.
        func offset(of byte: UInt8, from start: Int) -> Int {
          UnsafeRawPointer(base).distance(
            to: memchr(base + start, Int32(byte), lines.count - start)!)
        }
        var start = 0
        while start < lines.count {
          let colon = offset(of: .colon, from: start)
          let end = offset(of: .cr, from: colon)
          var valueStart = colon + 1
          var valueEnd = end
          while valueStart < valueEnd, lines[valueStart].isOWS { valueStart += 1 }
          while valueEnd > valueStart, lines[valueEnd - 1].isOWS { valueEnd -= 1 }
          let name = UnsafeBufferPointer(rebasing: lines[start..<colon])
          guard body(name, UnsafeBufferPointer(rebasing: lines[valueStart..<valueEnd])) else {
            return
          }
          start = end + 2
        }
      }
    }
  }
}

extension HTTPRequest.Fields: Hashable {
  /// Fields are equal when their names and values are, in order: how the lines spaced them
  /// does not count.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.elementsEqual(rhs) { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for (name, value) in self {
      hasher.combine(name)
      hasher.combine(value)
    }
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes are `other`'s, ASCII letters compared without regard to case.
  func equalsIgnoringASCIICase(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
    count == other.count
      && zip(self, other).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
  }
}
