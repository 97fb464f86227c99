// Mutations that keep a snapshot a JSON document of the right shape, so that each input gets
// past the reader to the rules and the engine: a value replaced by another the format uses, a
// member or an element removed, an element repeated, a subtree moved elsewhere.

import JSONCore

/// A small seedable generator (wyrand): the same seed gives the same mutations anywhere.
struct FuzzRandom: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0xA076_1D64_78BD_642F
    let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
    return product.high ^ product.low
  }
}

enum SnapshotMutator {
  /// `input` with its document changed in one to four places and, now and then, its script.
  static func mutate(_ input: SnapshotInput, using random: inout FuzzRandom) -> SnapshotInput {
    var output = input
    if var document = try? JSON.parse(input.document) {
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        document = mutate(document, using: &random)
      }
      output.document = document.bytes
    }
    if Int.random(in: 0..<4, using: &random) == 0 {
      let byte = UInt8.random(in: 0...255, using: &random)
      let at = Int.random(in: 0...output.script.count, using: &random)
      if byte != UInt8(ascii: "\n") { output.script.insert(byte, at: at) }
    }
    return output
  }

  /// `document` changed in one place.
  static func mutate(_ document: JSON, using random: inout FuzzRandom) -> JSON {
    var paths: [[Int]] = []
    var leaves: [JSON] = []
    collect(document, at: [], paths: &paths, leaves: &leaves)
    guard let path = paths.randomElement(using: &random) else { return document }
    let subtrees = paths.compactMap { value(in: document, at: $0) }
    let current = value(in: document, at: path)
    let replacement: JSON? =
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5: current.map { another($0, among: leaves, using: &random) }
      case 5: (leaves + extremes).randomElement(using: &random)
      case 6: nil  // removed
      case 7: subtrees.randomElement(using: &random)
      default: current.map { .array([$0, $0]) }  // repeated
      }
    return replace(in: document, at: path[...], with: replacement)
  }

  /// A value of the same kind as `value`, which the reader is likelier to accept: another
  /// of the document's, or one next to it.
  private static func another(
    _ value: JSON, among leaves: [JSON], using random: inout FuzzRandom
  ) -> JSON {
    switch value {
    case .bool(let flag): return .bool(!flag)
    case .integer(let number) where Bool.random(using: &random):
      return .integer(number + [-1, 1, -number].randomElement(using: &random)!)
    case .double(let number) where Bool.random(using: &random):
      return .double(number + [-1, 1, 0.5].randomElement(using: &random)!)
    default:
      let alike = leaves.filter {
        switch ($0, value) {
        case (.string, .string), (.integer, .integer), (.double, .double),
          (.integer, .double), (.double, .integer), (_, .null):
          true
        default: false
        }
      }
      return alike.randomElement(using: &random) ?? value
    }
  }

  /// Values at the edges of what the format accepts.
  static let extremes: [JSON] = [
    .integer(0), .integer(-1), .integer(1 << 40), .double(1e300), .double(0.5), .string(""),
    .string("main"), .string("suspended"), .string("active"), .string("background"),
    .string("notRunning"), .string("unattached"), .bool(true), .bool(false), .null,
    .array([]), .object([]),
  ]

  /// Every path in `json` (a member's or an element's index at each level), and every leaf.
  private static func collect(
    _ json: JSON, at path: [Int], paths: inout [[Int]], leaves: inout [JSON]
  ) {
    if !path.isEmpty { paths.append(path) }
    switch json {
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        collect(element, at: path + [index], paths: &paths, leaves: &leaves)
      }
    case .object(let members):
      for (index, member) in members.enumerated() {
        collect(member.1, at: path + [index], paths: &paths, leaves: &leaves)
      }
    default: leaves.append(json)
    }
  }

  private static func value(in json: JSON, at path: [Int]) -> JSON? {
    var current = json
    for index in path {
      switch current {
      case .array(let elements) where elements.indices.contains(index): current = elements[index]
      case .object(let members) where members.indices.contains(index): current = members[index].1
      default: return nil
      }
    }
    return current
  }

  /// `json` with the value at `path` replaced, or removed when `replacement` is nil. A repeated
  /// element (`[x, x]`) in an array becomes two elements.
  private static func replace(in json: JSON, at path: ArraySlice<Int>, with replacement: JSON?)
    -> JSON
  {
    guard let index = path.first else { return replacement ?? json }
    let rest = path.dropFirst()
    switch json {
    case .array(var elements) where elements.indices.contains(index):
      if rest.isEmpty {
        if let replacement {
          if case .array(let pair) = replacement, pair.count == 2, pair[0] == elements[index] {
            elements.insert(pair[0], at: index)
          } else {
            elements[index] = replacement
          }
        } else {
          elements.remove(at: index)
        }
      } else {
        elements[index] = replace(in: elements[index], at: rest, with: replacement)
      }
      return .array(elements)
    case .object(var members) where members.indices.contains(index):
      if rest.isEmpty, replacement == nil {
        members.remove(at: index)
      } else {
        members[index].1 = replace(in: members[index].1, at: rest, with: replacement)
      }
      return .object(members)
    default: return json
    }
  }
}
