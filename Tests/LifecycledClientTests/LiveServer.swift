import Foundation
import LifecycledClient
import Testing

/// A lifecycled binary serving a suite: started before its first test on a free loopback port
/// with a manual device clock, stopped after its last. The binary is `LIFECYCLED_BINARY`, else
/// the one built beside the tests.
///
/// `scripts/test` runs these suites in a process of their own: other suites block the threads
/// of Swift's cooperative pool (waiting on processes and sockets), and the client's requests,
/// whose bodies are written from that pool, would wait behind them. In one process with them
/// (a plain `swift test`) they are slow but pass: the server waits a minute for a request.
struct LiveServer: SuiteTrait, TestScoping {
  /// The server of the suite running on this task.
  @TaskLocal static var url: URL?

  /// A client of the suite's server.
  static var lifecycled: Lifecycled {
    get throws {
      guard let url else { throw LiveServerError.noServer }
      return Lifecycled(serverURL: url)
    }
  }

  static var binary: URL {
    if let path = ProcessInfo.processInfo.environment["LIFECYCLED_BINARY"] {
      return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("lifecycled")
  }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = [
      "serve", "--port", "0", "--device-clock", "manual", "--header-timeout-seconds", "60",
      "--body-timeout-seconds", "60", "--request-timeout-seconds", "60",
    ]
    // A clean environment: lifecycled refuses LIFECYCLED_ variables it does not know.
    process.environment = ["PATH": "/usr/bin:/bin", "LIFECYCLED_LOG_LEVEL": "notice"]
    let log = Pipe()
    process.standardError = log
    try process.run()
    defer {
      process.terminate()
      process.waitUntilExit()
    }
    let url = try Self.address(in: log.fileHandleForReading)
    // Later lines (an app killed, the shutdown) are read and dropped, so that the server
    // never waits on a full pipe.
    log.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
    try await Self.$url.withValue(url, operation: function)
  }

  /// The address the server's `listening` log line gives.
  private static func address(in log: FileHandle) throws -> URL {
    var text = ""
    while true {
      let data = log.availableData
      guard !data.isEmpty else { throw LiveServerError.exited(text) }
      text += String(decoding: data, as: UTF8.self)
      if let start = text.range(of: "http://127.0.0.1:"),
        let end = text[start.upperBound...].firstIndex(where: { !$0.isNumber }),
        let url = URL(string: String(text[start.lowerBound..<end]))
      {
        return url
      }
    }
  }
}

enum LiveServerError: Error {
  case noServer
  case exited(String)
}

extension Trait where Self == LiveServer {
  /// The suite runs against a lifecycled server of its own.
  static var liveServer: LiveServer { LiveServer() }
}
