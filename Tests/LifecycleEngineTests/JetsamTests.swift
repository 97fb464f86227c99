import Testing

@testable import LifecycleEngine

/// Memory accounting, jetsam order, per-process limit, warnings, the jetsam log.
@Suite struct JetsamTests {
  /// A device with a 1,000 MB budget and a 600 MB per-app limit.
  let sim = Simulator(memoryLimitMB: 1000, perAppLimitMB: 600)

  /// Launches `name`, sends it home and lets it suspend; each call is one second later.
  func suspend(_ name: String) throws {
    try sim.post(.launch(), to: name)
    try sim.post(.home, to: name)
    sim.advance(2)
    #expect(sim.state(name) == .suspended)
  }

  @Test func usedMemoryFollowsEachAppsFootprintForItsState() throws {
    sim.add("mail", memoryMB: 300, backgroundMemoryMB: 50)
    #expect(sim.snapshot.usedMB == 0)
    try sim.post(.launch(), to: "mail")
    #expect(sim.snapshot.usedMB == 300)
    try sim.post(.home, to: "mail")
    #expect(sim.snapshot.usedMB == 50)
    sim.advance(2)
    #expect(sim.snapshot.usedMB == 50)
    try sim.post(.crash(), to: "mail")
    #expect(sim.snapshot.usedMB == 0)
  }

