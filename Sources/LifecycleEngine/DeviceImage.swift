/// Everything a device is, as plain values: what `Engine.image(of:now:)` reads and
/// `Engine.restore(_:now:)` recreates, so that the restored device answers every later event
/// exactly as the original would.
///
/// Not in it: the journal and the jetsam log, which a restored device starts afresh (its
/// journal numbered after `seq`), and what follows from the rest (memory use, jetsam order,
/// deadlines other than a pending suspension).
public struct DeviceImage: Hashable, Sendable {
  public var id: String
  public var clock: ClockMode
  public var memoryLimitMB: Int
  public var perAppLimitMB: Int
  public var passcode: Bool
  public var labels: [String: String]
  public var idleTimeout: Duration?
  /// The journal's last `seq`.
  public var seq: Int
  public var status: DeviceStatus
  /// In name order.
  public var apps: [AppImage]

  public init(
    id: String, clock: ClockMode, memoryLimitMB: Int, perAppLimitMB: Int, passcode: Bool,
    labels: [String: String] = [:], idleTimeout: Duration? = nil, seq: Int = 0,
    status: DeviceStatus = DeviceStatus(), apps: [AppImage] = []
  ) {
    self.id = id
    self.clock = clock
    self.memoryLimitMB = memoryLimitMB
    self.perAppLimitMB = perAppLimitMB
    self.passcode = passcode
    self.labels = labels
    self.idleTimeout = idleTimeout
    self.seq = seq
    self.status = status
    self.apps = apps
  }
}

extension DeviceImage {
  /// The device `Engine.createDevice` makes for `spec` (its unset fields from `defaults`),
  /// with `apps` as `Engine.createApp` adds them: not running, the clock at zero.
  public init(declaring spec: DeviceSpec, apps: [AppSpec], defaults: DeviceDefaults) {
    self.init(
      id: spec.id, clock: spec.clock ?? defaults.clock,
      memoryLimitMB: spec.memoryLimitMB ?? defaults.memoryLimitMB,
      perAppLimitMB: spec.perAppLimitMB ?? defaults.perAppLimitMB,
      passcode: spec.passcode ?? defaults.passcode, labels: spec.labels,
      idleTimeout: spec.idleTimeout, apps: apps.map { AppImage(spec: $0) })
  }
}

/// A device's own state beside its apps: its clock, power, lock, protected data, foreground
/// app, memory pressure and counters. A new device's is the initial value of each field.
public struct DeviceStatus: Hashable, Sendable {
  /// Device time, counted from creation.
  public var now = Instant.zero
  /// Off after a shutdown until the next boot.
  public var poweredOn = true
  public var locked = false
  /// Protected files are readable: false from a lock with a passcode until the unlock.
  public var protectedDataAvailable = true
  /// With a passcode, when protected data becomes unavailable after a lock.
  public var protectedDataLocksAt: Instant?
  public var foregroundApp: AppName?
  /// The app that was in the foreground when the device locked; unlock brings it back.
  public var appBeforeLock: AppName?
  /// A memory pressure episode is under way: its memory warning has been sent.
  public var underPressure = false
  /// When the episode's grace ends: background-running apps are killed then if pressure
  /// persists. Nil once it has ended (they are killed at once) or with no episode.
  public var warningGraceEndsAt: Instant?
  /// What the system weighs before it runs background work, and its policy.
  public var conditions = BackgroundConditions()
  public var counters = DeviceCounters()

  public init() {}
}

/// One app of a `DeviceImage`: its configuration, what the system keeps of it across
/// processes, and its process if it has one. A live app holds the same values.
public struct AppImage: Hashable, Sendable {
  public var spec: AppSpec
  public var record: AppRecord
  /// Nil when the app is not running.
  public var process: ProcessImage?

  public init(spec: AppSpec, record: AppRecord = AppRecord(), process: ProcessImage? = nil) {
    self.spec = spec
    self.record = record
    self.process = process
  }
}

