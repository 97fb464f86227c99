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

  /// The longest number text accepted, in characters, as Jackson's `maxNumberLength` bounds
  /// it by default: a `Double` holds 17 significant digits, and converting a longer text
  /// costs time in proportion to its length (a megabyte of digits, 2 ms).
  public static let maxNumberLength = 1000

  /// Parses `bytes` strictly: one value, UTF-8, no duplicate keys, no trailing bytes, nesting
  /// at most `maxDepth` deep, numbers that fit a `Double`, at most `maxNumberLength` characters.
  public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSON {
    try JSONDocument.parse(bytes).json(at: JSONDocument.root)
  }

  /// The value serialized compactly.
  public var bytes: [UInt8] {
    JSONWriter.encode { $0.value(self) }
  }
}
