/// One parameter of an app event: its name in the API and its value.
public struct EventParameter: Sendable {
  /// What a parameter is, which says how it is written, counted and checked.
  public enum Value: Sendable {
    /// A scene session's id: a name (`Validation.isValidName`).
    case sceneID(String)
    /// A background task's name, at most `Validation.maxTaskNameBytes`.
    case taskName(String)
    /// A background task's or background work's number.
    case taskID(Int)
    /// A footprint in megabytes, 0 to `Validation.maxMemoryMB`.
    case megabytes(Int)
    /// What the app's code saves as its state: JSON text (`Validation.isRestorationData`);
    /// nil for `null`.
    case restorationData(String?)
    case flag(Bool)
    /// One of a closed set of names (a reason, a source, an activity): its raw value.
    case choice(String)
    /// The way into the app, whose members stand beside the event's own (`url`, ...).
    case entry(Entry)
    /// A push's payload: a JSON object's text, at most `Validation.maxPushPayloadBytes`.
    case payload(String)
    /// A background `URLSession`'s identifier, at most `Validation.maxIdentifierBytes`.
    case sessionIdentifier(String)
    /// A `BGTaskScheduler` task identifier (`Validation.isIdentifier`).
    case taskIdentifier(String)
    /// A time on the device's clock.
    case instant(Instant)
    /// A battery level in percent (`Validation.batteryLevels`).
    case percent(Int)
    /// A whole number of something, within `range` (a capacity, a progress's units).
    case count(Int, range: ClosedRange<Int>)
    /// An app's name (`Validation.isValidName`).
    case appName(String)
    /// A version, an app's or the OS's (`Validation.isVersion`).
    case version(String)
  }

  public let name: StaticString
  public let value: Value
}

extension AppEvent {
  /// Calls `body` with each parameter the event carries, in the order the API writes them; an
  /// optional parameter that is absent is not passed. The one statement of what each event
  /// carries: the journal writes it, the memory ledger counts it and validation checks it from
  /// here, and the switch has no default, so a new event or parameter cannot be left out.
  public func forEachParameter(_ body: (EventParameter) -> Void) {
    func pass(_ name: StaticString, _ value: EventParameter.Value) {
      body(EventParameter(name: name, value: value))
    }
    switch self {
    case .launch(let entry, let scene), .openScene(let scene, let entry):
      if let scene { pass("scene", .sceneID(scene)) }
      if let entry { pass("entry", .entry(entry)) }
    case .closeScene(let scene), .disconnectScene(let scene):
      pass("scene", .sceneID(scene))
    case .interruptionBegan(let source): pass("source", .choice(source.rawValue))
    case .interruptionEnded(let outcome): pass("outcome", .choice(outcome.rawValue))
    case .crash(let atLaunch):
      if atLaunch { pass("atLaunch", .flag(true)) }
    case .purge(let reason): pass("reason", .choice(reason.rawValue))
    case .backgroundLaunch(let reason, let payload, let identifier):
      pass("reason", .choice(reason.rawValue))
      if let payload { pass("payload", .payload(payload)) }
      if let identifier { pass("identifier", .sessionIdentifier(identifier)) }
    case .beginBackgroundTask(let name):
      if let name { pass("name", .taskName(name)) }
    case .endBackgroundTask(let id): pass("id", .taskID(id))
    case .backgroundWorkCompleted(let id):
      if let id { pass("id", .taskID(id)) }
    case .setMemory(let megabytes): pass("memoryMB", .megabytes(megabytes))
    case .startActivity(let activity), .stopActivity(let activity):
      pass("activity", .choice(activity.rawValue))
    case .setRestorationData(let data, let scene):
      if let scene { pass("scene", .sceneID(scene)) }
      pass("data", .restorationData(data))
    case .submitTaskRequest(let request):
      pass("identifier", .taskIdentifier(request.identifier))
      pass("kind", .choice(request.kind.rawValue))
      if let date = request.earliestBeginDate { pass("earliestBeginDate", .instant(date)) }
      if request.requiresNetworkConnectivity { pass("requiresNetworkConnectivity", .flag(true)) }
      if request.requiresExternalPower { pass("requiresExternalPower", .flag(true)) }
      if let strategy = request.strategy { pass("strategy", .choice(strategy.rawValue)) }
    case .reportProgress(let identifier, let progress):
      pass("identifier", .taskIdentifier(identifier))
      pass("completedUnitCount", .count(progress.completedUnitCount, range: Validation.unitCounts))
      pass("totalUnitCount", .count(progress.totalUnitCount, range: Validation.unitCounts))
    case .cancelTaskRequest(let identifier), .launchTask(let identifier),
      .expireTask(let identifier):
      pass("identifier", .taskIdentifier(identifier))
    case .updateApp(let version, let build):
      pass("version", .version(version))
      if let build { pass("build", .version(build)) }
    case .prewarm, .home, .openSwitcher, .closeSwitcher, .terminate, .thermalKill, .memoryWarning,
      .attachDebugger, .detachDebugger, .reinstall:
      break
    }
  }
}

