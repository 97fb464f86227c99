import Testing

@testable import LifecycleEngine

/// A client cannot make the engine hold more than its limits: tasks per app, journal bytes,
/// the memory budget; and the engine's count of what it holds stays exact.
@Suite struct LimitsTests {
  struct Entry: BoundedLogElement {
    var retainedBytes: Int
    /// What the entry holds on the heap, if anything.
    var held: AnyObject?

    init(retainedBytes: Int, held: AnyObject? = nil) {
      self.retainedBytes = retainedBytes
      self.held = held
    }

    static var vacancy: Entry { Entry(retainedBytes: 0) }
  }

  @Test func logKeepsTheNewestWithinItsCountAndItsBytes() {
    var log = BoundedLog<Entry>(capacity: 4, byteCapacity: 100)
    for size in [10, 20, 30] { log.append(Entry(retainedBytes: size)) }
    #expect(log.map(\.retainedBytes) == [10, 20, 30])
    #expect(log.append(Entry(retainedBytes: 50)) == 40)  // 10 dropped for bytes: 60 to 100
    #expect(log.map(\.retainedBytes) == [20, 30, 50])
    #expect((log.bytes, log.dropped) == (100, 1))
    log.append(Entry(retainedBytes: 1))
    log.append(Entry(retainedBytes: 1))  // the fifth element: 20 dropped for the count
    #expect(log.map(\.retainedBytes) == [30, 50, 1, 1])
    #expect((log.bytes, log.count, log.dropped) == (82, 4, 2))
    log.append(Entry(retainedBytes: 500))  // larger than the bound: kept alone
    #expect(log.map(\.retainedBytes) == [500])
    #expect((log.bytes, log.dropped) == (500, 6))
  }

  /// The memory an element holds is given back when it is dropped, for bytes as for the
  /// count, not when its place is reused.
  @Test func aDroppedElementHoldsNothing() {
    final class Held {}
    var log = BoundedLog<Entry>(capacity: 4, byteCapacity: 100)
    weak var droppedForBytes: Held?
    weak var droppedForCount: Held?
    do {
      let second = Held()
      droppedForBytes = second
      log.append(Entry(retainedBytes: 30))
      log.append(Entry(retainedBytes: 30, held: second))
      log.append(Entry(retainedBytes: 30))
      // 150 bytes: the first two go; the new one takes the first's place, not the second's.
      log.append(Entry(retainedBytes: 60))
    }
    #expect(droppedForBytes == nil)
    #expect(log.map(\.retainedBytes) == [30, 60])
    do {
      let held = Held()
      droppedForCount = held
      log.append(Entry(retainedBytes: 1, held: held))
      for _ in 0..<4 { log.append(Entry(retainedBytes: 1)) }  // a fifth pushes it out
    }
    #expect(droppedForCount == nil)
    #expect(log.map(\.retainedBytes) == [1, 1, 1, 1])
  }

  @Test func logThatWrappedAfterByteDropsStillGrowsInOrder() {
    var log = BoundedLog<Entry>(capacity: 8, byteCapacity: 30)
    for size in [10, 10, 10, 10, 1, 1, 1, 1, 1] { log.append(Entry(retainedBytes: size)) }
    #expect(log.map(\.retainedBytes) == [10, 10, 1, 1, 1, 1, 1])
    #expect(log.bytes == 25)
    log.append(Entry(retainedBytes: 20))  // drops after the straightening count the right sizes
    #expect(log.map(\.retainedBytes) == [1, 1, 1, 1, 1, 20])
    #expect(log.bytes == 25)
  }

  /// A device with an idle timeout is removed that long after the last request that reached
  /// it (host time): devices a crashed client leaked do not pile up to `maxDevices`.
  @Test func aDeviceLeftIdlePastItsTimeoutIsRemoved() throws {
    let engine = Engine(now: .zero)
    let seconds = { (value: Double) in Instant.zero + .milliseconds(Int64(value * 1000)) }
    _ = try engine.createDevice("w1") { $0.idleTimeout = .seconds(10) }
    _ = try engine.createDevice("kept")
    let bytes = engine.retainedBytes
    #expect(engine.nextDeadline == seconds(10))
    _ = try engine.device("w1", now: seconds(5))
    #expect(engine.nextDeadline == seconds(15))
    engine.advance(to: seconds(14.999))
    #expect(engine.deviceCount == 3)
    engine.advance(to: seconds(15))
    #expect(engine.deviceCount == 2 && engine.nextDeadline == nil)
    #expect(engineError { try engine.device("w1", now: seconds(15)) } == .unknownDevice("w1"))
    #expect(engine.retainedBytes < bytes)
  }

