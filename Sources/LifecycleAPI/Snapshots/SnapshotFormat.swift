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
/// it gets the app's next task id. Versions 1 to 4 timed only didEnterBackground: a pending
/// watchdog kill is the enter-background transition's. Versions 1 to 5 handed MetricKit's
/// waiting delivery its exits alone (`exitMetrics`): they read as one payload, of time 0.
/// Versions 1 to 6 had no device profiles: their device is the default model, on the release
/// the document's `osVersion` names, its budgets the ones it gives.
enum SnapshotFormat {
  static let format = "lifecycled-device-snapshot"
  static let version = 7
  static let readableVersions = 1...version
  /// The last version that wrote `null` for a member with no value.
  static let lastVersionWithNulls = 2
  /// The last version whose `backgroundWork` was one object, without an id.
  static let lastVersionWithOneWork = 3
  /// The last version whose watchdog timed only didEnterBackground.
  static let lastVersionWithOneWatchdog = 4
  /// The last version whose waiting MetricKit delivery held exits alone.
  static let lastVersionWithExitsAlone = 5
  /// The last version whose devices had no model and release: they are the default model,
  /// on the release the document names, with the budgets they give.
  static let lastVersionWithoutProfiles = 6
  /// The longest device clock a snapshot may show, in seconds: ten years of advances.
  static let maxSeconds = Validation.maxAdvanceSeconds
  /// The largest `seq` or counter a snapshot may hold.
  static let maxCount = Validation.maxCount
  /// What a snapshot's device has for a member it leaves out: none for the clock, model and
  /// release, which are required, the model's limits, and no passcode when it names none.
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
    var configuration: DeviceConfiguration?
    if var device = fields.object("device", required: true) {
      configuration = Decode.device(
        &device, id: id, defaults: omittedDeviceMembers, complete: true, version: version)
      fields.merge(device)
    }
    var image = DeviceImage(unread)
    fields.read(&image, SnapshotReading(version: version))
    fields.refuse(
      "journal",
      "is not restored: a restored device starts a new journal after seq; take the snapshot "
        + "without ?journal=true")
    guard fields.issues.isEmpty, var configuration else { return nil }
    if version <= lastVersionWithoutProfiles {
      configuration.initialOSVersion = image.status.osVersion
    }
    image.configuration = configuration
    return image
  }

  /// The configuration an image has while its members are read: its own, once they are valid.
  private static let unread = DeviceConfiguration(
    id: "-", clock: .manual, memoryLimitMB: 1, perAppLimitMB: 1, passcode: false)

  /// An app: its configuration as a request creates one, what the system keeps of it, and its
  /// process if it runs.
  static func app(_ fields: inout Fields, version: Int) -> AppImage? {
    var image = AppImage(spec: Decode.app(&fields))
    var reading = SnapshotReading(version: version)
    reading.app = AppName(image.spec.name) ?? "-"
    var sceneState: SceneState?
    image.process = fields.nested("process") { details in
      if version == 1 { sceneState = details.choice("sceneState") }
      var process = ProcessImage(state: .notRunning, memoryMB: 0, backgroundMemoryMB: 0)
      details.read(&process, reading)
      return process
    }
    fields.read(&image.record, reading)
    if version <= lastVersionWithOneWork, let work = image.process?.backgroundWork.first {
      image.process?.backgroundWork = [
        BackgroundWork(
          id: image.record.nextTaskID, reason: work.reason, deadline: work.deadline,
          expiredAt: work.expiredAt)
      ]
      image.record.nextTaskID += 1
    }
    if version <= lastVersionWithOneWatchdog, image.process?.watchdogKillAt != nil {
      image.process?.watchdogTransition = .enterBackground
    }
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

  /// A background task the app began.
  static func task(_ fields: inout Fields) -> BackgroundTask? {
    guard let id = fields.integer("id", in: 1...maxCount, required: true) else { return nil }
    return BackgroundTask(
      id: id, name: fields.string("name", maxBytes: Validation.maxTaskNameBytes),
      expiredAt: fields.instant("expiredAt"))
  }

  /// A scene session, as `JSONWriter.snapshotSession` writes it.
  static func session(_ fields: inout Fields) -> SceneSession? {
    guard let id = fields.string("id", required: true, maxBytes: Validation.maxNameBytes)
    else { return nil }
    return SceneSession(
      id: id, state: fields.choice("state") ?? .unattached,
      restorationData: fields.encodedValue("restorationData"),
      savedRestorationData: fields.encodedValue("savedRestorationData"))
  }

  /// A process's background work: an array of numbered work, or up to version 3 one piece
  /// without a number (numbered once the app's record is read); nil if there is none.
  static func backgroundWork(_ fields: inout Fields, version: Int) -> [BackgroundWork]? {
    guard version > lastVersionWithOneWork else {
      return fields.nested("backgroundWork") { backgroundWork(&$0, id: 0).map { [$0] } ?? [] }
    }
    return fields.array("backgroundWork", maxCount: maxElements) { work in
      work.integer("id", in: 1...maxCount, required: true).flatMap {
        backgroundWork(&work, id: $0)
      }
    }
  }

  /// A pending task request, as `JSONWriter.taskRequest` writes it.
  static func taskRequest(_ fields: inout Fields) -> TaskRequest? {
    let identifier = fields.string(
      "identifier", required: true, maxBytes: Validation.maxIdentifierBytes)
    let kind = fields.choice("kind", TaskKind.self, required: true)
    guard let identifier, let kind else { return nil }
    return TaskRequest(
      identifier: identifier, kind: kind, earliestBeginDate: fields.instant("earliestBeginDate"),
      requiresNetworkConnectivity: fields.bool("requiresNetworkConnectivity") ?? false,
      requiresExternalPower: fields.bool("requiresExternalPower") ?? false,
      strategy: fields.choice("strategy", SubmissionStrategy.self, required: false),
      queuedAtSeq: fields.integer("queuedAtSeq", in: 1...SnapshotFormat.maxCount))
  }

  /// Background work numbered `id`, as `JSONWriter.snapshotWork` writes it.
  private static func backgroundWork(_ fields: inout Fields, id: Int) -> BackgroundWork? {
    let identifier = fields.string("identifier", maxBytes: Validation.maxIdentifierBytes)
    guard let reason = fields.choice("reason", BackgroundLaunchReason.self, required: true)
    else { return nil }
    // A continued-processing task has no deadline; every other work has one.
    let deadline = fields.instant("deadline", required: reason != .continuedProcessing)
    if reason == .continuedProcessing, deadline != nil {
      fields.reject("deadline", "a continuedProcessing task has none")
    }
    let progress = fields.nested("progress") { progress in
      let completed = progress.integer(
        "completedUnitCount", in: Validation.unitCounts, required: true)
      let total = progress.integer("totalUnitCount", in: Validation.unitCounts, required: true)
      return completed.flatMap { completed in
        total.map { TaskProgress(completedUnitCount: completed, totalUnitCount: $0) }
      }
    }
    if progress != nil, reason != .continuedProcessing {
      fields.reject("progress", "only a continuedProcessing task reports one")
    }
    guard deadline != nil || reason == .continuedProcessing else { return nil }
    return BackgroundWork(
      id: id, reason: reason, identifier: identifier, deadline: deadline,
      expiredAt: fields.instant("expiredAt"), progress: progress)
  }

  /// How a process ended, as `JSONWriter.termination` writes it.
  static func termination(_ fields: inout Fields, version: Int) -> Termination? {
    let cause = fields.transitionCause()
    let watchdog = fields.nested("watchdog", watchdogTransition)
    let code = fields.choice("terminationCode", TerminationCode.self)
    let time = fields.instant("time", required: true)
    let state = fields.choice("state", AppState.self, required: true)
    _ = fields.choice("endedBy", TerminationInitiator.self)  // follows from the cause
    let ranWith = fields.nested("ranWith") { details in
      var context = RunContext.unread
      details.read(&context, SnapshotReading(version: version))
      return context
    }
    guard let cause, let time, let state else { return nil }
    return Termination(
      cause: cause.cause, jetsamReason: cause.jetsamReason, watchdog: watchdog,
      terminationCode: code, time: time, state: state, ranWith: ranWith)
  }

  /// What the watchdog timed, as `JSONWriter.watchdogTransition` writes it.
  static func watchdogTransition(_ fields: inout Fields) -> WatchdogTransition? {
    let event = fields.choice("event", WatchdogEvent.self, required: true)
    let visibility = fields.choice("visibility", ProcessVisibility.self, required: true)
    guard let event, let visibility else { return nil }
    return WatchdogTransition(event, visibility)
  }

  static func waitingCallback(
    of app: AppName, version: Int, _ fields: inout Fields
  ) -> WaitingCallback? {
    let method = fields.choice("method", CallbackMethod.self, required: true)
    let state = fields.choice("state", AppState.self, required: true)
    let aggregate = fields.choice("notification", UIKitNotification.self)
    let scene = fields.string("scene", maxBytes: Validation.maxNameBytes)
    let sceneState = fields.choice("sceneState", SceneState.self)
    let taskId = fields.integer("taskId", in: 1...maxCount)
    let cause = fields.transitionCause()
    var arguments: CallbackArguments?? = .some(nil)
    if var details = fields.object("arguments") {
      arguments = details.callbackArguments(version: version)
      fields.merge(details)
    }
    guard let method, let state, let cause, let arguments else { return nil }
    return WaitingCallback(
      callback: Callback(
        waitingFor: app, method: method, aggregateNotification: aggregate, state: state,
        scene: scene, sceneState: sceneState, taskId: taskId, arguments: arguments),
      cause: cause.cause)
  }
}

