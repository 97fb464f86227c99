/// The lifecycle simulator: every device, their clocks, and the scheduler that fires their
/// deadlines.
///
/// Pure and single-threaded: no I/O, no wall clock (`recreate`, which touches no engine, runs
/// on any thread). Every call takes `now`, an instant of the host's monotonic clock; realtime
/// devices derive their time from it, manual devices only move through `advanceClock`. The host arms one timer for `nextDeadline` and calls
/// `advance(to:)` when it fires; every other call first catches up the same way, so what a
/// caller reads is always current.
public final class Engine {
  /// The device that always exists.
  public static let defaultDeviceID = "default"

  public let configuration: EngineConfiguration
  // State changed on every event is `@exclusivity(unchecked)`, here and in Device, App and the
  // API: the engine is used from one thread, one call at a time, so no two accesses overlap,
  // and the dynamic checks cost more than the engine's own work on a request (measured:
  // Benchmarks/README.md, "Build settings"). All other state keeps its checks.
  @exclusivity(unchecked)
  private(set) var devices: [String: Device] = [:] {
    didSet { lastFound = nil }
  }
  /// The device `findDevice` found last: requests name the same device again and again, and
  /// hashing its id cost more than the rest of a lookup (twice a request). Any change to
  /// `devices` forgets it.
  @exclusivity(unchecked)
  private var lastFound: Device?
  /// The same devices by slot, the key of `realtimeDeadlines`.
  @exclusivity(unchecked)
  private var slots = SlotTable<Device>()
  /// The realtime devices with a pending deadline, by host time of that deadline.
  @exclusivity(unchecked)
  private var realtimeDeadlines = IndexedHeap<RealtimeOrder>()
  /// The devices with an idle timeout, by the host time at which they are removed.
  @exclusivity(unchecked)
  private var idleDeadlines = IndexedHeap<RealtimeOrder>()
  /// Every device's state, counted as it changes.
  private let ledger = MemoryLedger()
  /// Devices created so far, resets included: each new one's `DeviceVersion.incarnation`.
  private var incarnations = 0
  /// What the host holds for clients beside the engine's state (`hostBytes`).
  private let hostLedger: MemoryLedger
  /// What the copies that atomic scenarios and dry runs change hold while they live
  /// (`beginScenario`): a reset does not forget them.
  let scenarioLedger: MemoryLedger
  /// Hears of each device the engine lets go of (`RetiredDevice`) instead of the engine
  /// dropping it where it lets go: a host keeps freeing a large device off its thread. The
  /// device no longer counts in `retainedBytes` once the engine lets go of it.
  public var onRetire: ((RetiredDevice) -> Void)?
  /// Changes whenever a device is created, replaced (reset, restored) or removed: what a host
  /// keeps per device incarnation needs checking again only then. Read on every request.
  public var devicesGeneration: Int { generation }
  /// (A stored property read from another module is checked there whatever its attribute:
  /// read through a getter, it is not.)
  @exclusivity(unchecked)
  private var generation = 0

  /// An engine with the `default` device, made from `configuration.deviceDefaults`.
  ///
  /// - Precondition: The device defaults make a valid device (each member within its range,
  ///   as `POST /v1/devices` would check it); the message names each one that does not.
  public init(configuration: EngineConfiguration = EngineConfiguration(), now: Instant) {
    self.configuration = configuration
    hostLedger = MemoryLedger(within: ledger)
    scenarioLedger = MemoryLedger(within: ledger)
    createDefaultDevice(now: now)
  }

  /// The earliest instant, on the host clock, at which a realtime device has work due or an
  /// idle device is to be removed.
  public var nextDeadline: Instant? {
    earliest(realtimeDeadlines.min?.priority.time, idleDeadlines.min?.priority.time)
  }

