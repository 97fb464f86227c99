import Testing

@testable import LifecycleEngine

/// A device is a model running a release: the model's RAM is its apps' budget, its measured
/// limits their limits, in the foreground, out of it, and with the increased-memory-limit
/// entitlement.
@Suite struct ProfileTests {
  let engine = Engine(now: .zero)

  @Test func aModelIsNamedByItsNameItsIdentifierOrItsSimulatorType() throws {
    for name in [
      "iPhone 13 Pro", "iPhone14,2", "com.apple.CoreSimulator.SimDeviceType.iPhone-13-Pro",
    ] {
      let device = try engine.createDevice("d-\(name.count)") { $0.model = name }
      #expect(
        device.configuration.model == "iPhone 13 Pro" && device.modelIdentifier == "iPhone14,2")
      #expect(device.memory.deviceMB == 6144 && device.memory.appMB == 3195)
      #expect(device.memory.increasedAppMB == 4301)
    }
  }

  @Test func anUnknownModelOrAReleaseTheModelDoesNotRunIsNamedWithTheKnownOnes() {
    #expect(
      engineError { try engine.createDevice("d") { $0.model = "iPhone 99" } }
        == .invalid([
          ValidationIssue(
            field: "model",
            message: "must be one of iPhone 6s, iPhone 8, iPhone X, iPhone XR, iPhone XS, "
              + "iPhone 11, iPhone 12 mini, iPhone 12, iPhone 13 Pro, iPhone 15 Pro, "
              + "iPhone 17 Pro, iPad Pro (11-inch)")
        ]))
    #expect(
      engineError { try engine.createDevice("d") { $0.model = "iPhone 6s" } }
        == .invalid([
          ValidationIssue(
            field: "osVersion", message: "must be a version iPhone 6s runs: 13.0, 15.0")
        ]))
    #expect(
      engineError { try engine.createDevice("d") { $0.initialOSVersion = "26.3" } }
        == .invalid([
          ValidationIssue(
            field: "osVersion",
            message: "must be a version iPhone 15 Pro runs: 17.0, 18.0, 26.0, 26.1, 26.4, 27.0")
        ]))
    #expect(engine.deviceCount == 1)  // the default device alone
  }

  @Test func theDeviceRunsTheReleaseItIsMadeWithUntilAnUpdate() throws {
    let device = try engine.createDevice("old") {
      $0.model = "iPhone XS"
      $0.initialOSVersion = "13.0"
      $0.clock = .manual
    }
    #expect(device.osVersion == "13.0" && device.osRelease.build == "17A577")
    _ = try engine.apply(.shutdown, on: "old", now: .zero)
    #expect(
      engineError { try engine.apply(.updateOS(version: "26.1"), on: "old", now: .zero) }
        == .invalid([
          ValidationIssue(
            field: "version", message: "must be a version iPhone XS runs: 13.0, 15.0, 17.0, 18.0")
        ]))
    _ = try engine.apply(.updateOS(version: "18.0"), on: "old", now: .zero)
    let updated = try engine.device("old", now: .zero)
    #expect(updated.osRelease.reportName == "iPhone OS 18.0 (22A3354)")
    #expect(updated.configuration.initialOSVersion == "13.0")
  }

  @Test func explicitLimitsOverrideTheModels() throws {
    let device = try engine.createDevice("d") {
      $0.memoryLimitMB = 1000
      $0.perAppLimitMB = 500
      $0.backgroundAppLimitMB = 200
      $0.increasedAppLimitMB = 800
    }
    #expect(
      device.memory
        == MemoryLimits(deviceMB: 1000, appMB: 500, backgroundAppMB: 200, increasedAppMB: 800))
  }

  /// `memlimit_inactive`: an app over the background limit dies as it leaves the foreground.
  @Test func anAppOverTheBackgroundLimitDiesAsItLeavesTheForeground() throws {
    let sim = Simulator(passcode: false)
    _ = try sim.engine.createDevice("small") {
      $0.clock = .manual
      $0.backgroundAppLimitMB = 300
    }
    _ = try sim.engine.createApp(AppSpec(name: "game", memoryMB: 400), on: "small", now: .zero)
    _ = try sim.engine.createApp(AppSpec(name: "mail", memoryMB: 250), on: "small", now: .zero)
    _ = try sim.engine.apply(.launch(), to: "game", on: "small", now: .zero)
    #expect(try sim.engine.app("game", on: "small", now: .zero).state == .active)
    let home = try sim.engine.apply(.home, on: "small", now: .zero)
    #expect(
      home.transitions.map { "\($0.app) \($0.to) \($0.cause.name)" }.suffix(1) == [
        "game notRunning jetsam"
      ])
    let kills = try sim.engine.jetsamLog(of: "small", now: .zero).kills
    #expect(kills.map { "\($0.app) \($0.reason)" } == ["game perProcessLimit"])
    _ = try sim.engine.apply(.launch(), to: "mail", on: "small", now: .zero)
    _ = try sim.engine.apply(.home, on: "small", now: .zero)
    #expect(try sim.engine.app("mail", on: "small", now: .zero).state == .background)
  }

  /// `com.apple.developer.kernel.increased-memory-limit`: the model's raised limit where a
  /// source measures one; none on a model without.
  @Test func theEntitlementRaisesTheForegroundLimitWhereTheModelHasARaisedOne() throws {
    for (model, survives) in [("iPhone 15 Pro", true), ("iPhone 17 Pro", false)] {
      let id = model.filter(\.isNumber)
      _ = try engine.createDevice(id) {
        $0.model = model
        $0.clock = .manual
      }
      for entitled in [true, false] {
        let name = entitled ? "entitled" : "plain"
        _ = try engine.createApp(
          AppSpec(name: name, memoryMB: 100, increasedMemoryLimit: entitled), on: id, now: .zero)
        _ = try engine.apply(.launch(), to: name, on: id, now: .zero)
        _ = try engine.apply(.setMemory(memoryMB: 4000), to: name, on: id, now: .zero)
        let state = try engine.app(name, on: id, now: .zero).state
        #expect((state == .active) == (entitled && survives), "\(model), \(name): \(state)")
      }
    }
  }

  /// A jetsam event report names the product and the release as Apple's do.
  @Test func aJetsamEventNamesTheProductAndTheReleaseItRan() throws {
    let sim = Simulator(passcode: false)
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.purge(.perProcessLimit), to: "mail")
    try sim.post(.shutdown)
    try sim.post(.updateOS(version: "26.4"))
    try sim.post(.boot)
    try sim.post(.unlock)
    try sim.post(.launch(), to: "mail")
    try sim.post(.purge(.perProcessLimit), to: "mail")
    let events = try sim.engine.jetsamLog(of: "d", now: .zero).events
    #expect(
      events.map { "\($0.product) \($0.os.reportName)" } == [
        "iPhone16,1 iPhone OS 26.1 (23B85)", "iPhone16,1 iPhone OS 26.4 (23E246)",
      ])
  }

  /// A restored device runs a release its model runs: an image of one that does not is
  /// refused, and nothing is made.
  @Test func anImageOfAReleaseTheModelDoesNotRunIsRefused() throws {
    var image = try engine.image(of: Engine.defaultDeviceID, now: .zero)
    image.id = "copy"
    image.status.osVersion = "15.0"
    #expect(
      engineError { try engine.restore(image, now: .zero) }
        == .invalid([
          ValidationIssue(
            field: "osVersion",
            message: "must be a version iPhone 15 Pro runs: 17.0, 18.0, 26.0, 26.1, 26.4, 27.0")
        ]))
    #expect(engine.deviceCount == 1)
  }

  /// "In iOS 15 and later, the system may [...] prewarm your app" ("About the app launch
  /// sequence"): a device on iOS 13 never prewarms.
  @Test func prewarmingArrivesWithIOS15() throws {
    for (version, prewarms) in [("13.0", false), ("15.0", true)] {
      let id = "xs-\(version.prefix(2))"
      _ = try engine.createDevice(id) {
        $0.model = "iPhone XS"
        $0.initialOSVersion = version
        $0.clock = .manual
      }
      _ = try engine.createApp(AppSpec(name: "mail"), on: id, now: .zero)
      let app = try engine.app("mail", on: id, now: .zero)
      #expect(app.allowedEvents.contains(.prewarm) == prewarms, "\(version)")
      let refused = refusal { try engine.apply(.prewarm, to: "mail", on: id, now: .zero) }
      #expect(
        refused?.reason
          == (prewarms ? nil : .notInOSVersion("13.0", what: "prewarming", since: 15)))
    }
  }
}
