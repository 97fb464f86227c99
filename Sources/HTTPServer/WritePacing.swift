/// How much one turn of the loop writes of large answers. A write copies its bytes into the
/// kernel, and on loopback the kernel delivers them to the reader in the same call: handing it
/// four pictures of 505 KB took the loop over a millisecond, while every other client waited.
/// An answer of more than `largeBodyBytes` is written a part at a time
/// (`Connection.writePartBytes`), and the parts of all of them take at most `bulkBytesPerTurn`
/// a turn; a part that finds the turn's room taken waits for the next turn, in the order the
/// connections came (`HTTPServer.resumePacedWrites`). Smaller answers are written when they are
/// ready, whatever the turn has written.
struct WritePacing {
  /// An answer whose body is larger than this is paced: a page of a list ends past 64 KiB.
  static let largeBodyBytes = 65_536
  /// One part of a large answer a turn, about a tenth of a millisecond of the loop's time.
  static let bulkBytesPerTurn = 262_144

  /// Whether an answer with a body of `bodyBytes` is paced.
  static func paces(bodyBytes: Int) -> Bool { bodyBytes > largeBodyBytes }

  /// What parts of large answers took this turn.
  private var bulkBytes = 0

  /// Whether a part of a large answer may be written this turn.
  var mayWrite: Bool { bulkBytes < Self.bulkBytesPerTurn }

  /// Counts a part of `count` bytes of a large answer, written this turn.
  mutating func wrote(_ count: Int) {
    bulkBytes += count
  }

  mutating func turnEnded() {
    bulkBytes = 0
  }
}
