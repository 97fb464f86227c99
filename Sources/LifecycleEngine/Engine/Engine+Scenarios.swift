/// A scenario's events, applied one call at a time, so that a host can apply a long one over
/// several turns of its loop and serve others in between.
///
/// `beginScenario` finds the device and, for an atomic scenario or a dry run, makes the copy the
/// events change; each `apply(_:in:now:each:)` applies the next event; `end` puts an atomic
/// scenario's copy in the device's place, and `abandon` drops what a refused scenario changed on
/// a copy. A scenario that goes on after the host's call returns is held (`hold`, and always
/// while a copy is made apart): the device is then the scenario's until it ends, its realtime
/// deadlines and clock wait (each event brings it up to its `now` first, as between the events
/// of any scenario) and its idle timeout does not remove it. A device removed or replaced
/// meanwhile (the engine reset, say) refuses the held scenario's next event: `unknownDevice`.
public struct ScenarioRun {
  public let mode: ScenarioMode
  /// The device the scenario was begun on.
  let device: Device
  /// Where its events are applied: the device itself, or its copy (`Device.init(copying:ledger:)`).
  let target: Device
  /// The app the scenario's events are sent to, found on `target`; nil for device events.
  let app: App?
  /// The events applied so far.
  public fileprivate(set) var appliedCount = 0

  public var deviceID: String { device.id }

  fileprivate init(device: Device, target: Device, app: App?, mode: ScenarioMode) {
    self.device = device
    self.target = target
    self.app = app
    self.mode = mode
  }
}

/// A device held for an atomic scenario or a dry run (`Engine.holdForScenario`), whose copy
/// may be made apart from the engine: on any thread, since nothing changes a held device.
public struct HeldDevice: @unchecked Sendable {
  fileprivate let device: Device
  public var id: String { device.id }

  /// Makes the copy the scenario's events change (`Device.init(copying:ledger:)`): on any
  /// thread, while the device is held; the engine takes it in with `beginScenario(on:)`.
  public func copy() -> DeviceCopy {
    DeviceCopy(device: Device(copying: device, ledger: MemoryLedger()))
  }
}

/// A held device's copy (`HeldDevice.copy`), which no engine holds until one takes it in.
public struct DeviceCopy: @unchecked Sendable {
  fileprivate let device: Device
}

extension Engine {
  /// Begins a scenario on the device `id` (of events to its app `app`, if given), brought up to
  /// `now`: on the device itself, or for an atomic scenario or a dry run on a copy that counts
  /// in the budget while it lives (one that would not fit is refused before it is made).
  public func beginScenario(
    on id: String, app: String? = nil, mode: ScenarioMode, now: Instant
  ) throws(EngineError) -> ScenarioRun {
    guard mode == .inOrder else {
      let held = try holdForScenario(on: id, now: now)
      return try beginScenario(on: held.copy(), of: held, app: app, mode: mode, now: now)
    }
    let device = try checkedForScenario(id, now: now)
    do throws(EngineError) {
      let found: App? = if let app { try Self.app(app, on: device) } else { nil }
      return ScenarioRun(device: device, target: device, app: found, mode: mode)
    } catch {
      updateRealtimeDeadline(of: device)
      throw error
    }
  }

  /// Holds a scenario's device until the scenario ends: the host goes on with it later.
  public func hold(_ run: ScenarioRun) { hold(run.device) }

  /// Holds the device `id`, brought up to `now`, for an atomic scenario or a dry run whose copy
  /// is made apart (`HeldDevice.copy`): the copy will count in the budget, so one that would
  /// not fit is refused now. `beginScenario(on:of:app:mode:now:)` takes the copy in, or lets
  /// go of the device if the scenario cannot begin.
  public func holdForScenario(on id: String, now: Instant) throws(EngineError) -> HeldDevice {
    let device = try checkedForScenario(id, now: now)
    let budget = configuration.limits.memoryBudgetBytes
    guard retainedBytes + device.ledger.bytes < budget else {
      updateRealtimeDeadline(of: device)
      throw .memoryBudgetExhausted(
        retainedBytes: retainedBytes + device.ledger.bytes, budgetBytes: budget)
    }
    hold(device)
    return HeldDevice(device: device)
  }

