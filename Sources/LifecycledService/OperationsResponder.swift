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
    let endpoints = ["/livez", "/readyz", "/health"]
    guard endpoints.contains(String(request.path)) else {
      return problem(.notFound, "no resource at \(request.path)")
    }
    guard request.method == "GET" || request.method == "HEAD" else {
      var response = problem(.methodNotAllowed, "\(request.path) allows GET and HEAD")
      response.headers.append(name: "Allow", value: "GET, HEAD")
      return response
    }
    switch request.path {
    case "/livez":
      return json(.ok, #"{"status":"ok"}"#)
    case "/readyz":
      return context.isDraining
        ? json(.serviceUnavailable, #"{"status":"draining"}"#) : json(.ok, #"{"status":"ready"}"#)
    default:
      let uptime = Double(context.now - startedAt) / 1000
      return json(
        .ok,
        #"{"status":"\#(context.isDraining ? "draining" : "ok")","version":"\#(Version.current)","#
          + #""uptimeSeconds":\#(uptime),"requests":\#(requests)}"#)
    }
  }

  private func json(_ status: HTTPStatus, _ body: String) -> HTTPResponse {
    HTTPResponse(status: status, contentType: "application/json", body: body)
  }

  private func problem(_ status: HTTPStatus, _ detail: String) -> HTTPResponse {
    HTTPError(status, detail).response
  }
}
