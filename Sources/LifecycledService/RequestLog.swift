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
/// `LogLineWriter` writes that text once, at start-up, and each line copies it whole.
final class RequestLog: HTTPRequestLog {
  private let writer: LogLineWriter
  private let output: LogOutput
  /// The line's constant text, in order around the time and the values.
  private let beforeTime: [UInt8]
  private let beforeDuration: [UInt8]
  private let beforeMethod: [UInt8]
  private let beforePath: [UInt8]
  private let beforeStatus: [UInt8]
  private let end: [UInt8]

  init(format: LogFormat, output: LogOutput) {
    let writer = LogLineWriter(format: format)
    self.writer = writer
    self.output = output
    beforeTime = JSONWriter.encode { writer.beforeTime(into: &$0) }
    beforeDuration = JSONWriter.encode {
      writer.afterTime(level: .info, message: "request" as StaticString, into: &$0)
      writer.start("duration_us" as StaticString, into: &$0)
    }
    beforeMethod = JSONWriter.encode { writer.start("method" as StaticString, into: &$0) }
    beforePath = JSONWriter.encode { writer.start("path" as StaticString, into: &$0) }
    beforeStatus = JSONWriter.encode { writer.start("status" as StaticString, into: &$0) }
    end = JSONWriter.encode { writer.end(into: &$0) }
  }

  func requestAnswered(_ request: HTTPRequest, status: HTTPStatus, microseconds: UInt64) {
    // The method and the path read as the bytes they are stored as: the path is the target
    // up to its query, and a Substring's bytes cost more to reach than the line to write.
    var method = request.method
    var target = request.target
    method.withUTF8 { method in
      target.withUTF8 { target in
        let path = UnsafeBufferPointer(
          rebasing: target[..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)])
        output.append(urgent: false) { time, line in
          line.raw(beforeTime)
          line.raw(time)
          line.raw(beforeDuration)
          line.rawDecimal(microseconds)
          line.raw(beforeMethod)
          writer.value(utf8: method, into: &line)
          line.raw(beforePath)
          writer.value(utf8: path, into: &line)
          line.raw(beforeStatus)
          line.rawDecimal(UInt64(status.code))
          line.raw(end)
        }
      }
    }
  }
}
