import Testing

@testable import LifecycleEngine

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same walk anywhere.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Random walks of 10,000 events over many apps, with fixed seeds.
@Suite struct PropertyTests {
  static let seeds: [UInt64] = [1, 42, 2026, 3]
  static let steps = 10_000

  @Test(arguments: seeds)
  func invariantsHoldAndTheTableAgreesWithApply(seed: UInt64) throws {
    let walk = RandomWalk(seed: seed)
    for step in 0..<Self.steps {
      walk.step()
      let violations = walk.violatedInvariants()
      #expect(violations.isEmpty, "step \(step): \(violations)")
      if !violations.isEmpty { return }
    }
    #expect(walk.sim.deviceView.counters.callbacks > 1_000)
    #expect(walk.sim.deviceView.counters.kills > 10)
    // The walk reaches apps with several windows, and scenes the system disconnected.
    let sceneCallbacks = walk.sim.journal.compactMap { entry -> Callback? in
      guard case .callback(let callback) = entry, callback.scene != nil else { return nil }
      return callback
    }
    #expect(sceneCallbacks.filter { $0.scene != "main" }.count > 50)
    #expect(sceneCallbacks.filter { $0.method == .sceneDidDisconnect }.count > 10)
    // ... and processing tasks that ran (while the device was idle: an invariant).
    #expect(walk.processingTasksStarted > 1)
    // On iOS 27, launches that trap.
    let traps = walk.sim.journal.count { entry in
      guard case .transition(let transition) = entry else { return false }
      return transition.cause == .sceneLifecycleRequired
    }
    #expect(walk.sim.deviceView.osVersion == "27.0" ? traps > 10 : traps == 0)
    // ... and MetricManager's reports, one per element, to the apps that adopted it.
    let reportsYielded = walk.sim.journal.count { entry in
      guard case .callback(let callback) = entry else { return false }
      return callback.method == .metricReports || callback.method == .diagnosticReports
    }
    #expect(walk.sim.deviceView.osVersion == "27.0" ? reportsYielded > 10 : reportsYielded == 0)
    // It posts every app event there is: a new one is walked once `randomEvent` makes it.
    #expect(Set(AppEvent.types).subtracting(walk.postedTypes).map(\.rawValue).sorted() == [])
  }

  @Test(arguments: seeds)
  func sameSeedGivesTheSameJournal(seed: UInt64) {
    let first = RandomWalk(seed: seed)
    let second = RandomWalk(seed: seed)
    for _ in 0..<Self.steps {
      first.step()
      second.step()
    }
    #expect(first.sim.journal == second.sim.journal)
    #expect(first.sim.jetsam == second.sim.jetsam)
    #expect(first.sim.journal.count > 4_000)
  }

  /// Each event posted as an atomic scenario of one, which replaces the device with the copy
  /// it ran on: a property the copy missed would make the walks part.
  @Test(arguments: seeds)
  func anAtomicWalkIsTheWalkInOrder(seed: UInt64) {
    let inOrder = RandomWalk(seed: seed)
    let atomic = RandomWalk(seed: seed, mode: .atomic)
    for _ in 0..<Self.copyingSteps {
      inOrder.step()
      atomic.step()
    }
    #expect(atomic.sim.journal == inOrder.sim.journal)
    #expect(atomic.sim.jetsam == inOrder.sim.jetsam)
    #expect(atomic.sim.deviceView == inOrder.sim.deviceView)
    #expect(atomic.views == inOrder.views)
    #expect(atomic.sim.engine.retainedBytes == inOrder.sim.engine.retainedBytes)
    #expect(atomic.sim.journal.count > 500)
  }

  /// A copy, the one a dry run or an atomic scenario works on, is the device: same image, same
  /// views, same journal and jetsam log, same retained bytes.
  @Test(arguments: seeds)
  func aCopyIsTheDevice(seed: UInt64) throws {
    let walk = RandomWalk(seed: seed)
    for step in 0..<Self.copyingSteps {
      walk.step()
      guard step % 50 == 0 else { continue }
      let device = try #require(walk.sim.engine.devices[walk.sim.device])
      let ledger = MemoryLedger()
      let copy = Device(copying: device, ledger: ledger)
      #expect(copy.image == device.image, "step \(step)")
      for (name, app) in device.apps {
        let copied = try #require(copy.apps[name])
        #expect(copy.appView(of: copied) == device.appView(of: app), "step \(step)")
      }
      #expect(copy.view == device.view, "step \(step)")
      #expect(Array(copy.journal) == Array(device.journal), "step \(step)")
      #expect(copy.jetsamLog.page == device.jetsamLog.page, "step \(step)")
      #expect(ledger.bytes == device.ledger.bytes, "step \(step)")
    }
  }

  /// Each event posted first as a dry run, which must leave every view as it was, then for
  /// real, which must do exactly what the dry run answered (`RandomWalk.post`).
  @Test(arguments: seeds)
  func aDryRunAnswersWhatTheEventDoesAndChangesNothing(seed: UInt64) {
    let walk = RandomWalk(seed: seed, mode: .dryRun)
    for _ in 0..<Self.copyingSteps { walk.step() }
    #expect(walk.sim.journal.count > 500)
  }

