import Foundation
import HTTPServer
import Logging
import Testing

@testable import LifecycledService

/// The heap's trim walks the whole heap (10 ms and more after a large release): it runs on a
/// worker thread, and the loop serves every connection meanwhile. It follows every fall of the
/// state, a reset's included, whether or not a request comes after it.
@Suite(.serialized) struct HeapTrimLiveTests {
  /// A trim that says when it begins and lasts until it is let go.
  final class HeldTrim: Sendable {
    let began = DispatchSemaphore(value: 0)
    let letGo = DispatchSemaphore(value: 0)

    func run() {
      began.signal()
      letGo.wait()
    }
  }

  /// The service's responder on a server of its own thread, its heap trimmed by `trim`.
  final class Server: @unchecked Sendable {
    let server: HTTPServer
    let port: Int
    private let finished = DispatchSemaphore(value: 0)

    init(trim: HeldTrim) throws {
      var configuration = ServiceConfiguration()
      configuration.server.port = 0
      configuration.server.handlesSignals = false
      var logger = Logger(label: "test")
      logger.logLevel = .critical
      let responder = APIResponder(
        configuration: configuration.engine, access: configuration.access, fixtures: nil,
        streamBacklogBytes: configuration.server.connection.maxStreamBacklog,
        now: monotonicMilliseconds(), logger: logger, trimHeap: trim.run)
      server = HTTPServer(
        configuration: configuration.server, responder: responder, timerClients: [responder],
        clientMemory: responder, logger: logger)
      port = try server.start()
      Thread { [self] in
        _ = server.run()
        finished.signal()
      }.start()
    }

    func stop() -> Bool {
      server.requestShutdown()
      return finished.wait(timeout: .now() + 5) == .success
    }
  }

  let tests = ExecutableTests()

  /// The trim begins once ten bodies of 1 MiB (but their last byte), counted in the state,
  /// are let go; `/health` is answered while it runs. Once it is done, the next fall is
  /// trimmed too, an interval after the first began (the server's timer).
  @Test func theLoopServesWhileTheHeapIsTrimmed() throws {
    let trim = HeldTrim()
    let service = try Server(trim: trim)
    let base = "http://127.0.0.1:\(service.port)"
    for round in 1...2 {
      try holdBodiesThenLetThemGo(service.port, base)
      #expect(trim.began.wait(timeout: .now() + 5) == .success, "trim \(round) began")
      #expect(
        try tests.curl(["--max-time", "2", "-w", " %{http_code}", "\(base)/health"]).output
          .hasSuffix(" 200"), "answered while trim \(round) runs")
      trim.letGo.signal()
    }
    #expect(service.stop())
  }

  /// A reset whose device is dropped on a worker thread (it held more than 64 KiB) is trimmed
  /// once the drop is done, though no request follows it: the state falls only then.
  @Test func aResetIsTrimmedOnceItsDevicesAreDropped() throws {
    let trim = HeldTrim()
    let service = try Server(trim: trim)
    let base = "http://127.0.0.1:\(service.port)"
    let connection = try RawConnection(port: service.port)
    let tasks = Array(
      repeating: #"{"type":"beginBackgroundTask","name":"\#(String(repeating: "n", count: 256))"}"#,
      count: 99)
    for app in 0..<170 {
      connection.send(tests.post("/v1/apps", #"{"name":"a\#(app)"}"#))
      connection.send(
        tests.post(
          "/v1/apps/a\(app)/events", #"[{"type":"launch"},"# + tasks.joined(separator: ",") + "]"))
      #expect(connection.receiveStatuses(2) == [201, 200])
    }
    #expect(try stateBytes(base) > HeapTrimmer.threshold)
    #expect(try tests.curl("\(base)/__admin/reset", post: "").hasPrefix("204 "))
    #expect(trim.began.wait(timeout: .now() + 5) == .success)
    trim.letGo.signal()
    #expect(service.stop())
  }

  /// Ten bodies of 1 MiB but their last byte, counted in the state once read; then their
  /// clients leave, and the state falls by more than the trimmer's threshold.
  func holdBodiesThenLetThemGo(_ port: Int, _ base: String) throws {
    let length = 1_048_576
    let head =
      "POST /v1/devices HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      + "Content-Length: \(length)\r\n\r\n"
    let senders = try (0..<10).map { _ in
      let connection = try RawConnection(port: port)
      connection.send(head + String(repeating: "x", count: length - 1))
      return connection
    }
    let counted = Date().addingTimeInterval(5)
    while try stateBytes(base) < 10 * (length - 1), Date() < counted { usleep(20_000) }
    #expect(try stateBytes(base) >= 10 * (length - 1))
    withExtendedLifetime(senders) {}
  }

  /// `lifecycled_state_bytes` from the service's metrics.
  func stateBytes(_ base: String) throws -> Int {
    let metrics = try tests.curl(["\(base)/metrics"]).output
    let line = metrics.split(separator: "\n").first { $0.hasPrefix("lifecycled_state_bytes ") }
    return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
  }
}
