import Foundation
import Testing
import XCTest

@testable import LifecycledClient

/// The XCTest way: a server started for the test, which its `tearDown()` can still use, and
/// which is stopped once the test has finished.
final class XCTestHelperTests: XCTestCase {
  /// The client of the server the test started, for `tearDown()`.
  private var lifecycled: Lifecycled?

  func testAServerStartedForTheTestServesItThroughItsTearDown() async throws {
    let lifecycled = try await startLifecycledServer(.binary(LiveServer.binary))
    self.lifecycled = lifecycled
    let mail = try await lifecycled.createDevice(labels: ["test": "xctest"]).createApp("mail")
    let launch = try await mail.post(.launch())
    XCTAssertEqual(launch.state, .active)
  }

  override func tearDown() async throws {
    let removed = try await lifecycled?.removeDevices(labeled: "test", value: "xctest")
    XCTAssertEqual(removed?.count, 1)
  }
}

/// What XCTest's report of a finished test does: that test's servers stop, others serve on.
@Suite struct ServersOfFinishingTestsTests {
  @Test func aFinishedTestsServersStopAndAnotherTestsServeOn() async throws {
    let servers = ServersOfFinishingTests()
    let tests = (finishing: NSObject(), running: NSObject())  // two tests' identities
    let (finishing, running) = (ObjectIdentifier(tests.finishing), ObjectIdentifier(tests.running))
    let stopping = try await LifecycledServer.start(.binary(LiveServer.binary))
    let staying = try await LifecycledServer.start(.binary(LiveServer.binary))
    defer { staying.stop() }
    await MainActor.run {
      servers.stop(stopping, whenFinished: finishing)
      servers.stop(staying, whenFinished: running)
    }
    servers.finished(finishing)
    withExtendedLifetime(tests) {}
    await #expect(throws: LifecycledUnreachable.self) {
      try await Lifecycled(serverURL: stopping.url, connectTimeout: .seconds(1)).createDevice()
    }
    #expect(try await Lifecycled(serverURL: staying.url).createDevice().fetch().clock == .manual)
  }
}
