import Testing

@testable import LifecycledService

/// The heap is trimmed after real releases of state, once each, when the loop is next about to
/// wait, at most once an interval, and never for ordinary traffic.
@Suite struct HeapTrimmerTests {
  final class Counter { var trims = 0 }

  @Test func aFallOfTheThresholdFromThePeakTrimsOnce() {
    let counter = Counter()
    var heap = HeapTrimmer(trim: { counter.trims += 1 })
    let peak = 3 * HeapTrimmer.threshold
    var now: UInt64 = 0
    func observe(_ bytes: Int) {
      heap.observe(retainedBytes: bytes)
      now += HeapTrimmer.interval
      heap.trimIfDue(now: now)
    }
    for bytes in stride(from: 0, through: peak, by: 4_096) { observe(bytes) }
    #expect(counter.trims == 0)
    observe(peak - HeapTrimmer.threshold + 1)
    #expect(counter.trims == 0)
    heap.observe(retainedBytes: peak - HeapTrimmer.threshold)
    #expect(counter.trims == 0, "not before the loop is about to wait")
    heap.trimIfDue(now: now)
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
      heap.trimIfDue(now: UInt64(round))
    }
    #expect(counter.trims == 0)
  }

  /// Falls that come faster than `interval` (large bodies, one after another) are trimmed
  /// once an interval, when the next is due: `dueAt` is when the server's timer fires.
  @Test func fallsInQuickSuccessionAreTrimmedOnceAnInterval() {
    let counter = Counter()
    var heap = HeapTrimmer(trim: { counter.trims += 1 })
    func fall(at now: UInt64) {
      heap.observe(retainedBytes: 2 * HeapTrimmer.threshold)
      heap.observe(retainedBytes: HeapTrimmer.threshold)
      heap.trimIfDue(now: now)
    }
    #expect(heap.dueAt == nil)
    fall(at: 5_000)
    #expect(counter.trims == 1)
    #expect(heap.dueAt == nil)
    for now in stride(from: UInt64(5_010), to: 6_000, by: 10) { fall(at: now) }
    #expect(counter.trims == 1)
    #expect(heap.dueAt == 6_000)
    heap.trimIfDue(now: 5_999)
    #expect(counter.trims == 1)
    heap.trimIfDue(now: 6_000)
    #expect(counter.trims == 2)
    #expect(heap.dueAt == nil)
  }
}