  /// Fires every realtime deadline due by `now`, across devices in (time, device, app) order,
  /// including deadlines that earlier ones create, then removes the devices left idle past
  /// their timeout. Returns what each firing did.
  @discardableResult
  public func advance(to now: Instant) -> [DeviceActivity] {
    var activity: [DeviceActivity] = []
    while let due = realtimeDeadlines.min, due.priority.time <= now {
      let device = slots[due.slot]
      activity.append(DeviceActivity(device: device.id, outcome: device.advanceToNextDeadline()))
      updateRealtimeDeadline(of: device)
    }
    while let due = idleDeadlines.min, due.priority.time <= now {
      let device = slots[due.slot]
      if devicesInUse.contains(device.id) || device.isHeldByScenario {
        touch(device, at: now)  // its timeout runs again once the client is done
      } else {
        discard(device)
      }
    }
    return activity
  }

  /// The devices a client uses without sending requests, through an open journal stream or a
  /// request that waits: their idle timeouts do not remove them, and once a device leaves the
  /// set its timeout counts from `now`, as from a request.
  public func setDevicesInUse(_ ids: Set<String>, now: Instant) {
    for id in devicesInUse.subtracting(ids) {
      if let device = findDevice(id) { touch(device, at: now) }
    }
    devicesInUse = ids
  }

  private var devicesInUse: Set<String> = []

  /// What the simulator's state retains, in bytes: devices, apps, background tasks, journals
  /// and jetsam logs, as `RetainedSize` counts them, and what the host holds for clients
  /// (`hostBytes`). `EngineLimits.memoryBudgetBytes` bounds it.
  public var retainedBytes: Int { ledger.bytes }

  /// What one device's state retains, as `retainedBytes` counts it; 0 for no such device.
  public func retainedBytes(of device: String) -> Int { findDevice(device)?.ledger.bytes ?? 0 }

  /// What the host holds for clients beside the engine's state, such as stored responses and
  /// open streams: the memory budget bounds it with the engine's own state.
  public var hostBytes: Int {
    get { hostLedger.bytes }
    set { hostLedger.add(newValue - hostLedger.bytes) }
  }

  /// Refuses a request that would grow the state past the budget. Checked before each one:
  /// no single request grows it by more than a journal's bound.
  func checkMemoryBudget() throws(EngineError) {
    let budget = configuration.limits.memoryBudgetBytes
    guard ledger.bytes < budget else {
      throw .memoryBudgetExhausted(retainedBytes: ledger.bytes, budgetBytes: budget)
    }
  }

  /// Everything back to the configured start: only an empty `default` device remains.
  public func reset(now: Instant) {
    ledger.add(hostLedger.bytes + scenarioLedger.bytes - ledger.bytes)
    generation += 1
    let forgotten = devices.values
    devices = [:]
    for device in forgotten { retire(device) }
    slots = SlotTable()
    realtimeDeadlines = IndexedHeap()
    idleDeadlines = IndexedHeap()
    createDefaultDevice(now: now)
  }

  // MARK: Devices

  public var deviceCount: Int { devices.count }

  /// An id for a device its client does not name: `device-` and the number of the device it
  /// will be among all the engine has made (its incarnation), or the next not taken.
  public func unusedDeviceID() -> String {
    var number = incarnations + 1
    while devices["device-\(number)"] != nil { number += 1 }
    return "device-\(number)"
  }

  /// Creates the device `configuration` describes, with no apps, its clock at zero; a
  /// client's declaration starts from the configured defaults (`DeviceDefaults`).
  public func createDevice(_ configuration: DeviceConfiguration, now: Instant)
    throws(EngineError) -> DeviceView
  {
    try createDevice(configuration, resetting: false, now: now)
  }

  private func createDevice(_ configuration: DeviceConfiguration, resetting: Bool, now: Instant)
    throws(EngineError) -> DeviceView
  {
    advance(to: now)
    let device = try Self.detachedDevice(configuration, within: self.configuration)
    try admit(device, replacing: nil, resetting: resetting, now: now)
    devices[configuration.id] = device
    touch(device, at: now)
    return device.view
  }

