import LifecycleEngine

/// What a request must pass before its handler runs: the access policy, its media type, and
/// its conditions (`If-Match`, `Idempotency-Key`, with the store of responses kept for retries).
extension LifecycleAPI {
  /// Refuses a request the `AccessPolicy` does not let through: a foreign `Host` (421), an
  /// `Origin` neither allowed nor the server's own (403), a `/v1` or `/__admin` request
  /// without the token (401).
  func checkAccess(_ request: borrowing APIRequest) throws(Problem) {
    if let host = request.host, host != lastAllowedHost {
      guard access.allows(host: host) else {
        throw Problem(
          kind: .misdirected,
          detail: "'\(host)' is not an address of this server; a name it should answer for "
            + "belongs in allowedHosts (LIFECYCLED_ALLOWED_HOSTS)")
      }
      lastAllowedHost = host
    }
    if request.originIsRepeated {
      throw Problem(
        kind: .forbiddenOrigin,
        detail: "a request from a web page has one Origin field; this one has several")
    }
    if let origin = request.origin, !access.allows(origin: origin, host: request.host) {
      throw Problem(
        kind: .forbiddenOrigin,
        detail: "requests from web pages are refused unless their origin is in allowedOrigins "
          + "(LIFECYCLED_ALLOWED_ORIGINS) or this server's own, at an address, localhost or a "
          + "name allowedHosts lists; '\(origin)' is not")
    }
    if access.authToken != nil, request.path.hasPrefix("/v1") || request.path.hasPrefix("/__admin"),
      !access.authorizes(request.authorization)
    {
      var problem = Problem(
        kind: .unauthorized,
        detail: request.authorization == nil
          ? "this server requires 'Authorization: Bearer <token>' (authToken)"
          : "the bearer token is not this server's")
      problem.headers = [
        (
          "WWW-Authenticate",
          request.authorization == nil ? "Bearer" : #"Bearer error="invalid_token""#
        )
      ]
      throw problem
    }
  }

  /// A request made with an `Idempotency-Key`: its key and fingerprint; nil for other
  /// requests, and for requests other than a `POST` about a device, which need none.
  func retry(of request: borrowing APIRequest, to route: Route) throws(Problem)
    -> IdempotencyStore.Retry?
  {
    guard route.method == "POST", route.isDeviceScoped, let key = request.idempotencyKey else {
      return nil
    }
    return IdempotencyStore.Retry(
      key: try Self.idempotencyKey(key),
      fingerprint: IdempotencyStore.fingerprint(
        method: request.method, path: request.path, query: request.query, body: request.body))
  }

  /// The response kept for an earlier request with this key, marked as replayed; 422 if that
  /// request was another one.
  func storedResponse(
    to retry: IdempotencyStore.Retry, on device: String, now: Instant
  ) throws(Problem) -> APIResponse? {
    guard let stored = idempotency.entry(for: retry.key, on: device, now: now) else { return nil }
    guard stored.fingerprint == retry.fingerprint else {
      var problem = Problem.validation(
        "Idempotency-Key",
        "\(retry.key) was first used on device '\(device)' for another request; a retry "
          + "must repeat its method, path, query and body")
      problem.kind = .idempotencyKeyReused
      throw problem
    }
    var response = stored.response
    response.headers.append(("Idempotent-Replayed", "true"))
    return response
  }

  /// Keeps a response for the retries of its request: one that changed or refused something
  /// (2xx, 409), not one that was invalid, which a retry gets again anyway.
  func keep(
    _ response: APIResponse, for retry: IdempotencyStore.Retry, on device: String, now: Instant
  ) {
    guard (200..<300).contains(response.status) || response.status == 409,
      let incarnation = engine.lastVersion(of: device)?.incarnation
    else { return }
    idempotency.store(
      response, for: retry.key, on: device, incarnation: incarnation,
      fingerprint: retry.fingerprint, now: now)
  }

  /// Forgets the `Idempotency-Key` responses of devices that were reset, replaced or removed:
  /// a key belongs to one incarnation of its device.
  func forgetStaleIdempotencyKeys() {
    idempotency.forgetStale { [engine] in engine.lastVersion(of: $0)?.incarnation }
  }

  /// The `ETag` of a device version: strong, opaque to clients.
  static func entityTag(_ version: DeviceVersion) -> String {
    var tag = ""
    withEntityTag(of: version) { tag = String(decoding: $0, as: UTF8.self) }
    return tag
  }

