import JSONCore
public import Logging
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// How log lines look: `text` for people, `json` for log collectors.
public enum LogFormat: String, CaseIterable, Sendable {
  /// `2026-11-22T09:30:00.125Z info request method=GET path=/health status=200`.
  case text
  /// `{"time":"2026-11-22T09:30:00.125Z","level":"info","message":"request","status":200}`.
  case json
}

/// A swift-log handler that writes each message as one line to stderr, with a UTC timestamp,
/// the level, the message and the metadata sorted by key.
///
/// A line goes out in one `write`, so lines from a busy server never interleave. In JSON,
/// integer metadata (`status`, `duration_us`) are numbers; everything else is a string.
public struct LineLogHandler: LogHandler {
  public var logLevel: Logger.Level = .info
  public var metadata: Logger.Metadata = [:]
  public var metadataProvider: Logger.MetadataProvider?
  let format: LogFormat

  public init(format: LogFormat) {
    self.format = format
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    var fields = metadata
    if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
    if let extra = event.metadata { fields.merge(extra) { _, new in new } }
    if let error = event.error { fields["error"] = "\(error)" }
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let bytes = Self.line(
      format: format, time: Self.timestamp(now), level: event.level,
      message: "\(event.message)", metadata: fields)
    _ = try? FileDescriptor.standardError.writeAll(bytes)
  }

  /// One log line, newline included.
  static func line(
    format: LogFormat, time: String, level: Logger.Level, message: String,
    metadata: Logger.Metadata
  ) -> [UInt8] {
    var line: [UInt8] = []
    line.reserveCapacity(128)
    let fields = metadata.sorted { $0.key < $1.key }
    switch format {
    case .text:
      line += "\(time) \(level.rawValue) \(message)".utf8
      for (key, value) in fields {
        line += " \(key)=".utf8
        let text = "\(value)"
        if text.isEmpty || text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D }) {
          JSON.writeString(text, to: &line)
        } else {
          line += text.utf8
        }
      }
    case .json:
      line += #"{"time":"\#(time)","level":"\#(level.rawValue)","message":"#.utf8
      JSON.writeString(message, to: &line)
      for (key, value) in fields {
        line.append(UInt8(ascii: ","))
        JSON.writeString(key, to: &line)
        line.append(UInt8(ascii: ":"))
        write(value, to: &line)
      }
      line.append(UInt8(ascii: "}"))
    }
    line.append(UInt8(ascii: "\n"))
    return line
  }

  /// A metadata value in JSON: integers as numbers, lists and dictionaries as such.
  private static func write(_ value: Logger.MetadataValue, to line: inout [UInt8]) {
    switch value {
    case .stringConvertible(let number as any BinaryInteger):
      line += "\(number)".utf8
    case .string, .stringConvertible:
      JSON.writeString("\(value)", to: &line)
    case .array(let elements):
      line.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { line.append(UInt8(ascii: ",")) }
        write(element, to: &line)
      }
      line.append(UInt8(ascii: "]"))
    case .dictionary(let members):
      line.append(UInt8(ascii: "{"))
      for (index, (key, element)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
        if index > 0 { line.append(UInt8(ascii: ",")) }
        JSON.writeString(key, to: &line)
        line.append(UInt8(ascii: ":"))
        write(element, to: &line)
      }
      line.append(UInt8(ascii: "}"))
    }
  }

  /// `2026-11-22T09:30:00.125Z`: RFC 3339 in UTC, to the millisecond.
  static func timestamp(_ time: timespec) -> String {
    var seconds = time.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func padded(_ value: Int32, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-"
      + "\(padded(parts.tm_mday, 2))T\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):"
      + "\(padded(parts.tm_sec, 2)).\(padded(Int32(time.tv_nsec / 1_000_000), 3))Z"
  }
}
