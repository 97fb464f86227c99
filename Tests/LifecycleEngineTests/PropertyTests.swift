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
  static let seeds: [UInt64] = [1, 42, 2026]
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
    #expect(walk.sim.snapshot.counters.callbacks > 1_000)
    #expect(walk.sim.snapshot.counters.kills > 10)
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
    #expect(first.sim.journal.count > 5_000)
  }

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

  init(seed: UInt64) {
    var configuration = EngineConfiguration()
    configuration.limits.journalCapacity = 1_000_000
    sim = Simulator(configuration: configuration, memoryLimitMB: 1500, perAppLimitMB: 700)
    random = SplitMix64(state: seed)
    names = (0..<16).map { "app\($0)" }
    for name in names {
      let memory = Int.random(in: 20...400, using: &random)
      sim.add(
        name, Bool.random(using: &random) ? .scene : .appDelegate, memoryMB: memory,
        backgroundMemoryMB: Int.random(in: 10...memory, using: &random),
        modes: Set(
          BackgroundMode.allCases.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }),
        behavior: AppBehavior(
          didEnterBackgroundDuration: .seconds([0, 0, 0, 1, 6].randomElement(using: &random)!),
          endsBackgroundTasksOnExpiration: Bool.random(using: &random)))
    }
  }

  func step() {
    switch Int.random(in: 0..<100, using: &random) {
    case 0..<65: postAppEvent()
    case 65..<75: _ = try? sim.post(DeviceEvent.allCases.randomElement(using: &random)!)
    default: sim.advance(Double(Int.random(in: 1...80, using: &random)) / 2)
    }
  }

  /// Posts a random event and checks that the transition table predicted the answer.
  private func postAppEvent() {
    let name = names.randomElement(using: &random)!
    let event = randomEvent()
    let allowed = sim.app(name).allowedEvents.contains(event.type)
    let before = (sim.app(name), sim.snapshot)
    do {
      try sim.post(event, to: name)
      #expect(allowed, "\(event) succeeded but the table refuses it")
    } catch .refused(let refusal) {
      let parameterRefusal: Bool =
        switch refusal.reason {
        case .backgroundModeMissing, .unknownBackgroundTask: true
        default: false
        }
      #expect(!allowed || parameterRefusal, "\(event) refused (\(refusal.reason)) but allowed")
      #expect((sim.app(name), sim.snapshot) == before, "refused \(event) changed the device")
    } catch {
      Issue.record("unexpected \(error) for \(event)")
    }
  }

  private func randomEvent() -> AppEvent {
    switch Int.random(in: 0..<20, using: &random) {
    case 0..<4: .launch(url: Bool.random(using: &random) ? "app://x" : nil)
    case 4..<6: .home
    case 6: .openSwitcher
    case 7: .closeSwitcher
    case 8: .interruptionBegan(InterruptionSource.allCases.randomElement(using: &random)!)
    case 9: .interruptionEnded(InterruptionOutcome.allCases.randomElement(using: &random)!)
    case 10: .terminate
    case 11: .crash
    case 12: .purge(JetsamReason.allCases.randomElement(using: &random)!)
    case 13: .backgroundLaunch(BackgroundLaunchReason.allCases.randomElement(using: &random)!)
    case 14: .backgroundWorkCompleted
    case 15: .beginBackgroundTask(name: nil)
    case 16: .endBackgroundTask(id: Int.random(in: 1...6, using: &random))
    case 17: .memoryWarning
    default: .setMemory(memoryMB: Int.random(in: 10...800, using: &random))
    }
  }

  /// The invariants of the issue that do not hold now: one state per app, at most one
  /// foreground app, no deadline for a dead app, used memory equal to the footprints,
  /// `nextDeadline` equal to the minimum, jetsam exhausted while under pressure.
  func violatedInvariants() -> [String] {
    let apps = try! sim.engine.apps(on: sim.device, now: .zero)
    let device = sim.snapshot
    var violations: [String] = []
    func check(_ holds: Bool, _ invariant: @autoclosure () -> String) {
      if !holds { violations.append(invariant()) }
    }
    let foreground = apps.filter(\.state.isForeground).map(\.name)
    check(foreground.count <= 1, "more than one foreground app: \(foreground)")
    check(
      foreground.first == device.foregroundApp,
      "foregroundApp is \(String(describing: device.foregroundApp))")
    check(!device.locked || foreground.isEmpty, "a foreground app on a locked device")
    check(device.usedMB == apps.map(\.footprintMB).reduce(0, +), "usedMB \(device.usedMB)")
    check(device.pressure == (device.usedMB > device.memoryLimitMB), "pressure flag")
    check(
      !device.pressure || !apps.contains { $0.state == .suspended || $0.state == .background },
      "under pressure with jetsam victims left")
    var deadlines: [Instant] = []
    for app in apps {
      let appDeadlines =
        [app.suspendAt, app.killAt].compactMap { $0 }
        + app.backgroundTasks.filter { !$0.expired }.compactMap(\.expiresAt)
      deadlines += appDeadlines
      if !app.state.isLive {
        check(
          appDeadlines.isEmpty && app.backgroundTasks.isEmpty && app.backgroundWork == nil
            && app.busyUntil == nil && app.footprintMB == 0,
          "\(app.name) is not running but holds something")
      }
      if app.state == .suspended {
        check(
          app.backgroundTasks.isEmpty && app.backgroundWork == nil,
          "\(app.name) suspended with work")
      }
      check(
        app.suspendAt == nil || app.state == .background, "\(app.name) suspendAt in \(app.state)")
      if app.lifecycle == .scene, app.state.isForeground {
        check(
          app.sceneState == (app.state == .active ? .foregroundActive : .foregroundInactive),
          "\(app.name) scene \(String(describing: app.sceneState)) in \(app.state)")
      }
      check(
        app.footprintMB <= device.perAppLimitMB || !app.state.isRunning,
        "\(app.name) over the per-process limit")
    }
    check(
      device.nextDeadline == deadlines.min(),
      "nextDeadline \(String(describing: device.nextDeadline))")
    return violations
  }
}
