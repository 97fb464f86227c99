import CPacing

/// The rules a restored device keeps: `restore(_:)` makes a new device the one an image shows
/// and names what in the image no device could be in.
extension Device {
  /// Makes this new, empty device the one `image` shows (its configuration already given to
  /// `init`), then says what in the image no device could be in: an empty list means the
  /// device is ready to use.
  func restore(_ image: DeviceImage) -> ValidationIssues {
    status = image.status
    continueRecording(after: image.seq)
    countsAheadOfSeq = max(0, image.highestCount - image.seq)
    var issues = ValidationIssues()
    issues.check(
      Validation.batteryLevels.contains(status.conditions.batteryLevel), "conditions.batteryLevel",
      Validation.batteryLevelsIssue)
    issues.check(profile.release(status.osVersion) != nil, "osVersion", profile.releaseRule)
    if image.apps.count > limits.maxAppsPerDevice {
      issues.append("apps", "must hold at most \(limits.maxAppsPerDevice) apps")
      return issues
    }
    for (index, appImage) in image.apps.enumerated() {
      pacing_pause()
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
  func restore(
    _ image: AppImage, as app: App, issues: inout ValidationIssues, derivingSuspension: Bool = false
  ) {
    let record = image.record
    app.restore(record)
    noteTaskRequests(of: app)
    restoreMetricKit(of: app)
    check(record, of: app, &issues)
    checkSessions(of: app, image, &issues)
    guard var process = image.process else {
      issues.check(
        !record.taskRequests.contains { $0.kind == .continuedProcessing }, "taskRequests",
        "hold continuedProcessing requests only while the app's process runs")
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
      issues.check(
        process.prewarmed || !failsToLaunch(app), "state",
        "cannot be a running or suspended state: an appDelegate app built with sdkVersion 27 "
          + "or later does not launch on iOS 27 or later (a prewarmed process excepted)")
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

  /// The rules what the system keeps of an app keeps, whether or not it runs.
  private func check(_ record: AppRecord, of app: App, _ issues: inout ValidationIssues) {
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
          && request.kind.requiredMode.map(app.spec.backgroundModes.contains) ?? true,
        "taskRequests", "need a permitted identifier and the background mode of their kind")
      issues.check(
        request.kind == .processing
          || !request.requiresNetworkConnectivity && !request.requiresExternalPower,
        "taskRequests", "require network or power only for processing")
      issues.check(
        (request.kind == .continuedProcessing) == (request.strategy != nil)
          && (request.kind == .continuedProcessing) == (request.queuedAtSeq != nil)
          && (request.kind != .continuedProcessing || request.earliestBeginDate == nil),
        "taskRequests",
        "have a strategy and a queuedAtSeq, and no earliestBeginDate, only for continuedProcessing")
    }
    if record.taskRequests.contains(where: { $0.kind == .continuedProcessing }) {
      issues.check(
        runs(.continuedProcessing), "taskRequests",
        "hold continuedProcessing requests only on iOS 26 or later")
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
      let reasonFits =
        switch termination.cause {
        case .jetsam(let reason): termination.jetsamReason == reason
        case .event(.purge): true
        default: termination.jetsamReason == nil
        }
      issues.check(
        reasonFits, "lastTermination.jetsamReason",
        "must be a jetsam kill's own reason, or a purge's, and nothing else's")
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
      !state.isLive || app.footprint <= processLimit(of: app, in: state), "memoryMB",
      "the footprint in state \(state) must be at most the app's limit there "
        + "(\(processLimit(of: app, in: state)) MB)"
    )
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
      (process.watchdogTransition != nil) == (process.watchdogKillAt != nil),
      "watchdogTransition", "is given with watchdogKillAt, and only with it")
    issues.check(
      process.watchdogKillAt == nil || !process.debuggerAttached, "watchdogKillAt",
      "must be absent while a debugger is attached: the watchdog does not time the process")
    issues.check(
      process.waitingCallbacks.isEmpty || process.busyUntil.map { $0 >= status.now } == true,
      "waitingCallbacks", "need a busyUntil not before the device's now")
    issues.check(
      process.waitingCallbacks.allSatisfy { $0.callback.app == app.name }, "waitingCallbacks",
      "must be for the app itself")
    checkBackgroundWork(of: app, process, &issues)
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

  /// The rules a process's background tasks and background work keep.
  private func checkBackgroundWork(
    of app: App, _ process: ProcessImage, _ issues: inout ValidationIssues
  ) {
    let state = process.state
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
        work.identifier == nil
          || [.urlSession, .appRefresh, .processing, .continuedProcessing].contains(work.reason),
        "backgroundWork.identifier", "is for urlSession or BGTask work only")
      if work.reason == .continuedProcessing {
        issues.check(
          runs(.continuedProcessing) && work.identifier != nil,
          "backgroundWork.reason",
          "continuedProcessing runs on iOS 26 or later, with its request's identifier")
        issues.check(
          work.progress.map { $0.completedUnitCount <= $0.totalUnitCount } ?? true,
          "backgroundWork.progress", "completes at most its totalUnitCount")
      }
      issues.check(
        work.expiredAt.map { $0 <= status.now && work.reason.completion == .taskExpiration }
          ?? true,
        "backgroundWork.expiredAt", "is for a BGTask that expired, not after the device's now")
    }
  }

  /// The rules the device as a whole keeps.
  private func checkDevice(_ issues: inout ValidationIssues) {
    // The system's one queue of continued-processing requests: each its own place in it.
    let places = continuedTaskQueuers.flatMap { name in
      apps[name]?.taskRequests.compactMap(\.queuedAtSeq) ?? []
    }
    issues.check(
      Set(places).count == places.count && places.allSatisfy { $0 <= version.seq },
      "taskRequests.queuedAtSeq", "must be distinct, and none after the device's seq")
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
      status.protectedDataAvailable || configuration.passcode && status.locked || !status.poweredOn,
      "protectedDataAvailable",
      "is false only on a locked device with a passcode, or one that is off")
    issues.check(
      status.protectedDataLocksAt.map {
        $0 >= status.now && configuration.passcode && status.locked && status.protectedDataAvailable
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

extension Device {
  /// Refuses to grow a device whose counts came within `Validation.countHeadroom` of
  /// `Validation.maxCount`: every count grows by at most one a journal entry, so none passes
  /// the last seq and `countsAheadOfSeq`.
  func checkCountsLeft() throws(EngineError) {
    let highest = version.seq + countsAheadOfSeq
    guard highest <= Validation.maxCount - Validation.countHeadroom else {
      throw .countsExhausted(device: id, highest: highest)
    }
  }
}

extension DeviceImage {
  /// The largest count the image holds: its seq, its counters, and each app's launches, kills,
  /// next task id and exits.
  var highestCount: Int {
    let counters = status.counters
    let device = max(seq, counters.events, counters.callbacks, counters.transitions, counters.kills)
    return apps.reduce(device) { highest, app in
      let record = app.record
      return max(
        highest, record.launches, record.kills, record.nextTaskID, record.pendingExits.largest)
    }
  }
}
