import JSONCore

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
      status: status, headers: Self.headers,
      body: JSONWriter.problem(
        type: "about:blank", title: status.reason.description, status: status.code, detail: detail))
  }

  private static let headers = HTTPFields(
    [("Content-Type", "application/problem+json")] + HTTPFields.protective)

  static func badRequest(_ detail: String) -> HTTPError { HTTPError(.badRequest, detail) }
}
