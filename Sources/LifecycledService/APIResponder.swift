import HTTPCore
import HTTPServer
import LifecycleAPI
import LifecycleEngine

/// The service's version, as `--version` and `/health` report it.
public enum Version {
  public static let current = "0.1.0"
}

/// Serves the JSON API over the HTTP server: converts the messages, and gives the engine the
/// loop's clock as its host time.
final class APIResponder: HTTPResponder {
  let api: LifecycleAPI

  /// - Parameter now: the loop clock when the service starts, in milliseconds.
  init(configuration: EngineConfiguration, now: UInt64) {
    let start = Instant(milliseconds: Int64(now))
    api = LifecycleAPI(
      engine: Engine(configuration: configuration, now: start), version: Version.current,
      now: start)
  }

  func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
    let response = api.handle(
      APIRequest(
        method: request.method, path: request.path, query: request.query,
        contentType: request.headers["Content-Type"], body: request.body),
      now: Instant(milliseconds: Int64(context.now)), isDraining: context.isDraining)
    var headers = HTTPHeaders()
    if !response.body.isEmpty { headers.append(name: "Content-Type", value: response.contentType) }
    if let allow = response.allow {
      headers.append(name: "Allow", value: allow.joined(separator: ", "))
    }
    return HTTPResponse(
      status: HTTPStatus(code: response.status), headers: headers, body: response.body)
  }
}
