import HTTPCore
import HTTPServer
import JSONCore
import Logging

/// The line logged for each request at `info`, such as
/// `2026-11-22T09:30:00.125Z info request duration_us=12 method=GET path=/health status=200`:
/// the same bytes a `LineLogHandler` writes for that metadata, written without swift-log's
/// metadata dictionary, which cost more than the request.
///
/// Everything but the time and the four values is the same on every line, so the
/// `LogLineWriter` writes that text once, at start-up, and each line copies it whole, in room
/// reserved at once for the line.
final class RequestLog: HTTPRequestLog {
  private let writer: LogLineWriter
  private let output: LogOutput
  /// The line's constant text, in order around the time and the values. In JSON, the quotes
  /// around the method and the path are part of it: they are written as they are
  /// (`isPlain`).
  private let beforeTime: [UInt8]
  private let beforeDuration: [UInt8]
  private let beforeMethod: [UInt8]
  private let beforePath: [UInt8]
  private let beforeStatus: [UInt8]
  private let end: [UInt8]
  /// The constant text's length, and the most two numbers take.
  private let room: Int

  init(format: LogFormat, output: LogOutput) {
    let writer = LogLineWriter(format: format)
    self.writer = writer
    self.output = output
    let quote: StaticString = format == .json ? "\"" : ""
    beforeTime = JSONWriter.encode { writer.beforeTime(into: &$0) }
    beforeDuration = JSONWriter.encode {
      writer.afterTime(level: .info, message: "request" as StaticString, into: &$0)
      writer.start("duration_us" as StaticString, into: &$0)
    }
    beforeMethod = JSONWriter.encode {
      writer.start("method" as StaticString, into: &$0)
      $0.raw(quote)
    }
    beforePath = JSONWriter.encode {
      $0.raw(quote)
      writer.start("path" as StaticString, into: &$0)
      $0.raw(quote)
    }
    beforeStatus = JSONWriter.encode {
      $0.raw(quote)
      writer.start("status" as StaticString, into: &$0)
    }
    end = JSONWriter.encode { writer.end(into: &$0) }
    room =
      [beforeTime, beforeDuration, beforeMethod, beforePath, beforeStatus, end].map(\.count)
      .reduce(0, +) + 2 * JSONCursor.decimalRoom
  }

  func requestAnswered(_ request: HTTPRequest, status: HTTPStatus, microseconds: UInt64) {
    // The method and the path read as the bytes they are stored as: the path is the target
    // up to its query (an absolute-form target's, after its authority), and a Substring's
    // bytes cost more to reach than the line to write.
    var method = request.method
    var target =
      request.target.utf8.first == UInt8(ascii: "/") ? request.target : String(request.path)
    method.withUTF8 { method in
      target.withUTF8 { target in
        let path = UnsafeBufferPointer(
          rebasing: target[..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)])
        output.append(urgent: false) { time, line in
          guard Self.isPlain(method), Self.isPlain(path) else {
            return writeQuoting(
              time: time, method: method, path: path, status: status,
              microseconds: microseconds, into: &line)
          }
          line.withRoom(room + time.count + method.count + path.count) { line in
            beforeTime.withUnsafeBufferPointer { line.raw($0) }
            time.withUnsafeBufferPointer { line.raw($0) }
            beforeDuration.withUnsafeBufferPointer { line.raw($0) }
            line.decimal(microseconds)
            beforeMethod.withUnsafeBufferPointer { line.raw($0) }
            line.raw(method)
            beforePath.withUnsafeBufferPointer { line.raw($0) }
            line.raw(path)
            beforeStatus.withUnsafeBufferPointer { line.raw($0) }
            line.decimal(UInt64(status.code))
            end.withUnsafeBufferPointer { line.raw($0) }
          }
        }
      }
    }
  }

  /// Whether a value is written as it is in either format: visible ASCII with no quote,
  /// backslash or `=`. The parser lets through only a token as the method and visible ASCII
  /// as the target, so nearly every path is.
  private static func isPlain(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    // A long path is read eight bytes at a time first; a method or a short path byte by byte.
    let checked = value.count >= 16 ? plainWords(value) : 0
    return !value.isEmpty && checked >= 0
      && UnsafeBufferPointer(rebasing: value[checked...]).allSatisfy {
        (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
          && $0 != UInt8(ascii: "=")
      }
  }

  /// How many of `value`'s first bytes, in whole words of eight, are plain (`isPlain`); -1
  /// if one of them is not. The classic "has a byte less than" and "has a zero byte" tests.
  private static func plainWords(_ value: UnsafeBufferPointer<UInt8>) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highBits != 0 }
    var index = 0
    while index + 8 <= value.count {
      let word = UnsafeRawPointer(value.baseAddress! + index).loadUnaligned(as: UInt64.self)
      let hasControlOrSpace = (word &- ones &* 0x21) & ~word & highBits != 0
      if word & highBits != 0 || hasControlOrSpace || hasZero(word ^ (ones &* 0x7F))
        || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
        || hasZero(word ^ (ones &* 0x3D))
      {
        return -1
      }
      index += 8
    }
    return index
  }

  /// The line of a request whose method or path is not plain: each value quoted and escaped
  /// as `LineLogHandler` would.
  private func writeQuoting(
    time: [UInt8], method: UnsafeBufferPointer<UInt8>, path: UnsafeBufferPointer<UInt8>,
    status: HTTPStatus, microseconds: UInt64, into line: inout JSONWriter
  ) {
    writer.begin(time: time, level: .info, message: "request" as StaticString, into: &line)
    writer.field("duration_us" as StaticString, integer: microseconds, into: &line)
    writer.start("method" as StaticString, into: &line)
    writer.value(utf8: method, into: &line)
    writer.start("path" as StaticString, into: &line)
    writer.value(utf8: path, into: &line)
    writer.field("status" as StaticString, integer: status.code, into: &line)
    writer.end(into: &line)
  }
}
