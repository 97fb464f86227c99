#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The service's system calls that Linux's C library and Apple's spell differently, in one
/// place. (The allocator's are in `CMalloc`, the worker threads' priority in `CLibUV`.)
enum Platform {
  /// `SOCK_STREAM` as `socket(2)` takes it: an enumeration on Glibc, a constant on Darwin.
  static var streamSocket: Int32 {
    #if canImport(Glibc)
      Int32(SOCK_STREAM.rawValue)
    #else
      SOCK_STREAM
    #endif
  }

  /// Has writes to `socket` fail with `EPIPE` rather than raise SIGPIPE once its peer has
  /// gone: per socket on Apple platforms (`SO_NOSIGPIPE`); on Linux per call
  /// (`sendFlags`).
  static func keepSIGPIPEAway(from socket: Int32) {
    #if canImport(Darwin)
      var on: Int32 = 1
      setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  /// The flags of `send(2)` that keep SIGPIPE away where the call says so (`MSG_NOSIGNAL`).
  static var sendFlags: Int32 {
    #if canImport(Glibc)
      Int32(MSG_NOSIGNAL)
    #else
      0
    #endif
  }

  /// `write(2)`.
  static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.write(descriptor, bytes, count)
    #else
      Darwin.write(descriptor, bytes, count)
    #endif
  }

  /// Sets the plain handler of `action`, a member each C library names its own way.
  static func setHandler(
    _ handler: @escaping @convention(c) (Int32) -> Void, of action: inout sigaction
  ) {
    #if canImport(Glibc)
      action.__sigaction_handler.sa_handler = handler
    #else
      action.__sigaction_u.__sa_handler = handler
    #endif
  }
}
