/// The grammar of a request's lines (RFC 9112): each checked as the parser finds it, its
/// parts returned or an error thrown.
extension HTTPParser {
  /// `method SP request-target SP HTTP-version` (RFC 9112 §3).
  static func requestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> (
    method: String, target: String, minorVersion: Int
  ) {
    // A version is eight bytes without a space: the last space is then the ninth byte from the
    // end, found without a search through the target.
    let versionStart = line.count - 8
    let endsInVersion =
      versionStart > 1 && line[versionStart - 1] == .space
      && !line[versionStart...].contains(.space)
    let lastSpace = endsInVersion ? versionStart - 1 : line.lastIndex(of: .space)
    guard let firstSpace = line.firstIndex(of: .space), let lastSpace, firstSpace < lastSpace,
      firstSpace > 0
    else { throw .badRequest("the request line is not 'method target version'") }
    let method = UnsafeBufferPointer(rebasing: line[..<firstSpace])
    let target = UnsafeBufferPointer(rebasing: line[(firstSpace + 1)..<lastSpace])
    let version = UnsafeBufferPointer(rebasing: line[(lastSpace + 1)...])
    guard method.allSatisfy(\.isTokenCharacter) else {
      throw .badRequest("the method is not a token")
    }
    guard version.count == 8, UnsafeBufferPointer(rebasing: version.prefix(5)).equals("HTTP/"),
      version[6] == .dot, let major = version[5].digitValue, let minor = version[7].digitValue
    else { throw .badRequest("the HTTP version is malformed") }
    guard major == 1 else {
      throw HTTPError(.httpVersionNotSupported, "only HTTP/1.x is supported")
    }
    // Which methods a resource answers is the application's business (405 with Allow); only
    // CONNECT, which would turn the connection into a tunnel, is refused here.
    if method.equals("CONNECT") {
      throw HTTPError(.notImplemented, "CONNECT is not implemented: no tunnels")
    }
    guard !target.isEmpty,
      target.allSatisfy(printableFrom: 0x21, orElse: { $0 > 0x20 && $0 < 0x7F })
    else {
      throw .badRequest("the request target is empty or has a byte that is not visible ASCII")
    }
    let methodName = commonMethod(method) ?? String(decoding: method, as: UTF8.self)
    return (methodName, try checkedTarget(target, method: methodName), min(minor, 1))
  }

  /// The methods nearly every request has, as literals: making a String of the bytes checks
  /// them as UTF-8 first, which costs more than recognising them.
  static func commonMethod(_ method: UnsafeBufferPointer<UInt8>) -> String? {
    if method.equals("GET") { return "GET" }
    if method.equals("POST") { return "POST" }
    if method.equals("DELETE") { return "DELETE" }
    if method.equals("PUT") { return "PUT" }
    if method.equals("HEAD") { return "HEAD" }
    return nil
  }

  /// The target as sent, once it is known to be in origin-form, in absolute-form with an
  /// `http` or `https` scheme, or `*` for `OPTIONS`. An absolute-form target's authority
  /// stands for `Host` (RFC 9112 §3.2.2): one that is empty or carries userinfo is refused
  /// (RFC 9110 §4.2.1, §4.2.4).
  static func checkedTarget(_ target: UnsafeBufferPointer<UInt8>, method: String)
    throws(HTTPError) -> String
  {
    // Copied in whole rather than decoded: the same String (invalid UTF-8 would be repaired
    // alike), made for less.
    let text = String(unsafeUninitializedCapacity: target.count) {
      $0.initialize(fromContentsOf: target)
    }
    if target.first == UInt8(ascii: "/") || (text == "*" && method == "OPTIONS") { return text }
    for scheme: StaticString in ["http://", "https://"]
    where UnsafeBufferPointer(rebasing: target.prefix(scheme.utf8CodeUnitCount))
      .equalsIgnoringASCIICase(scheme)
    {
      let authority = HTTPRequest.splitAuthority(text.dropFirst(scheme.utf8CodeUnitCount)).authority
      guard !authority.isEmpty, !authority.contains("@") else {
        throw .badRequest("the request target's authority is empty or has userinfo")
      }
      return text
    }
    throw .badRequest("the request target is not in origin or absolute form")
  }

