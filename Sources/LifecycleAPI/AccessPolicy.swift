#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Who may use the API. A web page on any site can send requests to a port on the machine
/// that shows it, so by default only requests that no page can forge are answered:
///
/// - `Host` must name this server: an IP address, `localhost` (or a name under `.localhost`),
///   or one of `allowedHosts`. A page that rebinds its own DNS name to 127.0.0.1 sends its
///   own name, and gets 421.
/// - A request with an `Origin` (which browsers add to cross-origin requests and to every
///   `POST`) must come from one of `allowedOrigins`, none by default, or from this server's own
///   origin (`http://` and the `Host` it was sent to, when that is an address, `localhost` or
///   a name `allowedHosts` lists, not one only `*` lets through: a page this server served);
///   others get 403, and so does a request with two `Origin` fields.
/// - With `authToken` set, every `/v1` and `/__admin` request needs
///   `Authorization: Bearer <token>` (401 without it); the probes never do.
///
/// Curl, test harnesses and kubelet probes send no `Origin` and address the server by IP
/// address, `localhost` or a name the operator lists, so they pass.
public struct AccessPolicy: Sendable, Equatable {
  /// Host names answered besides IP addresses and `localhost`: a name (`lifecycled`), a
  /// domain and its subdomains (`.ci.example`), or `*` for any name.
  public var allowedHosts: [String] = [] {
    didSet { hostPatterns = allowedHosts.map { $0.lowercased() } }
  }
  /// `allowedHosts` in lowercase, as `Host` values are compared: made once, not per request.
  private var hostPatterns: [String] = []
  /// Origins whose pages may call the API, such as `http://localhost:3000`.
  public var allowedOrigins: [String] = []
  /// The bearer token `/v1` and `/__admin` requests must carry, if set.
  public var authToken: String?

  public init() {}

  /// Whether a `Host` field value (a name or address, and perhaps a port) names this server.
  func allows(host field: String) -> Bool { match(host: field) != nil }

  /// How a `Host` field value names this server: `verified` when it is an address, `localhost`
  /// or a name `allowedHosts` lists, `anyName` when only `*` lets it through (a name nobody
  /// checked: a rebinding page's own), nil when it does not. Read as bytes: it is checked on
  /// every request, and Character-wise String work cost more than the request.
  private func match(host field: String) -> HostMatch? {
    var field = field
    return field.withUTF8 { bytes in
      let name = Self.name(inHost: bytes)
      if Self.isAddress(name) { return .verified }
      let lowered = String(decoding: name, as: UTF8.self).lowercased()  // as hostPatterns are
      if lowered == "localhost" || lowered.hasSuffix(".localhost") { return .verified }
      var match: HostMatch?
      for allowed in hostPatterns {
        if allowed == "*" {
          match = .anyName
        } else if allowed.hasPrefix(".")
          ? lowered == allowed.dropFirst() || lowered.hasSuffix(allowed) : lowered == allowed
        {
          return .verified
        }
      }
      return match
    }
  }

  private enum HostMatch { case verified, anyName }

  /// Whether a request with `Origin` `origin`, sent to `host`, may be answered: an origin
  /// allowed, or the server's own: only a page it served has it, when `host` is a name the
  /// server was told it has. A `Host` that only `*` lets through is no proof: a page that
  /// rebinds its own DNS name to this server sends its own name as both.
  func allows(origin: String, host: String?) -> Bool {
    if allowedOrigins.contains(origin) { return true }
    guard let host, origin.lowercased() == "http://" + host.lowercased() else { return false }
    return match(host: host) == .verified
  }

  /// Whether `authorization` (the field's value) carries the token, compared in time that
  /// does not depend on where the two differ.
  func authorizes(_ authorization: String?) -> Bool {
    guard let authToken else { return true }
    guard let authorization, authorization.utf8.count == authToken.utf8.count + 7,
      authorization.lowercased().hasPrefix("bearer ")
    else { return false }
    var difference: UInt8 = 0
    for (sent, expected) in zip(authorization.utf8.dropFirst(7), authToken.utf8) {
      difference |= sent ^ expected
    }
    return difference == 0
  }

  /// `example.com` of `example.com:8080`; `[::1]` stays whole.
  private static func name(inHost field: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    if field.first == UInt8(ascii: "["), let end = field.firstIndex(of: UInt8(ascii: "]")) {
      return UnsafeBufferPointer(rebasing: field[...end])
    }
    guard let colon = field.lastIndex(of: UInt8(ascii: ":")) else { return field }
    return UnsafeBufferPointer(rebasing: field[..<colon])
  }

  /// Whether `name` is an IPv4 address or a bracketed IPv6 address: no DNS name, so no page
  /// can rebind it.
  private static func isAddress(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
    let isIPv6 = name.first == UInt8(ascii: "[") && name.last == UInt8(ascii: "]")
    let text = isIPv6 ? UnsafeBufferPointer(rebasing: name.dropFirst().dropLast()) : name
    guard text.count < 64 else { return false }
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { terminated in
      for (index, byte) in text.enumerated() { terminated[index] = CChar(bitPattern: byte) }
      terminated[text.count] = 0
      var address = in6_addr()
      return inet_pton(isIPv6 ? AF_INET6 : AF_INET, terminated.baseAddress, &address) == 1
    }
  }
}
