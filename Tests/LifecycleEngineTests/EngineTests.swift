import Testing

@testable import LifecycleEngine

/// Devices, apps, realtime clocks, the journal, and the device-wide decisions (LifecycleEngine.docc).
@Suite struct EngineTests {
  @Test func defaultDeviceAlwaysExistsAndSurvivesReset() throws {
    let engine = Engine(now: .zero)
    #expect(engine.devices(now: .zero).map(\.id) == ["default"])
    #expect(
      engineError { try engine.removeDevice("default", now: .zero) } == .defaultDeviceIsPermanent)
    _ = try engine.createDevice("ci-1")
    _ = try engine.createApp(AppSpec(name: "mail"), on: "default", now: .zero)
    engine.reset(now: .milliseconds(5000))
    #expect(engine.devices(now: .zero).map(\.id) == ["default"])
    #expect(try engine.apps(on: "default", now: .zero).isEmpty)
  }

  @Test func anAppEventsOutcomeNamesItsAppsStateBeforeAndAfter() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createApp(AppSpec(name: "mail"), on: "default", now: .zero)
    let launch = try engine.apply(.launch(), to: "mail", on: "default", now: .zero)
    #expect(launch.subject == Effect(app: "mail", previousState: .notRunning, state: .active))
    let home = try engine.apply(.home, to: "mail", on: "default", now: .zero)
    #expect(home.subject == Effect(app: "mail", previousState: .active, state: .background))
    #expect(try engine.apply(.lock, on: "default", now: .zero).subject == nil)
  }

  /// An engine is never without its default device: defaults that make no valid one stop the
  /// caller at once, with a message naming each member out of its range.
  @Test func defaultsThatMakeNoValidDeviceAreTheCallersMistake() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var configuration = EngineConfiguration()
      configuration.deviceDefaults.perAppLimitMB = 0
      _ = Engine(configuration: configuration, now: .zero)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      message.contains(
        "the device defaults make no valid device: perAppLimitMB must be an integer from 1 to "
          + "1048576"))
  }

  /// A model the profiles do not know is named the same way, not left to a trap further on.
  @Test func defaultsOfAnUnknownModelAreTheCallersMistake() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var configuration = EngineConfiguration()
      configuration.deviceDefaults.model = "iPhone 6s"
      _ = Engine(configuration: configuration, now: .zero)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      message.contains(
        "the device defaults make no valid device: osVersion must be a version iPhone 6s runs: "
          + "13.0, 15.0"))
  }

  @Test func newDevicesTakeTheConfiguredDefaults() throws {
    let engine = Engine(now: .zero)
    let device = try engine.createDevice("phone")
    #expect(device.clock == .realtime)
    #expect(device.configuration.model == "iPhone 15 Pro" && device.osVersion == "26.1")
    // The model's RAM and its measured limits, none overridden.
    #expect(device.memoryLimitMB == nil && device.perAppLimitMB == nil)
    #expect(device.memory.deviceMB == 8192 && device.memory.appMB == 3072)
    #expect(device.memory.backgroundAppMB == nil && device.memory.increasedAppMB == 6144)
    #expect(device.passcode)
    #expect(!device.locked)
    let app = try engine.createApp(AppSpec(name: "mail"), on: "phone", now: .zero)
    #expect(app.spec.lifecycle == .scene)
    #expect(app.memoryMB == 100)
    #expect(app.backgroundMemoryMB == 100)
    #expect(app.sceneState == .unattached)
  }

  @Test func invalidDevicesAndAppsAreRefusedFieldByField() throws {
    let engine = Engine(now: .zero)
    #expect(
      engineError {
        try engine.createDevice("-bad") { $0.memoryLimitMB = 0 }
      }
        == .invalid([
          ValidationIssue(field: "id", message: "must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"),
          ValidationIssue(
            field: "memoryLimitMB", message: "must be an integer from 1 to 1048576"),
        ]))
    let tooLong = String(repeating: "a", count: 65)
    #expect(
      engineError {
        try engine.createApp(
          AppSpec(
            name: tooLong, memoryMB: -1,
            behavior: AppBehavior(didEnterBackgroundDuration: .seconds(-1))),
          on: "default", now: .zero)
      }
        == .invalid([
          ValidationIssue(field: "name", message: "must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"),
          ValidationIssue(field: "memoryMB", message: "must be an integer from 0 to 1048576"),
          ValidationIssue(
            field: "behavior.didEnterBackgroundSeconds",
            message: "must be a number from 0.0 to 86400.0"),
        ]))
    #expect(
      engineError { try engine.createApp(AppSpec(name: "a"), on: "nowhere", now: .zero) }
        == .unknownDevice("nowhere"))
    #expect(
      engineError { try engine.app("ghost", on: "default", now: .zero) }
        == .unknownApp(device: "default", app: "ghost"))
  }

  @Test(arguments: ["a", "A.b_c-9", String(repeating: "z", count: 64)])
  func validNames(name: String) {
    #expect(Validation.isValidName(name))
  }

  @Test(arguments: ["", ".a", "_a", "a b", "a/b", "é", String(repeating: "z", count: 65)])
  func invalidNames(name: String) {
    #expect(!Validation.isValidName(name))
  }

  @Test func duplicatesAndLimitsAreRefused() throws {
    var configuration = EngineConfiguration()
    configuration.limits.maxDevices = 2
    configuration.limits.maxAppsPerDevice = 1
    let engine = Engine(configuration: configuration, now: .zero)
    _ = try engine.createDevice("one")
    #expect(
      engineError { try engine.createDevice("one") }
        == .deviceExists("one"))
    #expect(
      engineError { try engine.createDevice("two") }
        == .tooManyDevices(limit: 2))
    _ = try engine.createApp(AppSpec(name: "a"), on: "one", now: .zero)
    #expect(
      engineError { try engine.createApp(AppSpec(name: "a"), on: "one", now: .zero) }
        == .appExists(device: "one", app: "a"))
    #expect(
      engineError { try engine.createApp(AppSpec(name: "b"), on: "one", now: .zero) }
        == .tooManyApps(device: "one", limit: 1))
  }

  @Test func realtimeDeviceFiresItsDeadlinesOnTheHostClock() throws {
    let engine = Engine(now: .milliseconds(1000))
    _ = try engine.createApp(AppSpec(name: "mail"), on: "default", now: .milliseconds(1000))
    _ = try engine.apply(.launch(), to: "mail", on: "default", now: .milliseconds(1500))
    _ = try engine.apply(.home, to: "mail", on: "default", now: .milliseconds(1500))
    #expect(engine.nextDeadline == .milliseconds(3500))
    #expect(engine.advance(to: .milliseconds(3499)).isEmpty)
    let activity = engine.advance(to: .milliseconds(3500))
    #expect(activity.map(\.device) == ["default"])
    #expect(
      activity.flatMap { transitions($0.outcome) } == ["mail: background → suspended (suspension)"])
    #expect(activity.first?.outcome.transitions.first?.time == .seconds(2.5))
    #expect(engine.nextDeadline == nil)
    #expect(try engine.device("default", now: .milliseconds(4000)).now == .seconds(3))
  }

  /// The device an atomic scenario leaves is the one the host's timer fires; a dry run
  /// leaves the device's own deadline, however many the copy had.
  @Test func aRealtimeDeviceKeepsItsScheduleThroughAtomicScenariosAndDryRuns() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createApp(AppSpec(name: "mail"), on: "default", now: .zero)
    _ = try engine.createApp(AppSpec(name: "notes"), on: "default", now: .zero)
    try engine.apply(
      [.launch(), .home], to: "mail", on: "default", mode: .atomic, now: .milliseconds(500)
    ) { _, _ in }
    #expect(engine.nextDeadline == .milliseconds(2500))
    try engine.apply(
      [.launch(), .home], to: "notes", on: "default", mode: .dryRun, now: .milliseconds(1000)
    ) { _, _ in }
    #expect(engine.nextDeadline == .milliseconds(2500))
    let activity = engine.advance(to: .milliseconds(2500))
    #expect(
      activity.flatMap { transitions($0.outcome) } == ["mail: background → suspended (suspension)"])
    #expect(try engine.app("notes", on: "default", now: .milliseconds(2500)).state == .notRunning)
  }

  /// A scenario applied over several calls is held: its device's deadlines wait and its idle
  /// timeout does not remove it until the scenario ends, and then both run again; each event
  /// after the first brings the device up to its `now`.
  @Test func aScenarioHoldsItsDeviceUntilItEnds() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createDevice("w1") { $0.idleTimeout = .seconds(10) }
    _ = try engine.createApp(AppSpec(name: "mail"), on: "w1", now: .zero)
    _ = try engine.apply(.launch(), to: "mail", on: "w1", now: .milliseconds(500))
    _ = try engine.apply(.home, to: "mail", on: "w1", now: .milliseconds(500))
    #expect(engine.nextDeadline == .milliseconds(2500))
    var run = try engine.beginScenario(on: "w1", mode: .inOrder, now: .seconds(1))
    engine.hold(run)
    #expect(engine.nextDeadline == .seconds(11))  // the idle timeout's, not the suspension's
    #expect(engine.advance(to: .seconds(60)).isEmpty && engine.deviceCount == 2)
    var states: [DeviceState] = []
    for event in [DeviceEvent.lock, .unlock] {
      try engine.apply(event, in: &run, now: .seconds(60)) { _, state in states.append(state.after)
      }
    }
    #expect(states == [.locked, .unlocked] && run.appliedCount == 2)
    #expect(try engine.app("mail", on: "w1", now: .seconds(60)).state == .suspended)
    engine.end(run, now: .seconds(60))
    #expect(engine.nextDeadline == .seconds(70))
    engine.advance(to: .seconds(70))
    #expect(engine.deviceCount == 1)
  }

  /// A device held for a scenario whose copy is made apart: lists show it as it was held (its
  /// clock waits too), the copy begins the scenario, and an atomic one's copy then takes the
  /// device's place; a copy of a device the engine no longer holds begins nothing.
  @Test func aCopyMadeApartBeginsTheScenario() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createApp(AppSpec(name: "mail"), on: "default", now: .zero)
    let held = try engine.holdForScenario(on: "default", now: .zero)
    #expect(engine.devices(now: .seconds(60)).first?.now == .zero)
    var run = try engine.beginScenario(
      on: held.copy(), of: held, app: "mail", mode: .atomic, now: .seconds(60))
    try engine.apply(AppEvent.launch(), in: &run, now: .seconds(60)) { _ in }
    engine.end(run, now: .seconds(60))
    #expect(try engine.app("mail", on: "default", now: .seconds(60)).state == .active)
    let gone = try engine.holdForScenario(on: "default", now: .seconds(60))
    engine.reset(now: .seconds(60))
    #expect(
      engineError {
        try engine.beginScenario(on: gone.copy(), of: gone, mode: .dryRun, now: .seconds(60))
      } == .unknownDevice("default"))
  }

  /// A device removed while a scenario holds it (the engine reset) refuses the scenario's next
  /// event; an atomic scenario's copy then counts for nothing.
  @Test func aScenarioWhoseDeviceIsGoneIsRefused() throws {
    let engine = Engine(now: .zero)
    let idle = engine.retainedBytes
    var run = try engine.beginScenario(on: "default", mode: .atomic, now: .zero)
    try engine.apply(DeviceEvent.lock, in: &run, now: .zero) { _, _ in }
    engine.reset(now: .zero)
    #expect(
      engineError { try engine.apply(DeviceEvent.unlock, in: &run, now: .zero) { _, _ in } }
        == .unknownDevice("default"))
    engine.abandon(run, now: .zero)
    #expect(engine.retainedBytes == idle)
    #expect(try engine.device("default", now: .zero).status.locked == false)
  }

  /// Every device the engine lets go of (replaced by a restore, removed, a dry run's copy,
  /// forgotten by a reset) goes whole to the host, which frees it by dropping it; the engine
  /// counts it no more. With no host listening, it is freed where the engine lets go of it.
  @Test func aDeviceLetGoOfIsTheHostsToDrop() throws {
    let engine = Engine(now: .zero)
    let idle = engine.retainedBytes
    var retired: [RetiredDevice] = []
    engine.onRetire = { retired.append($0) }
    _ = try engine.createDevice("w1")
    _ = try engine.createApp(AppSpec(name: "mail"), on: "w1", now: .zero)
    let bytes = engine.retainedBytes(of: "w1")
    weak var replaced = engine.findDevice("w1")
    _ = try engine.restore(engine.image(of: "w1", now: .zero), now: .zero)
    #expect(retired.map(\.retainedBytes) == [bytes])
    #expect(engine.retainedBytes == idle + bytes)
    #expect(replaced != nil)
    retired[0].drop()
    #expect(replaced == nil)
    weak var removed = engine.findDevice("w1")
    try engine.removeDevice("w1", now: .zero)
    var run = try engine.beginScenario(on: "default", mode: .dryRun, now: .zero)
    try engine.apply(DeviceEvent.lock, in: &run, now: .zero) { _, _ in }
    engine.end(run, now: .zero)
    engine.reset(now: .zero)
    #expect(retired.count == 4 && engine.retainedBytes == idle)
    #expect(retired[1].retainedBytes == bytes && removed != nil)
    retired[1].drop()
    #expect(removed == nil)
    engine.onRetire = nil
    weak var forgotten = engine.findDevice("default")
    engine.reset(now: .zero)
    #expect(forgotten == nil && retired.count == 4)
  }

  /// A refused image leaves no trace: no device, no slot, nothing counted in the budget.
  @Test func aRefusedImageChangesNothing() throws {
    let sim = Simulator()
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    var image = try sim.engine.image(of: "d", now: .zero)
    image.status.foregroundApp = nil
    let before = (sim.engine.retainedBytes, sim.engine.deviceCount, sim.deviceView)
    for id in ["d", "other"] {
      image.id = id
      #expect(
        engineError { _ = try sim.engine.restore(image, now: .zero) }
          == .invalid([
            ValidationIssue(
              field: "foregroundApp",
              message: "must name the app in the foreground, the one there is or none")
          ]))
    }
    #expect((sim.engine.retainedBytes, sim.engine.deviceCount, sim.deviceView) == before)
    image.status.foregroundApp = "mail"
    let (device, created) = try sim.engine.restore(image, now: .zero)
    #expect(created && device.id == "other" && device.foregroundApp == "mail")
    #expect(sim.engine.retainedBytes > before.0)
  }

  /// A device recreated apart from the engine, on another thread, is taken in as a restore
  /// takes in its image: the same device, the same bytes counted, a realtime clock going on
  /// from the image's time; it counts in the engine only once taken in.
  @Test func aDeviceRecreatedOnAnotherThreadIsTakenInAsARestore() async throws {
    let sim = Simulator()
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    var image = try sim.engine.image(of: "d", now: .zero)
    image.id = "copy"
    image.configuration.clock = .realtime
    let (configuration, sent) = (sim.engine.configuration, image)
    let before = (sim.engine.retainedBytes, sim.engine.deviceCount)
    let recreated = try await Task.detached { try Engine.recreate(sent, within: configuration) }
      .value
    #expect((sim.engine.retainedBytes, sim.engine.deviceCount) == before)
    let (device, created) = try sim.engine.restore(recreated, now: .milliseconds(4_000))
    #expect(created && device.id == "copy" && device.foregroundApp == "mail")
    #expect(
      try sim.engine.device("copy", now: .milliseconds(5_000)).now == image.status.now + .seconds(1)
    )
    let restored = Engine(configuration: configuration, now: .zero)
    let baseline = restored.retainedBytes
    _ = try restored.restore(image, now: .zero)
    #expect(sim.engine.retainedBytes - before.0 == restored.retainedBytes - baseline)
    image.status.now = try sim.engine.device("copy", now: .milliseconds(4_000)).now
    #expect(try sim.engine.image(of: "copy", now: .milliseconds(4_000)) == image)
  }

  @Test func readingARealtimeDeviceCatchesUpWithoutAnExplicitAdvance() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createApp(AppSpec(name: "mail"), on: "default", now: .zero)
    _ = try engine.apply(.launch(), to: "mail", on: "default", now: .zero)
    _ = try engine.apply(.home, to: "mail", on: "default", now: .zero)
    #expect(try engine.app("mail", on: "default", now: .milliseconds(2000)).state == .suspended)
  }

  @Test func advancingARealtimeClockAddsAnOffset() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createApp(AppSpec(name: "mail"), on: "default", now: .zero)
    _ = try engine.apply(.launch(), to: "mail", on: "default", now: .zero)
    _ = try engine.apply(.home, to: "mail", on: "default", now: .zero)
    let outcome = try engine.advanceClock(of: "default", by: .seconds(5), now: .milliseconds(1000))
    #expect(transitions(outcome) == ["mail: background → suspended (suspension)"])
    #expect(try engine.device("default", now: .milliseconds(1000)).now == .seconds(6))
    #expect(try engine.device("default", now: .milliseconds(2000)).now == .seconds(7))
  }

  @Test func realtimeDevicesDueTogetherFireInDeviceOrder() throws {
    let engine = Engine(now: .zero)
    for id in ["zeta", "alpha"] {
      _ = try engine.createDevice(id) { $0.clock = .realtime }
      _ = try engine.createApp(AppSpec(name: "mail"), on: id, now: .zero)
      _ = try engine.apply(.launch(), to: "mail", on: id, now: .zero)
      _ = try engine.apply(.home, to: "mail", on: id, now: .zero)
    }
    _ = try engine.createDevice("manual") { $0.clock = .manual }
    #expect(engine.advance(to: .milliseconds(10_000)).map(\.device) == ["alpha", "zeta"])
  }

  @Test func manualDevicesNeverEnterTheHostSchedule() throws {
    let sim = Simulator()
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(sim.engine.nextDeadline == nil)
    #expect(sim.engine.advance(to: .milliseconds(1_000_000)).isEmpty)
    #expect(sim.state("mail") == .background)
    #expect(sim.deviceView.nextDeadline == .seconds(2))
  }

  @Test func negativeAdvanceIsInvalid() {
    let sim = Simulator()
    #expect(
      engineError { try sim.engine.advanceClock(of: "d", by: .seconds(-1), now: .zero) }
        == .invalid([ValidationIssue(field: "seconds", message: "must be 0 to 315360000")]))
  }

  @Test func journalRecordsEventsCallbacksAndTransitionsInOrder() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate)
    try sim.post(.launch(), to: "mail")
    let journal = sim.journal
    #expect(journal.map(\.seq) == Array(1...6))
    #expect(journal.first == .event(seq: 1, time: .zero, app: "mail", event: .app(.launch())))
    let kinds = journal.map { entry -> String in
      switch entry {
      case .event: "event"
      case .callback: "callback"
      case .transition: "transition"
      }
    }
    #expect(
      kinds == ["event", "callback", "transition", "callback", "callback", "transition"])
  }

  @Test func journalQueriesFilterBySeqAppAndLimit() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate)
    sim.add("maps", .appDelegate)
    try sim.post(.launch(), to: "mail")
    try sim.post(.launch(), to: "maps")
    let page = try sim.engine.journal(
      of: "d", since: 6, filter: JournalFilter(app: "mail"), limit: 2, now: .zero)
    #expect(page.entries.map(\.seq) == [8, 9])
    #expect(page.entries.allSatisfy { $0.app == "mail" })
    let callbacks = try sim.engine.callbacks(of: "maps", on: "d", since: 0, limit: 10, now: .zero)
    #expect(
      callbacks.map(\.method) == [.willFinishLaunching, .didFinishLaunching, .didBecomeActive])
  }

  /// Every cause is read back by its name: each event type and each of the system's causes
  /// (jetsam's with its reason, which it needs); no other name is a cause.
  @Test func everyCauseIsReadByItsName() {
    for name in TransitionCause.names {
      #expect(TransitionCause(name: name, jetsamReason: .vmPageshortage)?.name == name, "\(name)")
    }
    #expect(
      TransitionCause(name: "jetsam", jetsamReason: .perProcessLimit) == .jetsam(.perProcessLimit))
    #expect(TransitionCause(name: "jetsam") == nil && TransitionCause(name: "nosuch") == nil)
    #expect(TransitionCause(name: "sceneLifecycleRequired") == .sceneLifecycleRequired)
  }

  /// `JournalFilter.all(matching:)` lists exactly the filters that match an entry: every
  /// filter built from the values of a varied journal's entries (and values no entry has) is
  /// among an entry's filters just when it matches the entry.
  @Test func theFiltersMatchingAnEntryAreExactlyThoseThatMatchIt() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate)
    sim.add("maps", multipleScenes: true)
    try sim.post(.launch(), to: "mail")
    try sim.post(.launch(), to: "maps")
    try sim.post(.openScene(id: "two"), to: "maps")
    try sim.post(.lock)
    try sim.post(.purge(.vmPageshortage), to: "mail")
    let journal = sim.journal
    var filters: Set<JournalFilter> = [JournalFilter(app: "nosuch"), JournalFilter(scene: "x")]
    for entry in journal {
      filters.formUnion(JournalFilter.all(matching: entry))
    }
    #expect(filters.count > 40)
    for entry in journal {
      let matching = JournalFilter.all(matching: entry)
      #expect(Set(matching).count == matching.count)
      for filter in filters {
        #expect(filter.matches(entry) == matching.contains(filter), "\(filter) \(entry)")
      }
    }
  }

  @Test func journalIsBoundedAndCountsDrops() throws {
    var configuration = EngineConfiguration()
    configuration.limits.journalCapacity = 4
    let sim = Simulator(configuration: configuration)
    sim.add("mail", .appDelegate)
    try sim.post(.launch(), to: "mail")
    let page = try sim.engine.journal(of: "d", now: .zero)
    #expect(page.entries.map(\.seq) == [3, 4, 5, 6])
    #expect(page.dropped == 2)
  }

  @Test func significantTimeChangeIsQueuedForSuspendedAppsAndCoalesced() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate)
    sim.add("clock", .appDelegate)
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    try sim.post(.launch(), to: "clock")
    let change = try sim.post(.significantTimeChange)
    #expect(change.callbacks.map(\.app) == ["clock"])
    try sim.post(.significantTimeChange)
    #expect(sim.app("mail").significantTimeChangePending)
    try sim.post(.launch(), to: "mail")
    let resumed = try sim.engine.callbacks(of: "mail", on: "d", since: 0, now: .zero).suffix(3)
    #expect(
      resumed.map(\.method) == [.significantTimeChange, .willEnterForeground, .didBecomeActive])
    #expect(!sim.app("mail").significantTimeChangePending)
  }

  @Test func queuedTimeChangeIsDeliveredWhenASuspendedAppIsWokenInTheBackground() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate, modes: [.fetch])
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    try sim.post(.significantTimeChange)
    let wake = try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      trace(wake) == [
        "applicationSignificantTimeChange(_:) → background [UIApplication.significantTimeChangeNotification]",
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
        "application(_:performFetchWithCompletionHandler:) → background task 1",
      ])
  }

  @Test func unlockBringsBackTheAppThatWasForegroundEvenFromSuspension() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate)
    try sim.post(.launch(), to: "mail")
    try sim.post(.lock)
    sim.advance(60)
    #expect(sim.state("mail") == .suspended)
    try sim.post(.unlock)
    #expect(sim.state("mail") == .active)
    #expect(sim.deviceView.foregroundApp == "mail")
  }

  @Test func unlockShowsTheHomeScreenIfTheAppWasKilledMeanwhile() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate)
    try sim.post(.launch(), to: "mail")
    try sim.post(.lock)
    try sim.post(.purge(), to: "mail")
    let unlock = try sim.post(.unlock)
    #expect(unlock.callbacks.isEmpty)
    #expect(unlock.transitions.isEmpty)
    #expect(sim.state("mail") == .notRunning)
    #expect(sim.deviceView.foregroundApp == nil)
  }

  @Test func lockWithNoForegroundAppAndNoPasscodeDeliversNothing() throws {
    let sim = Simulator(passcode: false)
    sim.add("mail", .appDelegate)
    try sim.post(.launch(), to: "mail")
    #expect(
      trace(try sim.post(.lock)) == [
        "applicationWillResignActive(_:) → inactive [UIApplication.willResignActiveNotification]",
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
      ])
    #expect(
      trace(try sim.post(.unlock)) == [
        "applicationWillEnterForeground(_:) → inactive [UIApplication.willEnterForegroundNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
  }

  @Test func protectedDataReachesEveryRunningAppButNotSuspendedOnes() throws {
    let sim = Simulator()
    sim.add("mail", .appDelegate)
    sim.add("radio", .appDelegate)
    sim.add("notes", .appDelegate)
    try sim.post(.launch(), to: "notes")
    try sim.post(.home, to: "notes")
    try sim.post(.launch(), to: "radio")
    try sim.post(.beginBackgroundTask(), to: "radio")
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.lock)
    sim.advance(2)
    #expect(sim.state("notes") == .suspended)
    let lockdown = sim.advance(8)
    #expect(
      lockdown.callbacks.filter { $0.method == .protectedDataWillBecomeUnavailable }.map(\.app)
        == ["mail", "radio"])
  }

  @Test func deviceMemoryWarningReachesRunningAppsInNameOrder() throws {
    let sim = Simulator()
    for name in ["zed", "amy", "bob"] { sim.add(name, .appDelegate) }
    try sim.post(.launch(), to: "bob")
    try sim.post(.home, to: "bob")
    sim.advance(2)
    try sim.post(.launch(), to: "zed")
    try sim.post(.beginBackgroundTask(), to: "zed")
    try sim.post(.launch(), to: "amy")
    let warning = try sim.post(.memoryWarning)
    #expect(warning.callbacks.map(\.app) == ["amy", "zed"])
    #expect(warning.transitions.isEmpty)
  }

  /// Apps leave and rejoin the live set in every order (kill, delete, relaunch): a
  /// device-wide event still reaches exactly the live ones, in name order.
  @Test func deviceWideEventsReachTheLiveAppsAfterAnyChurn() throws {
    let sim = Simulator()
    for name in ["eve", "bob", "dan", "amy", "cat"] { sim.add(name, .appDelegate) }
    for name in ["eve", "bob", "dan", "amy", "cat"] {
      try sim.post(.launch(), to: name)
      try sim.post(.beginBackgroundTask(), to: name)
      try sim.post(.home, to: name)
    }
    try sim.post(.crash(), to: "bob")  // from the middle of the list
    try sim.engine.removeApp("cat", on: sim.device, now: .zero)  // the last added
    try sim.post(.crash(), to: "eve")  // the first added
    try sim.post(.launch(), to: "bob")
    try sim.post(.home, to: "bob")
    let warning = try sim.post(.memoryWarning)
    #expect(warning.callbacks.map(\.app) == ["amy", "bob", "dan"])
  }

  @Test func deviceHomeSendsTheForegroundAppHome() throws {
    let sim = Simulator()
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    let home = try sim.post(.home)
    #expect(home.callbacks.map(\.method) == [.sceneWillResignActive, .sceneDidEnterBackground])
    #expect(
      home.effects(excluding: nil) == [
        Effect(app: "mail", previousState: .active, state: .background)
      ])
  }

  @Test func removingAnAppReleasesItsMemoryAndDeadlines() throws {
    let sim = Simulator()
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    try sim.engine.removeApp("mail", on: "d", now: .zero)
    #expect(sim.deviceView.usedMB == 0)
    #expect(sim.deviceView.nextDeadline == nil)
    #expect(sim.deviceView.apps == 0)
    #expect(sim.advance(10).transitions.isEmpty)
  }

  /// Lookups by id find the device there is now under it, never one before it: after it is
  /// removed, made again, reset, or the engine reset (the engine keeps the last one found).
  @Test func aDeviceIsFoundAsItIsNowUnderItsId() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createDevice("phone")
    let first = try #require(engine.lastVersion(of: "phone")).incarnation
    try engine.removeDevice("phone", now: .zero)
    #expect(engine.lastVersion(of: "phone") == nil)
    #expect(
      engineError { try engine.apply(.lock, on: "phone", now: .zero) } == .unknownDevice("phone"))
    _ = try engine.createDevice("phone")
    let second = try #require(engine.lastVersion(of: "phone")).incarnation
    #expect(second > first)
    _ = try engine.resetDevice("phone", now: .zero)
    #expect(try #require(engine.lastVersion(of: "phone")).incarnation > second)
    engine.reset(now: .zero)
    #expect(engine.lastVersion(of: "phone") == nil)
  }

  @Test func removingADeviceDropsItsRealtimeDeadlines() throws {
    let engine = Engine(now: .zero)
    _ = try engine.createDevice("phone")
    _ = try engine.createApp(AppSpec(name: "mail"), on: "phone", now: .zero)
    _ = try engine.apply(.launch(), to: "mail", on: "phone", now: .zero)
    _ = try engine.apply(.home, to: "mail", on: "phone", now: .zero)
    try engine.removeDevice("phone", now: .zero)
    #expect(engine.nextDeadline == nil)
    #expect(engineError { try engine.device("phone", now: .zero) } == .unknownDevice("phone"))
  }
}