  /// `field-name ":" OWS field-value OWS` (RFC 9112 §5), strictly.
  static func field(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> (
    name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
  ) {
    if line.first == .space || line.first == .tab {
      throw .badRequest("obsolete line folding in the header fields")
    }
    guard let colon = line.firstIndex(of: .colon) else {
      throw .badRequest("a header field has no colon")
    }
    let name = UnsafeBufferPointer(rebasing: line[..<colon])
    guard !name.isEmpty, name.allSatisfy(\.isTokenCharacter) else {
      throw .badRequest("a header field name is not a token (whitespace before the colon?)")
    }
    var value = line[(colon + 1)...]
    while let first = value.first, first == .space || first == .tab { value = value.dropFirst() }
    while let last = value.last, last == .space || last == .tab { value = value.dropLast() }
    let isValue = UnsafeBufferPointer(rebasing: value).allSatisfy(printableFrom: 0x20) {
      $0 == .tab || ($0 >= 0x20 && $0 != 0x7F)  // and obs-text, 0x80 and above
    }
    guard isValue else {
      throw .badRequest("a header field value contains a control character")
    }
    return (name, UnsafeBufferPointer(rebasing: value))
  }

  /// What a field line says about the framing, once it is checked.
  static func framingNote(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPError)
    -> FramingFields.Note
  {
    let (name, value) = try field(line)
    return FramingFields.Note(name: name, value: value)
  }

  /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1); the extensions are checked, then ignored.
  /// `allowance`: the most the chunk may hold before the body exceeds `maxBodyBytes`.
  static func chunkSize(
    _ line: UnsafeBufferPointer<UInt8>, atMost allowance: Int, maxBodyBytes: Int
  ) throws(HTTPError) -> Int {
    let digits = line.prefix(while: { $0.hexDigitValue != nil })
    guard !digits.isEmpty else { throw .badRequest("a chunk size is not hexadecimal") }
    var size = 0
    for digit in digits {
      size = size * 16 + digit.hexDigitValue!  // `digits` holds hexadecimal digits only
      if size > allowance {
        throw HTTPError(.contentTooLarge, "the body is larger than \(maxBodyBytes) bytes")
      }
    }
    let extensions = line[digits.endIndex...].drop { $0 == .space || $0 == .tab }
    guard extensions.isEmpty || extensions.first == .semicolon,
      extensions.allSatisfy({ $0 == .tab || ($0 >= 0x20 && $0 != 0x7F) })
    else { throw .badRequest("a chunk size is followed by something other than an extension") }
    return size
  }
}

/// The header fields that decide a request's framing (RFC 9112 §6), and whether it has a
/// `Connection` field (§9.3), noted as they are read so that the head need not be searched
/// again.
struct FramingFields {
  var hosts = 0
  var hasConnection = false
  /// The first `Content-Length` if it is a decimal number that fits an `Int`; how many there
  /// were.
  var contentLength: Int?
  var contentLengthCount = 0
  var transferEncodings: [String] = []
  /// The first `Expect`.
  var expectation: String?

  /// What one field line says about the framing.
  enum Note {
    case host
    /// The value, if it is a decimal number that fits an `Int`.
    case contentLength(Int?)
    case transferEncoding(String)
    case expectation(String)
    case connection
    case none

    init(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
      self =
        if name.equalsIgnoringASCIICase("host") {
          .host
        } else if name.equalsIgnoringASCIICase("content-length") {
          .contentLength(FramingFields.number(value))
        } else if name.equalsIgnoringASCIICase("transfer-encoding") {
          .transferEncoding(String(decoding: value, as: UTF8.self))
        } else if name.equalsIgnoringASCIICase("expect") {
          .expectation(String(decoding: value, as: UTF8.self))
        } else if name.equalsIgnoringASCIICase("connection") {
          .connection
        } else {
          .none
        }
    }
  }

  mutating func record(_ note: Note) {
    switch note {
    case .host:
      hosts += 1
    case .contentLength(let length):
      if contentLengthCount == 0 { contentLength = length }
      contentLengthCount += 1
    case .transferEncoding(let codings):
      transferEncodings.append(codings)
    case .expectation(let expectation):
      self.expectation = self.expectation ?? expectation
    case .connection:
      hasConnection = true
    case .none:
      break
    }
  }

  /// One to nineteen decimal digits, as a number if it fits an `Int`.
  static func number(_ digits: UnsafeBufferPointer<UInt8>) -> Int? {
    guard (1...19).contains(digits.count) else { return nil }
    var number = 0
    for byte in digits {
      guard let digit = byte.digitValue else { return nil }
      let (tens, overflowed) = number.multipliedReportingOverflow(by: 10)
      let (sum, overflowedAgain) = tens.addingReportingOverflow(digit)
      guard !overflowed, !overflowedAgain else { return nil }
      number = sum
    }
    return number
  }
}