  @Test func suspendedAppsGoFirstLargestFirst() throws {
    sim.add("small", memoryMB: 300)
    sim.add("large", memoryMB: 400)
    sim.add("worker", memoryMB: 200)
    sim.add("game", memoryMB: 300)
    try suspend("small")
    try suspend("large")
    try sim.post(.launch(), to: "worker")
    try sim.post(.beginBackgroundTask(), to: "worker")
    try sim.post(.home, to: "worker")
    let outcome = try sim.post(.launch(), to: "game")
    #expect(outcome.transitions.last.map { "\($0.app) \($0.cause.name)" } == "large jetsam")
    #expect(outcome.callbacks.allSatisfy { $0.app == "game" })
    #expect(
      sim.jetsam == [
        JetsamRecord(
          time: .seconds(4), app: "large", reason: .vmPageshortage, footprintMB: 400,
          state: .suspended)
      ])
    #expect(sim.snapshot.usedMB == 800)
    #expect(!sim.snapshot.pressure)
  }

  @Test func equalFootprintsGoLeastRecentlyUsedFirst() throws {
    for name in ["b", "a", "c"] { sim.add(name, memoryMB: 300) }
    try suspend("b")
    try suspend("a")
    try sim.post(.launch(), to: "c")
    try sim.post(.setMemory(memoryMB: 500), to: "c")
    #expect(sim.jetsam.map(\.app) == ["b"])
    #expect(sim.state("a") == .suspended)
  }

  @Test func thenEveryRunningAppIsWarnedThenBackgroundAppsAreKilled() throws {
    sim.add("cache", memoryMB: 200)
    sim.add("worker", memoryMB: 450)
    sim.add("game", memoryMB: 300)
    try suspend("cache")
    try sim.post(.launch(), to: "worker")
    try sim.post(.beginBackgroundTask(), to: "worker")
    try sim.post(.launch(), to: "game")
    let outcome = try sim.post(.setMemory(memoryMB: 590), to: "game")
    #expect(
      trace(outcome) == [
        "applicationDidReceiveMemoryWarning(_:) → active/foregroundActive [UIApplication.didReceiveMemoryWarningNotification]",
        "applicationDidReceiveMemoryWarning(_:) → background/background [UIApplication.didReceiveMemoryWarningNotification]",
      ])
    #expect(outcome.callbacks.map(\.app) == ["game", "worker"])
    #expect(transitions(outcome) == ["cache: suspended → notRunning (jetsam)"])
    #expect(sim.snapshot.warningGraceEndsAt == .seconds(7))
    #expect(sim.advance(4.999).transitions.isEmpty)
    #expect(
      transitions(sim.advance(0.001)) == ["worker: background → notRunning (jetsam)"])
    #expect(sim.jetsam.map(\.app) == ["cache", "worker"])
    #expect(sim.jetsam.map(\.state) == [.suspended, .background])
    #expect(sim.jetsam.map(\.time) == [.seconds(2), .seconds(7)])
    #expect(sim.snapshot.usedMB == 590)
    #expect(sim.snapshot.warningGraceEndsAt == nil)
  }

  /// "Responding to memory warnings": an app that frees memory when warned relieves the
  /// pressure, and survives.
  @Test func aBackgroundAppThatFreesMemoryWithinTheGraceSurvives() throws {
    sim.add("worker", memoryMB: 450)
    sim.add("game", memoryMB: 300)
    try sim.post(.launch(), to: "worker")
    try sim.post(.beginBackgroundTask(), to: "worker")
    try sim.post(.launch(), to: "game")
    try sim.post(.setMemory(memoryMB: 590), to: "game")
    sim.advance(2)
    try sim.post(.setMemory(memoryMB: 100), to: "worker")
    #expect(!sim.snapshot.pressure)
    #expect(sim.snapshot.warningGraceEndsAt == nil)
    #expect(sim.advance(10).transitions.isEmpty)
    #expect(sim.state("worker") == .background)
  }

  @Test func withNoGraceBackgroundAppsAreKilledWithTheWarning() throws {
    var configuration = EngineConfiguration()
    configuration.scheduler.memoryWarningGrace = .zero
    let sim = Simulator(configuration: configuration, memoryLimitMB: 1000)
    sim.add("worker", memoryMB: 450)
    sim.add("game", memoryMB: 300)
    try sim.post(.launch(), to: "worker")
    try sim.post(.beginBackgroundTask(), to: "worker")
    try sim.post(.launch(), to: "game")
    let outcome = try sim.post(.setMemory(memoryMB: 590), to: "game")
    #expect(
      outcome.callbacks.map(\.method) == [.didReceiveMemoryWarning, .didReceiveMemoryWarning])
    #expect(transitions(outcome) == ["worker: background → notRunning (jetsam)"])
  }

  @Test func foregroundAppOverTheDeviceLimitIsWarnedOncePerEpisodeButNotKilled() throws {
    let sim = Simulator(memoryLimitMB: 500, perAppLimitMB: 2048)
    sim.add("game", memoryMB: 400)
    try sim.post(.launch(), to: "game")
    #expect(trace(try sim.post(.setMemory(memoryMB: 800), to: "game")).count == 1)
    #expect(sim.snapshot.pressure)
    #expect(try sim.post(.setMemory(memoryMB: 850), to: "game").callbacks.isEmpty)
    try sim.post(.setMemory(memoryMB: 400), to: "game")
    #expect(!sim.snapshot.pressure)
    #expect(trace(try sim.post(.setMemory(memoryMB: 900), to: "game")).count == 1)
    #expect(sim.state("game") == .active)
    #expect(sim.jetsam.isEmpty)
  }

  @Test func foregroundAppOverThePerProcessLimitIsKilled() throws {
    sim.add("game", memoryMB: 500)
    try sim.post(.launch(), to: "game")
    let outcome = try sim.post(.setMemory(memoryMB: 601), to: "game")
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["game: active → notRunning (jetsam)"])
    #expect(
      sim.jetsam == [
        JetsamRecord(
          time: .zero, app: "game", reason: .perProcessLimit, footprintMB: 601, state: .active)
      ])
    #expect(sim.snapshot.foregroundApp == nil)
  }

  @Test func launchingAnAppLargerThanThePerProcessLimitKillsItAfterLaunching() throws {
    sim.add("huge", .appDelegate, memoryMB: 700)
    let outcome = try sim.post(.launch(), to: "huge")
    #expect(outcome.callbacks.count == 3)
    #expect(outcome.transitions.last?.cause == .jetsam(.perProcessLimit))
    #expect(sim.state("huge") == .notRunning)
  }

  @Test func jetsamKeepsRestorationStateAndDoesNotBlockBackgroundLaunches() throws {
    sim.add("mail", modes: [.fetch])
    try suspend("mail")
    try sim.post(.purge(), to: "mail")
    #expect(sim.app("mail").restorationStateSaved)
    #expect(sim.app("mail").allowedEvents.contains(.backgroundLaunch))
  }

  @Test func forceQuitDropsRestorationStateAndBlocksBackgroundLaunchesUntilTheUserLaunches()
    throws
  {
    sim.add("mail", modes: [.fetch])
    try suspend("mail")
    try sim.post(.terminate, to: "mail")
    #expect(!sim.app("mail").restorationStateSaved)
    #expect(
      refusal { try sim.post(.backgroundLaunch(.fetch), to: "mail") }?.reason
        == .backgroundLaunchBlocked)
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(!sim.app("mail").backgroundLaunchBlocked)
    #expect(sim.app("mail").allowedEvents.contains(.backgroundLaunch))
  }

  @Test func jetsamLogIsBoundedAndCountsWhatItDropped() throws {
    var configuration = EngineConfiguration()
    configuration.limits.jetsamLogCapacity = 2
    let sim = Simulator(configuration: configuration)
    for name in ["a", "b", "c"] {
      sim.add(name)
      try sim.post(.launch(), to: name)
      try sim.post(.purge(.highwater), to: name)
    }
    let page = try sim.engine.jetsamLog(of: "d", now: .zero)
    #expect(page.records.map(\.app) == ["b", "c"])
    #expect(page.records.map(\.reason) == [.highwater, .highwater])
    #expect(page.dropped == 1)
    #expect(sim.snapshot.jetsamKills == 3)
  }

  /// A pressure episode is over when memory is back within the budget, however it got there:
  /// an episode ended by a background kill leaves nothing behind, and the next over-budget
  /// launch is warned (the foreground app first) and given its grace like the first.
  @Test func anEpisodeEndedByABackgroundKillLeavesNoPressureBehind() throws {
    let sim = Simulator(memoryLimitMB: 1000, perAppLimitMB: 2048)
    sim.add("game", memoryMB: 1100)
    sim.add("music", memoryMB: 700)
    sim.add("fetcher", memoryMB: 400, modes: [.fetch])
    try sim.post(.launch(), to: "game")  // over the budget alone: warned, then nothing to kill
    sim.advance(5)
    let music = try sim.post(.launch(), to: "music")  // the game, now in the background, dies
    #expect(transitions(music).last == "game: background → notRunning (jetsam)")
    let fetch = try sim.post(.backgroundLaunch(.fetch), to: "fetcher")
    #expect(
      fetch.callbacks.filter { $0.method == .didReceiveMemoryWarning }.map(\.app) == [
        "music", "fetcher",
      ])
    #expect(fetch.transitions.allSatisfy { $0.to != .notRunning })
    #expect(transitions(sim.advance(5)) == ["fetcher: background → notRunning (jetsam)"])
  }
}
