import Testing

@testable import JSONCore

/// The strict JSON reader: RFC 8259 exactly, and nothing a body could use to exhaust it.
@Suite struct JSONTests {
  func parse(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

  func failure(_ text: String) -> String? { failure(Array(text.utf8)) }

  func failure(_ text: [UInt8]) -> String? {
    do {
      _ = try JSON.parse(text)
      return nil
    } catch {
      return error.description
    }
  }

  @Test func valuesOfEveryKind() throws {
    #expect(
      try parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": "x\"\u00e9\ud83d\ude00"} "#)
        == .object([
          (
            "a",
            .array([
              .integer(1), .integer(-2), .double(3.5), .double(1000), .bool(true), .bool(false),
              .null,
            ])
          ),
          ("b", .string("x\"é😀")),
        ]))
  }

  /// A string's plain bytes are read eight at a time: a byte that is not plain is found
  /// wherever it falls in a word, alone or beside others.
  @Test func everyBytesPlaceInAWordIsWeighed() {
    let plain = UInt64(0x4141_4141_4141_4141)  // "AAAAAAAA"
    for place in 0..<8 {
      for byte in 0...255 {
        let word = plain & ~(0xFF << (8 * place)) | UInt64(byte) << (8 * place)
        let isPlain = byte >= 0x20 && byte < 0x80 && byte != 0x22 && byte != 0x5C
        #expect(
          JSONDocument.Reader.holdsOtherThanPlain(word) == !isPlain, "\(byte) at \(place)")
      }
    }
    #expect(!JSONDocument.Reader.holdsOtherThanPlain(0x7E20_7E20_7E21_2321))  // "!#!~ ~ ~"
    #expect(JSONDocument.Reader.holdsOtherThanPlain(0x2221_1F80_0000_5C7F))
  }

  /// Whatever its place in a long string, an escape is decoded, a non-ASCII character kept, a
  /// control character or a byte that is not UTF-8 refused, and a quote ends the string.
  @Test func aLongStringsBytesAreReadTheSameAtEveryPlace() throws {
    for place in 0..<24 {
      let (before, after) = (
        String(repeating: "a", count: place), String(repeating: "b", count: 23 - place)
      )
      #expect(try parse("\"\(before)\\n\(after)\"") == .string(before + "\n" + after))
      #expect(try parse("\"\(before)é\(after)\"") == .string(before + "é" + after))
      #expect(
        try parse("[\"\(before)\",\"\(after)\"]") == .array([.string(before), .string(after)]))
      #expect(failure("\"\(before)\u{01}\(after)\"")?.contains("a control character") == true)
      let invalid = Array("\"\(before)".utf8) + [0xFF] + Array("\(after)\"".utf8)
      #expect(throws: JSONError.self) { try JSON.parse(invalid) }
    }
  }

  @Test func writingRoundTrips() throws {
    let value = JSON.object([
      ("s", .string("a\"b\\c\n\u{01}")), ("n", .double(12.0)), ("i", .integer(-7)),
      ("l", .array([.null, .bool(true)])), ("o", .object([])),
    ])
    #expect(
      String(decoding: value.bytes, as: UTF8.self)
        == #"{"s":"a\"b\\c\n\u0001","n":12.0,"i":-7,"l":[null,true],"o":{}}"#)
    #expect(try JSON.parse(value.bytes) == value)
  }

  @Test(arguments: [
    ("", "the body ends where a value should be at byte 0"),
    ("{", "an object key must be a string at byte 1"),
    (#"{"a":1,"a":2}"#, "duplicate key 'a' at byte 10"),
    ("[1,]", "unexpected character at byte 3"),
    ("01", "a number has a leading zero at byte 2"),
    ("1.", "a fraction needs digits at byte 2"),
    ("1e999999", "a number is out of range at byte 0"),
    ("{} x", "unexpected bytes after the value at byte 3"),
    ("\"a\u{01}\"", "a control character inside a string at byte 3"),
    (#""\ud800""#, "a lone high surrogate at byte 7"),
    (#""\q""#, "an unknown escape at byte 3"),
    ("tru", "unexpected character at byte 0"),
    ("'a'", "unexpected character at byte 0"),
  ])
  func malformedBodiesAreRefusedWithThePlace(text: String, message: String) {
    #expect(failure(text) == message)
  }

  @Test func duplicateKeysAreFoundInSmallAndLargeObjects() throws {
    func object(_ keys: [Int]) -> String {
      "{" + keys.map { #""k\#($0)":0"# }.joined(separator: ",") + "}"
    }
    #expect(try parse(object(Array(0..<40))) != .null)
    for keys in [[1, 2, 1], Array(0..<16) + [3], Array(0..<30) + [20]] {
      #expect(failure(object(keys))?.hasPrefix("duplicate key") == true)
    }
    // Past the first 16 members keys are checked once the object ends; the first repeat in
    // the text is the one named, at the byte a small object's check would name.
    let twoRepeats = object(Array(0..<30) + [25, 4])
    #expect(failure(twoRepeats) == "duplicate key 'k25' at byte \(twoRepeats.count - 10)")
  }

  @Test func keysSpelledWithEscapesAreStillDuplicates() throws {
    #expect(failure(#"{"a":1,"\u0061":2}"#) == "duplicate key 'a' at byte 15")
    #expect(failure(#"{"\u0061":1,"a":2}"#) == "duplicate key 'a' at byte 15")
    #expect(try parse(#"{"a\"":1,"a":2}"#) == .object([("a\"", .integer(1)), ("a", .integer(2))]))
  }

  /// Past the first 16 members keys are checked by hash: escaped spellings of one text still
  /// collide, and other texts never do.
  @Test func largeObjectsFindEscapedDuplicatesByTheirText() throws {
    let members = (0..<40).map { #""k\#($0)":0"# }.joined(separator: ",")
    #expect(
      failure("{" + members + #","\u006b7":1}"#)?.hasPrefix("duplicate key 'k7' at byte") == true)
    #expect(failure(#"{"\u006b7":1,"# + members + "}")?.hasPrefix("duplicate key 'k7'") == true)
    #expect(try parse("{" + members + #","k7\n":1,"k\u00e9":2}"#) != .null)
  }

  /// Objects of random keys, some spelled with escapes, some repeated: the parse names the
  /// first key that repeats an earlier text, at the byte after it, or accepts the object if
  /// none does, as a search of every earlier key would.
  @Test(arguments: [20, 300, 3_000], 1...6 as ClosedRange<UInt64>)
  func repeatedKeysAreFoundAsASearchOfEveryEarlierKeyWould(count: Int, seed: UInt64) {
    var state = seed
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(state >> 33) % bound
    }
    let names = count * [1, 1_000][random(2)]
    var text = "{"
    var seen: Set<String> = []
    var expected: String?
    for index in 0..<count {
      let name = "k\(random(names))"
      text += (index > 0 ? "," : "") + "\"" + (random(4) == 0 ? #"\u006b"# : "k")
      text += name.dropFirst() + "\""
      if expected == nil, !seen.insert(name).inserted {
        expected = "duplicate key '\(name)' at byte \(text.utf8.count)"
      }
      text += ":\(index)"
    }
    #expect(failure(text + "}") == expected, "\(count) keys of \(names) names")
  }

  /// A member is found by its key in an object of any size, whatever spelling its key has, and
  /// a key no member has is found nowhere.
  /// Decimals are written as `String` writes them, at every count of digits and on both sides
  /// of each power of ten.
  @Test func decimalsOfEveryLength() {
    var powers: [UInt64] = [1]
    while powers.last! <= UInt64.max / 10 { powers.append(powers.last! * 10) }
    let values: [UInt64] = [0, UInt64.max] + powers.flatMap { [$0 - 1, $0, $0 + 1] }
    for value in values {
      var writer = JSONWriter(capacity: 32)
      writer.rawDecimal(value)
      #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    }
  }

  /// Documents parsed one after another into the same storage: each reads as its own text,
  /// one still held among them, and the storage is written over once nothing else holds it.
  @Test func documentsParsedIntoTheSameStorageEachKeepTheirValues() throws {
    var storage: [JSONDocument.Value] = []
    func parse(_ text: String) throws -> JSONDocument {
      try JSONDocument.parse(Array(text.utf8), reusing: &storage)
    }
    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }
    do {
      let held = try parse(#"{"a":[1,2,{"b":"c"}]}"#)
      let next = try parse(#"["x",true,null]"#)
      #expect(held.json(at: JSONDocument.root) == (try json(#"{"a":[1,2,{"b":"c"}]}"#)))
      #expect(next.json(at: JSONDocument.root) == (try json(#"["x",true,null]"#)))
    }
    let place = storage.withUnsafeBufferPointer(\.baseAddress)
    #expect(try parse("[1]").json(at: JSONDocument.root) == (try json("[1]")))
    #expect(storage.withUnsafeBufferPointer(\.baseAddress) == place)
    #expect(throws: JSONError.self) { try parse("[1,") }
    #expect(try parse(#"{"z":0}"#).json(at: JSONDocument.root) == (try json(#"{"z":0}"#)))
  }

  @Test func membersAreFoundInObjectsOfEverySize() throws {
    for size in [1, 16, 17, 90_000] {
      let text =
        "{" + (0..<size).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","\u006eame":-1}"#
      let document = try JSONDocument.parse(Array(text.utf8))
      let key = document.key("k0", of: JSONDocument.root)
      #expect(key.map { document.json(at: $0 + 1) } == .integer(0), "\(size)")
      let name = document.key("name", of: JSONDocument.root)
      #expect(name.map { document.json(at: $0 + 1) } == .integer(-1), "\(size)")
      #expect(document.key("k", of: JSONDocument.root) == nil)
      #expect(document.key("nosuch", of: JSONDocument.root) == nil)
    }
  }

  /// A small object's scan steps over containers whole, and tells each member's place.
  @Test func aMemberIsFoundPastContainersWithItsPlace() throws {
    let text = #"{"a":{"e":[1,{"e":2}]},"":[],"d\"":null,"e":3}"#
    let document = try JSONDocument.parse(Array(text.utf8))
    let found = ["a", "", #"d""#, "e"].map { (key: StaticString) in
      document.member(key, of: JSONDocument.root).map { [$0.ordinal, $0.key] }
    }
    #expect(found == [[0, 1], [1, 9], [2, 11], [3, 13]])
    #expect(document.json(at: 14) == .integer(3))
    #expect(document.member("d", of: JSONDocument.root) == nil)
  }

  @Test func invalidUTF8IsRefused() {
    #expect(throws: JSONError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
  }

  /// A long string's bytes are validated a piece at a time: whatever the sequence at a piece's
  /// end, in a plain string or between escapes, the string is accepted exactly when its bytes
  /// are UTF-8, with the same error as a short one's.
  @Test(arguments: [false, true])
  func longStringsAreValidatedAcrossTheirPieces(escaped: Bool) {
    let sequences: [[UInt8]] = [
      [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80],  // é, €, 😀
      [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x80], [0x80, 0x80, 0x80, 0x80],  // cut short
      [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF],  // never UTF-8
    ]
    for sequence in sequences {
      for place in 4_088...4_100 {
        let before = (escaped ? #"\n"# : "") + "é" + String(repeating: "a", count: place)
        let content = Array(before.utf8) + sequence + Array("é and more".utf8)
        let text = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
        let isUTF8 = String(validating: content, as: UTF8.self) != nil
        let parsed = try? JSON.parse(text)
        #expect((parsed != nil) == isUTF8, "\(sequence) at \(place)")
        if !isUTF8 {
          #expect(failure(text) == "a string is not valid UTF-8 at byte \(text.count)")
        }
      }
    }
  }

  /// Jackson's default bound: a `Double` holds 17 significant digits, and a longer text only
  /// costs time to convert.
  @Test func numbersLongerThanAThousandCharactersAreRefused() throws {
    let longest = "0." + String(repeating: "1", count: 998)
    #expect(try parse(longest) == .double(try #require(Double(longest))))
    let digits = String(repeating: "1", count: 1_001)
    for text in [digits, "0." + digits.dropFirst(2), "1e" + digits.dropFirst(2), "-" + digits] {
      #expect(failure("[\(text)]") == "a number longer than 1000 characters at byte 1")
    }
    #expect(failure(String(repeating: "9", count: 1 << 20))?.hasPrefix("a number longer") == true)
  }

  @Test func deepNestingIsRefusedWithoutRecursingFurther() {
    let deep = String(repeating: "[", count: 100_000)
    #expect(failure(deep) == "nesting deeper than 64 at byte 64")
    let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(failure(deepest) == nil)
  }

  @Test func largeIntegersBecomeDoublesAndMinusZeroIsZero() throws {
    #expect(try parse("9223372036854775807") == .integer(Int.max))
    #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    #expect(try parse("-0") == .integer(0))
  }
}

/// The index of a large object's keys, with hashes made to tie: the worst a body can do to it.
@Suite struct KeyIndexTests {
  /// An index of keys standing for `texts` (the key at index `i` has text `texts[i]`), all
  /// of them hashed to one of `hashes` values.
  func index(_ texts: [String], hashes: Int) -> (KeyIndex, order: (Int, Int) -> Int) {
    let order = { (first: Int, second: Int) in
      texts[first] == texts[second] ? 0 : texts[first] < texts[second] ? -1 : 1
    }
    let entries = texts.indices.map { KeyIndex.entry(key: $0, hash: hash(texts[$0], hashes)) }
    return (KeyIndex(entries, order: order), order)
  }

  func hash(_ text: String, _ hashes: Int) -> UInt32 {
    UInt32(text.utf8.reduce(0) { $0 + Int($1) } % hashes)
  }

  /// Below 256 keys the entries are sorted by comparison, from 256 by radix.
  @Test(arguments: [20, 1_000])
  func everyKeyIsFoundAmongKeysOfOneHash(count: Int) {
    let texts = (0..<count).map { "k\($0 * 7_919 % count)" }
    let (index, order) = self.index(texts, hashes: 3)
    #expect(index.firstRepeatedKey(order: order) == nil)
    for key in texts.indices {
      let found = index.find(hash: hash(texts[key], 3)) { order($0, key) }
      let elsewhere = index.find(hash: (hash(texts[key], 3) + 1) % 3) { order($0, key) }
      #expect(found == key && elsewhere == nil, "\(texts[key])")
    }
    #expect(
      index.find(hash: 0) { texts[$0] == "nosuch" ? 0 : texts[$0] < "nosuch" ? -1 : 1 } == nil)
  }

  @Test(arguments: [20, 1_000])
  func theFirstRepeatInTheTextIsNamed(count: Int) {
    var texts = (0..<count).map { "k\($0)" }
    texts[count - 1] = texts[2]
    texts[count - 4] = texts[9]
    texts[count - 7] = texts[2]
    for hashes in [1, 3] {
      let (index, order) = self.index(texts, hashes: hashes)
      #expect(index.firstRepeatedKey(order: order) == count - 7)
    }
  }
}

/// The response encoder: commas, escapes, and seconds written from milliseconds.
@Suite struct JSONWriterTests {
  func text(_ write: (inout JSONWriter) -> Void) -> String {
    String(decoding: JSONWriter.encode(write), as: UTF8.self)
  }

  @Test func commasSeparateMembersAndElementsOnly() {
    let written = text { w in
      w.object { w in
        w.member("a", 1)
        w.key("b")
        w.array { w in
          w.null()
          w.object { _ in }
          w.array { _ in }
          w.bool(false)
        }
        w.member("c", nil as String?)
        w.key(escaping: "dynamic \"key\"")
        w.encoded(JSONText(.string("x")))
      }
    }
    #expect(written == #"{"a":1,"b":[null,{},[],false],"c":null,"dynamic \"key\"":"x"}"#)
  }

  @Test func unescapedStringsAndEnumerationsAreCopiedWhole() {
    let written = text { w in
      w.object { w in
        w.member("app", unescaped: "mail-2.beta_x")
        w.member("fruit", Fruit.banana)
        w.member("none", nil as Fruit?)
        w.member("list", [Fruit.cherry, Fruit.apple])
        w.key("names")
        w.array { w in
          w.unescaped("a")
          w.unescaped("")
        }
      }
    }
    #expect(
      written
        == #"{"app":"mail-2.beta_x","fruit":"banana","none":null,"list":["cherry","apple"],"names":["a",""]}"#
    )
  }

  /// Cases are found by their prepared names, and written as them: a case-only enumeration's
  /// layout is its case index.
  @Test func namedCasesAreWrittenAndReadByTheirRawValues() {
    for each in Fruit.allCases {
      #expect(text { $0.enumCase(each) } == "\"\(each.rawValue)\"")
      #expect(Fruit(named: each.rawValue) == each)
      #expect(Fruit(named: each.rawValue + "x") == nil)
      #expect(Fruit(named: String(each.rawValue.dropLast())) == nil)
    }
    #expect(Fruit(named: "") == nil)
    #expect(Fruit.allCases.map(\.caseIndex) == [0, 1, 2])
    let prepared = CaseTexts<Fruit> { ",\"\($0.rawValue)\":true" }
    #expect(
      text { w in
        w.object { w in
          w.member("first", 1)
          w.verbatim(prepared, .cherry)
        }
      } == #"{"first":1,"cherry":true}"#)
  }

  @Test func stringsEscapeOnlyWhatJSONRequires() {
    let written = text { $0.string("plain é😀 \" \\ \n\r\t \u{01}\u{1F} / end") }
    #expect(written == #""plain é😀 \" \\ \n\r\t \u0001\u001f / end""#)
  }

  /// The escape check reads eight bytes at a time: a special byte at every offset of a word, and
  /// neighbours of the special bytes (space, `!`, `#`, `[`, `]`, DEL, multi-byte UTF-8) that must
  /// pass unescaped.
  @Test func escapesAreFoundAtEveryOffset() {
    let plain = " !#[]\u{7F}é😀abcdefghijklmnopqrstuvw"
    #expect(text { $0.string(plain) } == "\"\(plain)\"")
    for (special, escaped) in [
      ("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1F}", #"\u001f"#),
    ] {
      for offset in 0..<20 {
        let prefix = String(repeating: "x", count: offset)
        #expect(
          text { $0.string(prefix + special + "yz") } == "\"\(prefix)\(escaped)yz\"")
      }
    }
  }

  /// Integers are written two digits at a time: every length, and both ends of `Int`.
  @Test func integersOfEveryLength() {
    var values = [0, 9, 10, 99, 100, 101, Int.max, Int.min, Int.min + 1]
    var power = 1
    for _ in 1...18 {
      power *= 10
      values += [power - 1, power, power + 7, -power]
    }
    for value in values {
      #expect(text { $0.integer(value) } == String(value))
    }
  }

  @Test(arguments: [
    (0, "0.0"), (1, "0.001"), (10, "0.01"), (100, "0.1"), (120, "0.12"), (1005, "1.005"),
    (2000, "2.0"), (-1500, "-1.5"), (86_400_123, "86400.123"),
  ])
  func secondsFromMilliseconds(milliseconds: Int64, expected: String) {
    #expect(text { $0.seconds(milliseconds: milliseconds) } == expected)
  }

  /// The API wrote `Double(milliseconds) / 1000` before; the integer path must not change a byte.
  @Test func secondsMatchDoubleDescriptionAcrossMagnitudes() {
    for digits in 1...15 {
      let bound = (0..<digits).reduce(Int64(1)) { value, _ in value * 10 }
      for index in Int64(0)..<200 {
        let spread = (index &* 2_654_435_761 &+ Int64(digits)) % bound  // Knuth's hash
        let milliseconds = index.isMultiple(of: 2) ? spread : -spread
        #expect(
          text { $0.seconds(milliseconds: milliseconds) }
            == (Double(milliseconds) / 1000).description)
      }
    }
  }
}

/// A case-only enumeration, as the API's are.
enum Fruit: String, NamedCases {
  case apple, banana, cherry
  static let quotedNames = CaseTexts<Self>.quotedNames()
}
