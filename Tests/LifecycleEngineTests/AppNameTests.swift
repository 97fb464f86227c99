import Testing

@testable import LifecycleEngine

/// App names held inline: they must order, compare and hash as the Strings they stand for.
@Suite struct AppNameTests {
  /// Random valid names: a shared prefix makes ties in the first words common, and lengths
  /// reach past every word boundary up to the longest valid name.
  static func names(seed: UInt64) -> [String] {
    var random = SplitMix64(state: seed)
    let characters = Array("09AZaz.-_".utf8)  // either end of each class, and the others
    let fixed = [
      "a", "app", "app1", "app10", "app2", "com.example.a", "com.example.b", "b",
      "abcdefgh", "abcdefghi", String(repeating: "z", count: 64),
      String(repeating: "z", count: 63), String(repeating: "z", count: 56) + "a",
    ]
    return fixed
      + (0..<500).map { _ in
        let length = Int.random(in: 1...57, using: &random)
        return "com.exa"
          + String(
            decoding: (0..<length).map { _ in characters.randomElement(using: &random)! },
            as: UTF8.self)
      }
  }

  @Test(arguments: [3, 42] as [UInt64])
  func ordersComparesAndHashesAsStrings(seed: UInt64) {
    let names = Self.names(seed: seed)
    for first in names.prefix(60) {
      let name = AppName(first)!
      for second in names {
        let other = AppName(second)!
        #expect((name < other) == (first < second), "\(first) \(second)")
        #expect((name == other) == (first == second), "\(first) \(second)")
        if first == second { #expect(name.hashValue == other.hashValue) }
      }
    }
    #expect(names.map { AppName($0)! }.sorted().map(String.init) == names.sorted())
    #expect(Set(names.map { AppName($0)! }).count == Set(names).count)
  }

  @Test func keepsItsTextWhole() {
    let longest = String(repeating: "a1", count: 32)
    #expect(AppName(longest).map(String.init) == longest)
    let mail: AppName = "mail"  // a literal, as tests write them
    #expect(mail.description == "mail")
    #expect(mail == AppName(String("mail")))
    #expect("\(AppName(String("com.example.mail"))!)" == "com.example.mail")
  }

  /// No valid name is longer than 64 bytes, so a longer one names no app: it is refused, not
  /// cut down to a name that might exist.
  @Test func longerThanAnyValidNameIsNone() {
    #expect(AppName(String(repeating: "a", count: 65)) == nil)
  }

  /// Not a valid name, but a value all the same: it compares as the empty String does.
  @Test func emptyIsFirst() {
    let empty = AppName(String())!
    #expect(empty == AppName(String())!)
    #expect(empty < "a" && !("a" < empty) && !(empty < empty))
    #expect(empty.description.isEmpty)
  }

  @Test func anAppFoundByALongerNameIsNotFound() throws {
    let engine = Engine(now: .zero)
    let name = String(repeating: "a", count: 64)
    _ = try engine.createApp(AppSpec(name: name), on: "default", now: .zero)
    #expect(try engine.app(name, on: "default", now: .zero).name == name)
    #expect(throws: EngineError.unknownApp(device: "default", app: name + "b")) {
      try engine.app(name + "b", on: "default", now: .zero)
    }
  }
}
