/// JSON text written straight into bytes in the order of the calls: how every response is
/// encoded, with no tree of values in between (a response of two events is some 1,400 bytes
/// and would otherwise be a hundred small allocations).
///
/// Commas come by themselves: a key or an array element that follows a value gets one.
///
/// It owns a plain buffer rather than an array: appending is a bounds check and a copy, with
/// none of an array's uniqueness checks, which cost more than the bytes themselves here.
///
/// Its methods are `@inlinable`: a response is hundreds of small appends, and each is a few
/// instructions only once inlined into the code that writes the response.
public struct JSONWriter: ~Copyable {
  @usableFromInline var buffer: UnsafeMutablePointer<UInt8>
  @usableFromInline var capacity: Int
  @usableFromInline var count = 0

  @inlinable
  public init(capacity: Int = 512) {
    self.capacity = max(capacity, 16)
    buffer = .allocate(capacity: self.capacity)
  }

  deinit { buffer.deallocate() }

  /// The text written so far.
  @inlinable
  public var bytes: [UInt8] { text(from: 0) }

  /// How many bytes are written so far: a position to take `text(from:)`.
  @inlinable
  public var position: Int { count }

  /// The text written from `position` on.
  @inlinable
  public func text(from position: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: buffer + position, count: count - position))
  }

  /// The text of one value written by `body`.
  @inlinable
  public static func encode(capacity: Int = 512, _ body: (inout JSONWriter) -> Void) -> [UInt8] {
    var writer = JSONWriter(capacity: capacity)
    body(&writer)
    return writer.bytes
  }

  // MARK: Bytes

  @inlinable @inline(__always)
  mutating func reserve(_ additional: Int) {
    guard count + additional > capacity else { return }
    let grown = UnsafeMutablePointer<UInt8>.allocate(
      capacity: max(capacity * 2, count + additional))
    grown.initialize(from: buffer, count: count)
    buffer.deallocate()
    buffer = grown
    capacity = max(capacity * 2, count + additional)
  }

  @inlinable @inline(__always)
  mutating func append(_ byte: UInt8) {
    reserve(1)
    buffer[count] = byte
    count += 1
  }

  @inlinable @inline(__always)
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress else { return }
    reserve(bytes.count)
    (buffer + count).initialize(from: base, count: bytes.count)
    count += bytes.count
  }

  @inlinable @inline(__always)
  mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { append($0) }
  }

  /// The decimal digits of `value` (`JSONCursor.decimal`).
  @inlinable
  mutating func appendDecimal(_ value: UInt64) {
    withRoom(JSONCursor.decimalRoom) { $0.decimal(value) }
  }

  /// Calls `body` with a cursor over `room` bytes reserved ahead, which it writes through
  /// with no further checks, and keeps what it wrote: for shapes written so often that
  /// checking for room at every piece cost more than the pieces, and whose length has a
  /// bound. Writing more than `room` is a programming error.
  @inlinable @inline(__always)
  public mutating func withRoom(_ room: Int, _ body: (inout JSONCursor) -> Void) {
    reserve(room)
    var cursor = JSONCursor(buffer + count, room: room)
    body(&cursor)
    count += cursor.written
  }

  // MARK: Structure

  @inlinable @inline(__always)
  public mutating func object(_ members: (inout JSONWriter) -> Void) {
    beginObject()
    members(&self)
    endObject()
  }

  @inlinable @inline(__always)
  public mutating func array(_ elements: (inout JSONWriter) -> Void) {
    beginArray()
    elements(&self)
    endArray()
  }

  /// The start of an object, for members written by a loop that may stop early (otherwise
  /// `object(_:)`); `endObject` closes it.
  @inlinable @inline(__always)
  public mutating func beginObject() {
    separate()
    append(UInt8(ascii: "{"))
  }

  @inlinable @inline(__always)
  public mutating func endObject() {
    append(UInt8(ascii: "}"))
  }

  /// The start of an array, for elements written by a loop that may stop early (otherwise
  /// `array(_:)`); `endArray` closes it.
  @inlinable @inline(__always)
  public mutating func beginArray() {
    separate()
    append(UInt8(ascii: "["))
  }

  @inlinable @inline(__always)
  public mutating func endArray() {
    append(UInt8(ascii: "]"))
  }

  /// An array of `elements`, each written by `element`.
  @inlinable @inline(__always)
  public mutating func array<Elements: Sequence>(
    _ elements: Elements, _ element: (inout JSONWriter, Elements.Element) -> Void
  ) {
    array { writer in
      for each in elements { element(&writer, each) }
    }
  }

  /// An object member's key; its value comes next.
  @inlinable @inline(__always)
  public mutating func key(_ name: StaticString) {
    separate()
    let length = name.utf8CodeUnitCount
    reserve(length + 3)  // then three plain stores and one copy
    buffer[count] = UInt8(ascii: "\"")
    (buffer + count + 1).initialize(from: name.utf8Start, count: length)
    buffer[count + 1 + length] = UInt8(ascii: "\"")
    buffer[count + 2 + length] = UInt8(ascii: ":")
    count += length + 3
  }

  /// An object member's key that is not known in advance, escaped as any string.
  @inlinable
  public mutating func key(escaping name: String) {
    string(name)
    append(UInt8(ascii: ":"))
  }

  // MARK: Members: a key and its value

  @inlinable @inline(__always)
  public mutating func member(_ name: StaticString, _ value: String) {
    key(name)
    string(value)
  }

  @inlinable @inline(__always)
  public mutating func member(_ name: StaticString, _ value: String?) {
    key(name)
    string(value)
  }

  @inlinable @inline(__always)
  public mutating func member(_ name: StaticString, _ value: Int) {
    key(name)
    integer(value)
  }

  /// A number, or `null` for none.
  public mutating func member(_ name: StaticString, _ value: Int?) {
    key(name)
    guard let value else { return null() }
    integer(value)
  }

  @inlinable @inline(__always)
  public mutating func member(_ name: StaticString, _ value: Bool) {
    key(name)
    bool(value)
  }

  /// A string that needs no escaping: see `unescaped(_:)`.
  @inlinable @inline(__always)
  public mutating func member(_ name: StaticString, unescaped value: String?) {
    key(name)
    guard let value else { return null() }
    unescaped(value)
  }

  /// An enumeration's case by its raw value, or null.
  @inlinable @inline(__always)
  public mutating func member(_ name: StaticString, _ value: (some NamedCases)?) {
    key(name)
    guard let value else { return null() }
    enumCase(value)
  }

  @inlinable @inline(__always)
  public mutating func member(_ name: StaticString, _ values: [some NamedCases]) {
    key(name)
    array(values) { $0.enumCase($1) }
  }

  /// `"name":["…",…]`: a set of cases, in the order their type declares them.
  public mutating func member<Cases: NamedCases & Hashable>(
    _ name: StaticString, _ values: Set<Cases>
  ) {
    member(name, Cases.allCases.filter(values.contains))
  }

  /// `"name":["…",…]`, each string escaped.
  public mutating func member(_ name: StaticString, _ values: [String]) {
    key(name)
    array(values) { $0.string($1) }
  }

  // MARK: Values

  /// A string, escaping quotes, backslashes and control characters; runs without them (nearly
  /// every string) are copied whole.
  @inlinable
  public mutating func string(_ value: String) {
    separate()
    quoted(value)
  }

  // MARK: Text without structure

  /// `value` as a JSON string literal, with no comma before it: for text that is not a JSON
  /// document but quotes strings as JSON does, such as a log line.
  @inlinable
  public mutating func quoted(_ value: some StringProtocol) {
    append(UInt8(ascii: "\""))
    let written = value.utf8.withContiguousStorageIfAvailable { appendEscaped($0) } != nil
    if !written {  // a string not stored as UTF-8 (bridged): copy it first
      var copy = String(value)
      copy.withUTF8 { appendEscaped($0) }
    }
    append(UInt8(ascii: "\""))
  }

  /// UTF-8 text as a JSON string literal, with no comma before it.
  @inlinable
  public mutating func quoted(utf8: UnsafeBufferPointer<UInt8>) {
    append(UInt8(ascii: "\""))
    appendEscaped(utf8)
    append(UInt8(ascii: "\""))
  }

  /// Bytes copied as they are, with no comma before them.
  @inlinable @inline(__always)
  public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
    append(bytes)
  }

  /// Bytes copied as they are, with no comma before them.
  @inlinable @inline(__always)
  public mutating func raw(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { append($0) }
  }

  /// Text copied as it is, with no comma before it.
  @inlinable @inline(__always)
  public mutating func raw(_ text: StaticString) {
    append(text)
  }

  /// One byte, with no comma before it.
  @inlinable @inline(__always)
  public mutating func raw(_ byte: UInt8) {
    append(byte)
  }

  /// A non-negative integer's digits, with no comma before them.
  @inlinable
  public mutating func rawDecimal(_ value: UInt64) {
    appendDecimal(value)
  }

  /// Forgets what was written, keeping the buffer for the next text.
  @inlinable
  public mutating func removeAll() {
    count = 0
  }

  /// Moves what is written into `text`, all but the last byte, which stays to be written
  /// after (a comma follows it as it would): a long text handed over a piece at a time.
  public mutating func move(into text: inout [UInt8]) {
    guard count > 1 else { return }
    text.append(contentsOf: UnsafeBufferPointer(start: buffer, count: count - 1))
    buffer[0] = buffer[count - 1]
    count = 1
  }

  /// The bytes the writer's buffer takes, written or not: what it costs in memory.
  public var reservedBytes: Int { capacity }

  /// Calls `body` with the bytes written so far.
  @inlinable
  public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    body(UnsafeBufferPointer(start: buffer, count: count))
  }

  @inlinable
  mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    guard Self.needsEscaping(utf8) else {
      reserve(utf8.count + 1)  // the closing quote too
      return append(utf8)
    }
    var start = 0
    for (index, byte) in utf8.enumerated()
    where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
      append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
      escape(byte)
      start = index + 1
    }
    append(UnsafeBufferPointer(rebasing: utf8[start...]))
  }

  /// Whether any byte is a quote, a backslash or a control character; eight bytes at a time
  /// (each test below sets a byte's top bit where that byte matches).
  @inlinable @inline(__always)
  static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let tops: UInt64 = 0x8080_8080_8080_8080
    func below(_ word: UInt64, _ limit: UInt64) -> UInt64 { (word &- ones &* limit) & ~word & tops }
    var index = 0
    if let base = UnsafeRawPointer(utf8.baseAddress) {
      while index + 8 <= utf8.count {
        let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        let quote = below(word ^ (ones &* 0x22), 1)
        let backslash = below(word ^ (ones &* 0x5C), 1)
        if below(word, 0x20) | quote | backslash != 0 { return true }
        index += 8
      }
    }
    return utf8[index...].contains {
      $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
    }
  }

  @usableFromInline
  mutating func escape(_ byte: UInt8) {
    switch byte {
    case UInt8(ascii: "\""): append(#"\""#)
    case UInt8(ascii: "\\"): append(#"\\"#)
    case UInt8(ascii: "\n"): append(#"\n"#)
    case UInt8(ascii: "\r"): append(#"\r"#)
    case UInt8(ascii: "\t"): append(#"\t"#)
    default:
      let hex: StaticString = "0123456789abcdef"
      append(#"\u00"#)
      append(hex.utf8Start[Int(byte >> 4)])
      append(hex.utf8Start[Int(byte & 0xF)])
    }
  }

  /// A string that never needs escaping, copied whole, such as a name restricted to letters,
  /// digits, `.`, `_` and `-`. Debug builds check the promise.
  @inlinable
  public mutating func unescaped(_ value: String) {
    let copied: Void? = value.utf8.withContiguousStorageIfAvailable { unescaped(utf8: $0) }
    if copied == nil { string(value) }  // a string not stored as UTF-8 (bridged)
  }

  /// UTF-8 text that never needs escaping, copied whole as a string (see `unescaped(_:)`).
  @inlinable @inline(__always)
  public mutating func unescaped(utf8: UnsafeBufferPointer<UInt8>) {
    assert(!Self.needsEscaping(utf8), "\(String(decoding: utf8, as: UTF8.self)) needs escaping")
    separate()
    reserve(utf8.count + 2)
    append(UInt8(ascii: "\""))
    append(utf8)
    append(UInt8(ascii: "\""))
  }

  /// An enumeration's case as its raw value (see `NamedCases`).
  @inlinable @inline(__always)
  public mutating func enumCase<Cases: NamedCases>(_ value: Cases) {
    separate()
    Cases.quotedNames.withText(of: value) { append($0) }
  }

  /// The prepared text of `value`, copied as it is, punctuation and all, with no comma added:
  /// for the parts of shapes written often enough to be prepared whole.
  @inlinable @inline(__always)
  public mutating func verbatim<Cases: NamedCases>(_ texts: CaseTexts<Cases>, _ value: Cases) {
    texts.withText(of: value) { append($0) }
  }

  @inlinable
  public mutating func string(_ value: String?) {
    guard let value else { return null() }
    string(value)
  }

  @inlinable @inline(__always)
  public mutating func integer(_ value: Int) {
    separate()
    if value < 0 { append(UInt8(ascii: "-")) }
    appendDecimal(UInt64(value.magnitude))
  }

  @inlinable @inline(__always)
  public mutating func bool(_ value: Bool) {
    separate()
    append(value ? "true" : "false")
  }

  @inlinable @inline(__always)
  public mutating func null() {
    separate()
    append("null")
  }

  /// A whole number of milliseconds as seconds (`JSONCursor.seconds`).
  @inlinable
  public mutating func seconds(milliseconds: Int64) {
    separate()
    withRoom(JSONCursor.secondsRoom) { $0.seconds(milliseconds: milliseconds) }
  }

  /// A value already encoded, such as an event result kept for a scenario's refusal.
  @inlinable
  public mutating func encoded(_ text: JSONText) {
    separate()
    text.bytes.withUnsafeBufferPointer { append($0) }
  }

  /// A value already encoded as UTF-8 JSON text, such as a document's value kept as read.
  @inlinable
  public mutating func encoded(utf8 text: UnsafeBufferPointer<UInt8>) {
    separate()
    append(text)
  }

  /// A value given as a tree, such as a request's event echoed back.
  public mutating func value(_ json: JSON) {
    switch json {
    case .null: null()
    case .bool(let value): bool(value)
    case .integer(let value): integer(value)
    case .double(let value) where value.isFinite:
      separate()
      var text = value.description
      text.withUTF8 { append($0) }
    case .double: null()
    case .string(let value): string(value)
    case .array(let elements): array(elements) { $0.value($1) }
    case .object(let members):
      object { writer in
        for (name, member) in members {
          writer.key(escaping: name)
          writer.value(member)
        }
      }
    }
  }

  /// A comma, unless the value or key about to be written comes first in its container or
  /// right after its key.
  @inlinable @inline(__always)
  mutating func separate() {
    guard count > 0 else { return }
    let last = buffer[count - 1]
    if last != UInt8(ascii: "{"), last != UInt8(ascii: "["), last != UInt8(ascii: ":") {
      append(UInt8(ascii: ","))
    }
  }
}
