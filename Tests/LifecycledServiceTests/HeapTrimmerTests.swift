import Testing

@testable import LifecycledService

/// The heap is trimmed after real releases of state, once each, when the loop is next about to
/// wait, and never for ordinary traffic.
@Suite struct HeapTrimmerTests {
  final class Counter { var trims = 0 }

  @Test func aFallOfTheThresholdFromThePeakTrimsOnce() {
    let counter = Counter()
    var heap = HeapTrimmer(trim: { counter.trims += 1 })
    let peak = 3 * HeapTrimmer.threshold
    func observe(_ bytes: Int) {
      heap.observe(retainedBytes: bytes)
      heap.trimIfDue()
    }
    for bytes in stride(from: 0, through: peak, by: 4_096) { observe(bytes) }
    #expect(counter.trims == 0)
    observe(peak - HeapTrimmer.threshold + 1)
    #expect(counter.trims == 0)
    heap.observe(retainedBytes: peak - HeapTrimmer.threshold)
    #expect(counter.trims == 0, "not before the loop is about to wait")
    heap.trimIfDue()
    #expect(counter.trims == 1)
    observe(peak - HeapTrimmer.threshold)
    observe(peak - 2 * HeapTrimmer.threshold + 1)
    #expect(counter.trims == 1, "the peak restarts where the trim left it")
    observe(peak - 2 * HeapTrimmer.threshold)
    #expect(counter.trims == 2)
  }

  @Test func churnBelowTheThresholdNeverTrims() {
    let counter = Counter()
    var heap = HeapTrimmer(trim: { counter.trims += 1 })
    for round in 0..<1_000 {
      heap.observe(retainedBytes: HeapTrimmer.threshold)
      heap.observe(retainedBytes: round % 2 + 1)
      heap.trimIfDue()
    }
    #expect(counter.trims == 0)
  }
}