  /// A new device of `configuration` in an engine of `engineConfiguration`, apart from it:
  /// counted in a ledger of its own, in no slot, until the engine takes it in (`admit`).
  private static func detachedDevice(
    _ configuration: DeviceConfiguration, within engineConfiguration: EngineConfiguration
  ) throws(EngineError) -> Device {
    var issues = configuration.issues()
    let profile = ResolvedProfile(configuration, in: engineConfiguration.profiles, issues: &issues)
    guard issues.isEmpty, let profile else { throw .invalid(issues) }
    var configuration = configuration
    configuration.model = profile.name  // however the client named it
    return Device(
      configuration, profile: profile, scheduler: engineConfiguration.scheduler,
      limits: engineConfiguration.limits, ledger: MemoryLedger())
  }

  /// Takes in `device` (`detachedDevice`), counted in the budget, in a slot of its own or in
  /// the one of the `predecessor` it is to replace; not yet one of the devices. A device that
  /// starts afresh (`resetting`) is never refused for the budget: it takes the place of more
  /// than it holds.
  private func admit(
    _ device: Device, replacing predecessor: Device?, resetting: Bool, now: Instant
  ) throws(EngineError) {
    if predecessor == nil {
      if devices[device.id] != nil { throw .deviceExists(device.id) }
      if devices.count >= configuration.limits.maxDevices {
        throw .tooManyDevices(limit: configuration.limits.maxDevices)
      }
    }
    if !resetting { try checkMemoryBudget() }
    incarnations += 1
    generation += 1
    device.incarnation = incarnations
    if let predecessor {
      device.slot = predecessor.slot
    } else {
      _ = slots.insert { slot in
        device.slot = slot
        return device
      }
    }
    device.ledger.join(ledger)
    if device.configuration.clock == .realtime { device.hostEpoch = now }
  }

  /// Recreates the device `image` shows (`DeviceImage`), replacing the one with its id if
  /// there is one, as a new incarnation. An image no device could be in is refused, field by
  /// field, and changes nothing.
  public func restore(_ image: DeviceImage, now: Instant) throws(EngineError)
    -> (device: DeviceView, created: Bool)
  {
    try restore(try Self.recreate(image, within: configuration), now: now)
  }

  /// Recreates the device `image` shows apart from any engine, on any thread, for an engine of
  /// `configuration` to take in (`restore(_:now:)`): the costly part of a restore, which a
  /// host can do away from the engine's thread. An image no device could be in is refused,
  /// field by field.
  public static func recreate(_ image: DeviceImage, within configuration: EngineConfiguration)
    throws(EngineError) -> RecreatedDevice
  {
    let device = try detachedDevice(image.configuration, within: configuration)
    let issues = device.restore(image)
    if !issues.isEmpty { throw .invalid(issues) }
    return RecreatedDevice(device: device, imageNow: image.status.now)
  }

  /// Takes in the device `recreate` made, replacing the one with its id if there is one, as
  /// a new incarnation.
  public func restore(_ recreated: RecreatedDevice, now: Instant) throws(EngineError)
    -> (device: DeviceView, created: Bool)
  {
    try restore(recreated, resetting: false, now: now)
  }

  /// Recreates the devices of a start or a reset (the configured fixtures): never refused for
  /// the budget, which what clients hold may fill, and each already restored once into an
  /// engine of this configuration (`Fixtures`), so that none can fail here.
  public func restoreAfresh(_ images: [DeviceImage], now: Instant) {
    for image in images {
      _ = try? restore(Self.recreate(image, within: configuration), resetting: true, now: now)
    }
  }