/// An event that lists its parameters (`AppEvent`, `DeviceEvent`): what validation, the
/// journal's writer and the memory ledger read.
public protocol ParameterizedEvent {
  var type: EventType { get }
  func forEachParameter(_ body: (EventParameter) -> Void)
}

extension AppEvent: ParameterizedEvent {}
extension DeviceEvent: ParameterizedEvent {}

/// Where an event's members come from. `AppEvent.init(_:reading:)` and
/// `DeviceEvent.init(_:reading:)` are the one statement of the members each event takes: they
/// ask the reader for each by its name, its kind (which carries its limits), its default and
/// what it means, in the order a result writes them. A request's and a snapshot's reader
/// (`Fields`) read them; `EventDeclaration` records them, and the contract's schemas and the
/// guide's tables are made from that record. A reader answers nil for a member that is absent
/// or malformed, and records why when it matters (a request body answers 422).
public protocol EventParameterReader {
  /// A scene session's id (the engine checks its pattern).
  mutating func sceneID(_ name: StaticString, required: Bool) -> String?
  /// A background task's name.
  mutating func taskName(_ name: StaticString) -> String?
  /// A background task's or background work's number: `.some(nil)` when it is absent and
  /// not `required`, nil if it is malformed or missing.
  mutating func taskID(_ name: StaticString, required: Bool) -> Int??
  /// A footprint in megabytes; required.
  mutating func megabytes(_ name: StaticString) -> Int?
  /// JSON text, `.some(nil)` for `null`; required.
  mutating func restorationData(_ name: StaticString) -> String??
  /// A flag that is absent unless given.
  mutating func flag(_ name: StaticString) -> Bool?
  /// A flag that stands for `defaultValue` when absent.
  mutating func flag(_ name: StaticString, default defaultValue: Bool) -> Bool
  mutating func requiredFlag(_ name: StaticString) -> Bool?
  /// One of `T`'s raw values.
  mutating func choice<T: EventChoice>(_ name: StaticString, _ type: T.Type, required: Bool) -> T?
  /// One of `T`'s raw values, `defaultValue` when absent.
  mutating func choice<T: EventChoice>(_ name: StaticString, default defaultValue: T) -> T
  /// The way into the app, whose members stand beside the event's own: `.some(nil)` without
  /// one, nil if it is malformed.
  mutating func entry() -> Entry??
  /// A push's payload, a JSON object, as compact text: `.some(nil)` without one, nil if it is
  /// malformed. One that `wakesApp` must be a background notification (`content-available`).
  mutating func payload(_ name: StaticString, wakesApp: Bool) -> String??
  /// A background `URLSession`'s identifier: `.some(nil)` without one, nil if it is malformed.
  mutating func sessionIdentifier(_ name: StaticString) -> String??
  /// A `BGTaskScheduler` task identifier; required.
  mutating func taskIdentifier(_ name: StaticString) -> String?
  /// A time on the device's clock, in seconds: `.some(nil)` without one, nil if it is
  /// malformed.
  mutating func deviceTime(_ name: StaticString) -> Instant??
  /// A battery level in percent.
  mutating func percent(_ name: StaticString) -> Int?
  /// A whole number within `range`: nil when it is absent or malformed.
  mutating func count(_ name: StaticString, in range: ClosedRange<Int>, required: Bool) -> Int?
  /// An app's name; required.
  mutating func appName(_ name: StaticString) -> String?
  /// A version: `.some(nil)` when it is absent and not `required`, nil if it is malformed or
  /// missing.
  mutating func version(_ name: StaticString, required: Bool) -> String??
  /// What the next member means, in the contract's words: its schema's description.
  mutating func describe(_ text: String)
}

