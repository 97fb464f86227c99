import HTTPCore
import JSONCore
import Logging
import Testing

@testable import LifecycledService

#if canImport(Glibc)
  import Glibc
#endif

/// The buffered log: when lines wait and when they go out, whole and in order.
@Suite struct LogOutputTests {
  /// A pipe whose read end does not block: what has been written so far.
  final class Capture {
    let read: Int32
    let write: Int32

    init() {
      var ends: [Int32] = [0, 0]
      pipe(&ends)
      read = ends[0]
      write = ends[1]
      _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
      _ = fcntl(write, 1031, 1 << 20)  // F_SETPIPE_SZ: room for the largest line, unread
    }

    deinit {
      close(read)
      close(write)
    }

    /// Everything written since the last call.
    func drain() -> String {
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = Glibc.read(read, &chunk, chunk.count)
        guard count > 0 else { break }
        bytes += chunk[..<count]
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }

  func line(_ output: LogOutput, _ text: String, urgent: Bool = false) {
    output.append(urgent: urgent) { _, line in
      var text = text + "\n"
      text.withUTF8 { line.raw($0) }
    }
  }

  @Test func linesWaitUntilFlushedThenGoOutInOrder() {
    let capture = Capture()
    let output = LogOutput(fileDescriptor: capture.write)
    #expect(output.nextDeadline == nil)
    let before = monotonicMilliseconds()
    line(output, "a")
    line(output, "b")
    #expect(capture.drain() == "")
    let deadline = output.nextDeadline
    #expect(deadline.map { $0 >= before + LogOutput.flushInterval } == true)
    #expect(deadline.map { $0 <= monotonicMilliseconds() + LogOutput.flushInterval } == true)
    output.timerFired(now: deadline ?? 0)
    #expect(capture.drain() == "a\nb\n")
    #expect(output.nextDeadline == nil)
  }

  @Test func anUrgentLineTakesEverythingBeforeItAlong() {
    let capture = Capture()
    let output = LogOutput(fileDescriptor: capture.write)
    line(output, "request")
    line(output, "kill", urgent: true)
    #expect(capture.drain() == "request\nkill\n")
    #expect(output.nextDeadline == nil)
  }

  @Test func aNearlyFullBufferIsWrittenWithoutWaiting() {
    let capture = Capture()
    let output = LogOutput(fileDescriptor: capture.write)
    let text = String(repeating: "x", count: 1023)
    let lines = LogOutput.capacity * 3 / 4 / 1024 + 1
    for _ in 0..<lines { line(output, text) }
    #expect(capture.drain() == String(repeating: text + "\n", count: lines))
  }

  @Test func aLineLargerThanTheBufferGoesOutWholeAfterTheOthers() {
    let capture = Capture()
    let output = LogOutput(fileDescriptor: capture.write)
    line(output, "first")
    let huge = String(repeating: "y", count: LogOutput.capacity + 10)
    line(output, huge)
    #expect(capture.drain() == "first\n\(huge)\n")
  }

  @Test func whatWaitsIsWrittenWhenTheOutputGoes() {
    let capture = Capture()
    do {
      let output = LogOutput(fileDescriptor: capture.write)
      line(output, "last words")
    }
    #expect(capture.drain() == "last words\n")
  }

  /// The request line is the line `LineLogHandler` writes for the same metadata, in both
  /// formats: a plain path as it is, one with `=`, a quote or a backslash quoted and escaped.
  @Test(
    arguments: LogFormat.allCases,
    [
      ("/v1/apps/a/events", "/v1/apps/a/events"), ("/health?x=1", "/health"),
      ("/v1/apps/a=b/events?x=1", "/v1/apps/a=b/events"), (#"/a"b"#, #"/a"b"#),
      (#"/a\b"#, #"/a\b"#), (#"/v1/devices/x"y/apps"#, #"/v1/devices/x"y/apps"#),
      (#"/v1/devices/abcdef\/apps"#, #"/v1/devices/abcdef\/apps"#),
      ("/v1/devices/é/apps", "/v1/devices/é/apps"),
      ("/v1/devices/\u{7F}x/apps", "/v1/devices/\u{7F}x/apps"),
      ("http://127.0.0.1:8080/v1/apps?x=1", "/v1/apps"), ("http://h?x", "/"),
    ])
  func requestLinesMatchTheHandlersLines(format: LogFormat, target: (sent: String, path: String)) {
    expectTheHandlersLine(format: format, target: target)
  }

  /// Every ASCII byte in a short path, written as it is or quoted, as the handler would (a
  /// `?` begins the query, which the line leaves out).
  @Test(arguments: LogFormat.allCases)
  func everyASCIIByteInAPathIsWrittenAsTheHandlerWritesIt(format: LogFormat) {
    for byte in UInt8(0x20)...0x7F {
      let target = "/a" + String(UnicodeScalar(byte))
      expectTheHandlersLine(format: format, target: (target, byte == 0x3F ? "/a" : target))
    }
  }

  private func expectTheHandlersLine(format: LogFormat, target: (sent: String, path: String)) {
    let capture = Capture()
    let output = LogOutput(fileDescriptor: capture.write)
    let request = HTTPRequest(method: "POST", target: target.sent)
    RequestLog(format: format, output: output).requestAnswered(
      request, status: .created, microseconds: 42)
    output.flush()
    let written = capture.drain()
    let time = String(written.dropFirst(format == .json ? 9 : 0).prefix(24))
    let expected = LineLogHandler.line(
      format: format, time: time, level: .info, message: "request",
      metadata: [
        "duration_us": .stringConvertible(UInt64(42)), "method": "POST",
        "path": .string(target.path), "status": .stringConvertible(201),
      ])
    #expect(written == String(decoding: expected, as: UTF8.self))
    #expect(time.hasSuffix("Z"))
  }

  /// A fatal signal writes the waiting lines, then puts back the handler that was there
  /// before (the runtime's crash report), which the signal reaches next.
  @Test func aFatalSignalWritesWhatWaitsThenReachesThePreviousHandler() {
    let capture = Capture()
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in previousHandlerRan = true }
    sigemptyset(&action.sa_mask)
    sigaction(SIGTRAP, &action, nil)
    defer { signal(SIGTRAP, SIG_DFL) }
    let output = LogOutput(fileDescriptor: capture.write)
    output.flushOnFatalSignals()
    line(output, "before the crash")
    raise(SIGTRAP)
    #expect(capture.drain() == "before the crash\n")
    #expect(!previousHandlerRan)
    raise(SIGTRAP)
    #expect(previousHandlerRan)
  }
}

/// Set by the stand-in for the runtime's crash handler.
nonisolated(unsafe) private var previousHandlerRan = false