/// What the system keeps of an app across its processes. A new app's is the initial value of
/// each field.
public struct AppRecord: Hashable, Sendable {
  public var launches = 0
  public var kills = 0
  /// When the app last left the foreground (jetsam's least-recently-used order).
  public var lastUsed = Instant.zero
  /// The next id for a background task (`beginBackgroundTask`) or background work.
  public var nextTaskID = 1
  /// What the app submitted to `BGTaskScheduler` and the system has not run, in the order
  /// submitted (a resubmission takes the place of the request it replaces).
  public var taskRequests: [TaskRequest] = []
  /// Set by a user force-quit; cleared when the user launches the app.
  public var backgroundLaunchBlocked = false
  /// The app's Background App Refresh switch in Settings.
  public var backgroundAppRefresh = true
  /// When the background pushes of the last hour were delivered, oldest first: at most
  /// `backgroundPushesPerHour`.
  public var recentPushes: [Instant] = []
  /// State restoration data was saved when the app last went to the background.
  public var restorationStateSaved = false
  /// The restoration data UIKit keeps for an app-delegate app's next launch (JSON text):
  /// handed back at the next launch after a system kill, dropped by a force-quit or a crash
  /// at launch.
  public var savedRestorationData: String?
  /// A scene app's sessions, in the order they were opened, each with its scene's state.
  public var sessions: [SceneSession] = []
  /// The session shown while the app is in the foreground, and the one a `launch` that names
  /// none gets back; nil only with no session.
  public var focusedScene: String?
  /// Sessions the user discarded while the app's code could not hear it, reported after its
  /// next didFinishLaunching.
  public var discardedScenes: [String] = []
  /// How the app's last process ended; nil until one has.
  public var lastTermination: Termination?
  /// The exits MetricKit has not yet delivered to the app (`MXAppExitMetric`).
  public var pendingExits = ExitCounts()

  public init() {}
}

/// How a process ended: why, with the code a crash report would show, when, and the state it
/// ended in.
public struct Termination: Hashable, Sendable {
  public var cause: TransitionCause
  public var terminationCode: TerminationCode?
  public var time: Instant
  /// The state the process was in: the one a force-quit, a crash or a kill found it in.
  public var state: AppState

  public init(
    cause: TransitionCause, terminationCode: TerminationCode?, time: Instant, state: AppState
  ) {
    self.cause = cause
    self.terminationCode = terminationCode
    self.time = time
    self.state = state
  }
}

/// An app's process: what it holds while it runs or is suspended. Each field's initial value
/// is the one a new process starts with.
public struct ProcessImage: Hashable, Sendable {
  public var state: AppState
  /// Why a foreground app is inactive rather than active.
  public var inactiveCause: InactiveCause?
  /// The process's footprints (`setMemory` changes them).
  public var memoryMB: Int
  public var backgroundMemoryMB: Int
  /// Start of the current stretch in the background; background tasks expire relative to it.
  public var backgroundSince: Instant?
  /// didEnterBackground is executing until then: the main thread runs no other callback.
  public var busyUntil: Instant?
  /// didEnterBackground overruns the watchdog: the app is killed then.
  public var watchdogKillAt: Instant?
  /// Callbacks waiting for the main thread, oldest first.
  public var waitingCallbacks: [WaitingCallback] = []
  public var tasks: [BackgroundTask] = []
  /// The work of background launches not completed, oldest first.
  public var backgroundWork: [BackgroundWork] = []
  /// What the app is doing that keeps it running in the background.
  public var activities: Set<BackgroundActivity> = []
  /// A significant time change arrived while suspended; it is delivered when the app next runs.
  public var significantTimeChangePending = false
  /// Whether protected data is available as far as the process has been told. It differs from
  /// the device's only while the process could not be told (suspended); it is told when it
  /// next runs.
  public var protectedDataAvailable = true
  /// When the scheduler suspends the idle background app: kept once set, until the app is no
  /// longer idle.
  public var suspendAt: Instant?
  /// What the process's code saves when asked (JSON text), if anything.
  public var restorationData: String?
  /// Paused before `UIApplicationMain` by a prewarm: no app code has run.
  public var prewarmed = false

  public init(state: AppState, memoryMB: Int, backgroundMemoryMB: Int) {
    self.state = state
    self.memoryMB = memoryMB
    self.backgroundMemoryMB = backgroundMemoryMB
  }

  /// No process yet: a new one starts from `spec`'s footprints.
  init(notRunning spec: AppSpec) {
    self.init(
      state: .notRunning, memoryMB: spec.memoryMB,
      backgroundMemoryMB: spec.backgroundMemoryMB ?? spec.memoryMB)
  }
}

// MARK: Reading

