import HTTPCore
import HTTPServer
import Logging

/// The line logged for each request at `info`, such as
/// `2026-11-22T09:30:00.125Z info request duration_us=12 method=GET path=/health status=200`:
/// the same bytes a `LineLogHandler` writes for that metadata, written field by field rather
/// than through swift-log's metadata dictionary, which cost more than the request.
final class RequestLog: HTTPRequestLog {
  private let writer: LogLineWriter
  private let output: LogOutput

  init(format: LogFormat, output: LogOutput) {
    writer = LogLineWriter(format: format)
    self.output = output
  }

  func requestAnswered(_ request: HTTPRequest, status: HTTPStatus, microseconds: UInt64) {
    output.append(urgent: false) { time, line in
      writer.begin(time: time, level: .info, message: "request" as StaticString, into: &line)
      writer.field("duration_us" as StaticString, integer: microseconds, into: &line)
      writer.field("method" as StaticString, request.method, into: &line)
      writer.field("path" as StaticString, request.path, into: &line)
      writer.field("status" as StaticString, integer: status.code, into: &line)
      writer.end(into: &line)
    }
  }
}