  private func restore(_ recreated: RecreatedDevice, resetting: Bool, now: Instant)
    throws(EngineError) -> (device: DeviceView, created: Bool)
  {
    advance(to: now)
    let device = recreated.device
    let predecessor = devices[device.id]
    try admit(device, replacing: predecessor, resetting: resetting, now: now)
    device.hostEpoch = device.hostEpoch.map { $0 - (recreated.imageNow - .zero) }
    if let predecessor {
      replace(predecessor, with: device)
    } else {
      devices[device.id] = device
      updateRealtimeDeadline(of: device)
    }
    touch(device, at: now)
    return (device.view, predecessor == nil)
  }

  /// The whole device at `now`, as plain values.
  public func image(of device: String, now: Instant) throws(EngineError) -> DeviceImage {
    try withDevice(device, now: now) { $0.image }
  }

  public func removeDevice(_ id: String, now: Instant) throws(EngineError) {
    if id == Self.defaultDeviceID { throw .defaultDeviceIsPermanent }
    guard let device = findDevice(id) else { throw .unknownDevice(id) }
    discard(device)
  }

  /// Starts a device afresh with its configuration: no apps, an empty journal and jetsam log,
  /// its clock at zero, on and unlocked.
  public func resetDevice(_ id: String, now: Instant) throws(EngineError) -> DeviceView {
    advance(to: now)
    guard let device = findDevice(id) else { throw .unknownDevice(id) }
    discard(device)
    // Cannot throw, whatever a client sent: the configuration is one a device was made with
    // (so valid), the id and a device's place were just freed, and a device made afresh is not
    // refused for the budget.
    return try! createDevice(device.configuration, resetting: true, now: now)
  }

  /// Forgets a device and everything it retains.
  private func discard(_ device: Device) {
    generation += 1
    devices[device.id] = nil
    ledger.add(-device.ledger.bytes)
    realtimeDeadlines.remove(device.slot)
    idleDeadlines.remove(device.slot)
    slots.remove(device.slot)
    retire(device)
  }

  public func device(_ id: String, now: Instant) throws(EngineError) -> DeviceView {
    try withDevice(id, now: now) { $0.view }
  }

  /// The device at `now`, read without counting as a use of it: what lists and metrics show
  /// of every device, which must not keep idle ones alive. A device a scenario holds is shown
  /// as the scenario left it so far: its clock waits too (its copy may be being made).
  private func overview(of device: Device, now: Instant) -> DeviceView {
    if !device.isHeldByScenario {
      catchUp(device, to: now)
      updateRealtimeDeadline(of: device)
    }
    return device.view
  }

  /// The device's version at `now` (its realtime deadlines due by then fired).
  public func version(of id: String, now: Instant) throws(EngineError) -> DeviceVersion {
    try withDevice(id, now: now) { $0.version }
  }

  /// The device's version as the last call left it (each brings it up to its `now`); nil if
  /// there is no such device.
  public func lastVersion(of id: String) -> DeviceVersion? { findDevice(id)?.version }

  /// The devices in id order: those after `after` with the label `label` if given, at most
  /// `limit` of them.
  public func devices(
    after: String? = nil, label: DeviceLabel? = nil, limit: Int = .max, now: Instant
  ) -> [DeviceView] {
    advance(to: now)  // first: devices idle past their timeout are gone before the list is made
    return devices.keys.sorted().lazy
      .filter { id in after.map { id > $0 } ?? true }
      .compactMap { self.devices[$0] }
      .filter { device in label.map(device.has) ?? true }
      .prefix(limit)
      .map { self.overview(of: $0, now: now) }
  }

  /// Removes every device with the label `label` (but the permanent default device), and
  /// returns their ids in order: what a parallel worker cleans up after itself.
  public func removeDevices(labeled label: DeviceLabel, now: Instant) -> [String] {
    advance(to: now)
    let labeled = devices.values.filter { $0.id != Self.defaultDeviceID && $0.has(label) }
      .sorted { $0.id < $1.id }
    for device in labeled { discard(device) }
    return labeled.map(\.id)
  }

