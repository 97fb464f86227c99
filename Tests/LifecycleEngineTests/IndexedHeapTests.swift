import Testing

@testable import LifecycleEngine

/// The slot-keyed priority queue behind every deadline and jetsam order, against a dictionary.
@Suite struct IndexedHeapTests {
  @Test func popsInPriorityOrder() {
    var heap = IndexedHeap<Int>()
    for (slot, priority) in [(2, 30), (0, 10), (9, 40), (1, 20)] { heap.set(slot, to: priority) }
    var popped: [Int] = []
    while let (slot, _) = heap.popMin() { popped.append(slot) }
    #expect(popped == [0, 1, 2, 9])
    #expect(heap.isEmpty)
  }

  @Test func settingASlotAgainMovesItAndRemovingForgetsIt() {
    var heap = IndexedHeap<Int>()
    heap.set(0, to: 1)
    heap.set(1, to: 2)
    heap.set(0, to: 3)
    #expect(heap.min?.slot == 1)
    #expect(heap.count == 2)
    heap.set(1, to: nil)
    #expect(heap.priority(of: 1) == nil)
    #expect(heap.min?.slot == 0)
    heap.remove(500)
    #expect(heap.count == 1)
  }

  @Test func slotTableReusesFreedSlots() {
    final class Box {
      let slot: Int
      init(slot: Int) { self.slot = slot }
    }
    var table = SlotTable<Box>()
    let slots = (0..<3).map { _ in table.insert { Box(slot: $0) }.slot }
    #expect(slots == [0, 1, 2])
    table.remove(1)
    #expect(table.insert { Box(slot: $0) }.slot == 1)
    #expect(table.insert { Box(slot: $0) }.slot == 3)
    #expect(table[2].slot == 2)
  }

  @Test(arguments: [7, 99, 12345] as [UInt64])
  func randomOperationsAgreeWithADictionary(seed: UInt64) {
    var random = SplitMix64(state: seed)
    var heap = IndexedHeap<Int>()
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
        if let popped { reference[popped.slot] = nil }
      }
      #expect(heap.count == reference.count)
      #expect(heap.min?.priority == reference.values.min())
      #expect(heap.priority(of: key) == reference[key])
    }
    #expect(heap.sorted.map(\.priority) == reference.values.sorted())
  }
}
