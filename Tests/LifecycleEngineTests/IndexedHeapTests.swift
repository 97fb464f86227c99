import Testing

@testable import LifecycleEngine

/// The keyed priority queue behind every deadline and jetsam order, against a dictionary.
@Suite struct IndexedHeapTests {
  @Test func popsInPriorityOrder() {
    var heap = IndexedHeap<String, Int>()
    for (key, priority) in [("c", 3), ("a", 1), ("d", 4), ("b", 2)] { heap.set(key, to: priority) }
    var popped: [String] = []
    while let (key, _) = heap.popMin() { popped.append(key) }
    #expect(popped == ["a", "b", "c", "d"])
    #expect(heap.isEmpty)
  }

  @Test func settingAKeyAgainMovesItAndRemovingForgetsIt() {
    var heap = IndexedHeap<String, Int>()
    heap.set("a", to: 1)
    heap.set("b", to: 2)
    heap.set("a", to: 3)
    #expect(heap.min?.key == "b")
    #expect(heap.count == 2)
    heap.set("b", to: nil)
    #expect(heap.priority(of: "b") == nil)
    #expect(heap.min?.key == "a")
    heap.remove("missing")
    #expect(heap.count == 1)
  }

  @Test(arguments: [7, 99, 12345] as [UInt64])
  func randomOperationsAgreeWithADictionary(seed: UInt64) {
    var random = SplitMix64(state: seed)
    var heap = IndexedHeap<Int, Int>()
    var reference: [Int: Int] = [:]
    for _ in 0..<20_000 {
      let key = Int.random(in: 0..<200, using: &random)
      switch Int.random(in: 0..<4, using: &random) {
      case 0, 1:
        let priority = Int.random(in: 0..<1_000, using: &random)
        heap.set(key, to: priority)
        reference[key] = priority
      case 2:
        heap.remove(key)
        reference[key] = nil
      default:
        let popped = heap.popMin()
        #expect(popped?.priority == reference.values.min())
        if let popped { reference[popped.key] = nil }
      }
      #expect(heap.count == reference.count)
      #expect(heap.min?.priority == reference.values.min())
      #expect(heap.priority(of: key) == reference[key])
    }
    #expect(heap.sorted.map(\.priority) == reference.values.sorted())
  }
}
