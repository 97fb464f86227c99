#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A JSON text kept as its bytes and a flat list of its values in document order: how request
/// bodies are read. Nothing is copied out until a reader asks, so members are found by
/// comparing key bytes, and a String is made only for a value that becomes one (a tree of
/// values costs an allocation per container and a String per key and string).
///
/// An array's elements follow it; an object's members follow it as key, value, key, value;
/// every container records where its contents end, so a reader steps from one element or
/// member to the next without looking inside.
public struct JSONDocument: Sendable {
  /// One value of the text, in sixteen bytes.
  public struct Value: Sendable {
    public enum Kind: UInt8, Sendable {
      case null, `false`, `true`, integer, double, string, array, object
    }

    public let kind: Kind
    /// A string with escapes: its text must be decoded (`string(at:)`) rather than copied.
    public let isEscaped: Bool
    /// A string's first byte, or a container's count.
    @usableFromInline var narrow: Int32
    /// A string's end, the index just past a container's contents, or a number.
    @usableFromInline var wide: UInt64

    /// A string's bytes between its quotes.
    public var start: Int32 { narrow }
    public var end: Int32 { Int32(truncatingIfNeeded: wide) }
    /// An array's elements or an object's members.
    public var count: Int32 { isContainer ? narrow : 0 }
    /// An array or an object: a value with contents, which records where they end.
    @inlinable var isContainer: Bool { kind == .array || kind == .object }
    /// An integer, or a double's bits.
    public var number: UInt64 { wide }

    @usableFromInline
    init(kind: Kind, isEscaped: Bool = false, narrow: Int32 = 0, wide: UInt64 = 0) {
      self.kind = kind
      self.isEscaped = isEscaped
      self.narrow = narrow
      self.wide = wide
    }

    static func string(start: Int, end: Int, isEscaped: Bool) -> Value {
      Value(kind: .string, isEscaped: isEscaped, narrow: Int32(start), wide: UInt64(end))
    }

    static func number(_ kind: Kind, bits: UInt64) -> Value { Value(kind: kind, wide: bits) }
  }

  public let bytes: [UInt8]
  /// The values in the order the text has them. An index into them is one the reader made (a
  /// value's, its children's, `wide` past a container's end) or the caller's (`root`,
  /// `children(of:)`); a string's `start..<end` lies within `bytes`, where the reader found it.
  @usableFromInline private(set) var values: [Value]
  /// The keys of each object of more than `KeyIndex.minimumMembers` members, by the object's
  /// index (smaller objects are searched).
  private let keyIndexes: [Int: KeyIndex]

  /// The index of the value the text is.
  public static let root = 0

  /// Parses `bytes` strictly: one value, UTF-8, no duplicate keys, no trailing bytes, nesting
  /// at most `JSON.maxDepth` deep, numbers that fit a `Double`, at most `JSON.maxNumberLength`
  /// characters.
  public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONDocument {
    var storage: [Value] = []
    return try parse(bytes, reusing: &storage)
  }

  /// Parses `bytes` as `parse(_:)` does, its values written into `storage`'s storage if
  /// nothing else holds it: a caller that parses one document after another keeps the last
  /// one's (`storage` holds them afterwards) and saves an allocation a document.
  public static func parse(_ bytes: [UInt8], reusing storage: inout [Value]) throws(JSONError)
    -> JSONDocument
  {
    // The reader works on the bytes' storage directly: no bounds check or retain per byte.
    let (values, keyIndexes) = try bytes.withUnsafeBufferPointer {
      buffer throws(JSONError) -> ([Value], [Int: KeyIndex]) in
      var reader = Reader(bytes: buffer, reusing: &storage)
      try reader.value(depth: 0)
      reader.skipWhitespace()
      guard reader.position == buffer.count else {
        throw reader.error("unexpected bytes after the value")
      }
      return (reader.values, reader.keyIndexes)
    }
    storage = values
    return JSONDocument(bytes: bytes, values: values, keyIndexes: keyIndexes)
  }

  /// The index of the key of the member `key` of the object at `object`, if it has one (its
  /// value follows it). Found by binary search in an object of many members, by a scan of a
  /// small one.
  public func key(_ key: StaticString, of object: Int) -> Int? {
    guard let index = keyIndexes[object] else { return member(key, of: object)?.key }
    let literal = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
    return bytes.withUnsafeBufferPointer { bytes in
      index.find(hash: KeyIndex.hash(literal)) { candidate in
        Self.withText(of: values[candidate], in: bytes) { Self.order($0, literal) }
      }
    }
  }

  /// Member `key` of the object at `object`, by a scan of its keys: its place among the
  /// members and the index of its key. What a reader of a small object asks for each member,
  /// so it compares lengths before bytes, and counts no reference on the way.
  public func member(_ key: StaticString, of object: Int) -> (ordinal: Int, key: Int)? {
    values.withUnsafeBufferPointer { values in
      bytes.withUnsafeBufferPointer { bytes in
        var keyIndex = object + 1
        for ordinal in 0..<Int(values[object].count) {
          if Self.withText(of: values[keyIndex], in: bytes, { Self.text($0, is: key) }) {
            return (ordinal, keyIndex)
          }
          let value = values[keyIndex + 1]
          keyIndex = value.isContainer ? Int(value.wide) : keyIndex + 2
        }
        return nil
      }
    }
  }

  @inlinable
  public subscript(index: Int) -> Value { values[index] }

