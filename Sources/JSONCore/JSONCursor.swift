/// Room reserved ahead in a `JSONWriter`'s buffer (`JSONWriter.withRoom`), written with no
/// checks but a debug build's: no commas come by themselves here, every byte is as given.
public struct JSONCursor {
  @usableFromInline var position: UnsafeMutablePointer<UInt8>
  @usableFromInline let start: UnsafeMutablePointer<UInt8>
  @usableFromInline let end: UnsafeMutablePointer<UInt8>

  /// The most bytes `decimal` writes.
  public static let decimalRoom = 20
  /// The most bytes `seconds` writes.
  public static let secondsRoom = 25

  @inlinable
  init(_ start: UnsafeMutablePointer<UInt8>, room: Int) {
    self.start = start
    position = start
    end = start + room
  }

  /// The bytes written so far.
  @inlinable
  var written: Int { start.distance(to: position) }

  @inlinable
  public mutating func raw(_ byte: UInt8) {
    assert(position < end, "wrote past the room reserved")
    position.initialize(to: byte)
    position += 1
  }

  @inlinable
  public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
    assert(bytes.count <= position.distance(to: end), "wrote past the room reserved")
    guard let base = bytes.baseAddress else { return }
    position.initialize(from: base, count: bytes.count)
    position += bytes.count
  }

  @inlinable
  public mutating func raw(_ text: StaticString) {
    raw(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// The decimal digits of `value`, written two at a time from the last into their place (a
  /// journal's sequence numbers run to seven digits and more).
  @inlinable
  public mutating func decimal(_ value: UInt64) {
    let digits = Self.digitCount(value)
    assert(digits <= position.distance(to: end), "wrote past the room reserved")
    var rest = value
    var place = position + digits
    let pairs: StaticString = """
      00010203040506070809101112131415161718192021222324252627282930313233343536373839\
      40414243444546474849505152535455565758596061626364656667686970717273747576777879\
      8081828384858687888990919293949596979899
      """
    while rest >= 10 {
      let pair = Int(rest % 100) * 2
      rest /= 100
      place -= 2
      place[0] = pairs.utf8Start[pair]
      place[1] = pairs.utf8Start[pair + 1]
    }
    if place > position {  // an odd count: the first digit alone
      position[0] = UInt8(ascii: "0") + UInt8(rest)
    }
    position += digits
  }

  /// How many decimal digits `value` has: up to eight (sequence numbers, times, lengths)
  /// told by a few comparisons, more by a loop over the powers of ten.
  @inlinable
  static func digitCount(_ value: UInt64) -> Int {
    if value < 10_000 {
      return value < 100 ? (value < 10 ? 1 : 2) : (value < 1_000 ? 3 : 4)
    }
    if value < 100_000_000 {
      return value < 1_000_000 ? (value < 100_000 ? 5 : 6) : (value < 10_000_000 ? 7 : 8)
    }
    var digits = 9
    var bound: UInt64 = 1_000_000_000
    while value >= bound, digits < 20 {
      digits += 1
      bound &*= 10  // wraps only from 10^19 to "10^20", when the count is 20 and the loop ends
    }
    return digits
  }

  /// A whole number of milliseconds as seconds, the way `Double.description` writes
  /// `Double(milliseconds) / 1000` (`0.0`, `1.5`, `2.125`), without the floating point: exact
  /// for every value below 2^53 milliseconds (285,000 years).
  @inlinable
  public mutating func seconds(milliseconds: Int64) {
    if milliseconds < 0 { raw(UInt8(ascii: "-")) }
    let magnitude = milliseconds.magnitude
    decimal(magnitude / 1000)
    raw(UInt8(ascii: "."))
    var fraction = magnitude % 1000
    guard fraction != 0 else { return raw(UInt8(ascii: "0")) }
    var divisor: UInt64 = 100
    while fraction != 0 {
      raw(UInt8(ascii: "0") + UInt8(fraction / divisor))
      fraction %= divisor
      divisor /= 10
    }
  }
}
