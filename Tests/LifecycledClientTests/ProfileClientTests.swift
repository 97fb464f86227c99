import LifecycledClient
import Testing

/// A matrix of devices as Apple ships them, as a harness makes one: a test parameterized over
/// profiles, and one device per profile the server lists.
@Suite struct ProfileClientTests {
  static let matrix = [
    DeviceProfile(model: "iPhone 11", osVersion: "26.1"),
    DeviceProfile(model: "iPhone16,1", osVersion: "26.4"),
  ]

  /// Each case has a device of its own: an app past its model's foreground limit dies by it.
  @Test(arguments: matrix) func anAppPastItsModelsLimitIsKilled(profile: DeviceProfile) async throws
  {
    try await Lifecycled.inProcess().withDevice(profile: profile) { device in
      let limit = try await device.fetch().memory.perAppLimitMB
      let game = try await device.createApp("game")
      try await game.post(.launch())
      try await game.post(.setMemory(megabytes: limit))
      #expect(try await game.fetch().state == .active)
      try await game.post(.setMemory(megabytes: limit + 1))
      #expect(try await game.fetch().state == .notRunning)
    }
  }

  @Test func everyProfileTheServerListsMakesADevice() async throws {
    let lifecycled = Lifecycled.inProcess()
    let profiles = try await lifecycled.profiles()
    #expect(profiles.contains(DeviceProfile(model: "iPhone 15 Pro", osVersion: "26.1")))
    #expect(!profiles.contains(DeviceProfile(model: "iPhone 6s", osVersion: "26.1")))
    let devices = try await lifecycled.createDevices(for: profiles, labels: ["matrix": "all"])
    var made: [DeviceProfile] = []
    for device in devices {
      let view = try await device.fetch()
      made.append(DeviceProfile(model: view.model, osVersion: view.osVersion))
    }
    #expect(made == profiles)
    let removed = try await lifecycled.removeDevices(labeled: "matrix", value: "all")
    #expect(removed.count == profiles.count)
  }

  /// The migration a matrix over SDKs and releases catches: built with the iOS 27 SDK, an app
  /// without scenes launches on iOS 26 and traps on iOS 27.
  @Test(arguments: [("26.4", true), ("27.0", false)])
  func anAppWithoutScenesBuiltWithTheIOS27SDK(osVersion: String, launches: Bool) async throws {
    let profile = DeviceProfile(model: "iPhone 15 Pro", osVersion: osVersion)
    try await Lifecycled.inProcess().withDevice(profile: profile) { device in
      let legacy = try await device.createApp("legacy", lifecycle: .appDelegate, sdkVersion: 27)
      let launch = try await legacy.post(.launch())
      #expect(launch.state == (launches ? .active : .notRunning))
      #expect(launch.transitions.last?.cause == (launches ? .launch : .sceneLifecycleRequired))
    }
  }

  /// An app that adopted iOS 27's MetricManager gets each crash as a `DiagnosticReport` on
  /// iOS 27, and its subscriber fallback's payloads on iOS 26.
  @Test(arguments: [("26.4", false), ("27.0", true)])
  func aMetricManagerAppsCrashReport(osVersion: String, yieldsAReport: Bool) async throws {
    let profile = DeviceProfile(model: "iPhone 15 Pro", osVersion: osVersion)
    try await Lifecycled.inProcess().withDevice(profile: profile) { device in
      let mail = try await device.createApp("mail", sdkVersion: 27, metricKit: .metricManager)
      _ = try await mail.post(.launch())
      _ = try await mail.post(.crash())
      let relaunch = try await mail.post(.launch())
      let delivery = try #require(relaunch.callbacks.last)
      #expect(
        delivery.method == (yieldsAReport ? .diagnosticReports : .didReceiveDiagnosticPayloads))
      if yieldsAReport {
        guard case .DiagnosticReport(let report)? = delivery.arguments?.report else {
          return #expect(Bool(false), "\(String(describing: delivery.arguments))")
        }
        #expect(report.result.crash.terminationCategory == .abnormal)
        #expect(report.environment.osVersion.buildNumber == "24A437")
      }
    }
  }

  @Test func aProfileTheServerDoesNotKnowIsAValidationProblem() async throws {
    let lifecycled = Lifecycled.inProcess()
    let problem = await #expect(throws: LifecycledProblem.self) {
      try await lifecycled.createDevice(
        profile: DeviceProfile(model: "iPhone 6s", osVersion: "26.1"))
    }
    #expect(problem?.kind == .validation)
    #expect(problem?.detail == "osVersion must be a version iPhone 6s runs: 13.0, 15.0")
  }
}
