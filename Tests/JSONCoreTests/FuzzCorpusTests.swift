import Foundation
import JSONCore
import Testing

@testable import JSONReaderFuzzer

/// Replays the JSON fuzzer's corpus through its oracle on every test run, so an input the
/// fuzzer once found stays fixed.
@Suite struct JSONFuzzCorpusTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz/json-corpus")

  static var files: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
  }

  @Test func corpusIsThere() {
    #expect(Self.files.count >= 8)
  }

  @Test(arguments: files)
  func corpusInputKeepsTheReadersContract(name: String) throws {
    let bytes = try Data(contentsOf: Self.corpus.appendingPathComponent(name))
    #expect(checkReader(Array(bytes)) == nil)
  }

  /// The oracle itself: a repeated key anywhere in a value is found.
  @Test func repeatedKeysAreFoundAtAnyDepth() {
    let repeated = JSON.array([.object([("a", .object([("b", .null), ("b", .integer(1))]))])])
    #expect(repeatedKey(in: repeated) == "b")
    #expect(repeatedKey(in: .object([("a", .null), ("b", .array([]))])) == nil)
  }
}