extension Device {
  var image: DeviceImage {
    DeviceImage(
      id: id, clock: clockMode, memoryLimitMB: memoryLimitMB, perAppLimitMB: perAppLimitMB,
      passcode: passcode, labels: labels, idleTimeout: idleTimeout, seq: version.seq,
      status: status,
      apps: apps.sorted { $0.key < $1.key }.map(\.value.image))
  }
}

extension App {
  /// The app as an image shows it.
  var image: AppImage {
    AppImage(spec: spec, record: record, process: process.state == .notRunning ? nil : process)
  }
}

// MARK: Restoring

extension Device {
  /// Makes this new, empty device the one `image` shows (its configuration already given to
  /// `init`), then says what in the image no device could be in: an empty list means the
  /// device is ready to use.
  func restore(_ image: DeviceImage) -> ValidationIssues {
    status = image.status
    continueRecording(after: image.seq)
    var issues = ValidationIssues()
    issues.check(
      (0...100).contains(status.conditions.batteryLevel), "conditions.batteryLevel",
      "must be 0 to 100")
    if image.apps.count > limits.maxAppsPerDevice {
      issues.append("apps", "must hold at most \(limits.maxAppsPerDevice) apps")
      return issues
    }
    for (index, appImage) in image.apps.enumerated() {
      issues.at("apps[\(index)].") { issues in
        let specIssues = appImage.spec.issues()
        guard specIssues.isEmpty else { return issues.append(contentsOf: specIssues) }
        guard let name = AppName(appImage.spec.name), apps[name] == nil else {
          return issues.append("name", "names another app of the device")
        }
        restore(appImage, as: add(appImage.spec), issues: &issues)
      }
    }
    checkDevice(&issues)
    return issues
  }

  /// Makes the new `app` the one `image` shows. With `derivingSuspension`, a pending
  /// suspension is not read from the image but scheduled as the scheduler would from now.
  private func restore(
    _ image: AppImage, as app: App, issues: inout ValidationIssues, derivingSuspension: Bool = false
  ) {
    let record = image.record
    app.restore(record)
    if !record.taskRequests.isEmpty { taskRequesters.insert(app.name) }
    if !record.pendingExits.isEmpty { exitHolders.insert(app.name) }
    issues.check(
      record.recentPushes.count <= scheduler.backgroundPushesPerHour
        && record.recentPushes.allSatisfy { $0 <= status.now },
      "recentPushes",
      "hold at most backgroundPushesPerHour (\(scheduler.backgroundPushesPerHour)) times, "
        + "none after the device's now")
    issues.check(record.lastUsed <= status.now, "lastUsed", "must not be after the device's now")
    issues.check(record.nextTaskID >= 1, "nextTaskId", "must be at least 1")
    issues.check(
      Set(record.taskRequests.map(\.identifier)).count == record.taskRequests.count,
      "taskRequests", "need distinct identifiers")
    for request in record.taskRequests {
      issues.check(
        app.spec.permittedTaskIdentifiers.contains(request.identifier)
          && app.spec.backgroundModes.contains(request.kind.requiredMode),
        "taskRequests", "need a permitted identifier and the background mode of their kind")
      issues.check(
        request.kind == .processing
          || !request.requiresNetworkConnectivity && !request.requiresExternalPower,
        "taskRequests", "require network or power only for processing")
    }
    for kind in TaskKind.allCases {
      issues.check(
        record.taskRequests.count { $0.kind == kind } <= kind.pendingLimit, "taskRequests",
        "hold at most \(kind.pendingLimit) \(kind.rawValue) requests")
    }
    if let termination = record.lastTermination {
      issues.check(
        termination.time <= status.now, "lastTermination.time",
        "must not be after the device's now")
      issues.check(
        termination.state != .notRunning, "lastTermination.state",
        "must be the state of a process: inactive, active, background or suspended")
    }
    issues.check(
      record.savedRestorationData.map(Validation.isRestorationData) ?? true,
      "savedRestorationData", Validation.restorationDataRule)
    issues.check(
      app.isScene || record.sessions.isEmpty && record.discardedScenes.isEmpty, "scenes",
      "are for scene apps only")
    issues.check(
      !app.isScene || record.savedRestorationData == nil,
      "savedRestorationData", "is for app-delegate apps: a scene app's is its scenes'")
    checkSessions(of: app, image, &issues)
    guard var process = image.process else {
      if !record.taskRequests.isEmpty { reschedule(app) }  // when its requests fall due
      return
    }
    issues.at("process.") { issues in
      guard process.state != .notRunning else {
        return issues.append("state", "must be a running or suspended state (no process otherwise)")
      }
      if derivingSuspension { process.suspendAt = nil }
      app.restore(process)
      addToLiveApps(app)
      usedMB += app.footprint
      updateVictimOrder(of: app)
      reschedule(app)
      check(app, process, &issues, derivingSuspension: derivingSuspension)
    }
  }

