import Foundation
import LifecycledClient
import Testing

/// The server the client's suites run against: ``LifecycledServerTrait`` with the binary built
/// beside the tests (or `LIFECYCLED_BINARY`), one per suite; or, with
/// `LIFECYCLED_CLIENT_TESTS=in-process` (`scripts/test` runs the suites both ways), the engine
/// in the test process.
///
/// `scripts/test` runs these suites in a process of their own: other suites block the threads
/// of Swift's cooperative pool (waiting on processes and sockets), and the client's requests,
/// whose bodies are written from that pool, would wait behind them. In one process with them
/// (a plain `swift test`) they are slow but pass: the server waits a minute for a request.
enum LiveServer {
  /// A client of the suite's server.
  static var lifecycled: Lifecycled {
    get throws { try #require(LifecycledServer.current).lifecycled }
  }

  /// Whether the suites run against the engine in this process.
  static let isInProcess =
    ProcessInfo.processInfo.environment["LIFECYCLED_CLIENT_TESTS"] == "in-process"

  static var binary: String {
    ProcessInfo.processInfo.environment["LIFECYCLED_BINARY"]
      ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("lifecycled").path
  }

  /// Slow clients are waited for: see above.
  static let patientArguments = [
    "--header-timeout-seconds", "60", "--body-timeout-seconds", "60",
    "--request-timeout-seconds", "60",
  ]
}

extension Trait where Self == LifecycledServerTrait {
  /// The suite runs against a lifecycled server of its own, the one built beside the tests.
  static var liveServer: Self {
    .lifecycledServer(
      LiveServer.isInProcess ? .inProcess : .binary(LiveServer.binary),
      arguments: LiveServer.patientArguments)
  }
}
