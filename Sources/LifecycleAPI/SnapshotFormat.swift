import JSONCore
import LifecycleEngine

/// The snapshot document (`openapi.yaml`, `DeviceSnapshotDocument`): a `DeviceImage` as JSON,
/// written by `GET /v1/devices/{device}/snapshot` and read back by `PUT /v1/devices/{device}`.
///
/// A member with no value is left out (a generated client reads an absent member as nil; a
/// `null` would need a schema most generators cannot read); reading is as strict as any
/// request body (types, ranges, names, no unknown member, no `null`). The engine then checks
/// that a device could be in the state it describes.
///
/// Earlier versions are still read. Version 2 wrote every member, `null` when it had no value:
/// its nulls read as absent. Version 1's scene apps had one scene (`hasSceneSession`, a
/// process's `sceneState`): their one session is `main`, holding the restoration data the app
/// held. Versions 1 to 3 held at most one piece of background work, an object without an id:
/// it gets the app's next task id.
enum SnapshotFormat {
  static let format = "lifecycled-device-snapshot"
  static let version = 4
  static let readableVersions = 1...version
  /// The last version that wrote `null` for a member with no value.
  static let lastVersionWithNulls = 2
  /// The last version whose `backgroundWork` was one object, without an id.
  static let lastVersionWithOneWork = 3
  /// The longest device clock a snapshot may show, in seconds: ten years of advances.
  static let maxSeconds = Validation.maxAdvanceSeconds
  /// The largest `seq` or counter a snapshot may hold: far from overflow.
  static let maxCount = 1 << 52
  /// What a snapshot's device has for a member it leaves out: none for the clock and budgets,
  /// which are required, and no passcode when it names none.
  static let omittedDeviceMembers = {
    var defaults = DeviceDefaults()
    defaults.passcode = false
    return defaults
  }()
  /// The most elements an array of a snapshot may hold (the engine's limits are lower; this
  /// bounds the work of reading one before they are checked).
  static let maxElements = 100_000

  // MARK: Reading

  /// The image a snapshot's fields show, its device's id `id` if they leave it out (else the
  /// id is required); nil, with the issues in `fields`, if they are not a valid snapshot
  /// (members left unread are for the caller to check).
  static func image(_ fields: inout Fields, id: String? = nil) -> DeviceImage? {
    fields.nullIsAbsent = true
    if fields.string("format", required: true, maxBytes: 64).map({ $0 != format }) == true {
      fields.reject("format", "must be \(format)")
    }
    let version = fields.integer("version", in: 0...Int.max, required: true) ?? version
    if !readableVersions.contains(version) {
      fields.reject(
        "version",
        "must be \(readableVersions.lowerBound) to \(readableVersions.upperBound), the versions "
          + "this server reads")
    }
    fields.nullIsAbsent = version <= lastVersionWithNulls
    var spec: DeviceSpec?
    if var device = fields.object("device", required: true) {
      spec = Decode.device(&device, id: id, complete: true)
      fields.merge(device)
    }
    var status = DeviceStatus()
    status.now = fields.instant("now", required: true) ?? .zero
    let seq = fields.integer("seq", in: 0...maxCount, required: true) ?? 0
    status.poweredOn = fields.bool("poweredOn") ?? true
    status.locked = fields.bool("locked") ?? false
    status.protectedDataAvailable = fields.bool("protectedDataAvailable") ?? true
    status.protectedDataLocksAt = fields.instant("protectedDataLocksAt")
    status.foregroundApp = fields.appName("foregroundApp")
    status.appBeforeLock = fields.appName("appBeforeLock")
    status.underPressure = fields.bool("memoryPressure") ?? false
    status.warningGraceEndsAt = fields.instant("warningGraceEndsAt")
    if var details = fields.object("conditions") {
      var conditions = BackgroundConditions()  // a member left out keeps its default
      conditions.batteryLevel =
        details.integer("batteryLevel", in: 0...100) ?? conditions.batteryLevel
      conditions.charging = details.bool("charging") ?? conditions.charging
      conditions.lowPowerMode = details.bool("lowPowerMode") ?? conditions.lowPowerMode
      conditions.network = details.choice("network") ?? conditions.network
      conditions.backgroundAppRefresh =
        details.bool("backgroundAppRefresh") ?? conditions.backgroundAppRefresh
      conditions.taskScheduling = details.choice("taskScheduling") ?? conditions.taskScheduling
      status.conditions = conditions
      fields.merge(details)
    }
    if var details = fields.object("counters") {
      status.counters = DeviceCounters(
        events: details.integer("events", in: 0...maxCount) ?? 0,
        callbacks: details.integer("callbacks", in: 0...maxCount) ?? 0,
        transitions: details.integer("transitions", in: 0...maxCount) ?? 0,
        kills: details.integer("kills", in: 0...maxCount) ?? 0)
      fields.merge(details)
    }
    let apps = fields.array("apps", maxCount: maxElements, required: true) {
      app(&$0, version: version)
    }
    fields.refuse(
      "journal",
      "is not restored: a restored device starts a new journal after seq; take the snapshot "
        + "without ?journal=true")
    guard fields.issues.isEmpty, let spec else { return nil }
    return DeviceImage(
      spec.configuration(defaults: omittedDeviceMembers), seq: seq, status: status, apps: apps ?? []
    )
  }