  /// Begins a scenario on `copy`, made of the device `held`, which takes the device's place if
  /// an atomic scenario succeeds; `unknownDevice` if the engine no longer holds that device,
  /// `unknownApp` if the copy has no app `app` (the device is let go of either way).
  public func beginScenario(
    on copy: DeviceCopy, of held: HeldDevice, app: String? = nil, mode: ScenarioMode,
    now: Instant
  ) throws(EngineError) -> ScenarioRun {
    guard findDevice(held.id) === held.device else {
      release(held.device, now: now)
      throw .unknownDevice(held.id)
    }
    do throws(EngineError) {
      let found: App? = if let app { try Self.app(app, on: copy.device) } else { nil }
      copy.device.ledger.join(scenarioLedger)
      return ScenarioRun(device: held.device, target: copy.device, app: found, mode: mode)
    } catch {
      release(held.device, now: now)
      throw error
    }
  }

  /// The device `id`, brought up to `now` and touched, if the budget has room and its counts
  /// have room to grow. Its realtime deadline is filed again when the scenario ends (or here,
  /// if it is refused).
  private func checkedForScenario(_ id: String, now: Instant) throws(EngineError) -> Device {
    try checkMemoryBudget()
    let device = try reach(id, now: now)
    touch(device, at: now)
    do throws(EngineError) {
      try device.checkCountsLeft()
    } catch {
      updateRealtimeDeadline(of: device)
      throw error
    }
    return device
  }

  /// Applies a scenario begun as `run` in this one call: `body` applies its events; one it
  /// refuses abandons the run, and the run ends once they are all applied.
  func complete(
    _ run: inout ScenarioRun, now: Instant,
    applying body: (inout ScenarioRun) throws(EngineError) -> Void
  ) throws(EngineError) {
    do throws(EngineError) {
      try body(&run)
    } catch {
      abandon(run, now: now)
      throw error
    }
    end(run, now: now)
  }

  /// Applies the scenario's next device event; `each` receives its outcome (lent: the device
  /// reuses its storage for the next event) with the state before and after it.
  public func apply(
    _ event: DeviceEvent, in run: inout ScenarioRun, now: Instant,
    each: (EventOutcome, _ state: (before: DeviceState, after: DeviceState)) -> Void
  ) throws(EngineError) {
    let device = try next(in: run, now: now)
    let before = device.state
    let outcome = try device.apply(event)
    run.appliedCount += 1
    each(outcome, (before, device.state))
    device.recycle(outcome)
  }

  /// Applies the scenario's next event to its app; `each` receives its outcome (lent).
  public func apply(
    _ event: AppEvent, in run: inout ScenarioRun, now: Instant, each: (EventOutcome) -> Void
  ) throws(EngineError) {
    let device = try next(in: run, now: now)
    // A run is begun with its app when its events are an app's.
    guard let app = run.app else {
      preconditionFailure("an app event in a scenario of device events")
    }
    let outcome = try device.apply(event, to: app)
    run.appliedCount += 1
    each(outcome)
    device.recycle(outcome)
  }

  /// Ends a scenario whose events were all applied: an atomic scenario's copy takes the
  /// device's place, a dry run's is dropped.
  public func end(_ run: ScenarioRun, now: Instant) {
    settle(run.device, now: now)
    switch run.mode {
    case .inOrder: break
    case .atomic: replace(run.device, with: run.target)
    case .dryRun: retireCopy(of: run)
    }
  }

  /// Ends a scenario that was refused: what it changed on a copy is dropped.
  public func abandon(_ run: ScenarioRun, now: Instant) {
    settle(run.device, now: now)
    if run.mode != .inOrder { retireCopy(of: run) }
  }

  /// Lets go of the copy a dry run or a refused atomic scenario changed.
  private func retireCopy(of run: ScenarioRun) {
    retire(run.target)
    run.target.ledger.add(-run.target.ledger.bytes)
  }

  /// The device the run's next event goes to, brought up to `now` after the first (an event
  /// may leave work due at once) and refused if the budget is spent; `unknownDevice` if the
  /// engine no longer has the device a held run was begun on.
  private func next(in run: ScenarioRun, now: Instant) throws(EngineError) -> Device {
    guard run.appliedCount > 0 else { return run.target }
    guard !run.device.isHeldByScenario || findDevice(run.deviceID) === run.device else {
      throw .unknownDevice(run.deviceID)
    }
    try catchUp(run.target, beforeNextEventAt: now)
    return run.target
  }

  /// A scenario's device once the scenario ends: let go of if it was held, its realtime
  /// deadline filed again either way.
  private func settle(_ device: Device, now: Instant) {
    if device.isHeldByScenario {
      release(device, now: now)
    } else {
      updateRealtimeDeadline(of: device)
    }
  }
}
