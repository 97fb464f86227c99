import LifecycledClient
import Testing

/// The documentation's first example, as it is written there: a suite with a server of its
/// own (`lifecycled` found on `PATH`, as `scripts/test` sets it), a device for the test.
@Suite(.lifecycledServer()) struct CheckoutTests {
  @Test func homeThenSuspension() async throws {
    let lifecycled = try #require(LifecycledServer.current).lifecycled
    try await lifecycled.withDevice { device in
      let mail = try await device.createApp("mail")
      try await mail.post(.launch())
      let home = try await mail.post(.home)
      #expect(home.callbacks.map(\.method) == [.sceneWillResignActive, .sceneDidEnterBackground])
      let advance = try await device.advanceClock(by: .seconds(10))
      #expect(advance.transitions.map(\.to) == [.suspended])
    }
  }
}
