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
  public var now: Instant
  /// The journal's last `seq`.
  public var seq: Int
  public var poweredOn: Bool
  public var locked: Bool
  public var protectedDataAvailable: Bool
  public var protectedDataLocksAt: Instant?
  public var foregroundApp: AppName?
  /// The app in the foreground when the device locked.
  public var appBeforeLock: AppName?
  /// A memory pressure episode is under way, its warning sent.
  public var underPressure: Bool
  public var pressureGraceEndsAt: Instant?
  public var counters: DeviceCounters
  /// In name order.
  public var apps: [AppImage]

  public init(
    id: String, clock: ClockMode, memoryLimitMB: Int, perAppLimitMB: Int, passcode: Bool,
    now: Instant, seq: Int, poweredOn: Bool, locked: Bool, protectedDataAvailable: Bool,
    protectedDataLocksAt: Instant?, foregroundApp: AppName?, appBeforeLock: AppName?,
    underPressure: Bool, pressureGraceEndsAt: Instant?, counters: DeviceCounters,
    apps: [AppImage]
  ) {
    self.id = id
    self.clock = clock
    self.memoryLimitMB = memoryLimitMB
    self.perAppLimitMB = perAppLimitMB
    self.passcode = passcode
    self.now = now
    self.seq = seq
    self.poweredOn = poweredOn
    self.locked = locked
    self.protectedDataAvailable = protectedDataAvailable
    self.protectedDataLocksAt = protectedDataLocksAt
    self.foregroundApp = foregroundApp
    self.appBeforeLock = appBeforeLock
    self.underPressure = underPressure
    self.pressureGraceEndsAt = pressureGraceEndsAt
    self.counters = counters
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
      passcode: spec.passcode ?? defaults.passcode, now: .zero, seq: 0, poweredOn: true,
      locked: false, protectedDataAvailable: true, protectedDataLocksAt: nil, foregroundApp: nil,
      appBeforeLock: nil, underPressure: false, pressureGraceEndsAt: nil,
      counters: DeviceCounters(),
      apps: apps.map {
        AppImage(
          spec: $0, launches: 0, kills: 0, lastUsed: .zero, nextTaskID: 1,
          backgroundLaunchBlocked: false, restorationStateSaved: false,
          savedRestorationData: nil, process: nil)
      })
  }
}

/// One app of a `DeviceImage`: its configuration, what outlives its processes, and its
/// process if it has one.
public struct AppImage: Hashable, Sendable {
  public var spec: AppSpec
  public var launches: Int
  public var kills: Int
  /// When the app last left the foreground (jetsam's least-recently-used order).
  public var lastUsed: Instant
  /// The next `beginBackgroundTask` id.
  public var nextTaskID: Int
  public var backgroundLaunchBlocked: Bool
  public var restorationStateSaved: Bool
  /// The restoration data UIKit keeps for an app-delegate app's next launch (JSON text).
  public var savedRestorationData: String?
  /// A scene app's sessions, in the order they were opened, each with its scene's state.
  public var scenes: [SceneSession]
  /// The session shown while the app is in the foreground; nil only with no session.
  public var focusedScene: String?
  /// Sessions discarded while the app's code could not hear it, reported after its next
  /// didFinishLaunching.
  public var discardedScenes: [String]
  /// Nil when the app is not running.
  public var process: ProcessImage?

  public init(
    spec: AppSpec, launches: Int, kills: Int, lastUsed: Instant, nextTaskID: Int,
    backgroundLaunchBlocked: Bool, restorationStateSaved: Bool, savedRestorationData: String?,
    scenes: [SceneSession] = [], focusedScene: String? = nil, discardedScenes: [String] = [],
    process: ProcessImage?
  ) {
    self.spec = spec
    self.launches = launches
    self.kills = kills
    self.lastUsed = lastUsed
    self.nextTaskID = nextTaskID
    self.backgroundLaunchBlocked = backgroundLaunchBlocked
    self.restorationStateSaved = restorationStateSaved
    self.savedRestorationData = savedRestorationData
    self.scenes = scenes
    self.focusedScene = focusedScene
    self.discardedScenes = discardedScenes
    self.process = process
  }
}

/// The process of a running or suspended app.
public struct ProcessImage: Hashable, Sendable {
  public var state: AppState
  public var inactiveCause: InactiveCause?
  public var memoryMB: Int
  public var backgroundMemoryMB: Int
  public var backgroundSince: Instant?
  public var busyUntil: Instant?
  public var watchdogKillAt: Instant?
  public var waitingCallbacks: [WaitingCallback]
  public var tasks: [BackgroundTask]
  public var backgroundWork: BackgroundWork?
  /// In `BackgroundActivity.allCases` order.
  public var activities: [BackgroundActivity]
  public var significantTimeChangePending: Bool
  /// Whether protected data is available as far as the process has been told.
  public var protectedDataAvailable: Bool
  public var suspendAt: Instant?
  /// What the process's code saves when asked (JSON text), if anything.
  public var restorationData: String?
  /// Paused before `UIApplicationMain` by a prewarm: no app code has run.
  public var prewarmed: Bool