  @Test(arguments: [("w1", 0.5), ("w1", 2_592_001), ("default", 60)])
  func anIdleTimeoutIsASecondToThirtyDaysAndNotForTheDefaultDevice(id: String, seconds: Double) {
    let engine = Engine(now: .zero)
    let timeout = Duration.milliseconds(Int64(seconds * 1000))
    let error = engineError {
      try engine.restore(
        DeviceImage(
          DeviceConfiguration(
            id: id, clock: .manual, memoryLimitMB: 100, perAppLimitMB: 100, passcode: false,
            idleTimeout: timeout)), now: .zero)
    }
    guard case .invalid(let issues)? = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(issues.map(\.field) == ["idleTimeoutSeconds"])
  }

  @Test func anAppHoldsAtMostItsBackgroundTasks() throws {
    var configuration = EngineConfiguration()
    configuration.limits.maxBackgroundTasksPerApp = 2
    let sim = Simulator(configuration: configuration)
    sim.add("a")
    try sim.post(.launch(), to: "a")
    try sim.post(.beginBackgroundTask(name: "one"), to: "a")
    try sim.post(.beginBackgroundTask(name: "two"), to: "a")
    let before = (sim.app("a"), sim.journal)
    #expect(
      engineError { try sim.post(.beginBackgroundTask(name: "three"), to: "a") }
        == .tooManyBackgroundTasks(app: "a", limit: 2))
    #expect((sim.app("a"), sim.journal) == before)
    try sim.post(.endBackgroundTask(id: 1), to: "a")
    try sim.post(.beginBackgroundTask(name: "three"), to: "a")
    #expect(sim.app("a").backgroundTasks.map(\.name) == ["two", "three"])
  }

  /// Callbacks queued behind a busy main thread stay within the app's bound: the event that
  /// could queue past it is refused and changes nothing, for app and device events alike,
  /// until the main thread is free again.
  @Test func anAppHoldsAtMostItsWaitingCallbacks() throws {
    var configuration = EngineConfiguration()
    configuration.limits.maxWaitingCallbacksPerApp = 64
    let sim = Simulator(configuration: configuration)
    sim.add("busy", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(4)))
    sim.add("idle")
    try sim.post(.launch(), to: "busy")
    try sim.post(.home, to: "busy")  // didEnterBackground runs for 4 s
    var refused: EngineError?
    for step in 0... {
      let event: AppEvent = step.isMultiple(of: 2) ? .launch() : .home
      let before = sim.app("busy").waitingCallbacks.count
      do {
        try sim.post(event, to: "busy")
      } catch {
        refused = error
        #expect(before + App.mostWaitingCallbacksPerEvent > 64)
        break
      }
      #expect(sim.app("busy").waitingCallbacks.count <= 64)
    }
    #expect(refused == .tooManyWaitingCallbacks(app: "busy", limit: 64))
    let before = (sim.app("busy"), sim.journal, sim.engine.retainedBytes)
    #expect(
      engineError { try sim.post(.memoryWarning) }
        == .tooManyWaitingCallbacks(app: "busy", limit: 64))
    #expect(
      engineError { try sim.post(.memoryWarning, to: "busy") }
        == .tooManyWaitingCallbacks(app: "busy", limit: 64))
    #expect((sim.app("busy"), sim.journal, sim.engine.retainedBytes) == before)
    try sim.post(.launch(), to: "idle")  // another app is not held back
    sim.advance(4)
    #expect(sim.app("busy").waitingCallbacks.count < 64)
    try sim.post(.memoryWarning)
  }

  /// Waiting callbacks count in the ledger as they are queued, and leave it as they are
  /// delivered or their process dies (which MetricKit then counts).
  @Test func waitingCallbacksCountInTheBudget() throws {
    let sim = Simulator()
    sim.add("busy", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(4)))
    try sim.post(.launch(), to: "busy")
    try sim.post(.home, to: "busy")
    let idle = sim.engine.retainedBytes
    let journal = sim.journal.count
    try sim.post(.launch(), to: "busy")
    let waiting = sim.app("busy").waitingCallbacks
    #expect(waiting.map(\.method) == [.willEnterForeground, .didBecomeActive])
    let queued = waiting.count * MemoryLayout<WaitingCallback>.stride
    let journaled = sim.journal.dropFirst(journal).reduce(0) { $0 + $1.retainedBytes }
    #expect(sim.engine.retainedBytes == idle + queued + journaled)
    try sim.post(.crash(), to: "busy")
    #expect(sim.app("busy").waitingCallbacks.isEmpty)
    let afterCrash = sim.journal.dropFirst(journal).reduce(0) { $0 + $1.retainedBytes }
    let app = sim.app("busy")  // its exit and its crash report
    let exits =
      app.pendingExits.countedBytes + app.metricPayloads.countedBytes
      + app.diagnosticPayloads.countedBytes
    #expect(exits > app.pendingExits.retainedBytes)
    #expect(sim.engine.retainedBytes == idle + afterCrash + exits)
  }

  @Test func journalKeepsItsByteBoundWhateverItsEntriesHold() throws {
    var configuration = EngineConfiguration()
    configuration.limits.journalCapacityBytes = 20_000
    let sim = Simulator(configuration: configuration)
    sim.add("a")
    let url = "app://" + String(repeating: "x", count: 2_000)
    for _ in 0..<50 {
      try sim.post(.launch(via: .url(url)), to: "a")
      try sim.post(.crash(), to: "a")
    }
    let page = try sim.engine.journal(of: sim.device, now: .zero)
    #expect(page.entries.reduce(0) { $0 + $1.retainedBytes } <= 20_000)
    #expect(page.dropped > 0)
    #expect(page.entries.count == sim.deviceView.journalEntries)
    #expect(page.entries.last.map { "\($0)" }?.contains("crash") == true)
  }

  @Test func pastTheBudgetGrowthIsRefusedWhileReadsAndRemovalsWork() throws {
    var configuration = EngineConfiguration()
    configuration.deviceDefaults.clock = .manual
    // The default device and 3 apps.
    configuration.limits.memoryBudgetBytes = Device.retainedBytes + 3 * 1_120
    let engine = Engine(configuration: configuration, now: .zero)
    for name in ["a", "b", "c"] {
      _ = try engine.createApp(AppSpec(name: name), on: "default", now: .zero)
    }
    #expect(engine.retainedBytes == configuration.limits.memoryBudgetBytes)
    let exhausted = EngineError.memoryBudgetExhausted(
      retainedBytes: engine.retainedBytes, budgetBytes: configuration.limits.memoryBudgetBytes)
    let before = try engine.device("default", now: .zero)
    #expect(
      engineError { try engine.createApp(AppSpec(name: "d"), on: "default", now: .zero) }
        == exhausted)
    #expect(engineError { try engine.createDevice("x") } == exhausted)
    #expect(
      engineError { try engine.apply(.launch(), to: "a", on: "default", now: .zero) } == exhausted)
    #expect(engineError { try engine.apply(.lock, on: "default", now: .zero) } == exhausted)
    #expect(
      engineError { try engine.advanceClock(of: "default", by: .seconds(1), now: .zero) }
        == exhausted)
    #expect(try engine.device("default", now: .zero) == before)
    #expect(try engine.apps(on: "default", now: .zero).count == 3)
    #expect(try engine.journal(of: "default", now: .zero).entries.isEmpty)
    try engine.removeApp("c", on: "default", now: .zero)
    _ = try engine.apply(.launch(), to: "a", on: "default", now: .zero)
    engine.reset(now: .zero)
    #expect(engine.retainedBytes == Device.retainedBytes)
  }

  /// The engine's running count equals a recount of everything it holds, after every kind
  /// of change: events with texts, task churn, kills, removals, resets.
  @Test(arguments: [7, 99] as [UInt64])
  func retainedBytesMatchARecount(seed: UInt64) throws {
    var configuration = EngineConfiguration()
    configuration.deviceDefaults.clock = .manual
    configuration.limits.journalCapacity = 300
    configuration.limits.journalCapacityBytes = 40_000
    configuration.limits.jetsamLogCapacity = 5
    let engine = Engine(configuration: configuration, now: .zero)
    var random = SplitMix64(state: seed)
    let names = (0..<6).map { "app\($0)" }
    for step in 0..<3_000 {
      let device = ["default", "other"].randomElement(using: &random)!
      let name = names.randomElement(using: &random)!
      let text = String(repeating: "t", count: Int.random(in: 0...300, using: &random))
      switch Int.random(in: 0..<100, using: &random) {
      case 0..<3: _ = try? engine.createDevice(device)
      case 3..<5: try? engine.removeDevice(device, now: .zero)
      case 5..<12:
        // Half the apps keep their main thread busy in didEnterBackground: callbacks wait.
        let busy = Bool.random(using: &random) ? Duration.seconds(3) : .zero
        _ = try? engine.createApp(
          AppSpec(
            name: name, behavior: AppBehavior(didEnterBackgroundDuration: busy),
            supportsMultipleScenes: true),
          on: device, now: .zero)
      case 12..<15: try? engine.removeApp(name, on: device, now: .zero)
      case 15..<35:
        _ = try? engine.apply(.launch(via: .url("app://" + text)), to: name, on: device, now: .zero)
      case 35..<55:
        _ = try? engine.apply(.beginBackgroundTask(name: text), to: name, on: device, now: .zero)
      case 55..<65: _ = try? engine.apply(.home, to: name, on: device, now: .zero)
      case 65..<70: _ = try? engine.apply(.purge(.vmPageshortage), to: name, on: device, now: .zero)
      case 70..<75:
        _ = try? engine.apply(
          .endBackgroundTask(id: Int.random(in: 1...20, using: &random)), to: name, on: device,
          now: .zero)
      case 75..<76: engine.reset(now: .zero)
      case 76..<80:
        let id = "s" + text.prefix(Int.random(in: 0...60, using: &random))
        _ = try? engine.apply(.openScene(id: id), to: name, on: device, now: .zero)
      case 80..<84:
        _ = try? engine.apply(
          .setRestorationData("\"\(text)\""), to: name, on: device, now: .zero)
      case 84..<86: _ = try? engine.apply(.closeScene("main"), to: name, on: device, now: .zero)
      case 86..<88:
        _ = try? engine.apply(.disconnectScene("main"), to: name, on: device, now: .zero)
      case 88..<89: _ = try? engine.apply(.terminate, to: name, on: device, now: .zero)
      default:
        _ = try? engine.advanceClock(
          of: device, by: .seconds(Int64.random(in: 1...40, using: &random)), now: .zero)
      }
      if step % 25 == 0 {
        #expect(engine.retainedBytes == recount(engine), "step \(step)")
      }
    }
  }

  /// What `engine` holds, counted from what it shows.
  private func recount(_ engine: Engine) -> Int {
    engine.devices(now: .zero).reduce(0) { total, device in
      let apps = try! engine.apps(on: device.id, now: .zero)
      let tasks = apps.flatMap(\.backgroundTasks).reduce(0) {
        $0 + BackgroundTask(id: $1.id, name: $1.name).retainedBytes
      }
      let held = apps.reduce(0) { total, app in
        let waiting = app.waitingCallbacks.reduce(0) {
          $0 + WaitingCallback(callback: $1, cause: .suspension).retainedBytes
        }
        return total + textBytes(app.restorationData) + textBytes(app.savedRestorationData)
          + app.pendingExits.countedBytes + app.metricPayloads.countedBytes
          + app.diagnosticPayloads.countedBytes + app.sessions.countedBytes + waiting
      }
      let journal = try! engine.journal(of: device.id, now: .zero).entries
      let jetsam = try! engine.jetsamLog(of: device.id, now: .zero).events
      let logs =
        journal.reduce(0) { $0 + $1.retainedBytes } + jetsam.reduce(0) { $0 + $1.retainedBytes }
      return total + Device.retainedBytes + apps.count * App.retainedBytes + tasks + held + logs
    }
  }

  /// Journal entries are copied at every step of an event (its outcome, the journal's ring):
  /// within 128 bytes those copies are inline moves, past it each is a call to `memcpy`
  /// (`Callback`'s property order keeps it there).
  @Test func aJournalEntryIsCopiedInline() {
    #expect(MemoryLayout<JournalEntry>.size <= 128)
    #expect(MemoryLayout<Callback>.size <= 128)
  }

  /// A device reset returns everything its state retained: the ledger reads as for a new one.
  @Test func resettingADeviceReturnsWhatItRetained() throws {
    let sim = Simulator(device: "ci")
    let fresh = sim.engine.retainedBytes
    for index in 0..<20 {
      sim.add("app\(index)")
      try sim.post(.launch(), to: "app\(index)")
      try sim.post(.beginBackgroundTask(name: "sync"), to: "app\(index)")
    }
    #expect(sim.engine.retainedBytes > fresh)
    _ = try sim.engine.resetDevice("ci", now: .zero)
    #expect(sim.engine.retainedBytes == fresh)
  }

  /// An app's own JSON nests at most `Validation.maxDataNesting` deep; brackets in its strings
  /// do not count.
  @Test func dataNestsAtMostThirtyTwoDeep() {
    #expect(Validation.nesting(ofJSON: "1") == 0)
    #expect(Validation.nesting(ofJSON: #"{"a":[1,{"b":[]}],"c":{}}"#) == 4)
    #expect(Validation.nesting(ofJSON: #"["[[[\"]]",{"k\\":"}"}]"#) == 2)
    let deepest = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
    #expect(Validation.isRestorationData(deepest) && Validation.isPushPayload(deepest))
    #expect(!Validation.isRestorationData("[" + deepest + "]"))
    #expect(!Validation.isPushPayload("[" + deepest + "]"))
  }
}
