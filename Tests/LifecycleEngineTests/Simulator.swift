@testable import LifecycleEngine

/// A test driver: one engine, one manual-clock device `d`, and terse ways to post events.
///
/// The host clock stays at zero, so only `advance(_:)` moves time: tests never sleep.
final class Simulator {
  let engine: Engine
  let device: String

  init(
    configuration: EngineConfiguration = EngineConfiguration(), device: String = "d",
    memoryLimitMB: Int? = nil, perAppLimitMB: Int? = nil, passcode: Bool? = nil,
    osVersion: String? = nil
  ) {
    engine = Engine(configuration: configuration, now: .zero)
    self.device = device
    _ = try! engine.createDevice(device) { configuration in
      configuration.clock = .manual
      if let osVersion { configuration.initialOSVersion = osVersion }
      if let memoryLimitMB { configuration.memoryLimitMB = memoryLimitMB }
      if let perAppLimitMB { configuration.perAppLimitMB = perAppLimitMB }
      if let passcode { configuration.passcode = passcode }
    }
  }

  @discardableResult
  func add(
    _ name: String, _ lifecycle: LifecycleModel = .scene, memoryMB: Int = 100,
    backgroundMemoryMB: Int? = nil, modes: Set<BackgroundMode> = [],
    behavior: AppBehavior = AppBehavior(), multipleScenes: Bool = false, sceneMemoryMB: Int = 0,
    permittedTasks: [String] = [], sdkVersion: Int = 26,
    metricKit: MetricKitInterface = .mxMetricManager
  ) -> AppView {
    try! engine.createApp(
      AppSpec(
        name: name, lifecycle: lifecycle, memoryMB: memoryMB,
        backgroundMemoryMB: backgroundMemoryMB, backgroundModes: modes, behavior: behavior,
        supportsMultipleScenes: multipleScenes, sceneMemoryMB: sceneMemoryMB,
        permittedTaskIdentifiers: permittedTasks, sdkVersion: sdkVersion, metricKit: metricKit),
      on: device, now: .zero)
  }

  @discardableResult
  func post(_ event: AppEvent, to app: String) throws(EngineError) -> EventOutcome {
    try engine.apply(event, to: app, on: device, now: .zero)
  }

  @discardableResult
  func post(_ event: DeviceEvent) throws(EngineError) -> EventOutcome {
    try engine.apply(event, on: device, now: .zero)
  }

  @discardableResult
  func advance(_ seconds: Double) -> EventOutcome {
    try! engine.advanceClock(of: device, by: .milliseconds(Int64(seconds * 1000)), now: .zero)
  }

  func app(_ name: String) -> AppView {
    try! engine.app(name, on: device, now: .zero)
  }

  func state(_ name: String) -> AppState { app(name).state }

  var deviceView: DeviceView { try! engine.device(device, now: .zero) }

  var now: Double { deviceView.now.seconds }

  var jetsam: [JetsamRecord] { try! engine.jetsamLog(of: device, now: .zero).kills }

  var journal: [JournalEntry] { try! engine.journal(of: device, now: .zero).entries }
}

/// One line per callback, as the reference writes sequences:
/// `method@scene → state/sceneState [notifications]` (scene parts only where they exist).
func trace(_ outcome: EventOutcome) -> [String] {
  trace(outcome.callbacks)
}

/// `trace` of a list of callbacks, e.g. those waiting for a busy app.
func trace(_ callbacks: [Callback]) -> [String] {
  callbacks.map { callback in
    var line = callback.method.rawValue
    if let scene = callback.scene { line += "@\(scene)" }
    line += " → \(callback.state.rawValue)"
    if let sceneState = callback.sceneState { line += "/\(sceneState.rawValue)" }
    if let taskId = callback.taskId { line += " task \(taskId)" }
    if !callback.notifications.isEmpty {
      line += " [\(callback.notifications.map(\.rawValue).joined(separator: ", "))]"
    }
    switch callback.arguments {
    case .launchOptions(let entry): line += " {options: \(describe(entry))}"
    case .connectionOptions(let entry, let data):
      line +=
        " {connection: \(entry.map(describe) ?? "-")\(data.map { ", restoring \($0)" } ?? "")}"
    case .entry(let entry): line += " {entry: \(describe(entry))}"
    case .restorationData(let data): line += " {data: \(data)}"
    case .sessions(let ids): line += " {sessions: \(ids.joined(separator: ", "))}"
    case .backgroundLaunchOptions(.remoteNotification(let payload)):
      line += " {options: push \(payload)}"
    case .backgroundLaunchOptions(.location): line += " {options: location}"
    case .userInfo(let payload): line += " {userInfo: \(payload)}"
    case .sessionIdentifier(let identifier): line += " {session: \(identifier)}"
    case .taskIdentifier(let identifier): line += " {task: \(identifier)}"
    case .metrics(let payloads): line += " {\(payloads.map(describe).joined(separator: "; "))}"
    case .diagnostics(let payloads):
      line += " {\(payloads.map(describe).joined(separator: "; "))}"
    case .metricReport(let payload): line += " {\(describe(payload))}"
    case .diagnosticReport(let crash):
      line += " {\(describe(crash)) \(crash.terminationCategory.map { "\($0)" } ?? "-")}"
    case nil: break
    }
    return line
  }
}

