import Testing

@testable import LifecycleAPI
@testable import LifecycleEngine

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

  @Test func duplicateKeysAreFoundInSmallAndLargeObjects() throws {
    func object(_ keys: [Int]) -> String {
      "{" + keys.map { #""k\#($0)":0"# }.joined(separator: ",") + "}"
    }
    #expect(try parse(object(Array(0..<40))) != .null)
    for keys in [[1, 2, 1], Array(0..<16) + [3], Array(0..<30) + [20]] {
      #expect(failure(object(keys))?.hasPrefix("duplicate key") == true)
    }
  }

  @Test func keysSpelledWithEscapesAreStillDuplicates() throws {
    #expect(failure(#"{"a":1,"\u0061":2}"#) == "duplicate key 'a' at byte 15")
    #expect(failure(#"{"\u0061":1,"a":2}"#) == "duplicate key 'a' at byte 15")
    #expect(try parse(#"{"a\"":1,"a":2}"#) == .object([("a\"", .integer(1)), ("a", .integer(2))]))
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
        w.member("state", AppState.background)
        w.member("sceneState", nil as SceneState?)
        w.member("modes", [BackgroundMode.audio, BackgroundMode.fetch])
        w.key("list")
        w.array { w in
          w.unescaped("a")
          w.unescaped("")
        }
      }
    }
    #expect(
      written
        == #"{"app":"mail-2.beta_x","state":"background","sceneState":null,"modes":["audio","fetch"],"list":["a",""]}"#
    )
  }

  /// Every enumeration the writer copies from prepared text writes each case as its raw value,
  /// and reads it back by name: this fails if a type's layout stops matching its case order.
  @Test func everyCaseOfEveryNamedEnumerationIsWrittenAndReadAsItsRawValue() {
    func check<Cases: NamedCases & Equatable>(_ type: Cases.Type) {
      for each in Cases.allCases {
        #expect(text { $0.enumCase(each) } == "\"\(each.rawValue)\"", "\(type).\(each)")
        #expect(Cases(named: each.rawValue) == each)
        #expect(Cases(named: each.rawValue + "x") == nil)
        #expect(Cases(named: String(each.rawValue.dropLast())) == nil)
      }
      #expect(Cases(named: "") == nil)
    }
    check(AppState.self)
    check(SceneState.self)
    check(LifecycleModel.self)
    check(BackgroundMode.self)
    check(ClockMode.self)
    check(EventType.self)
    check(DeviceEvent.self)
    check(InterruptionSource.self)
    check(InterruptionOutcome.self)
    check(BackgroundLaunchReason.self)
    check(JetsamReason.self)
    check(CallbackMethod.self)
    check(UIKitNotification.self)
    check(TerminationCode.self)
  }
  /// Callbacks and transitions are written from text prepared per case: every combination of
  /// their enumerations comes out as the member-by-member shape `openapi.yaml` describes.
  @Test func callbacksAndTransitionsOfEveryShape() {
    func time(_ instant: Instant) -> JSON { .double(Double(instant.milliseconds) / 1000) }
    let instant = Instant(milliseconds: 12_345)
    for method in CallbackMethod.allCases {
      for state in AppState.allCases {
        for sceneState in [nil] + SceneState.allCases {
          for aggregate in [nil] + UIKitNotification.allCases {
            for taskId in [nil, 7] {
              let callback = Callback(
                seq: 42, time: instant, app: "mail", method: method,
                aggregateNotification: aggregate, state: state, sceneState: sceneState,
                taskId: taskId)
              var members: [(String, JSON)] = [
                ("seq", .integer(42)), ("time", time(instant)), ("app", .string("mail")),
                ("scene", callback.scene.map(JSON.string) ?? .null),
                ("method", .string(method.rawValue)),
                ("notifications", .array(callback.notifications.map { .string($0.rawValue) })),
                ("state", .string(state.rawValue)),
              ]
              if let sceneState { members.append(("sceneState", .string(sceneState.rawValue))) }
              if let taskId { members.append(("taskId", .integer(taskId))) }
              #expect(text { $0.callback(callback) } == text { $0.value(.object(members)) })
            }
          }
        }
      }
    }
    let causes: [TransitionCause] =
      EventType.allCases.map(TransitionCause.event)
      + [.suspension, .watchdog, .backgroundTaskExpiration, .backgroundWorkTimeout]
      + JetsamReason.allCases.map(TransitionCause.jetsam)
    for from in AppState.allCases {
      for to in AppState.allCases {
        for cause in causes {
          for code in [nil] + TerminationCode.allCases {
            let transition = Transition(
              seq: 9, time: instant, app: "maps", from: from, to: to, cause: cause,
              terminationCode: code)
            var members: [(String, JSON)] = [
              ("seq", .integer(9)), ("time", time(instant)), ("app", .string("maps")),
              ("from", .string(from.rawValue)), ("to", .string(to.rawValue)),
              ("cause", .string(cause.name)),
            ]
            if let code { members.append(("terminationCode", .string(code.rawValue))) }
            if case .jetsam(let reason) = cause {
              members.append(("jetsamReason", .string(reason.rawValue)))
            }
            #expect(text { $0.transition(transition) } == text { $0.value(.object(members)) })
          }
        }
      }
    }
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
