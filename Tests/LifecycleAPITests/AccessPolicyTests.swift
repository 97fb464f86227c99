import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The `AccessPolicy`: what a web page, a rebound DNS name or a client without the token gets,
/// and that none of them changes anything.
struct AccessPolicyTests {
  func api(_ configure: (inout AccessPolicy) -> Void = { _ in }) -> LifecycleAPI {
    var access = AccessPolicy()
    configure(&access)
    return LifecycleAPI(
      engine: Engine(configuration: EngineConfiguration(), now: .zero), version: "9.9.9",
      now: .zero, access: access)
  }

  func call(
    _ api: LifecycleAPI, _ method: String, _ path: String, body: String = "",
    mediaType: String? = nil, host: String? = "127.0.0.1:8080", origin: String? = nil,
    authorization: String? = nil
  ) -> (status: Int, body: String, headers: [String: String]) {
    let response = api.handle(
      APIRequest(
        method: method, path: path[...], mediaType: mediaType, body: Array(body.utf8),
        host: host,
        occasionalFields: OccasionalFields(origin: origin, authorization: authorization)),
      now: .zero)!
    return (
      response.status, String(decoding: response.body, as: UTF8.self),
      Dictionary(response.headers.map { ($0.name, $0.value) }) { $1 }
    )
  }

  @Test(arguments: [
    "127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:80", "app.localhost:8080", "[::1]",
    "[::1]:8080", "10.1.2.3:9",
  ])
  func addressesAndLocalhostAreAnswered(host: String) {
    #expect(call(api(), "GET", "/v1/apps", host: host).status == 200)
  }