  private static func app(_ fields: inout Fields, version: Int) -> AppImage? {
    let spec = Decode.app(&fields)
    let name = AppName(spec.name) ?? "-"
    var process: ProcessImage?
    var sceneState: SceneState?
    if var details = fields.object("process") {
      if version == 1 { sceneState = details.choice("sceneState") }
      process = Self.process(of: name, &details, version: version)
      fields.merge(details)
    }
    var record = AppRecord()
    record.launches = fields.integer("launches", in: 0...maxCount) ?? 0
    record.kills = fields.integer("kills", in: 0...maxCount) ?? 0
    record.pendingExits = fields.exitCounts("pendingExits") ?? ExitCounts()
    record.lastUsed = fields.instant("lastUsed") ?? .zero
    record.nextTaskID = fields.integer("nextTaskId", in: 1...maxCount) ?? 1
    record.taskRequests =
      fields.array("taskRequests", maxCount: maxElements) { taskRequest(&$0) } ?? []
    record.backgroundLaunchBlocked = fields.bool("backgroundLaunchBlocked") ?? false
    record.backgroundAppRefresh = fields.bool("backgroundAppRefresh") ?? true
    record.recentPushes =
      fields.secondsArray("recentPushes", maxCount: maxElements, max: maxSeconds)?.map {
        .zero + $0
      } ?? []
    record.restorationStateSaved = fields.bool("restorationStateSaved") ?? false
    record.savedRestorationData = fields.encodedValue("savedRestorationData")
    record.sessions =
      fields.array("scenes", maxCount: Validation.maxScenesPerApp) { session in
        guard let id = session.string("id", required: true, maxBytes: Validation.maxNameBytes)
        else { return nil }
        return SceneSession(
          id: id, state: session.choice("state") ?? .unattached,
          restorationData: session.encodedValue("restorationData"),
          savedRestorationData: session.encodedValue("savedRestorationData"))
      } ?? []
    record.focusedScene = fields.string("focusedScene", maxBytes: Validation.maxNameBytes)
    record.discardedScenes =
      fields.strings(
        "discardedScenes", maxCount: Validation.maxScenesPerApp, maxBytes: Validation.maxNameBytes)
      ?? []
    if var details = fields.object("lastTermination") {
      record.lastTermination = termination(&details)
      fields.merge(details)
    }
    if version <= lastVersionWithOneWork, let work = process?.backgroundWork.first {
      process?.backgroundWork = [
        BackgroundWork(
          id: record.nextTaskID, reason: work.reason, deadline: work.deadline,
          expiredAt: work.expiredAt)
      ]
      record.nextTaskID += 1
    }
    var image = AppImage(spec: spec, record: record, process: process)
    if version == 1 { upgradeVersion1(&image, &fields, sceneState: sceneState) }
    return image
  }

  /// A version 1 snapshot's scene app had one scene: its state in the process's
  /// `sceneState`, its restoration data at the app's level. They become the session `main`.
  private static func upgradeVersion1(
    _ image: inout AppImage, _ fields: inout Fields, sceneState: SceneState?
  ) {
    let hasSession = fields.bool("hasSceneSession") ?? false
    let discarded = fields.bool("discardedSceneSessionPending") ?? false
    guard image.spec.lifecycle == .scene else { return }
    if hasSession {
      image.record.sessions = [
        SceneSession(
          id: "main", state: sceneState ?? .unattached,
          restorationData: image.process?.restorationData,
          savedRestorationData: image.record.savedRestorationData)
      ]
      image.record.focusedScene = "main"
    }
    if discarded { image.record.discardedScenes = ["main"] }
    image.record.savedRestorationData = nil
    image.process?.restorationData = nil
  }

