/// A time on a device's clock: how long after the device began (its creation, or its last
/// reset), as the contract's `Time` gives it in seconds. A `Duration` both ways: events take
/// durations, and the times they answer compare with them.
///
/// ```swift
/// let advance = try await device.advanceClock(by: .seconds(10))
/// #expect(advance.transitions.map(\.time) == [2])  // a literal is seconds
/// #expect(advance.transitions.first?.time.sinceStart == .seconds(2))
/// ```
public struct DeviceTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// How long after the device began.
  public var sinceStart: Duration

  /// The time `sinceStart` after the device began.
  ///
  /// - Parameter sinceStart: How long after the device's creation or last reset.
  public init(sinceStart: Duration) {
    self.sinceStart = sinceStart
  }

  /// Seconds, to the millisecond: the API's resolution.
  public init(from decoder: any Decoder) throws {
    self.init(floatLiteral: try decoder.singleValueContainer().decode(Double.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(sinceStart.seconds)
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.sinceStart < rhs.sinceStart }

  public var description: String { "\(sinceStart.seconds) s" }
}

extension DeviceTime: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
  /// `seconds` after the device began.
  public init(integerLiteral seconds: Int64) {
    sinceStart = .seconds(seconds)
  }

  /// `seconds` after the device began, to the millisecond.
  public init(floatLiteral seconds: Double) {
    sinceStart = .milliseconds(Int64((seconds * 1000).rounded()))
  }
}