extension Fields {
  /// Why an inactive process is: `switcher`, or an interruption's source.
  mutating func inactiveCause(_ key: StaticString) -> InactiveCause? {
    guard let cause = string(key, maxBytes: 32) else { return nil }
    if cause == "switcher" { return .switcher }
    if let source = InterruptionSource(rawValue: cause) { return .interruption(source) }
    reject(
      key,
      "must be switcher or an interruption source: "
        + InterruptionSource.allCases.map(\.rawValue).joined(separator: ", "))
    return nil
  }

  /// A device time in seconds, to the millisecond.
  mutating func instant(_ key: StaticString, required: Bool = false) -> Instant? {
    seconds(key, max: SnapshotFormat.maxSeconds, required: required).map { .zero + $0 }
  }

  /// A transition's cause, `cause` and for jetsam its `jetsamReason`, as
  /// `JSONWriter.members(of:)` writes it; and the `jetsamReason` beside it, which a
  /// termination by `purge` carries too.
  mutating func transitionCause() -> (cause: TransitionCause, jetsamReason: JetsamReason?)? {
    let name = string("cause", required: true, maxBytes: 64)
    let reason = choice("jetsamReason", JetsamReason.self)
    guard let name else { return nil }
    guard let cause = TransitionCause(name: name, jetsamReason: reason) else {
      reject("cause", "must be a transition cause (jetsam with its jetsamReason)")
      return nil
    }
    return (cause, reason)
  }

