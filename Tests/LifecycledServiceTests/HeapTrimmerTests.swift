import Testing

@testable import LifecycledService

/// The heap is trimmed after real releases of state, once each, when the loop is next about to
/// wait, at most once an interval, and never for ordinary traffic.
@Suite struct HeapTrimmerTests {
  /// A trimmer whose trims finish as soon as they start, and the count of them.
  struct Trims {
    var heap = HeapTrimmer()
    var count = 0

    mutating func trimIfDue(now: UInt64) {
      guard heap.startTrimIfDue(now: now) else { return }
      count += 1
      heap.trimFinished()
    }
  }

  @Test func aFallOfTheThresholdFromThePeakTrimsOnce() {
    var trims = Trims()
    let peak = 3 * HeapTrimmer.threshold
    var now: UInt64 = 0
    func observe(_ bytes: Int) {
      trims.heap.observe(retainedBytes: bytes)
      now += HeapTrimmer.interval
      trims.trimIfDue(now: now)
    }
    for bytes in stride(from: 0, through: peak, by: 4_096) { observe(bytes) }
    #expect(trims.count == 0)
    observe(peak - HeapTrimmer.threshold + 1)
    #expect(trims.count == 0)
    trims.heap.observe(retainedBytes: peak - HeapTrimmer.threshold)
    #expect(trims.count == 0, "not before the loop is about to wait")
    trims.trimIfDue(now: now)
    #expect(trims.count == 1)
    observe(peak - HeapTrimmer.threshold)
    observe(peak - 2 * HeapTrimmer.threshold + 1)
    #expect(trims.count == 1, "the peak restarts where the trim left it")
    observe(peak - 2 * HeapTrimmer.threshold)
    #expect(trims.count == 2)
  }

  @Test func churnBelowTheThresholdNeverTrims() {
    var trims = Trims()
    for round in 0..<1_000 {
      trims.heap.observe(retainedBytes: HeapTrimmer.threshold)
      trims.heap.observe(retainedBytes: round % 2 + 1)
      trims.trimIfDue(now: UInt64(round))
    }
    #expect(trims.count == 0)
  }

  /// Falls that come faster than `interval` (large bodies, one after another) are trimmed
  /// once an interval, when the next is due: `dueAt` is when the server's timer fires.
  @Test func fallsInQuickSuccessionAreTrimmedOnceAnInterval() {
    var trims = Trims()
    func fall(at now: UInt64) {
      trims.heap.observe(retainedBytes: 2 * HeapTrimmer.threshold)
      trims.heap.observe(retainedBytes: HeapTrimmer.threshold)
      trims.trimIfDue(now: now)
    }
    #expect(trims.heap.dueAt == nil)
    fall(at: 5_000)
    #expect(trims.count == 1)
    #expect(trims.heap.dueAt == nil)
    for now in stride(from: UInt64(5_010), to: 6_000, by: 10) { fall(at: now) }
    #expect(trims.count == 1)
    #expect(trims.heap.dueAt == 6_000)
    trims.trimIfDue(now: 5_999)
    #expect(trims.count == 1)
    trims.trimIfDue(now: 6_000)
    #expect(trims.count == 2)
    #expect(trims.heap.dueAt == nil)
  }

  /// A trim runs on a worker thread, for as long as the heap takes: none other starts until
  /// it has finished, however long ago it began; a fall observed meanwhile is trimmed after.
  @Test func aTrimRunningIsNotStartedAgainUntilItFinishes() {
    var heap = HeapTrimmer()
    heap.observe(retainedBytes: 2 * HeapTrimmer.threshold)
    heap.observe(retainedBytes: HeapTrimmer.threshold)
    let first = heap.startTrimIfDue(now: 1_000)
    #expect(first && heap.isTrimming)
    heap.observe(retainedBytes: 0)
    #expect(heap.dueAt == nil, "no deadline while one runs")
    let whileRunning = heap.startTrimIfDue(now: 10_000)
    #expect(!whileRunning)
    heap.trimFinished()
    #expect(!heap.isTrimming)
    #expect(heap.dueAt == 2_000)
    let after = heap.startTrimIfDue(now: 10_000)
    #expect(after)
  }
}