  /// A walk whose device is replaced at every step by the one its image restores goes on
  /// exactly as the walk that keeps its device: same outcomes, same image.
  @Test(arguments: seeds)
  func aRestoredImageGoesOnAsTheOriginalDevice(seed: UInt64) throws {
    let original = RandomWalk(seed: seed)
    let restored = RandomWalk(seed: seed)
    for step in 0..<Self.steps {
      original.step()
      restored.step()
      let image = restored.image
      let (device, created) = try restored.sim.engine.restore(image, now: .zero)
      #expect(!created && device.journalEntries == 0)
      #expect(restored.image == image, "step \(step): the restored device differs")
      #expect(original.image == image, "step \(step): the walks parted")
      #expect(original.lastOutcome == restored.lastOutcome, "step \(step)")
      if restored.image != image || original.image != image { return }
    }
    #expect(original.sim.engine.retainedBytes > restored.sim.engine.retainedBytes)
  }

  /// Walks that copy the device at every event: shorter, as each copy costs its journal.
  static let copyingSteps = 2_000

  @Test func differentSeedsGiveDifferentJournals() {
    let first = RandomWalk(seed: 1)
    let second = RandomWalk(seed: 2)
    for _ in 0..<100 {
      first.step()
      second.step()
    }
    #expect(first.sim.journal != second.sim.journal)
  }
}

/// Drives one device with random events, clock advances and memory changes.
final class RandomWalk {
  let sim: Simulator
  var random: SplitMix64
  let names: [String]
  /// How each app was created.
  private(set) var specs: [String: AppSpec] = [:]
  /// How events are posted: in order or atomic, each alone; a dry run before each real one.
  let mode: ScenarioMode
  /// The types of the app events posted so far.
  private(set) var postedTypes: Set<EventType> = []

  init(seed: UInt64, mode: ScenarioMode = .inOrder) {
    self.mode = mode
    var configuration = EngineConfiguration()
    configuration.limits.journalCapacity = 1_000_000
    // Devices with and without a passcode: every combination of power, lock and protected
    // data is walked through (and restored from its image).
    // A third of the devices run iOS 27, where app-delegate apps built with its SDK trap at
    // launch.
    sim = Simulator(
      configuration: configuration, memoryLimitMB: 1500, perAppLimitMB: 700,
      passcode: seed % 2 == 0, osVersion: seed % 3 == 1 ? "27.0" : nil)
    random = SplitMix64(state: seed)
    names = (0..<16).map { "app\($0)" }
    for name in names {
      let memory = Int.random(in: 20...400, using: &random)
      let lifecycle: LifecycleModel = Bool.random(using: &random) ? .scene : .appDelegate
      // Half the scene apps open several windows; some of those hold memory per scene.
      let multiple = lifecycle == .scene && Bool.random(using: &random)
      let spec = AppSpec(
        name: name, lifecycle: lifecycle,
        memoryMB: memory, backgroundMemoryMB: Int.random(in: 10...memory, using: &random),
        // A quarter of each mode, and processing for every fourth app at least: the rules of
        // processing tasks meet the lock often enough.
        backgroundModes: Set(
          BackgroundMode.allCases.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            + (name.hasSuffix("0") || name.hasSuffix("4") || name.hasSuffix("8")
              ? [.processing] : [])),
        behavior: AppBehavior(
          // Each past its watchdog's allowance in some apps: a user's launch over 20 s (a
          // background launch's 30 s it stays within), a return to the foreground over 10 s.
          didFinishLaunchingDuration: .seconds(
            [0, 0, 0, 0, 0, 0, 0, 0, 1, 25].randomElement(using: &random)!),
          willEnterForegroundDuration: .seconds(
            [0, 0, 0, 0, 0, 0, 0, 0, 2, 12].randomElement(using: &random)!),
          didEnterBackgroundDuration: .seconds([0, 0, 0, 1, 6].randomElement(using: &random)!),
          endsBackgroundTasksOnExpiration: Bool.random(using: &random),
          holdsFileLockAtSuspension: Int.random(in: 0..<8, using: &random) == 0),
        supportsMultipleScenes: multiple,
        sceneMemoryMB: multiple ? [0, 10, 60].randomElement(using: &random)! : 0,
        permittedTaskIdentifiers: Self.taskIdentifiers.filter { _ in Bool.random(using: &random) },
        // A third of the apps built with the iOS 27 SDK: the app-delegate ones trap on iOS 27.
        sdkVersion: name.hasSuffix("1") || name.hasSuffix("5") || name.hasSuffix("9") ? 27 : 26,
        // Of those, the ones ending in 5 or 9 take their reports from MetricManager.
        metricKit: name.hasSuffix("5") || name.hasSuffix("9") ? .metricManager : .mxMetricManager)
      _ = try! sim.engine.createApp(spec, on: sim.device, now: .zero)
      specs[name] = spec
    }
  }