  /// The rules an app's scene sessions keep: what the user can open, and scenes that agree
  /// with their process (one window on screen at a time: the focused one).
  private func checkSessions(of app: App, _ image: AppImage, _ issues: inout ValidationIssues) {
    let record = image.record
    let ids = record.sessions.map(\.id)
    let limit = app.spec.supportsMultipleScenes ? Validation.maxScenesPerApp : 1
    issues.check(
      ids.count + record.discardedScenes.count <= limit, "scenes",
      "with discardedScenes, must hold at most \(limit) sessions")
    issues.check(
      (ids + record.discardedScenes).allSatisfy(Validation.isValidName), "scenes",
      "ids must match \(Validation.namePattern)")
    issues.check(Set(ids).count == ids.count, "scenes", "need distinct ids")
    issues.check(
      record.focusedScene.map(ids.contains) ?? ids.isEmpty, "focusedScene",
      "must name one of the scenes, the one shown in the foreground; null only without one")
    let state = image.process?.prewarmed == true ? .notRunning : image.process?.state ?? .notRunning
    for (index, session) in record.sessions.enumerated() {
      let focused = session.id == record.focusedScene
      let allowed: [SceneState] =
        switch state {
        case .notRunning: [.unattached]
        case .active, .inactive:
          focused ? [SceneState(mirroring: state)] : [.background, .unattached]
        case .background, .suspended: [SceneState(mirroring: state), .unattached]
        }
      issues.check(
        allowed.contains(session.state), "scenes[\(index)].state",
        "must be \(allowed.map(\.rawValue).joined(separator: " or ")) for the "
          + (focused ? "focused " : "") + "scene of an app in state \(state)")
      issues.check(
        session.restorationData == nil || session.isConnected, "scenes[\(index)].restorationData",
        "is held by a connected scene only")
      for data in [session.restorationData, session.savedRestorationData] {
        issues.check(
          data.map(Validation.isRestorationData) ?? true, "scenes[\(index)]",
          "restoration data " + Validation.restorationDataRule)
      }
    }
    issues.check(
      !(image.process?.state.isForeground ?? false) || record.focusedScene != nil || !app.isScene,
      "focusedScene", "a scene app in the foreground shows a scene")
  }