  private static func process(of app: AppName, _ fields: inout Fields, version: Int)
    -> ProcessImage
  {
    var inactiveCause: InactiveCause?
    if let cause = fields.string("inactiveCause", maxBytes: 32) {
      if cause == "switcher" {
        inactiveCause = .switcher
      } else if let source = InterruptionSource(rawValue: cause) {
        inactiveCause = .interruption(source)
      } else {
        fields.reject(
          "inactiveCause",
          "must be switcher or an interruption source: "
            + InterruptionSource.allCases.map(\.rawValue).joined(separator: ", "))
      }
    }
    var process = ProcessImage(
      state: fields.choice("state", required: true) ?? .notRunning,
      memoryMB: fields.integer("memoryMB", in: 0...Validation.maxMemoryMB, required: true) ?? 0,
      backgroundMemoryMB: fields.integer(
        "backgroundMemoryMB", in: 0...Validation.maxMemoryMB, required: true) ?? 0)
    process.inactiveCause = inactiveCause
    process.backgroundSince = fields.instant("backgroundSince")
    process.busyUntil = fields.instant("busyUntil")
    process.watchdogKillAt = fields.instant("watchdogKillAt")
    process.waitingCallbacks =
      fields.array("waitingCallbacks", maxCount: maxElements) { waitingCallback(of: app, &$0) }
      ?? []
    process.tasks =
      fields.array("backgroundTasks", maxCount: maxElements) { task in
        guard let id = task.integer("id", in: 1...maxCount, required: true) else { return nil }
        return BackgroundTask(
          id: id, name: task.string("name", maxBytes: Validation.maxTaskNameBytes),
          expiredAt: task.instant("expiredAt"))
      } ?? []
    if version <= lastVersionWithOneWork {
      if var details = fields.object("backgroundWork") {
        process.backgroundWork = backgroundWork(&details, id: 0).map { [$0] } ?? []
        fields.merge(details)
      }
    } else {
      process.backgroundWork =
        fields.array("backgroundWork", maxCount: maxElements) { work in
          work.integer("id", in: 1...maxCount, required: true).flatMap {
            backgroundWork(&work, id: $0)
          }
        } ?? []
    }
    process.activities = Set(fields.choices("activities", BackgroundActivity.self) ?? [])
    process.significantTimeChangePending = fields.bool("significantTimeChangePending") ?? false
    process.protectedDataAvailable = fields.bool("protectedDataAvailable") ?? true
    process.suspendAt = fields.instant("suspendAt")
    process.restorationData = fields.encodedValue("restorationData")
    process.prewarmed = fields.bool("prewarmed") ?? false
    return process
  }

  /// A pending task request, as `JSONWriter.taskRequest` writes it.
  private static func taskRequest(_ fields: inout Fields) -> TaskRequest? {
    let identifier = fields.string(
      "identifier", required: true, maxBytes: Validation.maxIdentifierBytes)
    let kind = fields.choice("kind", TaskKind.self, required: true)
    guard let identifier, let kind else { return nil }
    return TaskRequest(
      identifier: identifier, kind: kind, earliestBeginDate: fields.instant("earliestBeginDate"),
      requiresNetworkConnectivity: fields.bool("requiresNetworkConnectivity") ?? false,
      requiresExternalPower: fields.bool("requiresExternalPower") ?? false)
  }

  /// Background work numbered `id`, as `JSONWriter.snapshotProcess` writes it.
  private static func backgroundWork(_ fields: inout Fields, id: Int) -> BackgroundWork? {
    let identifier = fields.string("identifier", maxBytes: Validation.maxIdentifierBytes)
    guard let reason = fields.choice("reason", BackgroundLaunchReason.self, required: true),
      let deadline = fields.instant("deadline", required: true)
    else { return nil }
    return BackgroundWork(
      id: id, reason: reason, identifier: identifier, deadline: deadline,
      expiredAt: fields.instant("expiredAt"))
  }

  /// How a process ended, as `JSONWriter.termination` writes it.
  private static func termination(_ fields: inout Fields) -> Termination? {
    let cause = fields.transitionCause()
    let code = fields.choice("terminationCode", TerminationCode.self)
    let time = fields.instant("time", required: true)
    let state = fields.choice("state", AppState.self, required: true)
    guard let cause, let time, let state else { return nil }
    return Termination(cause: cause, terminationCode: code, time: time, state: state)
  }

