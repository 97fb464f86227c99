#if canImport(Testing)
  import Testing

  /// Runs a suite (or a test) against a lifecycled server of its own, started before its
  /// first test and stopped after its last; the tests reach it as
  /// ``LifecycledServer/current``.
  ///
  /// ```swift
  /// @Suite(.lifecycledServer()) struct CheckoutTests {
  ///   @Test func coldLaunch() async throws {
  ///     let lifecycled = try #require(LifecycledServer.current).lifecycled
  ///     ...
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
    /// `lifecycled` on `PATH`, else the engine in this process, unless told) and stops it
    /// when the test ends; a client of it.
    ///
    /// It stops in a teardown block, and XCTest runs those before `tearDown()`: remove the
    /// test's devices in a teardown block added after this call (blocks run last added
    /// first), not in `tearDown()`, where a server started here has stopped.
    public func startLifecycledServer(
      _ executable: LifecycledServer.Executable = .automatic, arguments: [String] = []
    ) async throws -> Lifecycled {
      let server = try await LifecycledServer.start(executable, arguments: arguments)
      addTeardownBlock { server.stop() }
      return server.lifecycled
    }
  }
#endif
