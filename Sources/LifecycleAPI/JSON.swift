/// A JSON value as the API reads and writes it (RFC 8259).
///
/// Objects keep their members in order, so responses come out in the order they are built.
/// Numbers are integers when written without fraction or exponent and within `Int`, else
/// doubles.
public enum JSON: Hashable, Sendable {
  case null
  case bool(Bool)
  case integer(Int)
  case double(Double)
  case string(String)
  case array([JSON])
  case object([(String, JSON)])

  public static func == (lhs: JSON, rhs: JSON) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.integer(let a), .integer(let b)): a == b
    case (.double(let a), .double(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)): a.elementsEqual(b) { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(String(decoding: bytes, as: UTF8.self))
  }

  /// The member `key` of an object.
  public subscript(key: String) -> JSON? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }
}

/// Why a body is not acceptable JSON, with the byte offset where reading stopped.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
  public var message: String
  public var offset: Int

  public var description: String { "\(message) at byte \(offset)" }
}

extension JSON {
  /// The deepest nesting of arrays and objects accepted.
  public static let maxDepth = 64

  /// Parses `bytes` strictly: one value, UTF-8, no duplicate keys, no trailing bytes, nesting
  /// at most `maxDepth` deep, numbers that fit a `Double`.
  public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSON {
    var reader = JSONReader(bytes: bytes)
    let value = try reader.value(depth: 0)
    reader.skipWhitespace()
    guard reader.position == bytes.count else {
      throw reader.error("unexpected bytes after the value")
    }
    return value
  }

  /// The value serialized compactly.
  public var bytes: [UInt8] {
    JSONWriter.encode { $0.value(self) }
  }

  /// Appends `string` as a JSON string literal, escaping quotes, backslashes and controls.
  public static func writeString(_ string: String, to output: inout [UInt8]) {
    output += JSONWriter.encode(capacity: string.utf8.count + 2) { $0.string(string) }
  }
}

/// A recursive-descent reader over the bytes of one JSON text.
private struct JSONReader {
  let bytes: [UInt8]
  var position = 0