  func step() {
    let manualBefore = sim.deviceView.conditions.taskScheduling == .manual
    let requestsBefore = manualBefore ? pendingRequests() : []
    let seqBefore = sim.deviceView.lastSeq
    postedLaunchTask = false
    defer {
      stepViolations = []
      // Under `manual`, nothing runs unasked: a request goes only by launchTask or cancel.
      if manualBefore, sim.deviceView.conditions.taskScheduling == .manual {
        let gone = requestsBefore.subtracting(pendingRequests())
        if !gone.isEmpty {
          let asked = Set(
            sim.journal.reversed().prefix { $0.seq > seqBefore }.compactMap { entry -> String? in
              guard case .event(_, _, let app?, let event) = entry else { return nil }
              switch event {
              case .app(.launchTask(let identifier)), .app(.cancelTaskRequest(let identifier)):
                return "\(app)/\(identifier)"
              case .app(.reinstall): return "\(app)/"  // every request of the app goes
              default: return nil
              }
            })
          stepViolations = gone.filter { request in
            !asked.contains(request)
              && !asked.contains { $0.hasSuffix("/") && request.hasPrefix($0) }
          }.map { "\($0) ran unasked under manual" }
        }
      }
      stepViolations += tasksRunDespiteConditions(since: seqBefore)
    }
    switch Int.random(in: 0..<100, using: &random) {
    case 0..<65: lastOutcome = postAppEvent()
    case 65..<75:
      let event = randomDeviceEvent()
      lastOutcome = try? post { mode, each throws(EngineError) in
        try sim.engine.apply([event], on: sim.device, mode: mode, now: .zero) { _, outcome, _ in
          each(outcome)
        }
      }
    case 75..<85:
      // Straight to the next announced deadline, where most of the rules meet.
      lastOutcome = sim.deviceView.nextDeadline.map { sim.advance($0.seconds - sim.now) }
    default: lastOutcome = sim.advance(Double(Int.random(in: 1...80, using: &random)) / 2)
    }
  }

  /// What the last step did, if it did anything.
  private(set) var lastOutcome: EventOutcome?
  /// What the last step did that no step may (a request run unasked under `manual`).
  private(set) var stepViolations: [String] = []

  /// The system's task runs (`launchTask` in the journal) after `seq` that a condition held
  /// back: the conditions only change by events, so those at the end of the step held when it
  /// ran. A posted `launchTask` is the debugger's, which goes past them: the step's first
  /// entry. (A processing task on a device in use is an invariant of its own.)
  private func tasksRunDespiteConditions(since seq: Int) -> [String] {
    guard lastOutcome?.callbacks.contains(where: { $0.method == .taskLaunchHandler }) == true
    else { return [] }
    let device = sim.deviceView
    let conditions = device.conditions
    var violations: [String] = []
    let entries = sim.journal.reversed().prefix(while: { $0.seq > seq }).reversed()
    for entry in entries.dropFirst(postedLaunchTask ? 1 : 0) {
      guard case .event(_, _, let name?, .app(.launchTask)) = entry else { continue }
      let app = sim.app(String(name))
      if !device.poweredOn || !conditions.backgroundAppRefresh || !app.backgroundAppRefresh
        || conditions.lowPowerMode || conditions.batteryCritical || app.backgroundLaunchBlocked
      {
        violations.append("\(name)'s task ran while a condition held it back: \(conditions)")
      }
    }
    return violations
  }

  /// Every pending request, as `app/identifier`.
  private func pendingRequests() -> Set<String> {
    Set(
      try! sim.engine.apps(on: sim.device, now: .zero).flatMap { app in
        app.taskRequests.map { "\(app.name)/\($0.request.identifier)" }
      })
  }
  /// How many processing tasks the walk started (a background launch or a requested task's).
  private(set) var processingTasksStarted = 0
  /// The journal's processes that ended and exits delivered to apps, read up to a seq.
  private var processesEnded = 0
  /// The journal's jetsam kills (the scheduler's and `purge`s), read up to the same seq.
  private var jetsamKills = 0
  private var exitsDelivered = 0
  /// The exits a reinstall dropped with the installation they were counted for.
  private var exitsDropped = 0
  /// The journal's ends of processes that leave a crash report, the crash reports delivered,
  /// and those a reinstall dropped.
  private var crashReportsMade = 0
  private var crashReportsDelivered = 0
  private var crashReportsDropped = 0
  private var exitsReadUpTo = 0
  /// Whether the step posted a `launchTask` that ran.
  private var postedLaunchTask = false
  /// The work posted `launchTask`s started, as `app/id`: the debugger's launches, which may
  /// run a processing task on a device in use.
  private var debuggerWork: Set<String> = []

  /// The device as plain values.
  var image: DeviceImage { try! sim.engine.image(of: sim.device, now: .zero) }