extension EventParameterReader {
  /// Words are for the contract: a request's or a snapshot's reader has no use for them.
  public mutating func describe(_ text: String) {}
}

/// A closed set of words an event takes (a reason, a source, a policy), read by its type: a
/// type an event reads without this conformance does not compile.
public protocol EventChoice: RawRepresentable<String>, CaseIterable, Sendable {
  /// Whether the contract declares the words as a schema of the type's name, which other
  /// schemas share; otherwise each event's member lists them.
  static var isContractSchema: Bool { get }
}

extension EventChoice {
  public static var isContractSchema: Bool { false }
}

extension InterruptionSource: EventChoice {}
extension InterruptionOutcome: EventChoice {}
extension PushKind: EventChoice {}
extension JetsamReason: EventChoice { public static var isContractSchema: Bool { true } }
extension BackgroundLaunchReason: EventChoice { public static var isContractSchema: Bool { true } }
extension BackgroundActivity: EventChoice { public static var isContractSchema: Bool { true } }
extension TaskKind: EventChoice { public static var isContractSchema: Bool { true } }
extension SubmissionStrategy: EventChoice { public static var isContractSchema: Bool { true } }
extension NetworkStatus: EventChoice { public static var isContractSchema: Bool { true } }
extension TaskSchedulingPolicy: EventChoice { public static var isContractSchema: Bool { true } }

