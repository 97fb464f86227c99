import HTTPServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Shuts the service down once the process that started it is gone (`serve --exit-with-parent`,
/// which the Swift client's launcher passes): a test process killed with SIGKILL leaves no
/// server behind. The parent's death shows as the process's parent changing (init or a
/// subreaper adopts it), looked at every `interval`: POSIX, the same on Linux and macOS.
final class ParentWatch: HTTPTimerClient {
  /// How often the parent is looked at, in milliseconds.
  static let interval: UInt64 = 250

  private let parent = getppid()
  private var nextLook: UInt64
  private var isGone = false
  /// Begins the shutdown: the server's graceful one.
  var shutDown: () -> Void = {}

  init(now: UInt64) {
    nextLook = now + Self.interval
  }

  var nextDeadline: UInt64? { isGone ? nil : nextLook }

  func timerFired(now: UInt64) {
    nextLook = now + Self.interval
    guard !isGone, getppid() != parent else { return }
    isGone = true
    shutDown()
  }
}