  /// An app's name.
  mutating func appName(_ key: StaticString) -> AppName? {
    guard let text = string(key, maxBytes: Validation.maxNameBytes) else { return nil }
    guard Validation.isValidName(text), let name = AppName(text) else {
      reject(key, Validation.nameRule)
      return nil
    }
    return name
  }
}

extension Fields {
  /// Nil if malformed (the problem is recorded).
  fileprivate mutating func callbackArguments(version: Int) -> CallbackArguments?? {
    let kind = string("kind", required: true, maxBytes: 32)
    if kind == "exitMetrics", version <= SnapshotFormat.lastVersionWithExitsAlone {
      return exitCounts("exits").map { exits in
        var payload = MetricPayload()
        payload.exits = exits
        return .metrics([payload])
      }
    }
    if kind == "metricPayloads" {
      return reports("metricPayloads", required: true, SnapshotReading(version: version))
        .map(CallbackArguments.metrics)
    }
    if kind == "diagnosticPayloads" {
      return reports("diagnosticPayloads", required: true, SnapshotReading(version: version))
        .map(CallbackArguments.diagnostics)
    }
    if kind == "metricReport" {
      return report("metricPayload", SnapshotReading(version: version))
        .map(CallbackArguments.metricReport)
    }
    if kind == "diagnosticReport" {
      return report("crashDiagnostic", SnapshotReading(version: version))
        .map(CallbackArguments.diagnosticReport)
    }
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
          + "sessionIdentifier or taskIdentifier with an identifier, metricPayloads or "
          + "diagnosticPayloads with payloads, locationLaunchOptions or connectionOptions")
      return nil
    }
  }
}
