import Testing

@testable import LifecycleEngine

/// What an app learns of its exits afterwards: each termination counted in MetricKit's
/// category (`MXAppExitMetric`, `MXForegroundExitData`, `MXBackgroundExitData`), delivered once
/// to the running app as `MXMetricManagerSubscriber.didReceive(_:)`, by the event or every 24
/// hours of device time.
@Suite struct MetricKitTests {
  let sim = Simulator(passcode: false)

  private func exits(of app: String) -> String { describe(sim.app(app).pendingExits) }

  /// A scenario per category, and the counts it leaves.
  @Test func eachKindOfTerminationIsCountedInItsCategory() throws {
    sim.add("quit")
    try sim.post(.launch(), to: "quit")
    try sim.post(.home, to: "quit")
    try sim.post(.terminate, to: "quit")  // the user swipes it away in the switcher
    #expect(exits(of: "quit") == "background normalApp 1")

    sim.add("front")
    try sim.post(.launch(), to: "front")
    try sim.post(.openSwitcher, to: "front")
    try sim.post(.terminate, to: "front")  // swiped away from the front of the switcher
    #expect(exits(of: "front") == "foreground normalApp 1")

    sim.add("crash")
    try sim.post(.launch(), to: "crash")
    try sim.post(.crash(), to: "crash")
    #expect(exits(of: "crash") == "foreground abnormal 1")

    sim.add("hot")
    try sim.post(.launch(), to: "hot")
    try sim.post(.thermalKill, to: "hot")
    #expect(exits(of: "hot") == "foreground abnormal 1")

    sim.add("slow", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(10)))
    try sim.post(.launch(), to: "slow")
    try sim.post(.home, to: "slow")
    sim.advance(6)  // 0x8badf00d
    #expect(exits(of: "slow") == "background appWatchdog 1")

    sim.add("lock", behavior: AppBehavior(holdsFileLockAtSuspension: true))
    try sim.post(.launch(), to: "lock")
    try sim.post(.home, to: "lock")
    sim.advance(3)  // 0xdead10cc at suspension
    #expect(exits(of: "lock") == "background suspendedWithLockedFile 1")

    sim.add("fetch", modes: [.fetch])
    try sim.post(.backgroundLaunch(.fetch), to: "fetch")
    sim.advance(31)  // 0x2182bad4: the completion handler never called
    #expect(exits(of: "fetch") == "background backgroundTaskAssertionTimeout 1")

    sim.add("huge", memoryMB: 100)
    try sim.post(.launch(), to: "huge")
    try sim.post(.setMemory(memoryMB: 3000), to: "huge")  // past perAppLimitMB (2048)
    #expect(exits(of: "huge") == "foreground memoryResourceLimit 1")

    sim.add("purged")
    try sim.post(.launch(), to: "purged")
    try sim.post(.home, to: "purged")
    try sim.post(.purge(.vmPageshortage), to: "purged")
    #expect(exits(of: "purged") == "background memoryPressure 1")

    try sim.post(.launch(), to: "crash")
    try sim.post(.shutdown)
    #expect(exits(of: "crash") == "foreground normalApp 1, foreground abnormal 1")
  }

  /// Jetsam under pressure: the background app killed for the foreground one's memory.
  @Test func jetsamUnderPressureIsAMemoryPressureExit() throws {
    let sim = Simulator(memoryLimitMB: 300, passcode: false)
    sim.add("mail", .appDelegate)
    sim.add("game", memoryMB: 250)
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    try sim.post(.launch(), to: "game")
    sim.advance(10)
    #expect(sim.jetsam.map(\.reason) == [.vmPageshortage])
    #expect(describe(sim.app("mail").pendingExits) == "background memoryPressure 1")
  }

  /// The payload reaches the app once it runs again, with the counts since the last one; a
  /// second delivery finds nothing to deliver.
  @Test func aPayloadIsDeliveredOnceToTheRunningApp() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.crash(), to: "mail")
    #expect(try sim.post(.deliverMetrics).callbacks.isEmpty)  // not running: it keeps them
    try sim.post(.launch(), to: "mail")
    let delivery = try sim.post(.deliverMetrics)
    #expect(
      trace(delivery) == [
        "MXMetricManagerSubscriber.didReceive(_:) → active/foregroundActive {exits: foreground abnormal 1}"
      ])
    #expect(sim.app("mail").pendingExits.isEmpty)
    #expect(try sim.post(.deliverMetrics).callbacks.isEmpty)
  }

  /// iOS delivers payloads daily: the device's clock does at each 24 hours of its time, while
  /// an app holds counts.
  @Test func theClockDeliversEveryTwentyFourHours() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.crash(), to: "mail")
    try sim.post(.launch(), to: "mail")
    #expect(sim.deviceView.nextDeadline == .seconds(86_400))
    let day = sim.advance(86_400)
    #expect(trace(day).map { $0.hasPrefix("MXMetricManagerSubscriber.didReceive(_:)") } == [true])
    #expect(sim.app("mail").pendingExits.isEmpty)
    #expect(sim.deviceView.nextDeadline == nil)
  }

  /// An app that is not running takes no payload, so the clock has none to deliver for it: its
  /// exits wait for its next process, whose first day delivers them. A long advance over many
  /// such apps fires no daily deadline at all.
  @Test func exitsOfAnAppNotRunningWaitForItsNextProcess() throws {
    for name in ["mail", "maps", "news"] {
      sim.add(name)
      try sim.post(.launch(), to: name)
      try sim.post(.crash(), to: name)
    }
    #expect(sim.deviceView.nextDeadline == nil)
    #expect(sim.advance(3_000 * 86_400).callbacks.isEmpty)
    #expect(sim.now == 3_000 * 86_400)
    try sim.post(.launch(), to: "maps")
    #expect(sim.deviceView.nextDeadline == .seconds(3_001 * 86_400))
    let day = sim.advance(86_400)
    #expect(day.callbacks.map { "\($0.app) \($0.method)" } == ["maps didReceiveMetricPayloads"])
    #expect(sim.app("mail").pendingExits == sim.app("news").pendingExits)
    #expect(!sim.app("mail").pendingExits.isEmpty && sim.app("maps").pendingExits.isEmpty)
    #expect(sim.deviceView.nextDeadline == nil)
  }
}