  public init(
    state: AppState, inactiveCause: InactiveCause?, memoryMB: Int,
    backgroundMemoryMB: Int, backgroundSince: Instant?, busyUntil: Instant?,
    watchdogKillAt: Instant?, waitingCallbacks: [WaitingCallback], tasks: [BackgroundTask],
    backgroundWork: BackgroundWork?, activities: [BackgroundActivity],
    significantTimeChangePending: Bool, protectedDataAvailable: Bool, suspendAt: Instant?,
    restorationData: String? = nil, prewarmed: Bool = false
  ) {
    self.state = state
    self.inactiveCause = inactiveCause
    self.memoryMB = memoryMB
    self.backgroundMemoryMB = backgroundMemoryMB
    self.backgroundSince = backgroundSince
    self.busyUntil = busyUntil
    self.watchdogKillAt = watchdogKillAt
    self.waitingCallbacks = waitingCallbacks
    self.tasks = tasks
    self.backgroundWork = backgroundWork
    self.activities = activities
    self.significantTimeChangePending = significantTimeChangePending
    self.protectedDataAvailable = protectedDataAvailable
    self.suspendAt = suspendAt
    self.restorationData = restorationData
    self.prewarmed = prewarmed
  }
}

// MARK: Reading

extension Device {
  var image: DeviceImage {
    DeviceImage(
      id: id, clock: clockMode, memoryLimitMB: memoryLimitMB, perAppLimitMB: perAppLimitMB,
      passcode: passcode, now: now, seq: version.seq, poweredOn: poweredOn, locked: locked,
      protectedDataAvailable: protectedDataAvailable, protectedDataLocksAt: protectedDataLocksAt,
      foregroundApp: foregroundApp, appBeforeLock: appBeforeLock, underPressure: underPressure,
      pressureGraceEndsAt: pressureGraceEndsAt, counters: counters,
      apps: apps.keys.sorted().map { apps[$0]!.image })
  }
}

extension App {
  var image: AppImage {
    AppImage(
      spec: AppSpec(
        name: String(name), lifecycle: lifecycle, memoryMB: configuredMemoryMB,
        backgroundMemoryMB: configuredBackgroundMemoryMB, backgroundModes: backgroundModes,
        behavior: behavior, supportsMultipleScenes: supportsMultipleScenes,
        sceneMemoryMB: sceneMemoryMB),
      launches: launches, kills: kills, lastUsed: lastUsed, nextTaskID: nextTaskID,
      backgroundLaunchBlocked: backgroundLaunchBlocked,
      restorationStateSaved: restorationStateSaved, savedRestorationData: savedRestorationData,
      scenes: sessions, focusedScene: focusedScene, discardedScenes: discardedScenes,
      process: state == .notRunning
        ? nil
        : ProcessImage(
          state: state, inactiveCause: inactiveCause,
          memoryMB: memoryMB, backgroundMemoryMB: backgroundMemoryMB,
          backgroundSince: backgroundSince, busyUntil: busyUntil, watchdogKillAt: watchdogKillAt,
          // A waiting callback's time is set on delivery; the one it was queued with is moot.
          waitingCallbacks: waitingCallbacks.map {
            var waiting = $0
            waiting.callback.time = .zero
            return waiting
          },
          tasks: tasks, backgroundWork: backgroundWork,
          activities: BackgroundActivity.allCases.filter(activities.contains),
          significantTimeChangePending: significantTimeChangePending,
          protectedDataAvailable: knowsProtectedDataAvailable, suspendAt: deadlines.suspend,
          restorationData: restorationData, prewarmed: prewarmed))
  }
}

// MARK: Restoring

