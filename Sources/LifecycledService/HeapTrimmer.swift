import CMalloc

/// Gives the system back the memory the engine lets go of. glibc keeps freed blocks in its
/// arenas, so after a reset or the removal of many devices the process would stay at its peak
/// size; once the engine's state has shrunk by `threshold` bytes from its peak, `malloc_trim`
/// returns the free pages (Benchmarks/README.md, "Memory").
struct HeapTrimmer {
  /// How far the state must fall from its peak before the heap is trimmed: enough that a trim,
  /// which walks the heap, follows only real releases and never ordinary traffic.
  static let threshold = 8 << 20

  private var peakBytes = 0
  /// A fall from the peak was observed: the heap is trimmed at the next `trimIfDue`.
  private var isDue = false
  private let trim: () -> Void

  init(trim: @escaping () -> Void = { _ = malloc_trim(0) }) {
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

  /// Trims the heap if a fall was observed: called when the loop is about to wait, once what
  /// was let go is really freed (a closed connection's buffers go with the connection, after
  /// its handles close).
  mutating func trimIfDue() {
    guard isDue else { return }
    isDue = false
    trim()
  }
}
