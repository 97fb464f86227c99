#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `lifecycled healthcheck`: asks a running service whether it is ready, with no curl needed
/// (slim container images have none).
public enum HealthProbe {
  /// Sends `GET /readyz` and returns the status code, or a reason it got none.
  ///
  /// A wildcard host (`0.0.0.0`, `::`) is probed on the loopback address.
  public static func readiness(host: String, port: Int, timeoutSeconds: Int = 2) -> Result<
    Int, ProbeError
  > {
    let target =
      host == "0.0.0.0" || host == "localhost" ? "127.0.0.1" : host == "::" ? "::1" : host
    var hints = addrinfo()
    hints.ai_socktype = Platform.streamSocket
    hints.ai_flags = AI_NUMERICHOST
    var found: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(target, String(port), &hints, &found) == 0, let address = found else {
      return .failure(ProbeError(message: "'\(host)' is not an IP address"))
    }
    defer { freeaddrinfo(found) }
    let fd = socket(address.pointee.ai_family, Platform.streamSocket, 0)
    guard fd >= 0 else { return .failure(ProbeError(message: "no socket")) }
    defer { close(fd) }
    Platform.keepSIGPIPEAway(from: fd)
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
      setsockopt(fd, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    guard connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
      return .failure(ProbeError(message: "cannot connect to \(target):\(port)"))
    }
    let request = Array("GET /readyz HTTP/1.1\r\nHost: \(target)\r\nConnection: close\r\n\r\n".utf8)
    guard send(fd, request, request.count, Platform.sendFlags) == request.count else {
      return .failure(ProbeError(message: "cannot send to \(target):\(port)"))
    }
    var reply = [UInt8](repeating: 0, count: 64)
    let count = recv(fd, &reply, reply.count, 0)
    let head = String(decoding: reply[..<max(count, 0)], as: UTF8.self)
    guard head.hasPrefix("HTTP/1.1 "), let status = Int(head.dropFirst(9).prefix(3)) else {
      return .failure(ProbeError(message: "no HTTP response from \(target):\(port)"))
    }
    return .success(status)
  }
}

/// Why a probe got no status.
public struct ProbeError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
