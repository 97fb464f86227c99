import CMalloc

/// Gives the system back the memory the engine lets go of. glibc keeps freed blocks in its
/// arenas, so after a reset or the removal of many devices the process would stay at its peak
/// size; once the engine's state has shrunk by `threshold` bytes from its peak, the free pages
/// are returned (glibc's trim; on Apple platforms the zones' pressure relief: Benchmarks/README.md,
/// "Memory"), at most once an `interval`.
struct HeapTrimmer {
  /// How far the state must fall from its peak before the heap is trimmed: enough that a trim,
  /// which walks the heap, follows only real releases and never ordinary traffic.
  static let threshold = 8 << 20
  /// The least time between two trims, in milliseconds. Large request bodies rise and fall by
  /// more than `threshold` many times a second, and each trim hands back pages that the next
  /// bodies fault in again: sixteen clients sending 1 MiB bodies had the loop trim 52 times a
  /// second, a fifth of its time spent in page faults (Benchmarks/README.md, "Stalls").
  static let interval: UInt64 = 1_000

  private var peakBytes = 0
  /// A fall from the peak was observed: the heap is trimmed at `dueAt`.
  private var isDue = false
  private var lastTrimAt: UInt64?
  private let trim: () -> Void

  init(trim: @escaping () -> Void = cmalloc_release_free_pages) {
    self.trim = trim
  }

  /// Called after each request, and whenever a connection lets go of a request it was
  /// receiving, with what the state (and requests being received) now hold.
  mutating func observe(retainedBytes: Int) {
    peakBytes = max(peakBytes, retainedBytes)
    guard peakBytes - retainedBytes >= Self.threshold else { return }
    isDue = true
    peakBytes = retainedBytes
  }

  /// When the heap is to be trimmed (loop clock, milliseconds): nil if no fall was observed.
  var dueAt: UInt64? {
    guard isDue else { return nil }
    return lastTrimAt.map { $0 + Self.interval } ?? 0
  }

  /// Trims the heap if a fall was observed and `interval` has passed since the last trim:
  /// called when the loop is about to wait, once what was let go is really freed (a closed
  /// connection's buffers go with the connection, after its handles close), and when `dueAt`
  /// comes.
  mutating func trimIfDue(now: UInt64) {
    guard let dueAt, dueAt <= now else { return }
    isDue = false
    lastTrimAt = now
    trim()
  }
}
