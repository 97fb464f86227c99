/// How much one turn of the loop reads. libuv reads a connection again at once while bytes are
/// waiting, up to 32 times, so a client sending a large body would have the loop copy and parse
/// megabytes while every other client waits. A connection whose last read filled the buffer
/// (more is likely waiting) reads at most one buffer a turn, and none once such reads have taken
/// `bulkBytesPerTurn` this turn; libuv's poll, level-triggered, reports it again next turn (on
/// Linux those that waited longest first). A request that fits in a read is read whenever it
/// comes.
struct ReadPacing {
  /// Four buffers of 64 KiB: a turn copies at most this much of large bodies, about a tenth of
  /// a millisecond, however many are coming at once (sixteen took a millisecond a turn).
  static let bulkBytesPerTurn = 4 * 65_536

  /// The turns of the loop so far.
  private(set) var turn: UInt64 = 0
  /// What reads that filled the buffer took this turn.
  private var bulkBytes = 0

  /// Whether a connection reads now, given the turn in which its last read filled the buffer
  /// (nil if its last read did not).
  func mayRead(lastFilledIn filled: UInt64?) -> Bool {
    guard let filled else { return true }
    return filled != turn && bulkBytes < Self.bulkBytesPerTurn
  }

  /// Counts a read of `count` bytes into a buffer of `capacity`; returns the turn to give
  /// `mayRead` next: this one if the read filled the buffer, else nil.
  mutating func read(_ count: Int, capacity: Int) -> UInt64? {
    guard count == capacity else { return nil }
    bulkBytes += count
    return turn
  }

  mutating func turnEnded() {
    turn &+= 1
    bulkBytes = 0
  }
}
