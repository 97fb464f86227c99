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
    guard count == other.count else { return false }
    for index in 0..<count {
      let (byte, otherByte) = (self[index], other[index])
      // Equal bytes need no folding: nearly all of them, in the names a server compares.
      if byte != otherByte, asciiLowercased(byte) != asciiLowercased(otherByte) { return false }
    }
    return true
  }

  func equalsIgnoringASCIICase(_ literal: StaticString) -> Bool {
    equalsIgnoringASCIICase(
      UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// Whether every byte is `allowed`, which must accept every byte from `lowest` (0x20 or
  /// 0x21) to `~`: runs of those are checked eight bytes at a time, the rest one by one.
  /// (Request targets and field values are mostly such runs; a loop over their bytes cost
  /// a dozen instructions a byte.)
  func allSatisfy(printableFrom lowest: UInt8, orElse allowed: (UInt8) -> Bool) -> Bool {
    assert(lowest == 0x20 || lowest == 0x21)
    guard let base = baseAddress else { return true }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    var index = 0
    while index + 8 <= count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      // With no high bit set, a byte below `lowest` or equal to DEL shows as a high bit in
      // these (the classic "has less" and "has zero byte" tests).
      let below = (word &- ones &* UInt64(lowest)) & ~word & highBits
      let del = word ^ (ones &* 0x7F)
      let isDel = (del &- ones) & ~del & highBits
      if word & highBits == 0, below == 0, isDel == 0 {
        index += 8
        continue
      }
      for byte in UnsafeBufferPointer(rebasing: self[index..<(index + 8)]) where !allowed(byte) {
        return false
      }
      index += 8
    }
    for byte in UnsafeBufferPointer(rebasing: self[index...]) where !allowed(byte) {
      return false
    }
    return true
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
