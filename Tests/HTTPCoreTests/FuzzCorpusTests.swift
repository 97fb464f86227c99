import Foundation
import Testing

@testable import HTTPParserFuzzer

/// Replays the fuzzer's corpus through its oracle on every test run, so an input the fuzzer
/// once found stays fixed.
@Suite struct FuzzCorpusTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz/http-corpus")

  static var files: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
  }

  @Test func corpusIsThere() {
    #expect(Self.files.count >= 38)
  }

  @Test(arguments: files)
  func corpusInputKeepsTheParsersContract(name: String) {
    #expect(checkParser(readFile(Self.corpus.appendingPathComponent(name).path)) == nil)
  }
}
