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
  private let trim: () -> Void

  init(trim: @escaping () -> Void = { _ = malloc_trim(0) }) {
    self.trim = trim
  }

  /// Called after each request with what the engine now holds.
  mutating func observe(retainedBytes: Int) {
    peakBytes = max(peakBytes, retainedBytes)
    guard peakBytes - retainedBytes >= Self.threshold else { return }
    trim()
    peakBytes = retainedBytes
  }
}