  /// Posts a random event and checks that the transition table predicted the answer.
  private func postAppEvent() -> EventOutcome? {
    // Half the time an app with a process, so that what running apps do is walked often.
    let live = sim.engine.devices[sim.device]!.liveAppsInOrder
    let name =
      live.isEmpty || Bool.random(using: &random)
      ? names.randomElement(using: &random)! : String(live.randomElement(using: &random)!.name)
    let event = randomEvent(for: name)
    postedTypes.insert(event.type)
    let allowed = sim.app(name).allowedEvents.contains(event.type)
    let before = (sim.app(name), sim.deviceView)
    do {
      let outcome = try post { mode, each throws(EngineError) in
        try sim.engine.apply([event], to: name, on: sim.device, mode: mode, now: .zero) {
          each($1)
        }
      }
      #expect(allowed, "\(event) succeeded but the table refuses it")
      if case .reinstall = event {
        exitsDropped += before.0.pendingExits.total + before.0.metricPayloads.exitTotal
        crashReportsDropped += before.0.diagnosticPayloads.count
      }
      if case .launchTask = event, case .backgroundWork(let id, _, _)? = outcome.result {
        postedLaunchTask = true
        debuggerWork.insert("\(name)/\(id)")
      }
      if event.type == .backgroundLaunch || event.type == .launchTask,
        sim.app(name).backgroundWork.last?.reason == .processing
      {
        processingTasksStarted += 1
      }
      return outcome
    } catch .refused(let refusal) {
      let parameterRefusal: Bool =
        switch refusal.reason {
        case .backgroundModeMissing, .backgroundWorkInProgress, .deviceInUse,
          .unknownBackgroundTask, .unknownBackgroundWork, .activityInProgress,
          .activityNotInProgress, .unknownScene, .sceneExists, .sceneNotConnected,
          .sceneNotInBackground, .sceneInForeground, .taskRequestNotPermitted,
          .tooManyPendingTaskRequests, .taskSchedulingUnavailable, .noTaskRequest, .noRunningTask,
          .sparesForegroundApp, .continuedTaskNotFromForeground, .immediateRunIneligible,
          .noContinuedTask:
          true
        default: false
        }
      #expect(!allowed || parameterRefusal, "\(event) refused (\(refusal.reason)) but allowed")
      #expect((sim.app(name), sim.deviceView) == before, "refused \(event) changed the device")
    } catch {
      Issue.record("unexpected \(error) for \(event)")
    }
    return nil
  }

  /// Every app's view and the device's version.
  var views: ([AppView], DeviceVersion) {
    (
      try! sim.engine.apps(on: sim.device, now: .zero),
      try! sim.engine.version(of: sim.device, now: .zero)
    )
  }

