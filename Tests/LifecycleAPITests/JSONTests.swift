import Testing

@testable import LifecycleAPI

/// The strict JSON reader and the writer (checklist G2–G4).
@Suite struct JSONTests {
  func parse(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

  func failure(_ text: String) -> String? {
    do {
      _ = try JSON.parse(Array(text.utf8))
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
  func malformedBodiesAreRefusedWithThePlace_G2(text: String, message: String) {
    #expect(failure(text) == message)
  }

  @Test func invalidUTF8IsRefused_G2() {
    #expect(throws: JSONError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
  }

  @Test func deepNestingIsRefusedWithoutRecursingFurther_G3() {
    let deep = String(repeating: "[", count: 100_000)
    #expect(failure(deep) == "nesting deeper than 64 at byte 64")
    let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(failure(deepest) == nil)
  }

  @Test func largeIntegersBecomeDoublesAndMinusZeroIsZero_G4() throws {
    #expect(try parse("9223372036854775807") == .integer(Int.max))
    #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    #expect(try parse("-0") == .integer(0))
  }
}