extension AppEvent {
  /// The event of `type` with the members `reader` gives, each under the name
  /// `forEachParameter` passes it with; nil if a required one is missing or `type` is a device
  /// event's. The one statement of the members each app event takes (`EventParameterReader`);
  /// the switch has no default: a new event type must say what it reads.
  public init?(_ type: EventType, reading reader: inout some EventParameterReader) {
    switch type {
    case .launch:
      reader.describe(
        """
        A scene app: the session to show (one the app has); without it, the one it showed \
        last. Another window of the same app in the foreground leaves first, as another app \
        does.
        """)
      let scene = reader.sceneID("scene", required: false)
      guard let entry = reader.entry() else { return nil }
      self = .launch(via: entry, scene: scene)
    case .openScene:
      let scene = reader.sceneID("scene", required: false)
      guard let entry = reader.entry() else { return nil }
      self = .openScene(id: scene, via: entry)
    case .closeScene:
      guard let scene = reader.sceneID("scene", required: true) else { return nil }
      self = .closeScene(scene)
    case .disconnectScene:
      guard let scene = reader.sceneID("scene", required: true) else { return nil }
      self = .disconnectScene(scene)
    case .interruptionBegan:
      guard let source = reader.choice("source", InterruptionSource.self, required: true)
      else { return nil }
      self = .interruptionBegan(source)
    case .interruptionEnded:
      self = .interruptionEnded(reader.choice("outcome", default: InterruptionOutcome.resumed))
    case .crash:
      reader.describe(
        """
        The crash happened during the app's launch: UIKit also drops the state it preserved \
        (the app's, and every session's stateRestorationActivity).
        """)
      self = .crash(atLaunch: reader.flag("atLaunch", default: false))
    case .purge:
      self = .purge(reader.choice("reason", default: JetsamReason.vmPageshortage))
    case .backgroundLaunch:
      let reason = reader.choice("reason", BackgroundLaunchReason.self, required: true)
      reader.describe(
        """
        remoteNotification only: the push, handed to the app as the userInfo of \
        application(_:didReceiveRemoteNotification:fetchCompletionHandler:) (and in the launch \
        options of an app-delegate app's launch). Its aps must carry content-available 1 (422 \
        otherwise). Default: {"aps": {"content-available": 1}}.
        """)
      let payload = reader.payload("payload", wakesApp: true)
      reader.describe(
        """
        urlSession only: the identifier of the background URLSession whose events are done, \
        handed to application(_:handleEventsForBackgroundURLSession:completionHandler:), which \
        always receives one: without it, APP.background-session (the app's name), which the \
        journal records.
        """)
      let identifier = reader.sessionIdentifier("identifier")
      guard let reason, let payload, let identifier else { return nil }
      self = .backgroundLaunch(reason, payload: payload, sessionIdentifier: identifier)
    case .beginBackgroundTask: self = .beginBackgroundTask(name: reader.taskName("name"))
    case .endBackgroundTask:
      guard let id = reader.taskID("id", required: true) ?? nil else { return nil }
      self = .endBackgroundTask(id: id)
    case .backgroundWorkCompleted:
      guard let id = reader.taskID("id", required: false) else { return nil }
      self = .backgroundWorkCompleted(id: id)
    case .setMemory:
      guard let megabytes = reader.megabytes("memoryMB") else { return nil }
      self = .setMemory(memoryMB: megabytes)
    case .startActivity, .stopActivity:
      guard let activity = reader.choice("activity", BackgroundActivity.self, required: true)
      else { return nil }
      self = type == .startActivity ? .startActivity(activity) : .stopActivity(activity)
    case .setRestorationData:
      reader.describe(
        "A scene app: the connected scene whose data it is; without it, the focused one.")
      let scene = reader.sceneID("scene", required: false)
      reader.describe(
        "Any JSON value, at most 4096 bytes written compactly and nested at most 32 deep; "
          + "null saves nothing.")
      guard let data = reader.restorationData("data") else { return nil }
      self = .setRestorationData(data, scene: scene)
    case .submitTaskRequest:
      let identifier = reader.taskIdentifier("identifier")
      let kind = reader.choice("kind", TaskKind.self, required: true)
      reader.describe("BGTaskRequest.earliestBeginDate, in device time.")
      let date = reader.deviceTime("earliestBeginDate")
      reader.describe("processing only.")
      let network = reader.flag("requiresNetworkConnectivity", default: false)
      reader.describe("processing only.")
      let power = reader.flag("requiresExternalPower", default: false)
      reader.describe(
        """
        continuedProcessing only (BGContinuedProcessingTaskRequest.strategy): with no room to \
        run the task at once, queue it, or fail the submission.
        """)
      let strategy = reader.choice("strategy", SubmissionStrategy.self, required: false)
      guard let identifier, let kind, let date else { return nil }
      self = .submitTaskRequest(
        TaskRequest(
          identifier: identifier, kind: kind, earliestBeginDate: date,
          requiresNetworkConnectivity: network, requiresExternalPower: power,
          strategy: strategy))
    case .cancelTaskRequest:
      guard let identifier = reader.taskIdentifier("identifier") else { return nil }
      self = .cancelTaskRequest(identifier: identifier)
    case .launchTask:
      guard let identifier = reader.taskIdentifier("identifier") else { return nil }
      self = .launchTask(identifier: identifier)
    case .expireTask:
      guard let identifier = reader.taskIdentifier("identifier") else { return nil }
      self = .expireTask(identifier: identifier)
    case .reportProgress:
      let identifier = reader.taskIdentifier("identifier")
      reader.describe("Progress.completedUnitCount: at most totalUnitCount.")
      let completed = reader.count("completedUnitCount", in: Validation.unitCounts, required: true)
      reader.describe("Progress.totalUnitCount.")
      let total = reader.count("totalUnitCount", in: Validation.unitCounts, required: true)
      guard let identifier, let completed, let total else { return nil }
      self = .reportProgress(
        identifier: identifier,
        TaskProgress(completedUnitCount: completed, totalUnitCount: total))
    case .prewarm: self = .prewarm
    case .home: self = .home
    case .openSwitcher: self = .openSwitcher
    case .closeSwitcher: self = .closeSwitcher
    case .terminate: self = .terminate
    case .thermalKill: self = .thermalKill
    case .memoryWarning: self = .memoryWarning
    case .attachDebugger: self = .attachDebugger
    case .detachDebugger: self = .detachDebugger
    case .updateApp:
      reader.describe("CFBundleShortVersionString.")
      let version = reader.version("version", required: true)
      reader.describe("CFBundleVersion; without it, the build it has.")
      let build = reader.version("build", required: false)
      guard let version = version ?? nil, let build else { return nil }
      self = .updateApp(version: version, build: build)
    case .reinstall: self = .reinstall
    case .lock, .unlock, .significantTimeChange, .shutdown, .boot, .setConditions,
      .setBackgroundAppRefresh, .push, .deliverMetrics, .updateOS:
      return nil
    }
  }
}

