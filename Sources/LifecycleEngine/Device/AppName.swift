/// An app's name, held in the value itself: at most 64 ASCII bytes (`Validation.isValidName`).
///
/// Every event copies the callbacks and transitions it causes into its outcome and into the
/// device's journal, and each of them names its app. With the name inline rather than in a
/// String they are plain bytes: copied without reference counting, overwritten in the journal's
/// ring without releasing anything, written out as JSON straight from here.
public struct AppName: Hashable, Comparable, Sendable, LosslessStringConvertible,
  ExpressibleByStringLiteral
{
  /// The most bytes a valid name has.
  public static let capacity = 64

  /// The name's bytes, then zeros: eight words, a tuple (`InlineArray` needs macOS and iOS 26).
  @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
    (0, 0, 0, 0, 0, 0, 0, 0)
  @usableFromInline var length: UInt8 = 0

  /// The name `name`; nil if it is longer than any valid name (it names no app, then).
  public init?(_ name: String) {
    var name = name
    let fits: Bool = name.withUTF8 { utf8 in
      guard utf8.count <= Self.capacity else { return false }
      length = UInt8(utf8.count)
      withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(utf8)) }
      return true
    }
    guard fits else { return nil }
  }

  public init(stringLiteral name: String) {
    // Literals only, written in code: a request's names go through the failable init.
    guard let name = AppName(name) else { preconditionFailure("an app name of over 64 bytes") }
    self = name
  }

  public var description: String {
    withUTF8 { String(decoding: $0, as: UTF8.self) }
  }

  /// Calls `body` with the name's UTF-8 bytes: inlinable, since every callback and transition
  /// the API writes names its app this way.
  @inlinable
  public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows
    -> Result
  {
    try withUnsafeBytes(of: words) { storage in
      try body(
        UnsafeBufferPointer(
          start: storage.baseAddress!.assumingMemoryBound(to: UInt8.self),  // 64 bytes: never nil
          count: Int(length)))
    }
  }

  /// The words that hold bytes: names are mostly short.
  @inlinable
  var usedWords: Int { (Int(length) + 7) / 8 }

  /// Word `index`, below 8.
  @inlinable
  func word(_ index: Int) -> UInt64 {
    withUnsafeBytes(of: words) { $0.load(fromByteOffset: index &* 8, as: UInt64.self) }
  }

  @inlinable
  public static func == (lhs: AppName, rhs: AppName) -> Bool {
    guard lhs.length == rhs.length, lhs.words.0 == rhs.words.0 else { return false }
    var index = 1
    while index < lhs.usedWords {
      if lhs.word(index) != rhs.word(index) { return false }
      index += 1
    }
    return true
  }

  public func hash(into hasher: inout Hasher) {
    for index in 0..<usedWords { hasher.combine(word(index)) }
  }

  /// Byte order, which for ASCII names is String order: the heaps break ties with it.
  @inlinable
  public static func < (lhs: AppName, rhs: AppName) -> Bool {
    // Stored in memory order, zero-padded: the first differing byte decides, so words compare
    // big-endian, and a name that is a prefix of another comes first.
    let first = (lhs.words.0.bigEndian, rhs.words.0.bigEndian)
    if first.0 != first.1 { return first.0 < first.1 }
    for index in 1..<8 {
      let pair = (lhs.word(index).bigEndian, rhs.word(index).bigEndian)
      if pair.0 != pair.1 { return pair.0 < pair.1 }
    }
    return false
  }
}
