import HTTPServer

extension LoopTurns {
  /// The turns as the Prometheus histogram `lifecycled_loop_turn_seconds`, with the longest
  /// turn as a gauge: how long a client can wait for the loop.
  var exposition: String {
    let name = "lifecycled_loop_turn_seconds"
    var text = """
      # HELP \(name) How long each turn of the event loop worked (its wait for I/O left out): \
      a request waits at most a turn for the loop.
      # TYPE \(name) histogram

      """
    for (bound, count) in zip(Self.bounds, counts) {
      text += "\(name)_bucket{le=\"\(Self.seconds(bound))\"} \(count)\n"
    }
    text += """
      \(name)_bucket{le="+Inf"} \(count)
      \(name)_sum \(Self.seconds(busyNanoseconds))
      \(name)_count \(count)
      # HELP lifecycled_loop_longest_turn_seconds The longest turn of the event loop so far.
      # TYPE lifecycled_loop_longest_turn_seconds gauge
      lifecycled_loop_longest_turn_seconds \(Self.seconds(longestNanoseconds))

      """
    return text
  }

  /// Nanoseconds as seconds, as Prometheus writes them (`0.0005`).
  private static func seconds(_ nanoseconds: UInt64) -> String {
    "\(Double(nanoseconds) / 1e9)"
  }
}