  /// The rules a running or suspended process keeps, as the events and the scheduler leave it.
  private func check(
    _ app: App, _ process: ProcessImage, _ issues: inout ValidationIssues, derivingSuspension: Bool
  ) {
    let state = process.state
    issues.check(
      process.restorationData == nil || !app.isScene, "restorationData",
      "is for app-delegate apps: a scene app's is its scenes'")
    issues.check(
      process.inactiveCause == nil || state == .inactive, "inactiveCause",
      "is for an inactive app only")
    // Jetsam kills any process over the per-process limit, whatever its state.
    issues.check(
      !state.isLive || app.footprint <= perAppLimitMB, "memoryMB",
      "the footprint in state \(state) must be at most perAppLimitMB (\(perAppLimitMB))")
    issues.check(
      (process.backgroundSince != nil) == (state == .background), "backgroundSince",
      "is given for a background app, and only for one")
    issues.check(
      process.backgroundSince.map { $0 <= status.now } ?? true, "backgroundSince",
      "must not be after the device's now")
    issues.check(
      process.watchdogKillAt.map { $0 >= status.now && process.busyUntil != nil } ?? true,
      "watchdogKillAt", "needs busyUntil, and must not be before the device's now")
    issues.check(
      process.waitingCallbacks.isEmpty || process.busyUntil.map { $0 >= status.now } == true,
      "waitingCallbacks", "need a busyUntil not before the device's now")
    issues.check(
      process.waitingCallbacks.allSatisfy { $0.callback.app == app.name }, "waitingCallbacks",
      "must be for the app itself")
    issues.check(
      process.tasks.isEmpty || state != .suspended, "backgroundTasks",
      "are ended before an app is suspended")
    issues.check(
      process.tasks.count <= limits.maxBackgroundTasksPerApp, "backgroundTasks",
      "must hold at most \(limits.maxBackgroundTasksPerApp) tasks")
    issues.check(
      process.waitingCallbacks.count <= limits.maxWaitingCallbacksPerApp, "waitingCallbacks",
      "must hold at most \(limits.maxWaitingCallbacksPerApp) callbacks")
    issues.check(
      Set(process.tasks.map(\.id)).count == process.tasks.count
        && process.tasks.allSatisfy { (1..<app.nextTaskID).contains($0.id) },
      "backgroundTasks", "need distinct ids from 1 to below nextTaskId")
    issues.check(
      process.tasks.allSatisfy {
        $0.expiredAt.map { $0 <= status.now && state == .background } ?? true
      },
      "backgroundTasks", "expire in the background, not after the device's now")
    let work = process.backgroundWork
    issues.check(
      work.isEmpty || state == .background
        || state.isForeground && work.allSatisfy { $0.reason.completion == .taskExpiration },
      "backgroundWork", "is for a background app only, but a BGTask launchTask ran")
    issues.check(
      work.count <= Validation.maxBackgroundWorkPerApp, "backgroundWork",
      "must hold at most \(Validation.maxBackgroundWorkPerApp) pieces of work")
    issues.check(
      Set(work.map(\.id) + process.tasks.map(\.id)).count == work.count + process.tasks.count
        && work.allSatisfy { (1..<app.nextTaskID).contains($0.id) },
      "backgroundWork",
      "needs ids from 1 to below nextTaskId, distinct from each other and the tasks'")
    for work in work {
      issues.check(
        work.reason.completion != .none, "backgroundWork.reason",
        "\(work.reason) hands the app no work to complete")
      issues.check(
        work.reason.requiredMode.map(app.spec.backgroundModes.contains) ?? true,
        "backgroundWork.reason", "needs the app's \(work.reason.requiredMode?.rawValue ?? "") mode")
      issues.check(
        work.identifier == nil || [.urlSession, .appRefresh, .processing].contains(work.reason),
        "backgroundWork.identifier", "is for urlSession or BGTask work only")
      issues.check(
        work.expiredAt.map { $0 <= status.now && work.reason.completion == .taskExpiration }
          ?? true,
        "backgroundWork.expiredAt", "is for a BGTask that expired, not after the device's now")
    }
    issues.check(
      process.activities.isEmpty || state != .suspended, "activities",
      "keep an app from being suspended")
    issues.check(
      process.activities.allSatisfy { app.spec.backgroundModes.contains($0.requiredMode) },
      "activities", "need the app's background mode for each")
    issues.check(
      process.restorationData.map(Validation.isRestorationData) ?? true, "restorationData",
      Validation.restorationDataRule)
    issues.check(
      !process.prewarmed
        || state == .suspended && process.restorationData == nil
          && !process.significantTimeChangePending && process.waitingCallbacks.isEmpty,
      "prewarmed", "a prewarmed process is suspended, and no app code of it has run")
    issues.check(
      !process.significantTimeChangePending || state == .suspended,
      "significantTimeChangePending", "is for a suspended app only")
    issues.check(
      process.protectedDataAvailable == status.protectedDataAvailable || state == .suspended,
      "protectedDataAvailable", "a process that runs knows the device's")
    guard !derivingSuspension else { return }
    issues.check(
      (process.suspendAt != nil) == app.isSuspendable, "suspendAt",
      "is given for an idle background app, and only for one")
    issues.check(
      process.suspendAt.map { $0 >= status.now } ?? true, "suspendAt",
      "must not be before the device's now")
  }

