import CLibUV

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The address a connection comes from, without its port: what the per-address connection
/// limit counts. An IPv4 address is kept in its IPv6-mapped form (`::ffff:a.b.c.d`), so that
/// one client counts once whichever family it reaches a dual-stack listener by.
struct PeerAddress: Hashable {
  private var high: UInt64
  private var low: UInt64

  /// The peer of a connected socket; nil if the system cannot tell (it disconnected).
  init?(of tcp: UnsafeMutablePointer<uv_tcp_t>) {
    var storage = sockaddr_storage()
    var length = Int32(MemoryLayout<sockaddr_storage>.size)
    let status = withUnsafeMutablePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        uv_tcp_getpeername(tcp, $0, &length)
      }
    }
    guard status == 0 else { return nil }
    switch Int32(storage.ss_family) {
    case AF_INET:
      let ipv4 = withUnsafeBytes(of: storage) { $0.load(fromByteOffset: 4, as: UInt32.self) }
      high = 0
      low = 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: ipv4))
    case AF_INET6:
      (high, low) = withUnsafeBytes(of: storage) {
        (
          UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
          UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        )
      }
    default:
      return nil
    }
  }
}
