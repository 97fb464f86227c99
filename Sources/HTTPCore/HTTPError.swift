/// A request the server refuses below the application: malformed framing, a limit, a timeout.
///
/// Every protocol error closes the connection after its response: the server never tries to
/// find the next request in a stream it could not parse.
public struct HTTPError: Error, Hashable, Sendable {
  public var status: HTTPStatus
  /// What exactly was wrong, for the client and the log.
  public var detail: String

  public init(_ status: HTTPStatus, _ detail: String) {
    self.status = status
    self.detail = detail
  }

  /// The response: an RFC 9457 problem document with `about:blank` as its type (the status
  /// says what happened; `detail` says why).
  public var response: HTTPResponse {
    HTTPResponse(
      status: status, contentType: "application/problem+json",
      body:
        #"{"type":"about:blank","title":"\#(status.reason)","status":\#(status.code),"#
        + #""detail":"\#(detail.jsonEscaped)"}"#)
  }

  static func badRequest(_ detail: String) -> HTTPError { HTTPError(.badRequest, detail) }
}

extension String {
  /// The string as the inside of a JSON string literal.
  var jsonEscaped: String {
    var escaped = ""
    escaped.reserveCapacity(utf8.count)
    for scalar in unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}
