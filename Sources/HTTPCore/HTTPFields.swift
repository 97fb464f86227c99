import JSONCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Header fields, kept as field lines: a request's as it sent them, a response's as they go
/// out. A String is made only for a value someone asks for: making one of every name and
/// value would cost more than the rest of parsing, and most (`Host`, `Content-Length`) are
/// never read again.
public struct HTTPFields: Sendable, Sequence {
  /// `name:value` lines, optional whitespace around the value, each ending in CRLF: checked
  /// by the parser, or written by `append`.
  @usableFromInline private(set) var lines: [UInt8]

  /// Replaces the lines with `checked`, lines the parser has checked, in the storage the old
  /// ones had if nothing else holds it.
  mutating func replaceLines(with checked: UnsafeBufferPointer<UInt8>) {
    lines.replaceContents(with: checked)
  }

  /// Makes these fields `other`'s, in the storage these had if nothing else holds it: a
  /// server that adds fields of its own to shared constant ones writes every response's
  /// into the same storage, where copying the shared lines on write allocated each time.
  public mutating func replaceAll(with other: HTTPFields) {
    other.lines.withUnsafeBufferPointer { replaceLines(with: $0) }
  }

  /// No fields.
  public init() {
    lines = []
  }

  /// These fields, in this order.
  public init(_ fields: [(name: String, value: String)]) {
    lines = []
    for (name, value) in fields { append(name: name, value: value) }
  }

  /// Adds a field after the others. The name must be a token and the value free of CR and
  /// LF: responses are made of the server's own fields.
  public mutating func append(name: String, value: String) {
    var value = value
    // Read as contiguous bytes: walking a String's UTF-8 view costs tens of instructions a byte.
    value.withUTF8 { append(name: name, value: $0) }
  }

  /// Adds a field whose value is `value`'s bytes, such as a tag written on the stack.
  public mutating func append(name: String, value: UnsafeBufferPointer<UInt8>) {
    var name = name
    name.withUTF8 { name in
      // A response's fields are the server's own: constant names, values of numbers, tags and
      // ids that match the name pattern; no text a client sends reaches one with a CR or LF.
      precondition(
        !name.isEmpty && name.allSatisfy(\.isTokenCharacter)
          && !value.contains { $0 == .cr || $0 == .lf },
        "not a field line: \(String(decoding: name, as: UTF8.self))")
      // Made whole on the stack and appended at once: each append costs a uniqueness and
      // capacity check and a call of its own.
      let count = name.count + value.count + 4
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { line in
        _ = line.initialize(fromContentsOf: name)
        line[name.count] = .colon
        line[name.count + 1] = .space
        _ = line[(name.count + 2)...].initialize(fromContentsOf: value)
        line[count - 2] = .cr
        line[count - 1] = .lf
        lines.append(contentsOf: UnsafeBufferPointer(line))
      }
    }
  }

  /// The media type of `Content-Type` (RFC 9110 §8.3.1): `type/subtype` in lowercase, without
  /// parameters or whitespace, such as `application/json` for `Application/JSON; charset=utf-8`.
  public var mediaType: String? {
    self["content-type"].map(Self.mediaType(of:))
  }

  /// The media type a `Content-Type` value names: `type/subtype` in lowercase, without
  /// parameters or whitespace.
  public static func mediaType(of contentType: String) -> String {
    var contentType = contentType
    return contentType.withUTF8(mediaType(of:))
  }

  /// The media type of a `Content-Type` value given as its bytes. JSON, which nearly every
  /// request sends, comes back as a literal: a String of 16 bytes or more is an allocation.
  public static func mediaType(of contentType: UnsafeBufferPointer<UInt8>) -> String {
    if contentType.equals("application/json") { return "application/json" }  // as clients send it
    var essence = contentType.prefix { $0 != .semicolon }
    while let last = essence.last, last.isOWS { essence = essence.dropLast() }
    let essenceBytes = UnsafeBufferPointer(rebasing: essence)
    if essenceBytes.equalsIgnoringASCIICase("application/json") { return "application/json" }
    let isLowercase = !essence.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    return isLowercase  // nearly always: copied as it is
      ? String(decoding: essence, as: UTF8.self)
      : String(decoding: essence.map(asciiLowercased), as: UTF8.self)
  }