  /// Calls `body` with the bytes of `version`'s `ETag`, written on the stack from their end:
  /// nearly every response has one, and the server writes it into the response's head with no
  /// String between. Two numbers of up to 19 digits, a dash and two quotes: 41 bytes at most.
  public static func withEntityTag(
    of version: DeviceVersion, _ body: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 41) { room in
      var start = room.endIndex
      func prepend(_ byte: UInt8) {
        start -= 1
        room[start] = byte
      }
      func prepend(_ number: Int) {
        var rest = number
        repeat {
          prepend(UInt8(ascii: "0") + UInt8(rest % 10))
          rest /= 10
        } while rest > 0
      }
      prepend(UInt8(ascii: "\""))
      prepend(version.seq)
      prepend(UInt8(ascii: "-"))
      prepend(version.incarnation)
      prepend(UInt8(ascii: "\""))
      body(UnsafeBufferPointer(rebasing: room[start...]))
    }
  }

  /// Refuses a state-changing request whose `If-Match` (RFC 9110, 13.1.1) names neither `*`
  /// nor the device's current version: 412, and the request changes nothing. Weak tags, and a
  /// value that is not a list of tags, never match. Handlers call it once the request is known
  /// to be valid and its device and app to exist, just before they change anything (RFC 9110,
  /// 13.2.2: a request that would fail anyway fails as it would without the condition).
  func checkPrecondition(_ request: borrowing RouteRequest) throws {
    try checkPrecondition(
      request.request.ifMatch, device: request.device, app: request.app, now: request.now)
  }

  /// `checkPrecondition` for a request's `If-Match` (`condition`) on `device`, or on `app`
  /// of it unless that is empty.
  func checkPrecondition(_ condition: String?, device: String, app: String = "", now: Instant)
    throws
  {
    guard let condition else { return }
    if !app.isEmpty {
      _ = try engine.app(app, on: device, now: now)
    }
    let current = Self.entityTag(try engine.version(of: device, now: now))
    let tags = Self.entityTags(condition) ?? []
    guard !tags.contains(where: { $0 == "*" || $0 == current }) else { return }
    var problem = Problem(
      kind: .preconditionFailed,
      detail: tags.isEmpty
        ? "If-Match \(condition) is not * or a list of entity tags such as \(current)"
        : "If-Match \(condition) does not name device '\(device)' as it is now, \(current)")
    problem.headers = [("ETag", current)]
    throw problem
  }

  /// An `Idempotency-Key` value: a Structured Fields string (`"..."`, as the draft has it) or
  /// the bare text, 1 to `IdempotencyStore.maxKeyBytes` visible ASCII characters.
  static func idempotencyKey(_ value: String) throws(Problem) -> String {
    let quoted = value.utf8.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
    let key = quoted ? String(value.dropFirst().dropLast()) : value
    guard (1...IdempotencyStore.maxKeyBytes).contains(key.utf8.count),
      key.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") })
    else {
      throw Problem.validation(
        "Idempotency-Key",
        "must be 1 to \(IdempotencyStore.maxKeyBytes) visible ASCII characters, quoted or not")
    }
    return key
  }

  /// The members of an `If-Match` value: `*` alone, or entity tags (RFC 9110, 8.8.3), weak or
  /// strong, in a list whose empty members are skipped; nil if it is neither.
  static func entityTags(_ value: String) -> [Substring]? {
    func trimmed(_ text: Substring) -> Substring {
      var text = text
      while text.first == " " || text.first == "\t" { text.removeFirst() }
      while text.last == " " || text.last == "\t" { text.removeLast() }
      return text
    }
    func isEntityTag(_ text: Substring) -> Bool {
      let opaque = text.hasPrefix("W/") ? text.dropFirst(2) : text
      return opaque.utf8.count >= 2 && opaque.first == "\"" && opaque.last == "\""
        && opaque.utf8.dropFirst().dropLast().allSatisfy {
          $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80
        }
    }
    let members = value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
      .filter { !$0.isEmpty }
    if members == ["*"] { return members }
    return !members.isEmpty && members.allSatisfy(isEntityTag) ? members : nil
  }

  /// Refuses a body that is not JSON on any request that changes state, whether or not its
  /// handler reads the body: a page's form or `text/plain` post must not reset the simulator.
  func checkMediaType(_ request: borrowing APIRequest) throws(Problem) {
    guard !request.body.isEmpty, request.method != "GET", request.method != "HEAD",
      request.mediaType != "application/json"
    else { return }
    throw .notJSON(request.mediaType)
  }
}
