/// Decides when to give the system back the memory the engine lets go of. glibc keeps freed
/// blocks in its arenas, so after a reset or the removal of many devices the process would
/// stay at its peak size; once the engine's state has shrunk by `threshold` bytes from its
/// peak, the free pages are to be returned (glibc's trim; on Apple platforms the zones'
/// pressure relief: Benchmarks/README.md, "Memory"), at most once an `interval` and one trim at
/// a time. The trim itself runs on a worker thread (`APIResponder`): it walks the whole heap,
/// 10 ms and more once a reset has freed fifty devices of a thousand apps, which on the loop
/// held every connection (Benchmarks/README.md, "Stalls").
struct HeapTrimmer {
  /// How far the state must fall from its peak before the heap is trimmed: enough that a trim,
  /// which walks the heap, follows only real releases and never ordinary traffic.
  static let threshold = 8 << 20
  /// The least time between the starts of two trims, in milliseconds. Large request bodies rise
  /// and fall by more than `threshold` many times a second, and each trim hands back pages that
  /// the next bodies fault in again: sixteen clients sending 1 MiB bodies had the loop trim 52
  /// times a second, a fifth of its time spent in page faults (Benchmarks/README.md, "Stalls").
  static let interval: UInt64 = 1_000

  private var peakBytes = 0
  /// A fall from the peak was observed: the heap is trimmed at `dueAt`.
  private var isDue = false
  private var lastTrimAt: UInt64?
  /// A trim was started and has not finished (`trimFinished`).
  private(set) var isTrimming = false

  /// Called at the end of each turn of the loop with what the state (and requests being
  /// received) now hold. (A rise and fall within one turn is not seen: what it freed stays in
  /// the heap for the next allocations.)
  mutating func observe(retainedBytes: Int) {
    peakBytes = max(peakBytes, retainedBytes)
    guard peakBytes - retainedBytes >= Self.threshold else { return }
    isDue = true
    peakBytes = retainedBytes
  }

  /// When the heap is to be trimmed (loop clock, milliseconds): nil if no fall was observed,
  /// or while a trim runs (the next is asked for when it finishes).
  var dueAt: UInt64? {
    guard isDue, !isTrimming else { return nil }
    return lastTrimAt.map { $0 + Self.interval } ?? 0
  }

  /// Whether a trim is to start now: a fall was observed, `interval` has passed since the last
  /// one started, and none runs. The caller trims the heap and then calls `trimFinished`.
  /// Asked when the loop is about to wait, once what was let go is really freed (a closed
  /// connection's buffers go with the connection, after its handles close), and when `dueAt`
  /// comes.
  mutating func startTrimIfDue(now: UInt64) -> Bool {
    guard let dueAt, dueAt <= now else { return false }
    isDue = false
    isTrimming = true
    lastTrimAt = now
    return true
  }

  /// The trim started last is done.
  mutating func trimFinished() {
    isTrimming = false
  }
}