extension DeviceEvent {
  /// Calls `body` with each parameter the event carries, in the order the API writes them
  /// (as `AppEvent.forEachParameter` does).
  public func forEachParameter(_ body: (EventParameter) -> Void) {
    func pass(_ name: StaticString, _ value: EventParameter.Value) {
      body(EventParameter(name: name, value: value))
    }
    switch self {
    case .setConditions(let change):
      if let level = change.batteryLevel { pass("batteryLevel", .percent(level)) }
      if let charging = change.charging { pass("charging", .flag(charging)) }
      if let lowPowerMode = change.lowPowerMode { pass("lowPowerMode", .flag(lowPowerMode)) }
      if let network = change.network { pass("network", .choice(network.rawValue)) }
      if let refresh = change.backgroundAppRefresh { pass("backgroundAppRefresh", .flag(refresh)) }
      if let policy = change.taskScheduling { pass("taskScheduling", .choice(policy.rawValue)) }
      if let capacity = change.continuedProcessingCapacity {
        pass(
          "continuedProcessingCapacity",
          .count(capacity, range: Validation.continuedProcessingCapacities))
      }
    case .setBackgroundAppRefresh(let app, let enabled):
      pass("app", .appName(app))
      pass("enabled", .flag(enabled))
    case .push(let app, let kind, let payload):
      pass("app", .appName(app))
      pass("pushType", .choice(kind.rawValue))
      if let payload { pass("payload", .payload(payload)) }
    case .updateOS(let version): pass("version", .version(version))
    case .home, .memoryWarning, .lock, .unlock, .significantTimeChange, .shutdown, .boot,
      .deliverMetrics:
      break
    }
  }

  /// The event of `kind` with the members `reader` gives; nil if a required one is missing.
  /// The one statement of the members each device event takes, as `AppEvent`'s; the switch
  /// has no default.
  public init?(_ kind: Kind, reading reader: inout some EventParameterReader) {
    switch kind {
    case .home: self = .home
    case .memoryWarning: self = .memoryWarning
    case .lock: self = .lock
    case .unlock: self = .unlock
    case .significantTimeChange: self = .significantTimeChange
    case .deliverMetrics: self = .deliverMetrics
    case .shutdown: self = .shutdown
    case .boot: self = .boot
    case .setConditions:
      let batteryLevel = reader.percent("batteryLevel")
      let charging = reader.flag("charging")
      let lowPowerMode = reader.flag("lowPowerMode")
      let network = reader.choice("network", NetworkStatus.self, required: false)
      reader.describe("The device's Background App Refresh switch.")
      let backgroundAppRefresh = reader.flag("backgroundAppRefresh")
      let taskScheduling = reader.choice(
        "taskScheduling", TaskSchedulingPolicy.self, required: false)
      reader.describe(
        """
        How many continued-processing tasks the system runs at once: lowered below the tasks \
        running, it stops those with the least progress.
        """)
      let capacity = reader.count(
        "continuedProcessingCapacity", in: Validation.continuedProcessingCapacities,
        required: false)
      self = .setConditions(
        ConditionsChange(
          batteryLevel: batteryLevel, charging: charging, lowPowerMode: lowPowerMode,
          network: network, backgroundAppRefresh: backgroundAppRefresh,
          taskScheduling: taskScheduling, continuedProcessingCapacity: capacity))
    case .setBackgroundAppRefresh:
      let app = reader.appName("app")
      guard let enabled = reader.requiredFlag("enabled"), let app else { return nil }
      self = .setBackgroundAppRefresh(app: app, enabled: enabled)
    case .push:
      let app = reader.appName("app")
      let kind = reader.choice("pushType", default: PushKind.background)
      reader.describe(
        """
        Default: {"aps": {"content-available": 1}} for background, {"aps": {"alert": "New \
        message"}} for alert. A background push's aps must carry content-available 1, or there \
        is nothing to wake the app for (422; "Pushing background updates to your App").
        """)
      let payload = reader.payload("payload", wakesApp: kind == .background)
      guard let payload, let app else { return nil }
      self = .push(app: app, kind, payload: payload)
    case .updateOS:
      guard let version = reader.version("version", required: true) ?? nil else { return nil }
      self = .updateOS(version: version)
    }
  }
}