/// An entry in a trace: `url …`, `notification id/action [remote]`, `activity type url`,
/// `shortcut type`.
func describe(_ entry: Entry) -> String {
  switch entry {
  case .url(let url): "url \(url)"
  case .notification(let response):
    "notification \(response.identifier)/\(response.actionIdentifier)"
      + (response.isRemote ? " remote" : "")
  case .userActivity(let activity):
    "activity \(activity.activityType) \(activity.webpageURL ?? "-")"
  case .shortcutItem(let type): "shortcut \(type)"
  }
}

/// One line per transition: `app: from → to (cause)`, with a termination code where set.
func transitions(_ outcome: EventOutcome) -> [String] {
  outcome.transitions.map { transition in
    var line =
      "\(transition.app): \(transition.from.rawValue) → \(transition.to.rawValue) (\(transition.cause.name))"
    if let code = transition.terminationCode { line += " \(code.rawValue)" }
    return line
  }
}

/// The refusal `body` throws; nil if it succeeds or fails otherwise.
func refusal<T>(_ body: () throws -> T) -> Refusal? {
  guard case .refused(let refusal) = engineError(body) else { return nil }
  return refusal
}

/// The engine error `body` throws; nil if it succeeds.
func engineError<T>(_ body: () throws -> T) -> EngineError? {
  do {
    _ = try body()
    return nil
  } catch {
    return error as? EngineError
  }
}

/// The exit counts that are not 0, as `foreground normalApp 1, background memoryPressure 2`.
/// A day's payload: `0–86400 v1.0: foreground abnormal 1`.
func describe(_ payload: MetricPayload) -> String {
  "\(seconds(payload.begin))–\(seconds(payload.end)) v\(payload.latestApplicationVersion)"
    + (payload.includesMultipleApplicationVersions ? "+" : "") + ": \(describe(payload.exits))"
}

/// A crash report: `at 12 v1.0 Namespace RUNNINGBOARD, Code 0xdead10cc (signal 9)`.
func describe(_ payload: DiagnosticPayload) -> String {
  payload.crashDiagnostics.map { "at \(seconds(payload.begin)) \(describe($0))" }
    .joined(separator: ", ")
}

/// A crash: `v1.0 Namespace RUNNINGBOARD, Code 0xdead10cc (signal 9)`.
func describe(_ crash: CrashDiagnostic) -> String {
  "v\(crash.applicationVersion) \(crash.terminationReason) (signal \(crash.signal))"
}

/// Device time as whole seconds, or with its milliseconds.
private func seconds(_ instant: Instant) -> String {
  let milliseconds = instant.milliseconds
  return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
}

func describe(_ exits: ExitCounts) -> String {
  [true, false].flatMap { inForeground in
    ExitCategory.allCases.compactMap { category in
      let count = exits.count(of: category, inForeground: inForeground)
      return count == 0 ? nil : "\(inForeground ? "foreground" : "background") \(category) \(count)"
    }
  }.joined(separator: ", ")
}

extension Engine {
  /// Creates the device `id` as a client's declaration does: the engine's defaults for devices,
  /// with what `configure` changes.
  @discardableResult
  func createDevice(
    _ id: String, now: Instant = .zero, _ configure: (inout DeviceConfiguration) -> Void = { _ in }
  ) throws(EngineError) -> DeviceView {
    var device = configuration.deviceDefaults.configuration(id: id)
    configure(&device)
    return try createDevice(device, now: now)
  }
}