  /// The rules the device as a whole keeps.
  private func checkDevice(_ issues: inout ValidationIssues) {
    let foreground = apps.values.filter { $0.state.isForeground }.map(\.name)
    issues.check(
      foreground == (status.foregroundApp.map { [$0] } ?? []), "foregroundApp",
      "must name the app in the foreground, the one there is or none")
    issues.check(
      !status.locked || status.foregroundApp == nil, "foregroundApp", "must be null while locked")
    // Unlock brings this app back as the lock left it: a process whose code has run and, for
    // a scene app, the scene it showed.
    issues.check(
      status.appBeforeLock.map {
        status.locked
          && apps[$0].map {
            $0.state != .notRunning && !$0.prewarmed && (!$0.isScene || $0.focusedScene != nil)
          } == true
      } ?? true,
      "appBeforeLock",
      "must name an app with a process that has run (a scene app's with its focused scene), "
        + "while locked")
    issues.check(
      status.poweredOn || status.locked && liveApps.isEmpty, "poweredOn",
      "a device that is off is locked and runs no app")
    issues.check(
      status.protectedDataAvailable || passcode && status.locked || !status.poweredOn,
      "protectedDataAvailable",
      "is false only on a locked device with a passcode, or one that is off")
    issues.check(
      status.protectedDataLocksAt.map {
        $0 >= status.now && passcode && status.locked && status.protectedDataAvailable
      }
        ?? true,
      "protectedDataLocksAt",
      "is for a locked device with a passcode whose data is still available, not before now")
    issues.check(
      !isOverLimit || status.underPressure, "underPressure",
      "must be true while the apps use more than memoryLimitMB")
    issues.check(
      status.warningGraceEndsAt.map { $0 >= status.now && status.underPressure } ?? true,
      "warningGraceEndsAt",
      "is for a pressure episode, not before the device's now")
  }
}

// MARK: Given states

/// The state an app is created in, for a test's "given" step: what the client names, the rest
/// as the events that lead there would leave it (a fresh process at its configured footprints,
/// a scene that mirrors the app, tasks numbered from 1, a suspension scheduled as the
/// scheduler would from now). Creating it makes no journal entry: nothing happened.
public struct AppGiven: Hashable, Sendable {
  public var state: AppState
  /// The names of the background tasks it holds, in the order they were begun.
  public var backgroundTasks: [String?]
  public var activities: Set<BackgroundActivity>
  /// Whether it saved state restoration data when it last went to the background.
  public var restorationStateSaved: Bool

  public init(
    state: AppState, backgroundTasks: [String?] = [], activities: Set<BackgroundActivity> = [],
    restorationStateSaved: Bool = false
  ) {
    self.state = state
    self.backgroundTasks = backgroundTasks
    self.activities = activities
    self.restorationStateSaved = restorationStateSaved
  }
}

extension Device {
  /// Adds the app `spec` configures, in the state `given` names; the issues that stop it, if
  /// any, named under `given.` (the device is then as it was).
  func add(_ spec: AppSpec, given: AppGiven) -> ValidationIssues {
    let state = given.state
    let app = add(spec)
    var issues = ValidationIssues()
    issues.at("given.") { issues in
      if state != .notRunning {
        issues.check(status.poweredOn, "state", "needs a device that is on")
        issues.check(
          !state.isForeground || !status.locked && status.foregroundApp == nil, "state",
          "\(state) needs an unlocked device with no app in the foreground")
        let footprint = app.footprint(in: state)
        issues.check(
          usedMB + footprint <= memoryLimitMB, "state",
          "the app's \(footprint) MB would pass the device's memoryLimitMB (\(memoryLimitMB)), "
            + "\(usedMB) MB of it in use")
      }
      guard issues.isEmpty else { return }
      if state.isForeground { status.foregroundApp = app.name }
      var record = AppRecord()
      var process: ProcessImage?
      if state != .notRunning {
        record.launches = 1
        if app.isScene {
          record.sessions = [SceneSession(id: firstSceneName, state: SceneState(mirroring: state))]
          record.focusedScene = firstSceneName
        }
        var running = ProcessImage(notRunning: app.spec)
        running.state = state
        running.inactiveCause = state == .inactive ? .switcher : nil
        running.backgroundSince = state == .background ? status.now : nil
        running.tasks = given.backgroundTasks.enumerated().map {
          BackgroundTask(id: $0.offset + 1, name: $0.element)
        }
        running.activities = given.activities
        running.protectedDataAvailable = status.protectedDataAvailable
        process = running
      }
      record.lastUsed = status.now
      record.nextTaskID = given.backgroundTasks.count + 1
      record.restorationStateSaved = given.restorationStateSaved
      restore(
        AppImage(spec: app.spec, record: record, process: process),
        as: app, issues: &issues, derivingSuspension: true)
      issues.rename("process.", to: "")
    }
    if !issues.isEmpty { remove(app) }
    return issues
  }
}