  /// Posts one event through `apply` (given the mode and a function for its outcome) in the
  /// walk's mode; a dry-run walk posts it as a dry run first, checks that nothing changed,
  /// then posts it in order and checks that it did what the dry run answered.
  private func post(
    _ apply: (ScenarioMode, (EventOutcome) -> Void) throws(EngineError) -> Void
  ) throws(EngineError) -> EventOutcome {
    var outcome = EventOutcome()
    guard mode == .dryRun else {
      try apply(mode) { outcome = $0 }
      return outcome
    }
    let before = (sim.deviceView, views, sim.engine.retainedBytes)
    let answer = Result { () throws(EngineError) in try apply(.dryRun) { outcome = $0 } }
      .map { outcome }
    #expect(
      sim.deviceView == before.0 && views == before.1 && sim.engine.retainedBytes == before.2,
      "a dry run changed the device")
    let result = Result { () throws(EngineError) in try apply(.inOrder) { outcome = $0 } }
      .map { outcome }
    #expect(result == answer, "the dry run answered otherwise")
    return try result.get()
  }

  /// A shutdown now and then; a device that is off is booted at its next device event, so the
  /// walk soon goes on with running apps.
  private func randomDeviceEvent() -> DeviceEvent {
    if !sim.deviceView.poweredOn { return .boot }
    if Int.random(in: 0..<20, using: &random) == 0 { return .shutdown }
    let app = names.randomElement(using: &random)!
    switch Int.random(in: 0..<12, using: &random) {
    case 0:
      // The conditions the scheduler weighs, one or two at a time.
      return .setConditions(
        ConditionsChange(
          batteryLevel: Bool.random(using: &random)
            ? [5, 20, 21, 80].randomElement(using: &random)! : nil,
          charging: Bool.random(using: &random) ? Bool.random(using: &random) : nil,
          lowPowerMode: Int.random(in: 0..<4, using: &random) == 0
            ? Bool.random(using: &random) : nil,
          network: Int.random(in: 0..<3, using: &random) == 0
            ? NetworkStatus.allCases.randomElement(using: &random)! : nil,
          taskScheduling: Int.random(in: 0..<4, using: &random) == 0
            ? TaskSchedulingPolicy.allCases.randomElement(using: &random)! : nil))
    case 1: return .setBackgroundAppRefresh(app: app, enabled: Bool.random(using: &random))
    case 2: return .push(app: app, PushKind.allCases.randomElement(using: &random)!)
    default:
      let others: [DeviceEvent] = [
        .home, .memoryWarning, .lock, .unlock, .significantTimeChange, .deliverMetrics,
      ]
      return others.randomElement(using: &random)!
    }
  }

  /// A scene id for `app`: mostly one of its sessions', else one the walk makes up.
  private func randomScene(of app: String) -> String {
    let sessions = sim.app(app).sessions.map(\.id)
    if !sessions.isEmpty, Int.random(in: 0..<4, using: &random) > 0 {
      return sessions.randomElement(using: &random)!
    }
    return ["main", "scene-2", "w"].randomElement(using: &random)!
  }

  /// One of the identifiers the walk's apps may permit, or one none does.
  private func randomTaskIdentifier() -> String {
    (Self.taskIdentifiers + ["unknown"]).randomElement(using: &random)!
  }

  static let taskIdentifiers = ["refresh", "cleanup", "index"]

  /// A request of any kind, with what its kind takes: a date for the others, a strategy for a
  /// continued-processing one (which starts at once or waits for room, never for a date).
  private func randomTaskRequest() -> AppEvent {
    let kind = TaskKind.allCases.randomElement(using: &random)!
    let dated = kind != .continuedProcessing && Bool.random(using: &random)
    return .submitTaskRequest(
      TaskRequest(
        identifier: randomTaskIdentifier(), kind: kind,
        earliestBeginDate: dated
          ? .seconds(sim.now + Double(Int.random(in: 0...120, using: &random))) : nil,
        strategy: kind == .continuedProcessing
          ? SubmissionStrategy.allCases.randomElement(using: &random) : nil))
  }

  private func randomEvent(for app: String) -> AppEvent {
    switch Int.random(in: 0..<43, using: &random) {
    case 0..<3: .launch(via: ([nil] + EntryPointTests.all).randomElement(using: &random)!)
    case 3, 4: .launch(scene: randomScene(of: app))
    case 25, 26: .openScene(id: Bool.random(using: &random) ? nil : randomScene(of: app))
    case 27: .closeScene(randomScene(of: app))
    case 28, 29: .disconnectScene(randomScene(of: app))
    case 30: .setRestorationData(#"{"s":1}"#, scene: randomScene(of: app))
    case 31: .crash(atLaunch: true)
    case 32: .openScene(id: nil)
    case 33, 34:
      randomTaskRequest()
    case 35: .cancelTaskRequest(identifier: randomTaskIdentifier())
    case 36: .launchTask(identifier: randomTaskIdentifier())
    case 37: .expireTask(identifier: randomTaskIdentifier())
    case 38: .attachDebugger
    case 39: .detachDebugger
    case 40:
      .updateApp(
        version: ["1.1", "2.0"].randomElement(using: &random)!,
        build: Bool.random(using: &random) ? "7" : nil)
    // A reinstall drops the app's windows: rarely, so that the walk keeps apps with several.
    case 41: Int.random(in: 0..<4, using: &random) == 0 ? .reinstall : .openScene(id: nil)
    case 5: .home
    case 6: .openSwitcher
    case 7: .closeSwitcher
    case 8: .interruptionBegan(InterruptionSource.allCases.randomElement(using: &random)!)
    case 9: .interruptionEnded(InterruptionOutcome.allCases.randomElement(using: &random)!)
    case 10: .terminate
    case 11: .crash()
    case 12: .purge(JetsamReason.allCases.randomElement(using: &random)!)
    case 13:
      // Processing tasks only run on a locked device: there, they are tried half the time.
      .backgroundLaunch(
        sim.deviceView.locked && Bool.random(using: &random)
          ? .processing
          : BackgroundLaunchReason.allCases.filter { $0 != .continuedProcessing }
            .randomElement(using: &random)!)
    case 14:
      .backgroundWorkCompleted(
        id: Bool.random(using: &random) ? nil : Int.random(in: 1...8, using: &random))
    case 15: .beginBackgroundTask(name: nil)
    case 16: .endBackgroundTask(id: Int.random(in: 1...6, using: &random))
    case 17: .memoryWarning
    case 18: .startActivity(BackgroundActivity.allCases.randomElement(using: &random)!)
    case 19: .stopActivity(BackgroundActivity.allCases.randomElement(using: &random)!)
    case 20:
      Bool.random(using: &random)
        ? .thermalKill
        : .reportProgress(
          identifier: randomTaskIdentifier(),
          TaskProgress(
            completedUnitCount: Int.random(in: 0...10, using: &random), totalUnitCount: 10))
    case 21: .prewarm
    // Restoration data, mostly saved: what UIKit keeps takes a running app that saves some
    // and then leaves the foreground, a path the walk must reach.
    case 22, 23, 24:
      .setRestorationData(Int.random(in: 0..<4, using: &random) > 0 ? #"{"n":1}"# : nil)
    default: .setMemory(memoryMB: Int.random(in: 10...800, using: &random))
    }
  }

  /// The invariants that do not hold now: one state per app, at most one foreground app, no
  /// deadline for a dead app, no background-time deadline for a foreground app, used memory
  /// equal to the footprints, `nextDeadline` equal to the minimum, jetsam exhausted while under
  /// pressure, waiting callbacks due, protected data known to every running app, an idle
  /// background app and only it on its way to suspension, and (from the
  /// journal) no callback to a suspended, dead or busy app, and a new process at its
  /// configured footprint.
  func violatedInvariants() -> [String] {
    let apps = try! sim.engine.apps(on: sim.device, now: .zero)
    let device = sim.deviceView
    var violations: [String] = []
    func check(_ holds: Bool, _ invariant: @autoclosure () -> String) {
      if !holds { violations.append(invariant()) }
    }
    violations += violatedJournalInvariants(apps: apps)
    violations += stepViolations
    violations += undeliveredWaitingCallbacks(apps: apps)
    let foreground = apps.filter(\.state.isForeground).map(\.name)
    check(foreground.count <= 1, "more than one foreground app: \(foreground)")
    check(
      foreground.first == device.foregroundApp.map(String.init),
      "foregroundApp is \(String(describing: device.foregroundApp))")
    check(!device.locked || foreground.isEmpty, "a foreground app on a locked device")
    if !device.poweredOn {
      check(
        apps.allSatisfy { !$0.state.isLive } && device.locked
          && device.allowedEvents == [.boot, .updateOS]
          && !device.protectedDataAvailable,
        "the device is off with something running")
    }
    check(device.usedMB == apps.map(\.footprintMB).reduce(0, +), "usedMB \(device.usedMB)")
    for app in apps {
      // Nothing saved survives a force-quit: the app cannot save again until the user opens it.
      check(
        !app.backgroundLaunchBlocked || app.savedRestorationData == nil && app.sessions.isEmpty,
        "\(app.name) kept restoration data or sessions through a force-quit")
      violations += violatedSceneInvariants(of: app)
      check(
        app.state.isLive || app.restorationData == nil && !app.prewarmed,
        "\(app.name) holds process state without a process")
      check(!app.prewarmed || app.state == .suspended, "\(app.name) prewarmed but \(app.state)")
      // `BGProcessingTask`: processing tasks run only while the device is idle (locked), but
      // for one the debugger launched.
      check(
        app.backgroundWork.allSatisfy {
          $0.reason != .processing || $0.expired || device.locked
            || debuggerWork.contains("\(app.name)/\($0.id)")
        },
        "\(app.name) runs a processing task on a device in use")
    }
    check(device.pressure == (device.usedMB > device.memory.deviceMB), "pressure flag")
    check(
      !device.pressure
        || !apps.contains {
          $0.state == .suspended || ($0.state == .background && device.warningGraceEndsAt == nil)
        },
      "under pressure with jetsam victims left")
    var deadlines = [device.protectedDataLocksAt, device.warningGraceEndsAt].compactMap { $0 }
    // The end of MetricKit's day: the 24 hours of device time its pending exits were counted
    // in, while there are some.
    let day: Int64 = 86_400_000
    let periods = apps.filter { !$0.pendingExits.isEmpty }.map(\.metricPeriodBegin.milliseconds)
    if device.poweredOn, let begin = periods.min() {
      deadlines.append(.milliseconds((begin / day + 1) * day))
    }
    for app in apps {
      // MetricKit hands its reports over as soon as the app runs with its main thread free.
      check(
        !app.state.isRunning || app.busyUntil != nil || !app.waitingCallbacks.isEmpty
          || (app.metricPayloads.isEmpty && app.diagnosticPayloads.isEmpty),
        "\(app.name) runs free and holds MetricKit's reports")
      let appDeadlines =
        [
          app.suspendAt, app.killAt,
          app.waitingCallbacks.isEmpty && app.metricPayloads.isEmpty
            && app.diagnosticPayloads.isEmpty ? nil : app.busyUntil,
        ]
        .compactMap { $0 }
        // A debugger-attached process's work does not run out of time.
        + app.backgroundWork.filter { !$0.expired && !app.debuggerAttached }.compactMap(\.deadline)
        + app.backgroundTasks.filter { !$0.expired }.compactMap(\.expiresAt)
      deadlines += appDeadlines
      if device.conditions.taskScheduling == .eager {
        // A request's date wakes the scheduler unless the device holds every request.
        let conditions = device.conditions
        if device.poweredOn, conditions.backgroundAppRefresh, !conditions.lowPowerMode,
          !conditions.batteryCritical
        {
          deadlines += app.taskRequests.compactMap(\.request.earliestBeginDate).filter {
            $0 > device.now
          }
        }
        // Every request nothing holds back has run.
        check(
          app.taskRequests.allSatisfy { !$0.heldBy.isEmpty },
          "\(app.name) has a request eligible under eager that has not run")
      }
      check(
        app.taskRequests.allSatisfy {
          $0.heldBy.contains(.manualScheduling) == (device.conditions.taskScheduling == .manual)
        }, "\(app.name): manualScheduling holds a request exactly under manual")
      if !app.state.isLive {
        check(
          appDeadlines.isEmpty && app.backgroundTasks.isEmpty && app.backgroundWork.isEmpty
            && app.busyUntil == nil && app.footprintMB == 0,
          "\(app.name) is not running but holds something")
      }
      if app.state == .suspended {
        check(
          app.backgroundTasks.isEmpty && app.backgroundWork.isEmpty && app.activities.isEmpty,
          "\(app.name) suspended with work")
      }
      if app.state == .background {
        // Declaring a mode keeps nothing running; only what the app is doing does.
        let idle =
          app.backgroundTasks.isEmpty && app.backgroundWork.isEmpty && app.activities.isEmpty
          && app.killAt == nil && app.waitingCallbacks.isEmpty && !app.debuggerAttached
        check(idle == (app.suspendAt != nil), "\(app.name) idle is \(idle), suspendAt wrong")
      }
      check(
        app.suspendAt == nil || app.state == .background, "\(app.name) suspendAt in \(app.state)")
      if app.state.isForeground {
        // Background time runs only in the background; the watchdog alone watches the main
        // thread of an app the user reopened while its didEnterBackground still runs.
        // A `BGTask` the debugger launched in the foreground runs there, and so does a
        // continued-processing task, which starts there.
        check(
          app.backgroundWork.allSatisfy {
            $0.reason == .continuedProcessing || debuggerWork.contains("\(app.name)/\($0.id)")
          }
            && app.backgroundTasks.allSatisfy { $0.expiresAt == nil }
            && (app.killAt == nil || app.busyUntil != nil),
          "\(app.name) has a background-time deadline in \(app.state)")
      }
      check(
        app.waitingCallbacks.isEmpty || app.busyUntil != nil,
        "\(app.name) has callbacks waiting for no one")
      if app.state.isRunning {
        check(
          app.protectedDataAvailable == device.protectedDataAvailable,
          "\(app.name) runs believing protected data available is \(app.protectedDataAvailable)")
      }
      if app.spec.lifecycle == .scene, app.state.isForeground {
        check(
          app.sceneState == (app.state == .active ? .foregroundActive : .foregroundInactive),
          "\(app.name) scene \(String(describing: app.sceneState)) in \(app.state)")
      }
      let limit = device.memory.appLimit(
        inForeground: app.state.isForeground, increased: app.spec.increasedMemoryLimit)
      check(app.footprintMB <= limit, "\(app.name) over the per-process limit")
    }
    check(
      device.nextDeadline == deadlines.min(),
      "nextDeadline \(String(describing: device.nextDeadline))")
    // MetricKit counts every end of a process: the counts pending and those delivered add up
    // to the journal's terminations (while it has dropped none).
    if device.journalDropped == 0 {
      let page = try! sim.engine.journal(of: sim.device, since: exitsReadUpTo, now: .zero)
      for entry in page.entries {
        switch entry {
        case .transition(let transition) where transition.to == .notRunning:
          processesEnded += 1
          let leavesCrashReport =
            transition.terminationCode != nil || transition.cause == .event(.crash)
            || transition.cause == .sceneLifecycleRequired
          if leavesCrashReport { crashReportsMade += 1 }
          if case .jetsam = transition.cause { jetsamKills += 1 }
          if transition.cause == .event(.purge) { jetsamKills += 1 }
        case .callback(let callback):
          switch callback.arguments {
          case .metrics(let payloads)?: exitsDelivered += payloads.exitTotal
          case .diagnostics(let payloads)?: crashReportsDelivered += payloads.count
          case .metricReport(let payload)?: exitsDelivered += payload.exits.total
          case .diagnosticReport?: crashReportsDelivered += 1
          default: break
          }
        default: break
        }
        exitsReadUpTo = entry.seq
      }
      let pending = apps.reduce(0) { $0 + $1.pendingExits.total + $1.metricPayloads.exitTotal }
      check(
        pending + exitsDelivered + exitsDropped == processesEnded,
        "exits counted \(pending) + \(exitsDelivered) + \(exitsDropped), ended \(processesEnded)")
      let reports = apps.reduce(0) { $0 + $1.diagnosticPayloads.count }
      check(
        reports + crashReportsDelivered + crashReportsDropped == crashReportsMade,
        "crash reports \(reports) + \(crashReportsDelivered) + \(crashReportsDropped), "
          + "made \(crashReportsMade)")
      // Every jetsam kill, the scheduler's and a purge's, is in the jetsam log.
      check(device.jetsamKills == jetsamKills, "jetsam log \(device.jetsamKills), \(jetsamKills)")
    }
    return violations
  }

  /// An app's state agrees with its scenes: a scene app in the foreground shows its focused
  /// scene, and only it; every other connected scene is where the process is; a dead or
  /// prewarmed process has none connected; only a connected scene holds restoration data.
  private func violatedSceneInvariants(of app: AppView) -> [String] {
    var violations: [String] = []
    func check(_ holds: Bool, _ invariant: @autoclosure () -> String) {
      if !holds { violations.append("\(app.name): \(invariant())") }
    }
    guard app.spec.lifecycle == .scene else {
      check(app.sessions.isEmpty && app.focusedScene == nil, "an app-delegate app with scenes")
      return violations
    }
    let ids = app.sessions.map(\.id)
    check(Set(ids).count == ids.count, "sessions \(ids) repeat an id")
    check(
      ids.count <= (app.spec.supportsMultipleScenes ? Validation.maxScenesPerApp : 1),
      "\(ids.count) sessions")
    check(app.focusedScene.map(ids.contains) ?? ids.isEmpty, "focused \(app.focusedScene ?? "-")")
    let focused = app.sessions.first { $0.id == app.focusedScene }
    check(app.sceneState == focused?.state ?? .unattached, "sceneState is not the focused one's")
    for scene in app.sessions {
      let expected: [SceneState] =
        switch app.state {
        case _ where app.prewarmed: [.unattached]
        case .notRunning: [.unattached]
        case .active where scene.id == app.focusedScene: [.foregroundActive]
        case .inactive where scene.id == app.focusedScene: [.foregroundInactive]
        case .active, .inactive, .background: [.background, .unattached]
        case .suspended: [.suspended, .unattached]
        }
      check(expected.contains(scene.state), "scene \(scene.id) \(scene.state) in \(app.state)")
      check(
        scene.restorationData == nil || scene.isConnected,
        "scene \(scene.id) holds restoration data unconnected")
    }
    return violations
  }

  /// The scenes connected in each app, as the callbacks delivered so far show.
  private var connected: [AppName: Set<String>] = [:]

  /// The methods each app had waiting for its main thread after the previous step.
  private var waiting: [String: [CallbackMethod]] = [:]

  /// Every accepted event's callbacks arrive or the app dies: what left an app's queue of
  /// waiting callbacks (always from the front) was delivered in this step, in order, unless the
  /// process ended.
  private func undeliveredWaitingCallbacks(apps: [AppView]) -> [String] {
    defer {
      waiting = Dictionary(
        uniqueKeysWithValues: apps.map { ($0.name, $0.waitingCallbacks.map(\.method)) })
    }
    guard let outcome = lastOutcome else { return [] }
    var violations: [String] = []
    for app in apps {
      let before = waiting[app.name] ?? []
      let after = app.waitingCallbacks.map(\.method)
      let queued = outcome.waitingCallbacks.count { $0.app.description == app.name }
      if queued > App.mostWaitingCallbacksPerEvent {
        violations.append("\(app.name): one step queued \(queued) callbacks")
      }
      let died = outcome.transitions.contains {
        $0.app.description == app.name && $0.to == .notRunning
      }
      guard !died, !before.isEmpty else { continue }
      let left = (0...before.count).first { after.starts(with: before[$0...]) } ?? before.count
      var delivered = outcome.callbacks.filter { $0.app.description == app.name }.map(\.method)[...]
      for method in before[..<left] {
        guard let index = delivered.firstIndex(of: method) else {
          violations.append("\(app.name): waiting \(method) vanished undelivered")
          break
        }
        delivered = delivered[(index + 1)...]
      }
    }
    return violations
  }

  /// Until when each app's callback that takes time runs, as its callbacks show.
  private var busyUntil: [AppName: Instant] = [:]

  /// Checks what the last step did, in journal order.
  private func violatedJournalInvariants(apps: [AppView]) -> [String] {
    guard let outcome = lastOutcome else { return [] }
    let configured = Dictionary(uniqueKeysWithValues: apps.map { ($0.name, $0) })
    var violations: [String] = []
    let entries =
      (outcome.callbacks.map(JournalEntry.callback)
      + outcome.transitions.map(JournalEntry.transition)).sorted { $0.seq < $1.seq }
    for entry in entries {
      switch entry {
      case .callback(let callback):
        if let until = busyUntil[callback.app], callback.time < until {
          violations.append("\(callback.method) reached \(callback.app) while busy until \(until)")
        }
        if callback.state == .suspended
          || (callback.state == .notRunning && callback.method != .willTerminate)
        {
          violations.append("\(callback.method) reached \(callback.app) \(callback.state)")
        }
        violations += violatedSceneDelivery(callback)
        let behavior = specs[String(callback.app)]!.behavior
        // How long the callback takes, whatever the watchdog times it as.
        let duration =
          callback.method == .didFinishLaunching
          ? behavior.didFinishLaunchingDuration
          : behavior.mainThreadTime(of: callback.method, sceneJustConnected: false)?.duration
        if let duration { busyUntil[callback.app] = callback.time + duration }
      case .transition(let transition) where transition.to == .notRunning:
        busyUntil[transition.app] = nil
        connected[transition.app] = nil
      case .transition(let transition) where transition.from == .notRunning:
        let app = configured[String(transition.app)]!
        let spec = specs[app.name]!
        if app.state.isLive,
          app.memoryMB != spec.memoryMB || app.backgroundMemoryMB != spec.backgroundMemoryMB
        {
          violations.append("\(app.name) launched at \(app.memoryMB)/\(app.backgroundMemoryMB) MB")
        }
      default:
        break
      }
    }
    return violations
  }

  /// Every scene callback names its scene, and reaches it only while it is connected:
  /// `scene(_:willConnectTo:options:)` connects it, `sceneDidDisconnect` ends it.
  private func violatedSceneDelivery(_ callback: Callback) -> [String] {
    guard callback.method.isSceneCallback, specs[String(callback.app)]!.lifecycle == .scene
    else { return [] }
    guard let scene = callback.scene else { return ["\(callback.method) names no scene"] }
    let isConnected = connected[callback.app, default: []].contains(scene)
    switch callback.method {
    case .sceneWillConnect:
      connected[callback.app, default: []].insert(scene)
      return isConnected ? ["\(callback.app)@\(scene) connected twice"] : []
    case .sceneDidDisconnect:
      connected[callback.app]?.remove(scene)
      fallthrough
    default:
      return isConnected ? [] : ["\(callback.method) reached \(callback.app)@\(scene) disconnected"]
    }
  }
}

extension [MetricPayload] {
  /// Every exit the payloads count.
  fileprivate var exitTotal: Int { reduce(0) { $0 + $1.exits.total } }
}