  /// A page whose DNS name was rebound to 127.0.0.1 sends its own name.
  @Test func aForeignHostIs421AndChangesNothing() {
    let api = api()
    let response = call(api, "POST", "/__admin/reset", host: "attacker.example:8080")
    #expect(response.status == 421)
    #expect(
      response.body
        == #"{"type":"urn:lifecycled:problem:misdirected-request","title":"This server does not answer for this host","status":421,"detail":"'attacker.example:8080' is not an address of this server; a name it should answer for belongs in allowedHosts (LIFECYCLED_ALLOWED_HOSTS)"}"#
    )
    #expect(call(api, "GET", "/health", host: "lifecycled").status == 421)
  }

  /// The host last allowed is not read again, and answers for no other: a foreign host after
  /// it, or between two requests with it, is still 421.
  @Test func aForeignHostBetweenAllowedOnesIsStill421() {
    let api = api()
    let hosts = ["127.0.0.1:8080", "attacker.example", "127.0.0.1:8080", "attacker.example"]
    #expect(hosts.map { call(api, "GET", "/health", host: $0).status } == [200, 421, 200, 421])
  }

  @Test(
    arguments: [
      (["lifecycled"], "lifecycled:8080", 200), (["LifeCycled"], "lifecycled", 200),
      ([".ci.example"], "ci.example", 200), ([".ci.example"], "a.b.ci.example:1", 200),
      ([".ci.example"], "evilci.example", 421), (["*"], "anything.example", 200),
      (["lifecycled"], "lifecycled.evil", 421),
    ] as [([String], String, Int)])
  func allowedHostsAreAnswered(allowed: [String], host: String, status: Int) {
    #expect(call(api { $0.allowedHosts = allowed }, "GET", "/livez", host: host).status == status)
  }

  /// A cross-origin `POST` with `text/plain` is a "simple" request: the browser sends it
  /// without asking first, so the server must refuse it itself.
  @Test func aCrossOriginResetIs403AndResetsNothing() {
    let api = api()
    #expect(
      call(api, "POST", "/v1/apps", body: #"{"name":"a"}"#, mediaType: "application/json").status
        == 201)
    let response = call(
      api, "POST", "/__admin/reset", body: "x", mediaType: "text/plain",
      origin: "https://attacker.example")
    #expect(response.status == 403)
    #expect(
      response.body
        == #"{"type":"urn:lifecycled:problem:forbidden-origin","title":"Requests from this origin are not allowed","status":403,"detail":"requests from web pages are refused unless their origin is in allowedOrigins (LIFECYCLED_ALLOWED_ORIGINS) or this server's own, at an address, localhost or a name allowedHosts lists; 'https://attacker.example' is not"}"#
    )
    #expect(call(api, "GET", "/v1/apps/a").status == 200)
  }

  /// A page this server served (its origin is `http://` and the `Host` it was sent to, which
  /// is checked first) may call it; the same name on another scheme or port may not, nor a
  /// page whose own name is not an allowed host.
  @Test func theServersOwnOriginIsAnswered() {
    let api = api()
    let own = call(
      api, "POST", "/v1/apps", body: #"{"name":"a"}"#, mediaType: "application/json",
      host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080")
    #expect(own.status == 201)
    #expect(
      call(api, "GET", "/v1/apps", host: "LOCALHOST:8080", origin: "http://localhost:8080").status
        == 200)
    #expect(
      call(api, "GET", "/v1/apps", host: "127.0.0.1:8080", origin: "https://127.0.0.1:8080").status
        == 403)
    #expect(
      call(api, "GET", "/v1/apps", host: "127.0.0.1:8080", origin: "http://127.0.0.1:8081").status
        == 403)
    #expect(
      call(
        api, "GET", "/v1/apps", host: "rebound.example:8080", origin: "http://rebound.example:8080"
      )
      .status == 421)
  }

  /// Under `allowedHosts` `*` (which answers any name), a page that rebinds its own DNS name
  /// to this server sends its name as both `Host` and `Origin`: that is no proof of the
  /// server's own page, so it reads and changes nothing. A listed name's own page is answered.
  @Test func aRebindingPageIsRefusedUnderTheWildcard() {
    let api = api { $0.allowedHosts = ["*", "lifecycled", ".ci.example"] }
    let host = "attacker.example:8080"
    let origin = "http://attacker.example:8080"
    #expect(call(api, "GET", "/v1/devices", host: host).status == 200)  // no Origin: a harness
    let refused = [
      call(api, "GET", "/v1/devices", host: host, origin: origin),
      call(
        api, "POST", "/v1/devices", body: #"{"id":"x"}"#, mediaType: "application/json",
        host: host, origin: origin),
      call(
        api, "POST", "/v1/devices/default/events", body: #"{"type":"lock"}"#,
        mediaType: "application/json", host: host, origin: origin),
      call(api, "DELETE", "/v1/devices?label=a=b", host: host, origin: origin),
    ]
    #expect(refused.map(\.status) == [403, 403, 403, 403])
    #expect(refused[0].body.contains("'http://attacker.example:8080' is not"))
    #expect(call(api, "GET", "/v1/devices/x").status == 404)
    #expect(call(api, "GET", "/v1/devices/default").body.contains(#""locked":false"#))
    for (host, origin) in [
      ("lifecycled:8080", "http://lifecycled:8080"), ("a.ci.example", "http://a.ci.example"),
      ("127.0.0.1:8080", "http://127.0.0.1:8080"),
    ] {
      #expect(call(api, "GET", "/v1/devices", host: host, origin: origin).status == 200, "\(host)")
    }
  }

  /// A browser sends one `Origin` at most (RFC 6454, 7.2): two are refused whatever they say,
  /// so that the first cannot vouch for the second.
  @Test func twoOriginFieldsAre403() {
    let api = api()
    var request = APIRequest(
      method: "POST", path: "/v1/apps", mediaType: "application/json",
      body: Array(#"{"name":"a"}"#.utf8), host: "127.0.0.1:8080",
      occasionalFields: OccasionalFields(origin: "http://127.0.0.1:8080"))
    request.originIsRepeated = true
    let response = api.handle(request, now: .zero)
    #expect(response?.status == 403)
    #expect(
      response.map { String(decoding: $0.body, as: UTF8.self) }?.contains(
        #""detail":"a request from a web page has one Origin field; this one has several""#)
        == true)
    #expect(call(api, "GET", "/v1/apps/a").status == 404)
  }

  @Test func anAllowedOriginIsAnswered() {
    let api = api { $0.allowedOrigins = ["http://localhost:3000"] }
    #expect(call(api, "GET", "/v1/apps", origin: "http://localhost:3000").status == 200)
    #expect(call(api, "GET", "/v1/apps", origin: "http://localhost:3001").status == 403)
  }

  /// Every request that changes state and has a body needs JSON, even where the body is
  /// ignored: a form post to `/__admin/reset` is refused and resets nothing.
  @Test func aNonJSONBodyOnAnyPostIs415() {
    let api = api()
    _ = call(api, "POST", "/v1/apps", body: #"{"name":"a"}"#, mediaType: "application/json")
    let response = call(
      api, "POST", "/__admin/reset", body: "a=b", mediaType: "application/x-www-form-urlencoded")
    #expect(response.status == 415)
    #expect(
      response.body.contains(
        #""detail":"the body must be application/json, not application/x-www-form-urlencoded""#))
    #expect(call(api, "DELETE", "/v1/apps/a", body: "x", mediaType: "text/plain").status == 415)
    #expect(call(api, "GET", "/v1/apps/a").status == 200)
    #expect(call(api, "POST", "/__admin/reset").status == 204)
  }

  @Test func withATokenV1AndAdminNeedIt() {
    let api = api { $0.authToken = "s3cret" }
    let missing = call(api, "POST", "/__admin/reset")
    #expect(missing.status == 401)
    #expect(missing.headers["WWW-Authenticate"] == "Bearer")
    #expect(
      missing.body.contains(
        #""detail":"this server requires 'Authorization: Bearer <token>' (authToken)""#))
    let wrong = call(api, "GET", "/v1/apps", authorization: "Bearer s3creT")
    #expect(wrong.status == 401)
    #expect(wrong.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
    #expect(call(api, "GET", "/v1/apps", authorization: "Bearer s3cret").status == 200)
    #expect(call(api, "GET", "/v1/apps", authorization: "bearer s3cret").status == 200)
    #expect(call(api, "GET", "/v1/apps", authorization: "Bearer s3cret2").status == 401)
    let open = ["/livez", "/readyz", "/health", "/metrics", "/openapi.yaml", "/", "/page.js"]
    for probe in open {
      #expect(call(api, "GET", probe).status == 200, "\(probe) needs no token")
    }
  }

  @Test func createdResourcesHaveALocation() {
    let api = api()
    let device = call(
      api, "POST", "/v1/devices", body: #"{"id":"ci-1"}"#, mediaType: "application/json")
    #expect(device.status == 201)
    #expect(device.headers["Location"] == "/v1/devices/ci-1")
    let app = call(api, "POST", "/v1/apps", body: #"{"name":"a"}"#, mediaType: "application/json")
    #expect(app.headers["Location"] == "/v1/devices/default/apps/a")
  }
}
