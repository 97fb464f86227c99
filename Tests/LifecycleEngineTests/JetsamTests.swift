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
    #expect(sim.deviceView.usedMB == 0)
    try sim.post(.launch(), to: "mail")
    #expect(sim.deviceView.usedMB == 300)
    try sim.post(.home, to: "mail")
    #expect(sim.deviceView.usedMB == 50)
    sim.advance(2)
    #expect(sim.deviceView.usedMB == 50)
    try sim.post(.crash(), to: "mail")
    #expect(sim.deviceView.usedMB == 0)
  }

  /// Two suspended apps (300 and 400 MB) and a 200 MB one working in the background, then a
  /// game of `gameMB` launched at 4 s: what it does not fit is jetsam's to reclaim.
  @discardableResult
  func launchGame(of gameMB: Int) throws -> EventOutcome {
    sim.add("small", memoryMB: 300)
    sim.add("large", memoryMB: 400)
    sim.add("worker", memoryMB: 200)
    sim.add("game", memoryMB: gameMB)
    try suspend("small")
    try suspend("large")
    try sim.post(.launch(), to: "worker")
    try sim.post(.beginBackgroundTask(), to: "worker")
    try sim.post(.home, to: "worker")
    return try sim.post(.launch(), to: "game")
  }

  @Test func suspendedAppsGoFirstLargestFirst() throws {
    let outcome = try launchGame(of: 300)
    #expect(outcome.transitions.last.map { "\($0.app) \($0.cause.name)" } == "large jetsam")
    #expect(outcome.callbacks.allSatisfy { $0.app == "game" })
    #expect(
      sim.jetsam == [
        JetsamRecord(
          event: 1, time: .seconds(4), app: "large", reason: .vmPageshortage, footprintMB: 400,
          state: .suspended)
      ])
    #expect(sim.deviceView.usedMB == 800)
    #expect(!sim.deviceView.pressure)
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
    #expect(sim.deviceView.warningGraceEndsAt == .seconds(7))
    #expect(sim.advance(4.999).transitions.isEmpty)
    #expect(
      transitions(sim.advance(0.001)) == ["worker: background → notRunning (jetsam)"])
    #expect(sim.jetsam.map(\.app) == ["cache", "worker"])
    #expect(sim.jetsam.map(\.state) == [.suspended, .background])
    #expect(sim.jetsam.map(\.time) == [.seconds(2), .seconds(7)])
    #expect(sim.deviceView.usedMB == 590)
    #expect(sim.deviceView.warningGraceEndsAt == nil)
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
    #expect(!sim.deviceView.pressure)
    #expect(sim.deviceView.warningGraceEndsAt == nil)
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

  /// Each kill changes the order the next victim is read from.
  @Test func backgroundAppsAreKilledLargestFirstUntilMemoryFits() throws {
    var configuration = EngineConfiguration()
    configuration.scheduler.memoryWarningGrace = .zero
    let sim = Simulator(configuration: configuration, memoryLimitMB: 1000)
    for (name, memoryMB) in [("medium", 240), ("large", 250), ("small", 200)] {
      sim.add(name, memoryMB: memoryMB)
      try sim.post(.launch(), to: name)
      try sim.post(.beginBackgroundTask(), to: name)
    }
    sim.add("game", memoryMB: 300)
    try sim.post(.launch(), to: "game")
    let outcome = try sim.post(.setMemory(memoryMB: 590), to: "game")
    #expect(
      transitions(outcome) == [
        "large: background → notRunning (jetsam)", "medium: background → notRunning (jetsam)",
      ])
    #expect(sim.state("small") == .background)
    #expect(sim.deviceView.usedMB == 790)
  }

  @Test func foregroundAppOverTheDeviceLimitIsWarnedOncePerEpisodeButNotKilled() throws {
    let sim = Simulator(memoryLimitMB: 500, perAppLimitMB: 2048)
    sim.add("game", memoryMB: 400)
    try sim.post(.launch(), to: "game")
    #expect(trace(try sim.post(.setMemory(memoryMB: 800), to: "game")).count == 1)
    #expect(sim.deviceView.pressure)
    #expect(try sim.post(.setMemory(memoryMB: 850), to: "game").callbacks.isEmpty)
    try sim.post(.setMemory(memoryMB: 400), to: "game")
    #expect(!sim.deviceView.pressure)
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
          event: 1, time: .zero, app: "game", reason: .perProcessLimit, footprintMB: 601,
          state: .active)
      ])
    #expect(sim.deviceView.foregroundApp == nil)
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
      try sim.post(.purge(.jettisoned), to: name)
    }
    let page = try sim.engine.jetsamLog(of: "d", now: .zero)
    #expect(page.kills.map(\.app) == ["b", "c"])
    #expect(page.kills.map(\.reason) == [.jettisoned, .jettisoned])
    #expect(page.kills.map(\.event) == [2, 3])
    #expect(page.firstNumber == 2)
    #expect(page.droppedKills == 1)
    #expect(sim.deviceView.jetsamKills == 3)
  }

  /// "Identifying high-memory use with jetsam event reports": one event per instant jetsam
  /// kills, listing the killed processes first, in the order they died, then every other
  /// process on the device as jetsam left it.
  @Test func theKillsOfOneInstantMakeOneEventThatListsEveryProcess() throws {
    try launchGame(of: 600)
    sim.advance(1)
    try sim.post(.purge(.highwater), to: "worker")
    let page = try sim.engine.jetsamLog(of: "d", now: .zero)
    let os = try #require(DeviceProfiles.builtIn.release("26.1"))
    #expect(
      page.events == [
        JetsamEvent(
          time: .seconds(4), product: "iPhone16,1", os: os,
          processes: [
            JetsamProcess(
              app: "large", footprintMB: 400, state: .suspended, reason: .vmPageshortage),
            JetsamProcess(
              app: "small", footprintMB: 300, state: .suspended, reason: .vmPageshortage),
            JetsamProcess(app: "game", footprintMB: 600, state: .active, reason: nil),
            JetsamProcess(app: "worker", footprintMB: 200, state: .background, reason: nil),
          ],
          killCount: 2),
        JetsamEvent(
          time: .seconds(5), product: "iPhone16,1", os: os,
          processes: [
            JetsamProcess(app: "worker", footprintMB: 200, state: .background, reason: .highwater),
            JetsamProcess(app: "game", footprintMB: 600, state: .active, reason: nil),
          ],
          killCount: 1),
      ])
    #expect(page.kills.map { "\($0.event) \($0.app)" } == ["1 large", "1 small", "2 worker"])
    #expect(try sim.engine.jetsamEvent(2, of: "d", now: .zero) == page.events[1])
  }

  /// The kills of one instant are one event however many deadlines fall at it: two apps
  /// suspended at the same instant, each killed when its suspension leaves the device over its
  /// budget, make one report, which lists neither among the survivors.
  @Test func killsAtDeadlinesOfOneInstantAreOneEvent() throws {
    let sim = Simulator(memoryLimitMB: 400)
    sim.add("news-feed")
    sim.add("zeta.app")
    try sim.post(.launch(), to: "news-feed")
    try sim.post(.launch(), to: "zeta.app")
    try sim.post(.home, to: "zeta.app")
    try sim.post(.setMemory(memoryMB: 2047), to: "zeta.app")
    sim.advance(6)
    let page = try sim.engine.jetsamLog(of: "d", now: .zero)
    #expect(
      page.kills.map { "\($0.event) \($0.time.seconds) \($0.app)" } == [
        "1 2.0 news-feed", "1 2.0 zeta.app",
      ])
    #expect(page.events.map(\.killCount) == [2])
    #expect(page.events.first?.processes.filter { $0.reason == nil }.map(\.app) == [])
  }

  /// Jetsam kills background apps for `vnode-limit` and `fc-thrashing` so as to spare the app
  /// in front, and `highwater` is a daemon's reason: a `purge` of the app in front for one of
  /// them is refused and changes nothing; of a background app it is a kill as any other.
  @Test(arguments: [JetsamReason.vnodeLimit, .fcThrashing, .highwater])
  func reasonsThatSpareTheAppInFrontAreRefusedForIt(reason: JetsamReason) throws {
    sim.add("worker")
    try sim.post(.launch(), to: "worker")
    let before = (sim.app("worker"), sim.deviceView)
    let refused = refusal { try sim.post(.purge(reason), to: "worker") }
    #expect(refused?.reason == .sparesForegroundApp(reason))
    #expect(
      refused?.reason.detail
        == "jetsam does not kill the app in front for \(reason.rawValue): it kills background "
        + "apps, or (highwater) a system daemon")
    #expect((sim.app("worker"), sim.deviceView) == before)
    try sim.post(.home, to: "worker")
    try sim.post(.purge(reason), to: "worker")
    #expect(sim.jetsam.map { "\($0.app) \($0.reason)" } == ["worker \(reason)"])
  }

  @Test func anEventTheLogDoesNotKeepIsUnknown() throws {
    var configuration = EngineConfiguration()
    configuration.limits.jetsamLogCapacity = 2
    let sim = Simulator(configuration: configuration)
    sim.add("a")
    #expect(throws: EngineError.unknownJetsamEvent(device: "d", number: 1, kept: 1..<1)) {
      try sim.engine.jetsamEvent(1, of: "d", now: .zero)
    }
    for _ in 0..<3 {
      try sim.post(.launch(), to: "a")
      try sim.post(.purge(.jettisoned), to: "a")
    }
    for number in [1, 4] {
      #expect(throws: EngineError.unknownJetsamEvent(device: "d", number: number, kept: 2..<4)) {
        try sim.engine.jetsamEvent(number, of: "d", now: .zero)
      }
    }
    #expect(try sim.engine.jetsamEvent(3, of: "d", now: .zero).kills.map(\.app) == ["a"])
  }

  /// Each report lists every process on the device: the log keeps as many as fit in its bytes,
  /// and counts the kills of those it dropped.
  @Test func theLogIsBoundedInBytes() throws {
    var configuration = EngineConfiguration()
    let eventOfTenProcesses =
      JetsamEvent(
        time: .zero, product: "iPhone16,1",
        os: OSRelease(version: "26.1", build: "23B85", source: ""),
        processes: Array(
          repeating: JetsamProcess(app: "a", footprintMB: 1, state: .suspended), count: 10),
        killCount: 1
      ).retainedBytes
    configuration.limits.jetsamLogCapacityBytes = 2 * eventOfTenProcesses
    let sim = Simulator(configuration: configuration)
    for index in 0..<10 {
      sim.add("app\(index)")
      try sim.post(.launch(), to: "app\(index)")
    }
    for index in 0..<3 {  // events of 10, 9 and 8 processes: the first no longer fits
      try sim.post(.purge(.vnodeLimit), to: "app\(index)")
    }
    let page = try sim.engine.jetsamLog(of: "d", now: .zero)
    #expect(page.events.map(\.processes.count) == [9, 8])
    #expect(page.firstNumber == 2)
    #expect(page.droppedKills == 1)
    #expect(sim.deviceView.jetsamKills == 3)
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