  /// Posts a device event (`openapi.yaml`).
  public func apply(_ event: DeviceEvent, on device: String, now: Instant) throws(EngineError)
    -> EventOutcome
  {
    var outcome = EventOutcome()
    try apply([event], on: device, now: now) { _, each, _ in outcome = each }
    return outcome
  }

  /// Posts a scenario's device events in order (`openapi.yaml`), finding the device once.
  /// `each` receives every event's outcome, with the device's state before and after it; a
  /// refused event throws, and `mode` says what becomes of the events before it.
  public func apply(
    _ events: [DeviceEvent], on device: String, mode: ScenarioMode = .inOrder, now: Instant,
    each: (DeviceEvent, EventOutcome, _ state: (before: DeviceState, after: DeviceState)) -> Void
  ) throws(EngineError) {
    var run = try beginScenario(on: device, mode: mode, now: now)
    try complete(&run, now: now) { run throws(EngineError) in
      for event in events {
        try apply(event, in: &run, now: now) { outcome, state in each(event, outcome, state) }
      }
    }
  }

  /// Before a scenario's next event: refuses it if the budget is spent, by the state or by
  /// what the host holds, the answer being written among it (`hostBytes`: a scenario's
  /// outcomes can outgrow any state), then brings a realtime device up to `now`.
  func catchUp(_ device: Device, beforeNextEventAt now: Instant) throws(EngineError) {
    try checkMemoryBudget()
    catchUp(device, to: now)
  }

  /// Moves a device's clock forward by `duration`, firing every deadline on the way in order.
  ///
  /// The advance itself is not journaled (it is not a system event), so one long advance and
  /// many short ones leave identical journals.
  public func advanceClock(of device: String, by duration: Duration, now: Instant)
    throws(EngineError) -> EventOutcome
  {
    guard duration >= .zero, duration <= .seconds(Validation.maxAdvanceSeconds) else {
      throw .invalid([
        ValidationIssue(field: "seconds", message: "must be 0 to \(Validation.maxAdvanceSeconds)")
      ])
    }
    try checkMemoryBudget()
    return try withDevice(device, now: now) { device throws(EngineError) in
      // A device's clock, and so every time a snapshot shows, stays within ten years.
      guard device.now + duration <= Validation.latestInstant else {
        throw .invalid([
          ValidationIssue(
            field: "seconds",
            message: "would move the device's clock past \(Validation.maxAdvanceSeconds) s "
              + "(ten years), the latest it reaches; it is at \(device.now.seconds) s")
        ])
      }
      try device.checkCountsLeft()
      if let epoch = device.hostEpoch { device.hostEpoch = epoch - duration }
      return device.advance(to: device.now + duration)
    }
  }

  // MARK: Plumbing

  /// The device `id` names, if any.
  func findDevice(_ id: String) -> Device? {
    if let lastFound, lastFound.id == id { return lastFound }
    lastFound = devices[id]
    return lastFound
  }

  private func createDefaultDevice(now: Instant) {
    let defaults = configuration.deviceDefaults.configuration(id: Self.defaultDeviceID)
    // Its own rules and its profile's, as `detachedDevice` checks them.
    var issues = defaults.issues()
    _ = ResolvedProfile(defaults, in: configuration.profiles, issues: &issues)
    // An engine is never without its default device: defaults that make no valid one are the
    // caller's mistake, named here (the service checks its configuration's values first).
    precondition(
      issues.isEmpty,
      "the device defaults make no valid device: "
        + issues.map { "\($0.field) \($0.message)" }.joined(separator: "; "))
    // Cannot throw now: the defaults were just checked, the engine holds no device (a new one,
    // or after a reset), and a device made afresh is not refused for the budget.
    _ = try! createDevice(defaults, resetting: true, now: now)
  }

  /// Runs `body` on a device brought up to `now`, then re-files its next deadline.
  func withDevice<T>(
    _ id: String, now: Instant, _ body: (Device) throws(EngineError) -> T
  ) throws(EngineError) -> T {
    let device = try reach(id, now: now)
    defer {
      updateRealtimeDeadline(of: device)
      touch(device, at: now)
    }
    return try body(device)
  }

