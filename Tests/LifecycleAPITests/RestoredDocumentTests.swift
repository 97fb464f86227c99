import Foundation
import Testing

@testable import SnapshotFuzzer

/// A restored device is a device the events could have made: whatever document `PUT` accepts
/// answers every request without trapping and saves as itself (`checkSnapshot`), for the real
/// snapshots the fuzzer starts from, for random edits of them, and for every input the fuzzer
/// once found.
@Suite struct RestoredDocumentTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz/snapshot-corpus")

  static var files: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
  }

  static let seeds = SnapshotSeeds.make()

  @Test func theSeedsAreRealSnapshotsThatRestore() {
    #expect(Self.seeds.count >= 20)
    for seed in Self.seeds {
      let api = SnapshotOracle.makeAPI()
      let put = SnapshotOracle.call(api, "PUT", "/v1/devices/fuzz", seed.document)
      #expect(put.status == 201, "\(put.text)")
    }
  }

  @Test func everySeedKeepsTheContract() {
    for (index, seed) in Self.seeds.enumerated() {
      #expect(checkSnapshot(seed) == nil, "seed \(index)")
    }
  }

  /// Random edits of the seeds, each followed by its script: the property walk over restored
  /// documents. Most edits are refused (422), which is fine; those accepted must keep the
  /// contract.
  @Test(arguments: [1, 2, 3, 4] as [UInt64])
  func editedSnapshotsKeepTheContract(seed: UInt64) {
    var random = FuzzRandom(state: seed)
    var accepted = 0
    for round in 0..<400 {
      var input = Self.seeds.randomElement(using: &random)!
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        input = SnapshotMutator.mutate(input, using: &random)
      }
      let failure = checkSnapshot(input)
      #expect(failure == nil, "round \(round): \(String(decoding: input.bytes, as: UTF8.self))")
      if failure != nil { return }
      let put = SnapshotOracle.call(
        SnapshotOracle.makeAPI(), "PUT", "/v1/devices/fuzz", input.document)
      if put.status == 201 { accepted += 1 }
    }
    #expect(accepted > 20, "the edits reach the engine, not only the reader")
  }

  @Test(arguments: files)
  func corpusInputKeepsTheContract(name: String) {
    let input = SnapshotInput(
      Array(
        FileManager.default.contents(
          atPath: Self.corpus.appendingPathComponent(name).path) ?? Data()))
    #expect(checkSnapshot(input) == nil)
  }
}
