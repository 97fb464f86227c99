/// An engine's apps: made, removed, read and sent events, on their devices.
extension Engine {
  /// Creates an app, not running, or with `given`, already in that state (`AppGiven`).
  public func createApp(
    _ spec: AppSpec, given: AppGiven? = nil, on device: String, now: Instant
  ) throws(EngineError) -> AppView {
    try withDevice(device, now: now) { device throws(EngineError) in
      let issues = spec.issues()
      if !issues.isEmpty { throw .invalid(issues) }
      if device.apps[AppName(spec.name)!] != nil {  // a valid name: `issues()` checked it
        throw .appExists(device: device.id, app: spec.name)
      }
      let limit = configuration.limits.maxAppsPerDevice
      if device.apps.count >= limit { throw .tooManyApps(device: device.id, limit: limit) }
      try checkMemoryBudget()
      guard let given else { return device.appView(of: device.add(spec)) }
      let givenIssues = device.add(spec, given: given)
      if !givenIssues.isEmpty { throw .invalid(givenIssues) }
      return device.appView(of: device.apps[AppName(spec.name)!]!)  // just added
    }
  }

  public func removeApp(_ name: String, on device: String, now: Instant) throws(EngineError) {
    try withApp(name, on: device, now: now) { device, app in device.remove(app) }
  }

  /// Apps on every device.
  public var appCount: Int { devices.values.reduce(0) { $0 + $1.apps.count } }

  /// Apps on one device, as the last call left it (adding or removing one makes no journal
  /// entry, so the device's version does not show it); nil if there is no such device.
  public func appCount(on device: String) -> Int? { findDevice(device)?.apps.count }

  public func app(_ name: String, on device: String, now: Instant) throws(EngineError)
    -> AppView
  {
    try withApp(name, on: device, now: now) { device, app in device.appView(of: app) }
  }

  /// The app's state at `now`, without the rest of its view (waits ask it after every change).
  public func state(ofApp name: String, on device: String, now: Instant) throws(EngineError)
    -> AppState
  {
    try withApp(name, on: device, now: now) { _, app in app.state }
  }

  /// The apps of a device in name order: those after `after`, at most `limit` of them.
  public func apps(on device: String, after: AppName? = nil, limit: Int = .max, now: Instant)
    throws(EngineError) -> [AppView]
  {
    try withDevice(device, now: now) { device in
      device.apps.sorted { $0.key < $1.key }.lazy
        .filter { app in after.map { app.key > $0 } ?? true }.prefix(limit)
        .map { device.appView(of: $0.value) }
    }
  }

  /// Posts an event to one app (`openapi.yaml`).
  public func apply(_ event: AppEvent, to app: String, on device: String, now: Instant)
    throws(EngineError) -> EventOutcome
  {
    var outcome = EventOutcome()
    try apply([event], to: app, on: device, now: now) { _, each in outcome = each }
    return outcome
  }

  /// Posts a scenario's events to one app in order (`openapi.yaml`), finding the device and
  /// the app once. `each` receives every event's outcome; a refused event throws, and `mode`
  /// says what becomes of the events before it.
  public func apply(
    _ events: [AppEvent], to app: String, on device: String, mode: ScenarioMode = .inOrder,
    now: Instant, each: (AppEvent, EventOutcome) -> Void
  ) throws(EngineError) {
    var run = try beginScenario(on: device, app: app, mode: mode, now: now)
    try complete(&run, now: now) { run throws(EngineError) in
      for event in events {
        try apply(event, in: &run, now: now) { outcome in each(event, outcome) }
      }
    }
  }

  /// The app `name` of `device`; `unknownApp` if it has none.
  static func app(_ name: String, on device: Device) throws(EngineError) -> App {
    guard let key = AppName(name), let app = device.apps[key] else {
      throw .unknownApp(device: device.id, app: name)
    }
    return app
  }
}
