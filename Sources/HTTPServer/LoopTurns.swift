/// How long each turn of the loop worked: the time from one turn's end to the next, less what
/// the loop spent waiting for I/O in between. Every client waits at most a turn for the loop,
/// so the longest turns are the bound a request can be held up by; they are counted into
/// `bounds`, as a Prometheus histogram is.
public struct LoopTurns: Sendable {
  /// The upper bounds of the buckets, in nanoseconds: 0.5, 1, 2, 5, 10, 20, 50 and 100 ms
  /// (turns longer than the last are counted in `count` alone).
  public static let bounds: [UInt64] = [
    500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000, 100_000_000,
  ]

  /// The turns at most each bound long (cumulative, as `bounds` orders them).
  public private(set) var counts = [Int](repeating: 0, count: LoopTurns.bounds.count)
  /// Every turn measured.
  public private(set) var count = 0
  /// What they worked in all, in nanoseconds.
  public private(set) var busyNanoseconds: UInt64 = 0
  /// The longest turn so far, in nanoseconds.
  public private(set) var longestNanoseconds: UInt64 = 0

  /// Counts a turn that worked `busy` nanoseconds.
  mutating func record(busy: UInt64) {
    count += 1
    busyNanoseconds += busy
    longestNanoseconds = max(longestNanoseconds, busy)
    for index in LoopTurns.bounds.indices.reversed() {
      guard busy <= LoopTurns.bounds[index] else { break }
      counts[index] += 1
    }
  }
}