extension Device {
  /// Makes this new, empty device the one `image` shows (its configuration already given to
  /// `init`), then says what in the image no device could be in: an empty list means the
  /// device is ready to use.
  func restore(_ image: DeviceImage) -> ValidationIssues {
    now = image.now
    continueRecording(after: image.seq, counters: image.counters)
    poweredOn = image.poweredOn
    locked = image.locked
    protectedDataAvailable = image.protectedDataAvailable
    protectedDataLocksAt = image.protectedDataLocksAt
    foregroundApp = image.foregroundApp
    appBeforeLock = image.appBeforeLock
    underPressure = image.underPressure
    pressureGraceEndsAt = image.pressureGraceEndsAt
    var issues = ValidationIssues()
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
    app.launches = image.launches
    app.kills = image.kills
    app.lastUsed = image.lastUsed
    app.nextTaskID = image.nextTaskID
    app.backgroundLaunchBlocked = image.backgroundLaunchBlocked
    app.restorationStateSaved = image.restorationStateSaved
    app.savedRestorationData = image.savedRestorationData
    app.replaceSessions(with: image.scenes)
    app.focusedScene = image.focusedScene
    app.discardedScenes = image.discardedScenes
    issues.check(image.lastUsed <= now, "lastUsed", "must not be after the device's now")
    issues.check(image.nextTaskID >= 1, "nextTaskId", "must be at least 1")
    issues.check(
      image.savedRestorationData.map(Validation.isRestorationData) ?? true,
      "savedRestorationData", Validation.restorationDataRule)
    issues.check(
      app.isScene || image.scenes.isEmpty && image.discardedScenes.isEmpty, "scenes",
      "are for scene apps only")
    issues.check(
      !app.isScene || image.savedRestorationData == nil,
      "savedRestorationData", "is for app-delegate apps: a scene app's is its scenes'")
    checkSessions(of: app, image, &issues)
    guard let process = image.process else { return }
    issues.at("process.") { issues in
      guard process.state != .notRunning else {
        return issues.append("state", "must be a running or suspended state (no process otherwise)")
      }
      app.state = process.state
      app.inactiveCause = process.inactiveCause
      app.memoryMB = process.memoryMB
      app.backgroundMemoryMB = process.backgroundMemoryMB
      app.backgroundSince = process.backgroundSince
      app.busyUntil = process.busyUntil
      app.watchdogKillAt = process.watchdogKillAt
      for waiting in process.waitingCallbacks { app.queue(waiting) }
      app.tasks = process.tasks
      app.backgroundWork = process.backgroundWork
      app.activities = Set(process.activities)
      app.significantTimeChangePending = process.significantTimeChangePending
      app.knowsProtectedDataAvailable = process.protectedDataAvailable
      app.restorationData = process.restorationData
      app.prewarmed = process.prewarmed
      addToLiveApps(app)
      usedMB += app.footprint
      updateVictimOrder(of: app)
      app.deadlines.suspend = derivingSuspension ? nil : process.suspendAt
      reschedule(app)
      check(app, process, &issues, derivingSuspension: derivingSuspension)
    }
  }

