#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One complete request, as the parser delivers it.
public struct HTTPRequest: Hashable, Sendable {
  public var method: String
  /// The request target as sent: origin-form (`/path?query`), absolute-form
  /// (`http://host/path?query`, its authority checked by the parser) or `*` (`OPTIONS`).
  public var target: String
  /// The minor version: `1` for HTTP/1.1 (and any 1.x above it), `0` for HTTP/1.0.
  public var minorVersion: Int
  public var headers: HTTPFields
  public var body: [UInt8]

  public init(
    method: String, target: String, minorVersion: Int = 1, headers: HTTPFields = HTTPFields(),
    body: [UInt8] = []
  ) {
    self.method = method
    self.target = target
    self.minorVersion = minorVersion
    self.headers = headers
    self.body = body
  }

  /// The target's parts: an absolute-form target's authority (`host[:port]`), which a server
  /// takes for the `Host` field (RFC 9112 §3.2.2), nil for any other form; the path, an
  /// absolute-form target's after its authority (`/` when it has none); and the query after
  /// the first `?`, if there is one.
  public var parts: (authority: Substring?, path: Substring, query: Substring?) {
    let (first, mark) = firstByteAndQueryMark
    // Origin-form, nearly every request's, is told by its first byte.
    guard let first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*"),
      let scheme = target.firstRange(of: "://")
    else {
      guard let mark else { return (nil, Substring(target), nil) }
      return (nil, target[..<mark], target[target.utf8.index(after: mark)...])
    }
    let (authority, rest) = Self.splitAuthority(target[scheme.upperBound...])
    guard let mark = rest.firstIndex(of: "?") else {
      return (authority, rest.isEmpty ? "/" : rest, nil)
    }
    return (
      authority, mark == rest.startIndex ? "/" : rest[..<mark], rest[rest.index(after: mark)...]
    )
  }

  /// The target without its query.
  public var path: Substring { parts.path }

  /// The query after `?`, if any.
  public var query: Substring? { parts.query }

  /// An absolute-form target's authority; nil for any other form.
  public var authority: Substring? { parts.authority }

  /// What follows an absolute-form target's `scheme://`, split where its authority ends: at the
  /// first `/` or `?` (RFC 3986 §3.2), or at the end.
  static func splitAuthority(_ afterScheme: Substring) -> (authority: Substring, rest: Substring) {
    let end = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
    return (afterScheme[..<end], afterScheme[end...])
  }

  /// The target's first byte, and where the `?` that starts its query is: one look at its
  /// bytes, which a String's collection methods reach at more cost than the search.
  private var firstByteAndQueryMark: (first: UInt8?, mark: String.Index?) {
    let found = target.utf8.withContiguousStorageIfAvailable { bytes -> (UInt8?, Int?) in
      guard let base = bytes.baseAddress, !bytes.isEmpty else { return (nil, nil) }
      let mark = memchr(base, Int32(UInt8(ascii: "?")), bytes.count)
      return (base[0], mark.map { UnsafeRawPointer(base).distance(to: $0) })
    }
    guard let (first, offset) = found else {
      return (target.utf8.first, target.utf8.firstIndex(of: UInt8(ascii: "?")))
    }
    return (first, offset.map { target.utf8.index(target.utf8.startIndex, offsetBy: $0) })
  }

  /// Whether the client wants the connection kept open after the response (RFC 9112 §9.3).
  public var keepAlive: Bool { keepsAlive(readingFields: true) }

  /// `keepAlive`, read from the field lines as they are, or with `readingFields` false when
  /// the caller knows the request has no `Connection` field (the parser noted none, as for
  /// most requests): then the version alone decides.
  public func keepsAlive(readingFields: Bool) -> Bool {
    guard readingFields else { return minorVersion >= 1 }
    var closes = false
    var asksToKeepAlive = false
    headers.forEachValue(of: "connection") { value in
      for token in value.split(separator: .comma, omittingEmptySubsequences: true) {
        let token = UnsafeBufferPointer(rebasing: token).trimmingOWS()
        if token.equalsIgnoringASCIICase("close") { closes = true }
        if token.equalsIgnoringASCIICase("keep-alive") { asksToKeepAlive = true }
      }
      return !closes
    }
    return !closes && (minorVersion >= 1 || asksToKeepAlive)
  }
}
