import HTTPCore
import HTTPServer
import Testing

@testable import LifecycledService

/// `/livez`, `/readyz`, `/health` without sockets.
@Suite struct OperationsResponderTests {
  let responder = OperationsResponder(startedAt: 1_000)

  func respond(_ method: String, _ target: String, draining: Bool = false) -> HTTPResponse {
    responder.respond(
      to: HTTPRequest(method: method, target: target),
      context: RequestContext(isDraining: draining, now: 3_500))
  }

  func body(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

  @Test func liveness() {
    #expect(body(respond("GET", "/livez")) == #"{"status":"ok"}"#)
  }

  @Test func readinessFailsWhileDraining() {
    #expect(respond("GET", "/readyz").status == .ok)
    let draining = respond("GET", "/readyz", draining: true)
    #expect(draining.status == .serviceUnavailable)
    #expect(body(draining) == #"{"status":"draining"}"#)
  }

  @Test func healthReportsVersionUptimeAndRequests() {
    _ = respond("GET", "/livez")
    #expect(
      body(respond("GET", "/health?verbose"))
        == #"{"status":"ok","version":"0.1.0","uptimeSeconds":2.500,"requests":2}"#)
  }

  @Test func unknownPathIs404Problem() {
    let response = respond("GET", "/nope")
    #expect(response.status == .notFound)
    #expect(response.headers["Content-Type"] == "application/problem+json")
    #expect(
      body(response)
        == #"{"type":"about:blank","title":"Not Found","status":404,"detail":"no resource at /nope"}"#
    )
  }

  @Test func otherMethodsAre405WithAllow() {
    let response = respond("POST", "/livez")
    #expect(response.status == .methodNotAllowed)
    #expect(response.headers["Allow"] == "GET, HEAD")
  }
}