  /// The rules an app's scene sessions keep: what the user can open, and scenes that agree
  /// with their process (one window on screen at a time: the focused one).
  private func checkSessions(of app: App, _ image: AppImage, _ issues: inout ValidationIssues) {
    let ids = image.scenes.map(\.id)
    let limit = app.supportsMultipleScenes ? Validation.maxScenesPerApp : 1
    issues.check(
      ids.count + image.discardedScenes.count <= limit, "scenes",
      "with discardedScenes, must hold at most \(limit) sessions")
    issues.check(
      (ids + image.discardedScenes).allSatisfy(Validation.isValidName), "scenes",
      "ids must match \(Validation.namePattern)")
    issues.check(Set(ids).count == ids.count, "scenes", "need distinct ids")
    issues.check(
      image.focusedScene.map(ids.contains) ?? ids.isEmpty, "focusedScene",
      "must name one of the scenes, the one shown in the foreground; null only without one")
    let state = image.process?.prewarmed == true ? .notRunning : image.process?.state ?? .notRunning
    for (index, session) in image.scenes.enumerated() {
      let focused = session.id == image.focusedScene
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
      !(image.process?.state.isForeground ?? false) || image.focusedScene != nil || !app.isScene,
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
    issues.check(
      app.footprint <= perAppLimitMB, "memoryMB",
      "the footprint in state \(state) must be at most perAppLimitMB (\(perAppLimitMB))")
    issues.check(
      (process.backgroundSince != nil) == (state == .background), "backgroundSince",
      "is given for a background app, and only for one")
    issues.check(
      process.backgroundSince.map { $0 <= now } ?? true, "backgroundSince",
      "must not be after the device's now")
    issues.check(
      process.watchdogKillAt.map { $0 >= now && process.busyUntil != nil } ?? true,
      "watchdogKillAt", "needs busyUntil, and must not be before the device's now")
    issues.check(
      process.waitingCallbacks.isEmpty || process.busyUntil.map { $0 >= now } == true,
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
      process.tasks.allSatisfy { $0.expiredAt.map { $0 <= now && state == .background } ?? true },
      "backgroundTasks", "expire in the background, not after the device's now")
    if let work = process.backgroundWork {
      issues.check(state == .background, "backgroundWork", "is for a background app only")
      issues.check(
        work.reason.completion != .none, "backgroundWork.reason",
        "\(work.reason) hands the app no work to complete")
      issues.check(
        work.reason.requiredMode.map(app.backgroundModes.contains) ?? true,
        "backgroundWork.reason", "needs the app's \(work.reason.requiredMode?.rawValue ?? "") mode")
      issues.check(
        work.expiredAt.map { $0 <= now && work.reason.completion == .taskExpiration } ?? true,
        "backgroundWork.expiredAt", "is for a BGTask that expired, not after the device's now")
    }
    issues.check(
      process.activities.isEmpty || state != .suspended, "activities",
      "keep an app from being suspended")
    issues.check(
      process.activities.allSatisfy { app.backgroundModes.contains($0.requiredMode) },
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
      process.protectedDataAvailable == protectedDataAvailable || state == .suspended,
      "protectedDataAvailable", "a process that runs knows the device's")
    guard !derivingSuspension else { return }
    issues.check(
      (process.suspendAt != nil) == app.isSuspendable, "suspendAt",
      "is given for an idle background app, and only for one")
    issues.check(
      process.suspendAt.map { $0 >= now } ?? true, "suspendAt",
      "must not be before the device's now")
  }

  /// The rules the device as a whole keeps.
  private func checkDevice(_ issues: inout ValidationIssues) {
    let foreground = apps.values.filter { $0.state.isForeground }.map(\.name)
    issues.check(
      foreground == (foregroundApp.map { [$0] } ?? []), "foregroundApp",
      "must name the app in the foreground, the one there is or none")
    issues.check(!locked || foregroundApp == nil, "foregroundApp", "must be null while locked")
    issues.check(
      appBeforeLock.map { locked && apps[$0].map { $0.state != .notRunning } == true } ?? true,
      "appBeforeLock", "must name an app with a process, while locked")
    issues.check(
      poweredOn || locked && liveApps.isEmpty, "poweredOn",
      "a device that is off is locked and runs no app")
    issues.check(
      protectedDataAvailable || passcode && locked || !poweredOn, "protectedDataAvailable",
      "is false only on a locked device with a passcode, or one that is off")
    issues.check(
      protectedDataLocksAt.map { $0 >= now && passcode && locked && protectedDataAvailable }
        ?? true,
      "protectedDataLocksAt",
      "is for a locked device with a passcode whose data is still available, not before now")
    issues.check(
      !isOverLimit || underPressure, "underPressure",
      "must be true while the apps use more than memoryLimitMB")
    issues.check(
      pressureGraceEndsAt.map { $0 >= now && underPressure } ?? true, "pressureGraceEndsAt",
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
        issues.check(poweredOn, "state", "needs a device that is on")
        issues.check(
          !state.isForeground || !locked && foregroundApp == nil, "state",
          "\(state) needs an unlocked device with no app in the foreground")
        let footprint = app.footprint(in: state)
        issues.check(
          usedMB + footprint <= memoryLimitMB, "state",
          "the app's \(footprint) MB would pass the device's memoryLimitMB (\(memoryLimitMB)), "
            + "\(usedMB) MB of it in use")
      }
      guard issues.isEmpty else { return }
      if state.isForeground { foregroundApp = app.name }
      restore(
        AppImage(
          spec: spec, launches: state == .notRunning ? 0 : 1, kills: 0, lastUsed: now,
          nextTaskID: given.backgroundTasks.count + 1, backgroundLaunchBlocked: false,
          restorationStateSaved: given.restorationStateSaved, savedRestorationData: nil,
          scenes: app.isScene && state != .notRunning
            ? [SceneSession(id: firstSceneName, state: SceneState(mirroring: state))] : [],
          focusedScene: app.isScene && state != .notRunning ? firstSceneName : nil,
          process: state == .notRunning
            ? nil
            : ProcessImage(
              state: state, inactiveCause: state == .inactive ? .switcher : nil,
              memoryMB: app.memoryMB,
              backgroundMemoryMB: app.backgroundMemoryMB,
              backgroundSince: state == .background ? now : nil, busyUntil: nil,
              watchdogKillAt: nil, waitingCallbacks: [],
              tasks: given.backgroundTasks.enumerated().map {
                BackgroundTask(id: $0.offset + 1, name: $0.element)
              },
              backgroundWork: nil,
              activities: BackgroundActivity.allCases.filter(given.activities.contains),
              significantTimeChangePending: false,
              protectedDataAvailable: protectedDataAvailable, suspendAt: nil)),
        as: app, issues: &issues, derivingSuspension: true)
      issues.rename("process.", to: "")
    }
    if !issues.isEmpty { remove(app) }
    return issues
  }
}