  /// The device `id`, with every deadline due by `now` fired (its own first brought up to it).
  func reach(_ id: String, now: Instant) throws(EngineError) -> Device {
    advance(to: now)
    guard let device = findDevice(id) else { throw .unknownDevice(id) }
    catchUp(device, to: now)
    return device
  }

  /// A request reached `device` at `now`: an idle timeout counts from then.
  func touch(_ device: Device, at now: Instant) {
    idleDeadlines.set(
      device.slot,
      to: device.configuration.idleTimeout.map { RealtimeOrder(time: now + $0, device: device.id) })
  }

  /// A scenario holds the device (`beginScenario`): its realtime deadlines wait, and its idle
  /// timeout does not remove it, until `release`.
  func hold(_ device: Device) {
    device.isHeldByScenario = true
    realtimeDeadlines.remove(device.slot)
  }

  /// The scenario that held the device has ended at `now`: its deadlines are filed again, and
  /// its idle timeout counts from then (if the engine still holds it).
  func release(_ device: Device, now: Instant) {
    device.isHeldByScenario = false
    guard findDevice(device.id) === device else { return }
    updateRealtimeDeadline(of: device)
    touch(device, at: now)
  }

  /// Puts `successor` in the place of `device`, which it was made to replace.
  func replace(_ device: Device, with successor: Device) {
    ledger.add(-device.ledger.bytes)
    devices[device.id] = successor
    slots.replace(successor.slot, with: successor)
    realtimeDeadlines.remove(successor.slot)  // the successor's clock may be manual
    updateRealtimeDeadline(of: successor)
    retire(device)
  }

  /// Fires a realtime device's deadlines due by `now` (host time); also between the events of
  /// a scenario, since an event may leave work due at once.
  func catchUp(_ device: Device, to now: Instant) {
    if let epoch = device.hostEpoch { _ = device.advance(to: .zero + (now - epoch)) }
  }

  func withApp<T>(
    _ name: String, on id: String, now: Instant, _ body: (Device, App) throws(EngineError) -> T
  ) throws(EngineError) -> T {
    try withDevice(id, now: now) { device throws(EngineError) in
      try body(device, try Self.app(name, on: device))
    }
  }

  func updateRealtimeDeadline(of device: Device) {
    guard let epoch = device.hostEpoch, !device.isHeldByScenario else { return }
    realtimeDeadlines.set(
      device.slot,
      to: device.nextDeadline.map {
        RealtimeOrder(time: epoch + ($0 - .zero), device: device.id)
      })
  }
}

/// What becomes of a scenario's events (`Engine.apply`).
public enum ScenarioMode: Sendable {
  /// Each event stays applied: a refused one ends the scenario after those before it.
  case inOrder
  /// All events or none: a refused one leaves the device as it was before the first.
  case atomic
  /// None: the outcomes say what the events would do, and the device does not change.
  case dryRun
}

/// Order of realtime deadlines across devices: host time, then device id.
struct RealtimeOrder: Comparable {
  let time: Instant
  let device: String

  static func < (lhs: RealtimeOrder, rhs: RealtimeOrder) -> Bool {
    (lhs.time, lhs.device) < (rhs.time, rhs.device)
  }
}

/// What the scheduler did on one device when a deadline fired.
public struct DeviceActivity: Hashable, Sendable {
  public var device: String
  public var outcome: EventOutcome
}

/// A device recreated from its image apart from any engine (`Engine.recreate`, on any thread):
/// nothing else holds it until an engine takes it in (`Engine.restore(_:now:)`), once, on the
/// engine's thread.
public struct RecreatedDevice: @unchecked Sendable {
  fileprivate let device: Device
  public var id: String { device.id }
  /// The device time of its image, from which a realtime device's clock goes on.
  fileprivate let imageNow: Instant
}
