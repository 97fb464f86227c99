import JSONCore
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How log lines look: `text` for people, `json` for log collectors.
public enum LogFormat: String, CaseIterable, Sendable {
  /// `2026-11-22T09:30:00.125Z info request method=GET path=/health status=200`.
  case text
  /// `{"time":"2026-11-22T09:30:00.125Z","level":"info","message":"request","status":200}`.
  case json
}

/// A swift-log handler that writes each message as one line to stderr (through a
/// `LogOutput`), with a UTC timestamp, the level, the message and the metadata sorted by key.
///
/// In JSON, integer metadata (`status`, `duration_us`) are numbers; everything else is a
/// string. Messages at `notice` and above go out at once; the rest within
/// `LogOutput.flushInterval`.
struct LineLogHandler: LogHandler {
  var logLevel: Logger.Level = .info
  var metadata: Logger.Metadata = [:]
  var metadataProvider: Logger.MetadataProvider?
  let format: LogFormat
  let output: LogOutput

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var fields = metadata
    if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
    if let extra = event.metadata { fields.merge(extra) { _, new in new } }
    if let error = event.error { fields["error"] = "\(error)" }
    output.append(urgent: event.level >= .notice) { time, line in
      Self.write(
        format: format, time: time, level: event.level, message: "\(event.message)",
        metadata: fields, into: &line)
    }
  }

  /// One log line, newline included.
  static func line(
    format: LogFormat, time: String, level: Logger.Level, message: String,
    metadata: Logger.Metadata
  ) -> [UInt8] {
    var line = JSONWriter(capacity: 256)
    write(
      format: format, time: Array(time.utf8), level: level, message: message, metadata: metadata,
      into: &line)
    return line.bytes
  }

  private static func write(
    format: LogFormat, time: [UInt8], level: Logger.Level, message: String,
    metadata: Logger.Metadata, into line: inout JSONWriter
  ) {
    let writer = LogLineWriter(format: format)
    writer.begin(time: time, level: level, message: message, into: &line)
    for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
      writer.field(key, value, into: &line)
    }
    writer.end(into: &line)
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

/// The parts of one log line in either format, written into the line's bytes: the time, level
/// and message, then each field in the order given, then the end. Text is copied whole, never
/// byte by byte: a line per request at `info` is the default configuration's hottest path.
struct LogLineWriter {
  let format: LogFormat

  func begin(
    time: [UInt8], level: Logger.Level, message: some LogText, into line: inout JSONWriter
  ) {
    beforeTime(into: &line)
    line.raw(time)
    afterTime(level: level, message: message, into: &line)
  }

  /// What a line has before its time: `{"time":"` in JSON, nothing in text.
  func beforeTime(into line: inout JSONWriter) {
    if format == .json { line.raw(#"{"time":""#) }
  }

  /// What follows the time up to the first field: the level and the message.
  func afterTime(level: Logger.Level, message: some LogText, into line: inout JSONWriter) {
    switch format {
    case .text:
      line.raw(UInt8(ascii: " "))
      line.raw(Self.name(of: level))
      line.raw(UInt8(ascii: " "))
      message.withBytes { line.raw($0) }
    case .json:
      line.raw(#"","level":""#)
      line.raw(Self.name(of: level))
      line.raw(#"","message":"#)
      message.withBytes { line.quoted(utf8: $0) }
    }
  }

  /// The level's name, as `Logger.Level.rawValue` spells it, without making a String.
  private static func name(of level: Logger.Level) -> StaticString {
    switch level {
    case .trace: "trace"
    case .debug: "debug"
    case .info: "info"
    case .notice: "notice"
    case .warning: "warning"
    case .error: "error"
    case .critical: "critical"
    }
  }

  /// A text field: ` key=value`, the value quoted and escaped as a JSON string when it is
  /// empty or has spaces, controls, quotes or `=`; in JSON, `,"key":"value"`.
  func field(_ key: some LogText, _ value: some StringProtocol, into line: inout JSONWriter) {
    start(key, into: &line)
    self.value(value, into: &line)
  }

  /// A field's string value, after its key (`start`).
  func value(_ value: some StringProtocol, into line: inout JSONWriter) {
    let copied: Void? = value.utf8.withContiguousStorageIfAvailable {
      self.value(utf8: $0, into: &line)
    }
    if copied == nil { line.quoted(value) }
  }

  /// A field's value given as UTF-8, after its key (`start`).
  func value(utf8 bytes: UnsafeBufferPointer<UInt8>, into line: inout JSONWriter) {
    let needsQuotes =
      format == .json || bytes.isEmpty
      || bytes.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") }
    if needsQuotes { line.quoted(utf8: bytes) } else { line.raw(bytes) }
  }

  /// An integer field, a number in JSON too.
  func field(_ key: some LogText, integer: some BinaryInteger, into line: inout JSONWriter) {
    start(key, into: &line)
    if integer < 0 { line.raw(UInt8(ascii: "-")) }
    line.rawDecimal(UInt64(integer.magnitude))
  }

  /// A swift-log metadata value: as text; in JSON integers as numbers, lists and dictionaries
  /// as such.
  func field(_ key: String, _ value: Logger.MetadataValue, into line: inout JSONWriter) {
    guard format == .json else { return field(key, value.description, into: &line) }
    start(key, into: &line)
    Self.writeJSON(value, into: &line)
  }

  func end(into line: inout JSONWriter) {
    if format == .json { line.raw(UInt8(ascii: "}")) }
    line.raw(UInt8(ascii: "\n"))
  }

  /// A field's key, with what separates it from what comes before and from its value.
  func start(_ key: some LogText, into line: inout JSONWriter) {
    switch format {
    case .text:
      line.raw(UInt8(ascii: " "))
      key.withBytes { line.raw($0) }
      line.raw(UInt8(ascii: "="))
    case .json:
      line.raw(UInt8(ascii: ","))
      key.withBytes { line.quoted(utf8: $0) }
      line.raw(UInt8(ascii: ":"))
    }
  }

  private static func writeJSON(_ value: Logger.MetadataValue, into line: inout JSONWriter) {
    switch value {
    case .stringConvertible(let number as any BinaryInteger):
      "\(number)".withBytes { line.raw($0) }
    case .string, .stringConvertible:
      line.quoted("\(value)")
    case .array(let elements):
      line.raw(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { line.raw(UInt8(ascii: ",")) }
        writeJSON(element, into: &line)
      }
      line.raw(UInt8(ascii: "]"))
    case .dictionary(let members):
      line.raw(UInt8(ascii: "{"))
      for (index, (key, element)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
        if index > 0 { line.raw(UInt8(ascii: ",")) }
        line.quoted(key)
        line.raw(UInt8(ascii: ":"))
        writeJSON(element, into: &line)
      }
      line.raw(UInt8(ascii: "}"))
    }
  }
}

/// Text a log line copies whole: literal keys and messages (no String made), or Strings.
protocol LogText {
  func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result
}

extension StaticString: LogText {
  func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    withUTF8Buffer(body)
  }
}

extension String: LogText {
  func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    utf8.withContiguousStorageIfAvailable(body) ?? Array(utf8).withUnsafeBufferPointer(body)
  }
}
