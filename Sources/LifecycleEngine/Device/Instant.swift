/// A point in time, in whole milliseconds.
///
/// The engine never reads a clock: every call that depends on time is handed an `Instant`.
/// Device clocks count from the device's creation; the host clock (which drives realtime
/// devices) is whatever monotonic source the caller uses, such as libuv's `uv_now`.
/// Integer milliseconds keep arithmetic exact, so a one-day advance equals 86,400 one-second
/// advances bit for bit.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Milliseconds since the clock's origin.
  public var milliseconds: Int64

  public init(milliseconds: Int64) {
    self.milliseconds = milliseconds
  }

  /// The clock's origin.
  public static let zero = Instant(milliseconds: 0)

  /// An instant given in milliseconds.
  public static func milliseconds(_ milliseconds: Int64) -> Instant {
    Instant(milliseconds: milliseconds)
  }

  /// An instant given in seconds, rounded to the nearest millisecond.
  public static func seconds(_ seconds: Double) -> Instant {
    let scaled = seconds * 1000
    return Instant(milliseconds: Int64(scaled + (scaled < 0 ? -0.5 : 0.5)))  // no libm needed
  }

  /// Seconds since the origin, as reported by the API.
  public var seconds: Double { Double(milliseconds) / 1000 }

  public var description: String { "\(seconds)s" }

  public static func < (lhs: Instant, rhs: Instant) -> Bool {
    lhs.milliseconds < rhs.milliseconds
  }

  public static func + (lhs: Instant, rhs: Duration) -> Instant {
    Instant(milliseconds: lhs.milliseconds + rhs.wholeMilliseconds)
  }

  public static func - (lhs: Instant, rhs: Duration) -> Instant {
    Instant(milliseconds: lhs.milliseconds - rhs.wholeMilliseconds)
  }

  public static func - (lhs: Instant, rhs: Instant) -> Duration {
    .milliseconds(lhs.milliseconds - rhs.milliseconds)
  }
}

extension Duration {
  /// The duration in whole milliseconds, rounded toward zero.
  public var wholeMilliseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
  }
}

extension Double {
  /// The number as a person writes it: `300`, not `300.0`; `12.5`. Seconds of device time,
  /// whole milliseconds, have at most three decimals.
  package var asWritten: String {
    rounded() == self ? String(Int(self)) : String(self)
  }
}
