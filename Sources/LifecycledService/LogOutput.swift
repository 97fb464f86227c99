import HTTPServer
import JSONCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Log lines on their way to stderr, written in batches the way nginx's buffered access log
/// writes them: a line per request each in its own `write` cost as much CPU as the request.
///
/// Lines wait in a bounded buffer that goes out when it is nearly full, `flushInterval` after
/// the first line entered it (the server's timer, as an `HTTPTimerClient`), at once for an
/// urgent line (`notice` and above: start-up, kills, shutdown, errors), when the service stops,
/// and, through `flushOnFatalSignals()`, before the runtime's crash report. Every line goes out
/// whole in one `write`, so lines never interleave.
final class LogOutput: HTTPTimerClient, Sendable {
  /// How long a line may wait, in milliseconds.
  static let flushInterval: UInt64 = 100
  /// The buffer's size: a line that does not fit makes room by writing what waits.
  static let capacity = 65_536

  private struct State: ~Copyable {
    /// Lines not yet written, then free space; its address is fixed, for the signal handler.
    let pending: UnsafeMutablePointer<UInt8>
    /// How many bytes wait; kept apart for the same reason.
    let waiting: UnsafeMutablePointer<Int>
    var count: Int {
      get { waiting.pointee }
      nonmutating set { waiting.pointee = newValue }
    }
    /// When the oldest waiting line arrived (monotonic milliseconds).
    var waitingSince: UInt64?
    /// The line being formatted, its capacity kept between lines.
    var line = JSONWriter(capacity: 1024)
    var timestamp = TimestampCache()
  }

  private let fileDescriptor: Int32
  private let state: Mutex<State>

  init(fileDescriptor: Int32 = STDERR_FILENO) {
    self.fileDescriptor = fileDescriptor
    let waiting = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    waiting.initialize(to: 0)
    state = Mutex(
      State(pending: .allocate(capacity: Self.capacity), waiting: waiting))
  }

  deinit {
    state.withLock { state in
      write(state.pending, state.count)
      state.pending.deallocate()
      state.waiting.deallocate()
    }
  }

  /// Adds one line that `format` writes, given the time as the log prints it; an urgent line
  /// goes out at once with everything before it.
  func append(urgent: Bool, _ format: (_ time: [UInt8], _ line: inout JSONWriter) -> Void) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    state.withLock { state in
      state.line.removeAll()
      format(state.timestamp.text(for: now), &state.line)
      let length = state.line.position
      if state.count + length > Self.capacity { flush(&state) }
      guard length <= Self.capacity else {
        return state.line.withBytes { write($0.baseAddress!, $0.count) }
      }
      state.line.withBytes {
        (state.pending + state.count).initialize(from: $0.baseAddress!, count: $0.count)
      }
      state.count += length
      if urgent || state.count > Self.capacity * 3 / 4 {
        flush(&state)
      } else if state.waitingSince == nil {
        state.waitingSince = monotonicMilliseconds()
      }
    }
  }

  /// Writes every waiting line.
  func flush() {
    state.withLock { flush(&$0) }
  }

  private func flush(_ state: inout State) {
    write(state.pending, state.count)
    state.count = 0
    state.waitingSince = nil
  }

  private func write(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
    var written = 0
    while written < count {
      let result = Platform.write(fileDescriptor, bytes + written, count - written)
      if result > 0 {
        written += result
      } else if result < 0, errno == EINTR {
        continue
      } else {
        return  // stderr is gone: nothing else to tell
      }
    }
  }

  // MARK: The server's timer

  var nextDeadline: UInt64? {
    state.withLock { $0.waitingSince.map { $0 + Self.flushInterval } }
  }

  func timerFired(now: UInt64) {
    flush()
  }

  // MARK: Crashes

  /// Has a fatal signal (a trap, a bad access, an abort) write the waiting lines before the
  /// handler that was there (the Swift runtime's crash report) runs.
  func flushOnFatalSignals() {
    // The handler reads without the lock: the process is dying, and the lock may be held.
    let (pending, waiting) = state.withLock { ($0.pending, $0.waiting) }
    FatalSignalFlush.install(fileDescriptor: fileDescriptor, bytes: pending, count: waiting)
  }
}

/// The monotonic clock in milliseconds: the base of libuv's `uv_now`, so deadlines compare.
func monotonicMilliseconds() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
}

/// `2026-11-22T09:30:00.125Z`: the date and time formatted once per second, the milliseconds
/// per line.
struct TimestampCache {
  private var second = -1
  private var text: [UInt8] = []

  mutating func text(for time: timespec) -> [UInt8] {
    if time.tv_sec != second {
      second = time.tv_sec
      text = Array(LineLogHandler.timestamp(time).utf8)
    } else {
      let milliseconds = time.tv_nsec / 1_000_000
      text[20] = UInt8(ascii: "0") + UInt8(milliseconds / 100)
      text[21] = UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10)
      text[22] = UInt8(ascii: "0") + UInt8(milliseconds % 10)
    }
    return text
  }
}

/// Writes the log's waiting lines when a fatal signal arrives, then hands the signal back to
/// the handler that was installed before (what the crash report comes from).
private enum FatalSignalFlush {
  static let signals = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]
  /// What to write, and the handlers to restore: set once, before any handler is installed.
  nonisolated(unsafe) static var fileDescriptor: Int32 = -1
  nonisolated(unsafe) static var bytes: UnsafeMutablePointer<UInt8>?
  nonisolated(unsafe) static var count: UnsafeMutablePointer<Int>?
  nonisolated(unsafe) static let previous = UnsafeMutablePointer<sigaction>.allocate(
    capacity: signals.count)

  static func install(
    fileDescriptor: Int32, bytes: UnsafeMutablePointer<UInt8>, count: UnsafeMutablePointer<Int>
  ) {
    Self.fileDescriptor = fileDescriptor
    Self.bytes = bytes
    Self.count = count
    for (index, number) in signals.enumerated() {
      var action = sigaction()
      Platform.setHandler({ number in FatalSignalFlush.handle(number) }, of: &action)
      action.sa_flags = SA_ONSTACK
      sigemptyset(&action.sa_mask)
      sigaction(number, &action, previous + index)
    }
  }

  /// Async-signal-safe: one `write`, then the previous handler back in place. Returning makes
  /// a fault happen again and `abort` raise again, now to that handler.
  static func handle(_ number: Int32) {
    if let bytes, let count, count.pointee > 0 {
      _ = write(fileDescriptor, bytes, count.pointee)
      count.pointee = 0
    }
    if let index = signals.firstIndex(of: number) {
      sigaction(number, previous + index, nil)
    }
  }
}
