import LifecycledClient
import XCTest

/// The XCTest way: a server started for the test, stopped by its teardown.
final class XCTestHelperTests: XCTestCase {
  func testAServerStartedForTheTestServesIt() async throws {
    let lifecycled = try await startLifecycledServer(.binary(LiveServer.binary))
    let mail = try await lifecycled.createDevice().createApp("mail")
    let launch = try await mail.post(.launch())
    XCTAssertEqual(launch.state, .active)
  }
}
