#if canImport(Testing)
  import Testing

  /// Runs a suite (or a test) against a lifecycled server of its own, started before its
  /// first test and stopped after its last; the tests reach it as
  /// ``LifecycledServer/current``.
  ///
  /// ```swift
  /// import LifecycledClient
  /// import Testing
  ///
  /// @Suite(.lifecycledServer()) struct CheckoutTests {
  ///   @Test func coldLaunch() async throws {
  ///     let lifecycled = try #require(LifecycledServer.current).lifecycled
  ///     // ...
  ///   }
  /// }
  /// ```
  public struct LifecycledServerTrait: SuiteTrait, TestTrait, TestScoping {
    public let executable: LifecycledServer.Executable
    public let arguments: [String]

    public func provideScope(
      for test: Test, testCase: Test.Case?,
      performing function: @Sendable () async throws -> Void
    ) async throws {
      let server = try await LifecycledServer.start(executable, arguments: arguments)
      defer { server.stop() }
      try await LifecycledServer.$current.withValue(server, operation: function)
    }
  }

  extension Trait where Self == LifecycledServerTrait {
    /// A lifecycled server for the suite or test, with `arguments` after `serve` (devices get
    /// a manual clock unless they say otherwise). Unless told: the server at `LIFECYCLED_URL`,
    /// else `lifecycled` on `PATH`, else the engine in this process
    /// (``LifecycledServer/Executable/automatic``).
    ///
    /// - Parameters:
    ///   - executable: What runs it.
    ///   - arguments: The server's options.
    /// - Returns: The trait.
    public static func lifecycledServer(
      _ executable: LifecycledServer.Executable = .automatic, arguments: [String] = []
    ) -> Self {
      LifecycledServerTrait(executable: executable, arguments: arguments)
    }
  }
#endif

#if canImport(XCTest)
  import XCTest

  extension XCTestCase {
    /// Starts a lifecycled server for this test (the server at `LIFECYCLED_URL`, else
    /// `lifecycled` on `PATH`, else the engine in this process, unless told); a client of it.
    ///
    /// - Parameters:
    ///   - executable: What runs it, as for ``LifecycledServer/start(_:arguments:startupTimeout:)``.
    ///   - arguments: The server's options.
    /// - Returns: A client of the server.
    /// - Throws: ``LifecycledServerError`` if it does not start.
    ///
    /// The server stops once XCTest reports the test finished: after its teardown blocks and
    /// `tearDown()`, so that either can still remove the test's devices.
    public func startLifecycledServer(
      _ executable: LifecycledServer.Executable = .automatic, arguments: [String] = []
    ) async throws -> Lifecycled {
      let server = try await LifecycledServer.start(executable, arguments: arguments)
      let test = ObjectIdentifier(self)
      await MainActor.run { ServersOfFinishingTests.shared.stop(server, whenFinished: test) }
      return server.lifecycled
    }
  }

  /// Stops the servers started for XCTest tests when each test finishes. XCTest tells its
  /// observers after the test's `tearDown()` has run; observers are added on the main thread
  /// (Apple's XCTest asserts so) and never removed (removing one while XCTest tells them
  /// throws there), so there is one.
  final class ServersOfFinishingTests: NSObject, XCTestObservation, @unchecked Sendable {
    static let shared = ServersOfFinishingTests()
    private let lock = NSLock()
    private var servers: [ObjectIdentifier: [LifecycledServer]] = [:]
    private var isObserving = false

    /// Stops `server` once the test `test` (an `XCTestCase`'s identity) has finished. On the
    /// main thread.
    func stop(_ server: LifecycledServer, whenFinished test: ObjectIdentifier) {
      let isFirst = lock.withLock {
        servers[test, default: []].append(server)
        defer { isObserving = true }
        return !isObserving
      }
      if isFirst { XCTestObservationCenter.shared.addTestObserver(self) }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) { finished(ObjectIdentifier(testCase)) }

    /// Stops the servers started for the test `test`.
    func finished(_ test: ObjectIdentifier) {
      let servers = lock.withLock { self.servers.removeValue(forKey: test) }
      for server in servers ?? [] { server.stop() }
    }
  }

  /// A test case over profiles is named by its model and release: `iPhone 11, iOS 26.1`.
  extension DeviceProfile: CustomTestStringConvertible {
    public var testDescription: String { "\(model), iOS \(osVersion)" }
  }
#endif