  /// The first value of the field `name`, compared without regard to case.
  public subscript(name: String) -> String? {
    var name = name
    return name.withUTF8 { name in
      var found: String?
      forEachField { fieldName, value in
        guard fieldName.equalsIgnoringASCIICase(name) else { return true }
        found = String(decoding: value, as: UTF8.self)
        return false
      }
      return found
    }
  }

  /// Calls `body` with the first value of each field in `names` (compared without regard to
  /// case) and the name's index, in one pass over the fields: what a server that reads
  /// several fields of every request asks. A field is compared only with the names as long as
  /// its own. The value is lent, not made a String: the caller makes one only of what it keeps.
  public func forFirstValues(
    of names: HTTPFieldNames, _ body: (_ index: Int, _ value: UnsafeBufferPointer<UInt8>) -> Void
  ) {
    var missing = names.all
    forEachField { fieldName, value in
      var candidates = names.ofLength(fieldName.count) & missing
      while candidates != 0 {
        let index = candidates.trailingZeroBitCount
        candidates &= candidates - 1
        guard fieldName.equalsIgnoringASCIICase(names.names[index]) else { continue }
        body(index, value)
        missing &= ~(1 << index)
        break
      }
      return missing != 0
    }
  }

  /// Calls `body` with each value of the field `name`, compared without regard to case, in
  /// order, while it returns true.
  public func forEachValue(of name: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
    forEachField { fieldName, value in
      !fieldName.equalsIgnoringASCIICase(name) || body(value)
    }
  }

  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    var fields: [(name: String, value: String)] = []
    forEachField { name, value in
      fields.append(
        (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
      return true
    }
    return fields.makeIterator()
  }

  /// Calls `body` with each field's name and value (without its optional whitespace), in
  /// order, while it returns true.
  private func forEachField(
    _ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool
  ) {
    lines.withUnsafeBufferPointer { lines in
      guard let base = lines.baseAddress else { return }
      // libc's memchr finds the colon and the CR: the lines were checked, so both are there.
      func offset(of byte: UInt8, from start: Int) -> Int {
        UnsafeRawPointer(base).distance(
          to: memchr(base + start, Int32(byte), lines.count - start)!)
      }
      var start = 0
      while start < lines.count {
        let colon = offset(of: .colon, from: start)
        let end = offset(of: .cr, from: colon)
        let name = UnsafeBufferPointer(rebasing: lines[start..<colon])
        let value = UnsafeBufferPointer(rebasing: lines[(colon + 1)..<end]).trimmingOWS()
        guard body(name, value) else { return }
        start = end + 2
      }
    }
  }
}

/// Field names to look up in every request (`HTTPFields.forFirstValues`), at most 64,
/// prepared once: which of them have each length.
public struct HTTPFieldNames: Sendable, ExpressibleByArrayLiteral {
  let names: [StaticString]
  /// Every name, as bits.
  let all: UInt64
  /// The names of each length, as bits, by length.
  private let byLength: [UInt64]

  public init(_ names: [StaticString]) {
    precondition(names.count <= 64, "at most 64 names")
    self.names = names
    all = names.count == 64 ? ~0 : (1 << names.count) - 1
    var byLength = [UInt64](repeating: 0, count: (names.map(\.utf8CodeUnitCount).max() ?? 0) + 1)
    for (index, name) in names.enumerated() { byLength[name.utf8CodeUnitCount] |= 1 << index }
    self.byLength = byLength
  }

  public init(arrayLiteral names: StaticString...) {
    self.init(names)
  }

  /// The names `length` bytes long, as bits.
  func ofLength(_ length: Int) -> UInt64 {
    length < byLength.count ? byLength[length] : 0
  }
}

extension HTTPFields: Hashable {
  /// Fields are equal when their names and values are, in order: how the lines spaced them
  /// does not count.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.elementsEqual(rhs) { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for (name, value) in self {
      hasher.combine(name)
      hasher.combine(value)
    }
  }
}

extension HTTPFields {
  /// The fields every response of the server carries, its own errors' too: browsers are not to
  /// guess its type (`nosniff`), caches not to keep it (what it shows changes with every
  /// request), and other sites' pages not to load it as an image, script or style
  /// (`Cross-Origin-Resource-Policy`: nothing here is meant for them).
  public static let protective: [(name: String, value: String)] = [
    ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
  ]
}