  /// The indices of an array's elements, or of an object's keys (each member's value follows
  /// its key), in order.
  @inlinable
  public func children(of index: Int) -> Children {
    Children(
      values: values, upcoming: index + 1, remaining: Int(values[index].count),
      isObject: values[index].kind == .object)
  }

  /// The index just past the value at `index` and its contents.
  @inlinable
  static func index(after index: Int, in values: [Value]) -> Int {
    values[index].isContainer ? Int(values[index].wide) : index + 1
  }

  /// The indices of a container's children: see `children(of:)`.
  public struct Children: Sequence, IteratorProtocol {
    @usableFromInline let values: [Value]
    @usableFromInline var upcoming: Int
    @usableFromInline var remaining: Int
    @usableFromInline let isObject: Bool

    @inlinable
    init(values: [Value], upcoming: Int, remaining: Int, isObject: Bool) {
      self.values = values
      self.upcoming = upcoming
      self.remaining = remaining
      self.isObject = isObject
    }

    @inlinable
    public mutating func next() -> Int? {
      guard remaining > 0 else { return nil }
      remaining -= 1
      let child = upcoming
      upcoming = JSONDocument.index(after: isObject ? child + 1 : child, in: values)
      return child
    }
  }

  /// The text of the string at `index`, its escapes decoded.
  @inlinable
  public func string(at index: Int) -> String {
    bytes.withUnsafeBufferPointer { Self.text(of: values[index], in: $0) }
  }

  /// Calls `body` with the UTF-8 text of the string at `index`: the body's own bytes unless
  /// it has escapes.
  @inlinable
  public func withUTF8<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result)
    -> Result
  {
    bytes.withUnsafeBufferPointer { Self.withText(of: values[index], in: $0, body) }
  }

  /// The text of the string `value` of `bytes`, its escapes decoded.
  @inlinable
  static func text(of value: Value, in bytes: UnsafeBufferPointer<UInt8>) -> String {
    value.isEscaped
      ? decodedText(of: value, in: bytes)
      : String(decoding: bytes[Int(value.start)..<Int(value.end)], as: UTF8.self)
  }

  /// Calls `body` with the UTF-8 text of the string `value` of `bytes`: its own bytes unless
  /// it has escapes.
  @inlinable
  static func withText<Result>(
    of value: Value, in bytes: UnsafeBufferPointer<UInt8>,
    _ body: (UnsafeBufferPointer<UInt8>) -> Result
  ) -> Result {
    guard value.isEscaped else {
      return body(UnsafeBufferPointer(rebasing: bytes[Int(value.start)..<Int(value.end)]))
    }
    var text = decodedText(of: value, in: bytes)
    return text.withUTF8(body)
  }

  /// The text of a string with escapes, decoded.
  @usableFromInline
  static func decodedText(of value: Value, in bytes: UnsafeBufferPointer<UInt8>) -> String {
    var reader = Reader(stringAt: Int(value.start), in: bytes)
    return (try? reader.escapedString(decoding: true)) ?? ""  // validated when parsed
  }

  /// Whether the strings `first` and `second` of `bytes` have the same text.
  static func sameText(
    _ first: Value, _ second: Value, in bytes: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    guard first.isEscaped || second.isEscaped else {
      // `bytes` is the parsed document: never empty, so it has an address.
      return first.end - first.start == second.end - second.start
        && memcmp(
          bytes.baseAddress! + Int(first.start), bytes.baseAddress! + Int(second.start),
          Int(first.end - first.start)) == 0
    }
    return order(first, second, in: bytes) == 0
  }

  /// How the texts of the strings `first` and `second` of `bytes` compare: negative if the
  /// first sorts first, zero if they are the same.
  static func order(
    _ first: Value, _ second: Value, in bytes: UnsafeBufferPointer<UInt8>
  ) -> Int {
    withText(of: first, in: bytes) { first in
      withText(of: second, in: bytes) { second in order(first, second) }
    }
  }

  /// How two UTF-8 texts compare, byte by byte (and so by Unicode scalar): negative if `first`
  /// sorts first, zero if they are the same.
  static func order(
    _ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>
  ) -> Int {
    let common = min(first.count, second.count)
    // Neither is empty once `common` is not: both have an address.
    let sign = common == 0 ? 0 : memcmp(first.baseAddress!, second.baseAddress!, common)
    return sign != 0 ? Int(sign) : first.count - second.count
  }

  /// Whether the string at `index` is `literal`.
  @inlinable
  public func string(at index: Int, is literal: StaticString) -> Bool {
    withUTF8(at: index) { Self.text($0, is: literal) }
  }

  /// Whether `text` is `literal`'s bytes: lengths compared first, the bytes only when they
  /// agree.
  @inlinable
  static func text(_ text: UnsafeBufferPointer<UInt8>, is literal: StaticString) -> Bool {
    // A text that is not empty has an address.
    text.count == literal.utf8CodeUnitCount
      && (text.isEmpty || memcmp(text.baseAddress!, literal.utf8Start, text.count) == 0)
  }

  /// The value at `index` as a tree.
  public func json(at index: Int) -> JSON {
    let value = values[index]
    switch value.kind {
    case .null: return .null
    case .false: return .bool(false)
    case .true: return .bool(true)
    case .integer: return .integer(Int(truncatingIfNeeded: value.number))
    case .double: return .double(Double(bitPattern: value.number))
    case .string: return .string(string(at: index))
    case .array: return .array(children(of: index).map { json(at: $0) })
    case .object: return .object(children(of: index).map { (string(at: $0), json(at: $0 + 1)) })
    }
  }
}