  func error(_ message: String) -> JSONError { JSONError(message: message, offset: position) }

  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        position += 1
      default:
        return
      }
    }
  }

  mutating func value(depth: Int) throws(JSONError) -> JSON {
    skipWhitespace()
    guard position < bytes.count else { throw error("the body ends where a value should be") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw error("unexpected character")
    }
  }

  private mutating func literal(_ word: String, _ value: JSON) throws(JSONError) -> JSON {
    guard bytes[position...].starts(with: word.utf8) else { throw error("unexpected character") }
    position += word.utf8.count
    return value
  }

  private mutating func object(depth: Int) throws(JSONError) -> JSON {
    guard depth <= JSON.maxDepth else { throw error("nesting deeper than \(JSON.maxDepth)") }
    position += 1
    var members: [(String, JSON)] = []
    var keys: Set<String> = []  // for large objects; small ones are searched
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
      return .object(members)
    }
    members.reserveCapacity(4)  // room for a request object's members: one allocation, not three
    while true {
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
        throw error("an object key must be a string")
      }
      let key = try string()
      if members.count == 16 { keys = Set(members.map(\.0)) }
      let isDuplicate =
        members.count < 16 ? members.contains { $0.0 == key } : !keys.insert(key).inserted
      guard !isDuplicate else { throw error("duplicate key '\(key)'") }
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
        throw error("':' expected after an object key")
      }
      position += 1
      members.append((key, try value(depth: depth)))
      skipWhitespace()
      guard position < bytes.count else { throw error("the body ends inside an object") }
      if bytes[position] == UInt8(ascii: "}") {
        position += 1
        return .object(members)
      }
      guard bytes[position] == UInt8(ascii: ",") else { throw error("',' or '}' expected") }
      position += 1
    }
  }

  private mutating func array(depth: Int) throws(JSONError) -> JSON {
    guard depth <= JSON.maxDepth else { throw error("nesting deeper than \(JSON.maxDepth)") }
    position += 1
    var elements: [JSON] = []
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
      return .array(elements)
    }
    elements.reserveCapacity(4)  // a typical scenario's events: one allocation, not three
    while true {
      elements.append(try value(depth: depth))
      skipWhitespace()
      guard position < bytes.count else { throw error("the body ends inside an array") }
      if bytes[position] == UInt8(ascii: "]") {
        position += 1
        return .array(elements)
      }
      guard bytes[position] == UInt8(ascii: ",") else { throw error("',' or ']' expected") }
      position += 1
    }
  }

  /// A string literal; escapes decoded, UTF-8 validated, control characters refused.
  private mutating func string() throws(JSONError) -> String {
    position += 1
    let start = position
    var isASCII = true
    while position < bytes.count, bytes[position] >= 0x20, bytes[position] != UInt8(ascii: "\\") {
      guard bytes[position] == UInt8(ascii: "\"") else {
        isASCII = isASCII && bytes[position] < 0x80
        position += 1
        continue
      }
      position += 1
      // No escapes: the common case, copied in one pass (ASCII needs no validation).
      let text = bytes.withUnsafeBufferPointer { storage in
        let run = UnsafeBufferPointer(rebasing: storage[start..<(position - 1)])
        return isASCII
          ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
      }
      guard let text else {
        throw JSONError(message: "a string is not valid UTF-8", offset: position)
      }
      return text
    }
    position = start
    return try escapedString()
  }

  /// The rest of a string literal that has escapes or errors.
  private mutating func escapedString() throws(JSONError) -> String {
    var scalars = String.UnicodeScalarView()
    var run: [UInt8] = []  // raw UTF-8 bytes between escapes
    func flush() throws(JSONError) {
      guard !run.isEmpty else { return }
      guard let text = String(validating: run, as: UTF8.self) else {
        throw JSONError(message: "a string is not valid UTF-8", offset: position)
      }
      scalars.append(contentsOf: text.unicodeScalars)
      run.removeAll(keepingCapacity: true)
    }
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      switch byte {
      case UInt8(ascii: "\""):
        try flush()
        return String(scalars)
      case UInt8(ascii: "\\"):
        try flush()
        scalars.append(try escape())
      case 0..<0x20:
        throw error("a control character inside a string")
      default:
        run.append(byte)
      }
    }
    throw error("the body ends inside a string")
  }

  private mutating func escape() throws(JSONError) -> Unicode.Scalar {
    guard position < bytes.count else { throw error("the body ends inside an escape") }
    let byte = bytes[position]
    position += 1
    switch byte {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let high = try hexQuad()
      guard (0xD800..<0xDC00).contains(high) else {
        guard let scalar = Unicode.Scalar(high) else { throw error("a lone low surrogate") }
        return scalar
      }
      guard bytes[position...].starts(with: #"\u"#.utf8) else {
        throw error("a lone high surrogate")
      }
      position += 2
      let low = try hexQuad()
      guard (0xDC00..<0xE000).contains(low) else { throw error("a lone high surrogate") }
      return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
    default:
      throw error("an unknown escape")
    }
  }

  private mutating func hexQuad() throws(JSONError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("the body ends inside an escape") }
    var value: UInt32 = 0
    for byte in bytes[position..<(position + 4)] {
      guard let digit = Int(String(UnicodeScalar(byte)), radix: 16) else {
        throw error("\\u needs four hexadecimal digits")
      }
      value = value * 16 + UInt32(digit)
    }
    position += 4
    return value
  }

  /// `-? int frac? exp?` exactly as RFC 8259 §6 writes it.
  private mutating func number() throws(JSONError) -> JSON {
    let start = position
    func digits() -> Int {
      let from = position
      while position < bytes.count,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
      {
        position += 1
      }
      return position - from
    }
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    let integerStart = position
    let integerDigits = digits()
    guard integerDigits > 0 else { throw error("a number needs digits") }
    if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
      throw error("a number has a leading zero")
    }
    var isInteger = true
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      isInteger = false
      guard digits() > 0 else { throw error("a fraction needs digits") }
    }
    if position < bytes.count,
      bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")
    {
      position += 1
      isInteger = false
      if position < bytes.count,
        bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
      {
        position += 1
      }
      guard digits() > 0 else { throw error("an exponent needs digits") }
    }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    if isInteger, let integer = Int(text) { return .integer(integer) }
    guard let double = Double(text), double.isFinite else {
      throw JSONError(message: "a number is out of range", offset: start)
    }
    return .double(double)
  }
}
