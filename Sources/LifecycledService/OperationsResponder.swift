public import HTTPCore
public import HTTPServer

/// The service's version, as `--version` and `/health` report it.
public enum Version {
  public static let current = "0.1.0"
}

/// The operational endpoints: `GET /livez`, `GET /readyz` (503 while draining) and
/// `GET /health`. The lifecycle API joins them in the next step.
public final class OperationsResponder: HTTPResponder {
  private let startedAt: UInt64
  private var requests = 0

  /// - Parameter startedAt: the loop clock when the service started, in milliseconds.
  public init(startedAt: UInt64) {
    self.startedAt = startedAt
  }

  public func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
    requests += 1
    let path = request.path
    guard path == "/livez" || path == "/readyz" || path == "/health" else {
      return problem(.notFound, "no resource at \(path)")
    }
    guard request.method == "GET" || request.method == "HEAD" else {
      var response = problem(.methodNotAllowed, "\(path) allows GET and HEAD")
      response.headers.append(name: "Allow", value: "GET, HEAD")
      return response
    }
    switch path {
    case "/livez":
      return json(.ok, #"{"status":"ok"}"#)
    case "/readyz":
      return context.isDraining
        ? json(.serviceUnavailable, #"{"status":"draining"}"#) : json(.ok, #"{"status":"ready"}"#)
    default:
      return HTTPResponse(
        status: .ok, headers: Self.jsonHeaders,
        body: health(uptimeMilliseconds: context.now - startedAt, draining: context.isDraining))
    }
  }

  /// `{"status":…,"version":…,"uptimeSeconds":…,"requests":…}`, written straight as bytes.
  private func health(uptimeMilliseconds uptime: UInt64, draining: Bool) -> [UInt8] {
    var body: [UInt8] = []
    body.reserveCapacity(96)
    body += #"{"status":""#.utf8
    body += (draining ? "draining" : "ok").utf8
    body += #"","version":""#.utf8
    body += Version.current.utf8
    body += #"","uptimeSeconds":"#.utf8
    body += String(uptime / 1000).utf8
    let millis = uptime % 1000
    body += [
      UInt8(ascii: "."), UInt8(ascii: "0") + UInt8(millis / 100),
      UInt8(ascii: "0") + UInt8(millis / 10 % 10), UInt8(ascii: "0") + UInt8(millis % 10),
    ]
    body += #","requests":"#.utf8
    body += String(requests).utf8
    body += "}".utf8
    return body
  }

  /// Shared by every JSON response, so none allocates its header list.
  private static let jsonHeaders = HTTPHeaders([("Content-Type", "application/json")])

  private func json(_ status: HTTPStatus, _ body: String) -> HTTPResponse {
    HTTPResponse(status: status, headers: Self.jsonHeaders, body: Array(body.utf8))
  }

  private func problem(_ status: HTTPStatus, _ detail: String) -> HTTPResponse {
    HTTPError(status, detail).response
  }
}
