#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Bytes and characters as HTTP reads them: ASCII, case-insensitive where RFC 9110 says so.

extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes are exactly `literal`.
  func equals(_ literal: StaticString) -> Bool {
    count == literal.utf8CodeUnitCount
      && (isEmpty || memcmp(baseAddress!, literal.utf8Start, count) == 0)
  }

  /// Whether these bytes are `other`'s, ASCII letters compared without regard to case, as
  /// field names, tokens and media types compare (RFC 9110 §5.1, §5.6.2, §8.3.1): the one
  /// such comparison of the module, which the others call.
  func equalsIgnoringASCIICase(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
    count == other.count
      && zip(self, other).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
  }

  func equalsIgnoringASCIICase(_ literal: StaticString) -> Bool {
    equalsIgnoringASCIICase(
      UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
  func trimmingOWS() -> UnsafeBufferPointer<UInt8> {
    var start = startIndex
    var end = endIndex
    while start < end, self[start].isOWS { start += 1 }
    while end > start, self[end - 1].isOWS { end -= 1 }
    return UnsafeBufferPointer(rebasing: self[start..<end])
  }
}

extension UInt8 {
  static let cr = UInt8(ascii: "\r")
  static let lf = UInt8(ascii: "\n")
  static let space = UInt8(ascii: " ")
  static let tab = UInt8(ascii: "\t")
  static let colon = UInt8(ascii: ":")
  static let semicolon = UInt8(ascii: ";")
  static let comma = UInt8(ascii: ",")
  static let dot = UInt8(ascii: ".")

  var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

  /// Optional whitespace (RFC 9110 §5.6.3): a space or a tab.
  var isOWS: Bool { self == .space || self == .tab }

  var digitValue: Int? { isDigit ? Int(self - UInt8(ascii: "0")) : nil }

  var hexDigitValue: Int? {
    if let digit = digitValue { return digit }
    let lower = asciiLowercased(self)
    return (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(lower)
      ? Int(lower - UInt8(ascii: "a")) + 10 : nil
  }

  /// `tchar` (RFC 9110 §5.6.2): the characters of methods and field names.
  var isTokenCharacter: Bool {
    switch self {
    case 0..<64: Self.tokenCharacters.low >> self & 1 == 1
    case 64..<128: Self.tokenCharacters.high >> (self - 64) & 1 == 1
    default: false
    }
  }

  /// The set of `tchar` as bits, one per ASCII byte: a shift and a mask per lookup. Written as
  /// constants (a computed table costs a lazy-initialisation check per byte); a test derives
  /// them from the characters RFC 9110 lists.
  static let tokenCharacters: (low: UInt64, high: UInt64) = (
    low: 0x03FF_6CFA_0000_0000, high: 0x57FF_FFFF_C7FF_FFFE
  )
}

extension StringProtocol {
  /// Whether the text is `literal`, ASCII letters compared without regard to case.
  func equalsIgnoringASCIICase(_ literal: StaticString) -> Bool {
    guard utf8.count == literal.utf8CodeUnitCount else { return false }  // most end here
    var text = String(self)
    return text.withUTF8 { $0.equalsIgnoringASCIICase(literal) }
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

func asciiLowercased(_ byte: UInt8) -> UInt8 {
  (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
}
