import CPacing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension JSONDocument {
  /// A recursive-descent reader over the bytes of one JSON text, appending each value it reads.
  ///
  /// `bytes` is an unsafe buffer, its subscript unchecked in release builds: every read of
  /// `bytes[position]` follows `position < bytes.count` in the same condition or loop, and
  /// the three that do not say beside them which check of their caller bounds them.
  struct Reader {
    /// The text's bytes, valid while the reader is (`parse` keeps them alive).
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var values: [Value] = []
    var keyIndexes: [Int: KeyIndex] = Dictionary()  // not `[:]`: a literal is built per document
    /// Where the reader next comes to a pause point (`pacing_pause`), after a member or an
    /// element, or inside a long string or run of whitespace: a long text, read on a worker
    /// thread, lets the loop's thread have the core.
    private var pauseAt = Reader.pauseBytes
    /// Bytes read between pause points: about a microsecond's reading.
    static let pauseBytes = 512

    /// Comes to a pause point once `pauseBytes` have been read since the last.
    @inline(__always)
    private mutating func pauseIfDue() {
      guard position >= pauseAt else { return }
      pacing_pause()
      pauseAt = position + Reader.pauseBytes
    }

    /// A reader of the one string at `position` of `bytes`, to decode it: it reserves no
    /// values (a document's reader reserves for a quarter of the text).
    init(stringAt position: Int, in bytes: UnsafeBufferPointer<UInt8>) {
      self.bytes = bytes
      self.position = position
      pauseAt = position + Reader.pauseBytes
    }

    /// A reader that writes its values into `storage`'s storage, taken from it, if nothing
    /// else holds it.
    init(bytes: UnsafeBufferPointer<UInt8>, reusing storage: inout [Value]) {
      self.bytes = bytes
      swap(&values, &storage)
      values.removeAll(keepingCapacity: true)
      // A value takes at least two bytes (`1,`) and most take more: a scenario's events, or
      // a body of 90,000 members, in one allocation.
      values.reserveCapacity(16 + bytes.count / 4)
    }

    func error(_ message: String) -> JSONError { JSONError(message: message, offset: position) }

    @inline(__always)
    mutating func skipWhitespace() {
      while position < bytes.count {
        switch bytes[position] {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
          position += 1
          pauseIfDue()  // a body of a megabyte of spaces
        default:
          return
        }
      }
    }

    mutating func value(depth: Int) throws(JSONError) {
      skipWhitespace()
      guard position < bytes.count else { throw error("the body ends where a value should be") }
      switch bytes[position] {
      case UInt8(ascii: "{"): try object(depth: depth + 1)
      case UInt8(ascii: "["): try array(depth: depth + 1)
      case UInt8(ascii: "\""): try string()
      case UInt8(ascii: "t"): try literal("true", .true)
      case UInt8(ascii: "f"): try literal("false", .false)
      case UInt8(ascii: "n"): try literal("null", .null)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
      default: throw error("unexpected character")
      }
    }

    private mutating func literal(_ word: StaticString, _ kind: Value.Kind) throws(JSONError) {
      let length = word.utf8CodeUnitCount
      guard bytes.count - position >= length,  // so `bytes` is not empty: it has an address
        memcmp(bytes.baseAddress! + position, word.utf8Start, length) == 0
      else { throw error("unexpected character") }
      position += length
      values.append(Value(kind: kind))
    }

    private mutating func object(depth: Int) throws(JSONError) {
      let (index, isEmpty) = try open(.object, depth: depth, closing: UInt8(ascii: "}"))
      if isEmpty { return }
      var count: Int32 = 0
      var indexedKeys: [UInt64] = []  // past the first `KeyIndex.minimumMembers`
      while true {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
          throw error("an object key must be a string")
        }
        let key = values.count
        try string()
        if count < KeyIndex.minimumMembers {
          try checkUnique(key: key, among: index, count: Int(count))
        } else {
          if indexedKeys.isEmpty { indexedKeys = hashedKeys(of: index, count: Int(count)) }
          indexedKeys.append(KeyIndex.entry(key: key, hash: hash(of: key)))
        }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
          throw error("':' expected after an object key")
        }
        position += 1
        try value(depth: depth)
        count += 1
        pauseIfDue()
        if try ends(UInt8(ascii: "}"), "an object") {
          if !indexedKeys.isEmpty { try indexKeys(indexedKeys, of: index) }
          return close(index, count: count)
        }
      }
    }

    /// Refuses the key at `key` if one of the `count` members of the object at `object` before
    /// it has its text.
    private func checkUnique(key: Int, among object: Int, count: Int) throws(JSONError) {
      var earlier = object + 1
      for _ in 0..<count {
        if JSONDocument.sameText(values[earlier], values[key], in: bytes) {
          throw error("duplicate key '\(text(of: key))'")
        }
        earlier = JSONDocument.index(after: earlier + 1, in: values)
      }
    }

    /// The first `count` keys of the object at `object`, hashed for its key index.
    private func hashedKeys(of object: Int, count: Int) -> [UInt64] {
      var keys: [UInt64] = []
      keys.reserveCapacity(4 * count)
      var key = object + 1
      for _ in 0..<count {
        keys.append(KeyIndex.entry(key: key, hash: hash(of: key)))
        key = JSONDocument.index(after: key + 1, in: values)
      }
      return keys
    }

    /// Indexes the keys of the large object at `object`, now that all are read, and refuses
    /// the first that repeats an earlier one (at the same byte as it would be in a small one).
    private mutating func indexKeys(_ keys: [UInt64], of object: Int) throws(JSONError) {
      let order = { (first: Int, second: Int) in
        JSONDocument.order(values[first], values[second], in: bytes)
      }
      let index = KeyIndex(keys, order: order)
      if let repeated = index.firstRepeatedKey(order: order) {
        throw JSONError(
          message: "duplicate key '\(text(of: repeated))'", offset: Int(values[repeated].end) + 1)
      }
      keyIndexes[object] = index
    }

    /// The hash of the text of the key at `index`.
    private func hash(of index: Int) -> UInt32 {
      JSONDocument.withText(of: values[index], in: bytes, KeyIndex.hash)
    }

    private func text(of index: Int) -> String { JSONDocument.text(of: values[index], in: bytes) }

    private mutating func array(depth: Int) throws(JSONError) {
      let (index, isEmpty) = try open(.array, depth: depth, closing: UInt8(ascii: "]"))
      if isEmpty { return }
      var count: Int32 = 0
      while true {
        try value(depth: depth)
        count += 1
        pauseIfDue()
        if try ends(UInt8(ascii: "]"), "an array") { return close(index, count: count) }
      }
    }

    /// Starts a container at its opening bracket: its index, and whether `closing` follows at
    /// once (the container is then complete).
    private mutating func open(_ kind: Value.Kind, depth: Int, closing: UInt8) throws(JSONError)
      -> (index: Int, isEmpty: Bool)
    {
      guard depth <= JSON.maxDepth else { throw error("nesting deeper than \(JSON.maxDepth)") }
      position += 1  // past the bracket `value` read: at most `bytes.count`
      let index = values.count
      values.append(Value(kind: kind))
      skipWhitespace()
      guard position < bytes.count, bytes[position] == closing else { return (index, false) }
      position += 1
      close(index, count: 0)
      return (index, true)
    }

    /// After an element or member: true if `closing` ends the container, false after a comma.
    @inline(__always)
    private mutating func ends(_ closing: UInt8, _ container: String) throws(JSONError) -> Bool {
      skipWhitespace()
      guard position < bytes.count else { throw error("the body ends inside \(container)") }
      let byte = bytes[position]
      guard byte == closing || byte == UInt8(ascii: ",") else {
        throw error("',' or '\(Character(Unicode.Scalar(closing)))' expected")
      }
      position += 1
      return byte == closing
    }

    /// Records a container's contents, now that they are read.
    private mutating func close(_ index: Int, count: Int32) {
      values[index].narrow = count
      values[index].wide = UInt64(values.count)
    }

    /// A string literal: UTF-8 validated, control characters refused, escapes checked (and
    /// decoded later, when a reader asks). A long one comes to pause points as it is read.
    private mutating func string() throws(JSONError) {
      position += 1  // past the quote the caller read: at most `bytes.count`
      let start = position
      skipPlainRun()
      let plainEnd = position  // the bytes before are ASCII
      var isASCII = true  // of the bytes after the plain run
      while position < bytes.count, bytes[position] >= 0x20, bytes[position] != UInt8(ascii: "\\") {
        guard bytes[position] == UInt8(ascii: "\"") else {
          if bytes[position] < 0x80 {  // one of the last bytes of a plain run
            position += 1
          } else {  // bytes of other scalars, then the ASCII after them eight at a time again
            isASCII = false
            repeat {
              position += 1
              pauseIfDue()
            } while position < bytes.count && bytes[position] >= 0x80
            skipPlainRun()
          }
          continue
        }
        // No escapes: the common case (ASCII needs no validation).
        guard isASCII || isUTF8(plainEnd..<position) else {
          throw JSONError(message: "a string is not valid UTF-8", offset: position + 1)
        }
        values.append(.string(start: start, end: position, isEscaped: false))
        position += 1
        return
      }
      position = start
      _ = try escapedString(decoding: false)
      values.append(.string(start: start, end: position - 1, isEscaped: true))
    }

    /// Moves past the run of bytes from `position` that a string takes as they are (ASCII,
    /// neither a control character nor `"` nor `\`), or nearly: read eight at a time, up to
    /// the first eight that hold another byte. A long string is nearly all such bytes, and a
    /// byte at a time they were read at about 1.4 GB/s.
    @inline(__always)
    private mutating func skipPlainRun() {
      guard let base = UnsafeRawPointer(bytes.baseAddress) else { return }
      var end = position  // kept in a register: `position` is stored only to pause
      while end + 8 <= bytes.count,
        !Self.holdsOtherThanPlain(base.loadUnaligned(fromByteOffset: end, as: UInt64.self))
      {
        end += 8
        if end >= pauseAt {
          position = end
          pauseIfDue()
        }
      }
      position = end
    }

    /// Whether any of the eight bytes of `word` is not plain: below 0x20, `"` or `\` (a zero
    /// byte after an exclusive or), or 0x80 and above. Each test is exact for whether some byte
    /// matches: a borrow starts only at a byte that does.
    @inline(__always)
    static func holdsOtherThanPlain(_ word: UInt64) -> Bool {
      let ones: UInt64 = 0x0101_0101_0101_0101
      func anyBelow(_ bound: UInt64, in word: UInt64) -> UInt64 { (word &- ones &* bound) & ~word }
      let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
      let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
      let marks = anyBelow(0x20, in: word) | anyBelow(1, in: quotes) | anyBelow(1, in: backslashes)
      return (marks | word) & (ones &* 0x80) != 0
    }

    /// Whether `bytes[range]` is UTF-8, validated about 4 KiB at a time (a few microseconds)
    /// with a pause point between pieces. A piece ends where a scalar begins (at most three
    /// continuation bytes past its length; a fourth is invalid anyway), so the pieces are valid
    /// exactly when the whole is.
    private func isUTF8(_ range: Range<Int>) -> Bool {
      var start = range.lowerBound
      // ASCII needs no validation, and the runs between escapes are nearly always ASCII: their
      // bytes are passed over eight at a time (about 0.1 ms a megabyte) before any piece is.
      if let base = UnsafeRawPointer(bytes.baseAddress) {
        while start + 8 <= range.upperBound,
          base.loadUnaligned(fromByteOffset: start, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
          start += 8
        }
      }
      while start < range.upperBound, bytes[start] < 0x80 { start += 1 }
      while start < range.upperBound {
        var end = min(start + 8 * Reader.pauseBytes, range.upperBound)
        var continuations = 0
        while end < range.upperBound, continuations < 3, bytes[end] & 0xC0 == 0x80 {
          end += 1
          continuations += 1
        }
        let piece = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard String(validating: piece, as: UTF8.self) != nil else { return false }
        start = end
        pacing_pause()
      }
      return true
    }

    /// Reads the rest of a string literal that has escapes or errors, validating it, and when
    /// `decoding`, returns its text (else the empty string). Its raw bytes are validated in
    /// runs between escapes, and a long literal comes to pause points as it is read.
    mutating func escapedString(decoding: Bool) throws(JSONError) -> String {
      var text: [UInt8] = []  // decoded UTF-8, when decoding
      var run = position  // where the raw bytes since the last escape begin
      func flush(upTo end: Int) throws(JSONError) {
        guard isUTF8(run..<end) else {
          throw JSONError(message: "a string is not valid UTF-8", offset: position)
        }
        if decoding { text.append(contentsOf: bytes[run..<end]) }
      }
      while position < bytes.count {
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""):
          try flush(upTo: position - 1)
          return decoding ? String(decoding: text, as: UTF8.self) : ""
        case UInt8(ascii: "\\"):
          try flush(upTo: position - 1)
          let scalar = try escape()
          if decoding { UTF8.encode(scalar) { text.append($0) } }
          run = position
        case 0..<0x20:
          throw error("a control character inside a string")
        default:
          break
        }
        pauseIfDue()
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
        guard bytes[position...].starts(with: #"\u"#.utf8) else {  // `hexQuad` kept it ≤ count
          throw error("a lone high surrogate")
        }
        position += 2
        let low = try hexQuad()
        guard (0xDC00..<0xE000).contains(low) else { throw error("a lone high surrogate") }
        // 0x10000 to 0x10FFFF from a high and a low surrogate: always a scalar.
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
      default:
        throw error("an unknown escape")
      }
    }

    private mutating func hexQuad() throws(JSONError) -> UInt32 {
      guard position + 4 <= bytes.count else { throw error("the body ends inside an escape") }
      var value: UInt32 = 0
      for byte in bytes[position..<(position + 4)] {
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
        default: throw error("\\u needs four hexadecimal digits")
        }
        value = value * 16 + UInt32(digit)
      }
      position += 4
      return value
    }

    /// `-? int frac? exp?` exactly as RFC 8259 §6 writes it, at most `JSON.maxNumberLength`
    /// characters long.
    private mutating func number() throws(JSONError) {
      let start = position
      func digits() throws(JSONError) -> Int {
        let from = position
        while position < bytes.count, position - start <= JSON.maxNumberLength,
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
        {
          position += 1
        }
        guard position - start <= JSON.maxNumberLength else {
          throw JSONError(
            message: "a number longer than \(JSON.maxNumberLength) characters", offset: start)
        }
        return position - from
      }
      let isNegative = bytes[position] == UInt8(ascii: "-")  // `value` read it: in bounds
      if isNegative { position += 1 }
      let integerStart = position
      let integerDigits = try digits()
      guard integerDigits > 0 else { throw error("a number needs digits") }
      if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
        throw error("a number has a leading zero")
      }
      var isInteger = true
      if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
        position += 1
        isInteger = false
        guard try digits() > 0 else { throw error("a fraction needs digits") }
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
        guard try digits() > 0 else { throw error("an exponent needs digits") }
      }
      if isInteger, integerDigits <= 18 {  // fits an Int whatever the digits: no text needed
        var magnitude = 0
        for byte in bytes[integerStart..<position] {
          magnitude = magnitude * 10 + Int(byte - UInt8(ascii: "0"))
        }
        let integer = isNegative ? -magnitude : magnitude
        return values.append(.number(.integer, bits: UInt64(bitPattern: Int64(integer))))
      }
      let text = String(decoding: bytes[start..<position], as: UTF8.self)
      if isInteger, let integer = Int(text) {
        return values.append(.number(.integer, bits: UInt64(bitPattern: Int64(integer))))
      }
      guard let double = Double(text), double.isFinite else {
        throw JSONError(message: "a number is out of range", offset: start)
      }
      values.append(.number(.double, bits: double.bitPattern))
    }
  }
}
