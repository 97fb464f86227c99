/// The `Date` header's format, IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
  private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// The date for `seconds` since 1970-01-01T00:00:00Z (which was a Thursday).
  public static func string(secondsSince1970 seconds: Int) -> String {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = civilDate(daysSince1970: days)
    let weekday = weekdays[((days % 7) + 7) % 7]
    return
      "\(weekday), \(twoDigits(day)) \(months[month - 1]) \(year) \(twoDigits(secondOfDay / 3600)):"
      + "\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
  }

  /// Year, month (1...12) and day (1...31) of a day count, in the proleptic Gregorian calendar.
  private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
    let shifted = days + 719_468  // days since 0000-03-01
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153  // 0 is March
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  private static func twoDigits(_ value: Int) -> String {
    value < 10 ? "0\(value)" : "\(value)"
  }
}

/// A `Date` header's value (`HTTPDate`), held in the value itself: the time of every
/// connection event carries one (`Moment`), several of them a request, and a String would be
/// retained and released with each.
public struct HTTPDateText: Hashable, Sendable, CustomStringConvertible {
  /// The date's bytes, then zeros: room for 32, where an IMF-fixdate has 29.
  private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
  private var count = 0

  public init(_ text: String) {
    var text = text
    text.withUTF8 { utf8 in
      precondition(utf8.count <= 32, "an HTTP date has 29 bytes")
      count = utf8.count
      withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(utf8)) }
    }
  }

  /// Calls `body` with the date's bytes.
  func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    withUnsafeBytes(of: words) {
      body(
        UnsafeBufferPointer(
          start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
    }
  }

  public var description: String {
    withUTF8 { String(decoding: $0, as: UTF8.self) }
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.count == rhs.count && lhs.words == rhs.words
  }

  public func hash(into hasher: inout Hasher) {
    withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }
}
