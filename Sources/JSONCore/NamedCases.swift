#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An enumeration the JSON writer writes as its raw value, copied from text prepared once per
/// type: reading `rawValue` runs a switch and makes a String each time, and the writer then has
/// to find that String's bytes, which costs more than copying them.
public protocol NamedCases: RawRepresentable<String>, CaseIterable, Sendable
where AllCases == [Self] {
  /// The raw values, quoted: `CaseTexts.quotedNames()`.
  static var quotedNames: CaseTexts<Self> { get }
}

extension NamedCases {
  /// The case's position in the declaration, which is also its position in `allCases`: a
  /// case-only enumeration of up to 256 cases is stored as that number in one byte (Swift's
  /// type layout, stable since the ABI).
  @inlinable
  public var caseIndex: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

  /// The case whose raw value is `name`, found among the prepared names: `init(rawValue:)`
  /// compares Strings one by one, which costs several times more.
  @inlinable
  public init?(named name: String) {
    var name = name
    guard let found = name.withUTF8({ Self(named: $0) }) else { return nil }
    self = found
  }

  /// The case whose raw value is the UTF-8 text `name`.
  @inlinable
  public init?(named name: UnsafeBufferPointer<UInt8>) {
    guard let index = Self.quotedNames.indexOfQuoted(name) else { return nil }
    self = unsafeBitCast(UInt8(index), to: Self.self)
  }
}

/// A text prepared once for every case of an enumeration, in one buffer, found by case index:
/// the quoted raw values (`quotedNames()`), or whole runs of JSON around them that the writer
/// copies in one go (such as a member's key with its value).
public struct CaseTexts<Cases: NamedCases>: Sendable {
  @usableFromInline let text: [UInt8]
  /// Where each case's text starts, and one past the last.
  @usableFromInline let starts: [Int]
  /// The length of the longest case's text: what a writer reserves for any of them.
  public let longest: Int
  /// The case indices in the order of their texts' lengths, and where the run of each length
  /// starts in that order (`lengthStarts[n]..<lengthStarts[n + 1]`): a lookup compares only
  /// texts of the length it looks for, however many cases there are.
  @usableFromInline let indicesByLength: [Int]
  @usableFromInline let lengthStarts: [Int]

  public init(_ make: (Cases) -> String) {
    precondition(MemoryLayout<Cases>.size == 1, "\(Cases.self) is not a case-only enumeration")
    var text: [UInt8] = []
    var starts = [0]
    for (index, each) in Cases.allCases.enumerated() {
      precondition(each.caseIndex == index, "\(Cases.self) is not stored as its case index")
      text.append(contentsOf: make(each).utf8)
      starts.append(text.count)
    }
    self.text = text
    self.starts = starts
    let lengths = zip(starts, starts.dropFirst()).map { $1 - $0 }
    longest = lengths.max() ?? 0
    indicesByLength = lengths.indices.sorted { (lengths[$0], $0) < (lengths[$1], $1) }
    lengthStarts = (0...longest + 1).map { length in lengths.count { $0 < length } }
  }

  /// Each case's raw value as a JSON string.
  public static func quotedNames() -> Self {
    Self { "\"\($0.rawValue)\"" }
  }

  /// The index of the case whose text is `name` in quotes.
  @inlinable
  func indexOfQuoted(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
    let length = name.count + 2  // with its quotes
    // In bounds: `lengthStarts` has `longest + 2` entries; `start - 1` and `end` are a case's
    // first and last byte, read only once its length (`end - start + 2`) is `length`.
    guard length <= longest else { return nil }
    return text.withUnsafeBufferPointer { all in
      for position in lengthStarts[length]..<lengthStarts[length + 1] {
        let index = indicesByLength[position]
        let start = starts[index] + 1  // past the quote
        let end = starts[index + 1] - 1  // at the closing quote
        guard end - start == name.count, all[start - 1] == UInt8(ascii: "\""),
          all[end] == UInt8(ascii: "\"")
        else { continue }
        // Neither is empty past `name.isEmpty` (`all` holds the quotes just read).
        if name.isEmpty || memcmp(all.baseAddress! + start, name.baseAddress!, name.count) == 0 {
          return index
        }
      }
      return nil
    }
  }

  /// Calls `body` with the text of `value`.
  @inlinable
  public func withText<Result>(
    of value: Cases, _ body: (UnsafeBufferPointer<UInt8>) -> Result
  ) -> Result {
    let index = value.caseIndex
    return text.withUnsafeBufferPointer { all in
      body(UnsafeBufferPointer(rebasing: all[starts[index]..<starts[index + 1]]))
    }
  }
}

extension JSONDocument {
  /// The case of `Cases` that the string at `index` names; nil if the value is not a string or
  /// names none.
  @inlinable
  public func choice<Cases: NamedCases>(at index: Int, _: Cases.Type) -> Cases? {
    guard self[index].kind == .string else { return nil }
    return withUTF8(at: index) { Cases(named: $0) }
  }
}