  private static func waitingCallback(of app: AppName, _ fields: inout Fields) -> WaitingCallback? {
    let method = fields.choice("method", CallbackMethod.self, required: true)
    let state = fields.choice("state", AppState.self, required: true)
    let aggregate = fields.choice("notification", UIKitNotification.self)
    let scene = fields.string("scene", maxBytes: Validation.maxNameBytes)
    let sceneState = fields.choice("sceneState", SceneState.self)
    let taskId = fields.integer("taskId", in: 1...maxCount)
    let cause = fields.transitionCause()
    var arguments: CallbackArguments?? = .some(nil)
    if var details = fields.object("arguments") {
      arguments = details.callbackArguments()
      fields.merge(details)
    }
    guard let method, let state, let cause, let arguments else { return nil }
    return WaitingCallback(
      callback: Callback(
        waitingFor: app, method: method, aggregateNotification: aggregate, state: state,
        scene: scene, sceneState: sceneState, taskId: taskId, arguments: arguments),
      cause: cause)
  }
}

extension Fields {
  /// A device time in seconds, to the millisecond.
  mutating func instant(_ key: StaticString, required: Bool = false) -> Instant? {
    seconds(key, max: SnapshotFormat.maxSeconds, required: required).map { .zero + $0 }
  }

  /// A transition's cause, `cause` and for jetsam its `jetsamReason`, as
  /// `JSONWriter.members(of:)` writes it.
  mutating func transitionCause() -> TransitionCause? {
    let name = string("cause", required: true, maxBytes: 64)
    let reason = choice("jetsamReason", JetsamReason.self)
    guard let name else { return nil }
    guard let cause = TransitionCause(name: name, jetsamReason: reason) else {
      reject("cause", "must be a transition cause (jetsam with its jetsamReason)")
      return nil
    }
    return cause
  }

  /// An app's name.
  mutating func appName(_ key: StaticString) -> AppName? {
    guard let text = string(key, maxBytes: Validation.maxNameBytes) else { return nil }
    guard Validation.isValidName(text), let name = AppName(text) else {
      reject(key, "must match \(Validation.namePattern)")
      return nil
    }
    return name
  }
}

extension Fields {
  /// Nil if malformed (the problem is recorded).
  fileprivate mutating func callbackArguments() -> CallbackArguments?? {
    let kind = string("kind", required: true, maxBytes: 32)
    if kind == "exitMetrics" { return exitCounts("exits").map(CallbackArguments.exitMetrics) }
    let data = encodedValue("restorationData")
    let sessions = strings(
      "sessions", maxCount: Validation.maxScenesPerApp, maxBytes: Validation.maxNameBytes)
    let payload = self.payload("payload", wakesApp: false)  // as delivered: checked when posted
    let identifier = sessionIdentifier("identifier")
    guard let entry = entry(), let kind, let payload, let identifier else { return nil }
    if kind == "sessions", entry == nil, data == nil, let sessions { return .sessions(sessions) }
    switch (kind, payload, identifier) {
    case ("pushLaunchOptions", let payload?, nil):
      return .backgroundLaunchOptions(.remoteNotification(payload: payload))
    case ("locationLaunchOptions", nil, nil): return .backgroundLaunchOptions(.location)
    case ("userInfo", let payload?, nil): return .userInfo(payload)
    case ("sessionIdentifier", nil, let identifier?): return .sessionIdentifier(identifier)
    case ("taskIdentifier", nil, let identifier?): return .taskIdentifier(identifier)
    default: break
    }
    switch (kind, entry, data) {
    case ("launchOptions", let entry?, nil): return .launchOptions(entry)
    case ("connectionOptions", _, _): return .connecting(with: entry, restorationData: data)
    case ("entry", let entry?, nil): return .entry(entry)
    case ("restorationData", nil, let data?): return .restorationData(data)
    default:
      reject(
        "kind",
        "must be launchOptions or entry with an entry, restorationData with restorationData, "
          + "sessions with sessions, pushLaunchOptions or userInfo with a payload, "
          + "sessionIdentifier or taskIdentifier with an identifier, exitMetrics with exits, "
          + "locationLaunchOptions or connectionOptions")
      return nil
    }
  }
}
