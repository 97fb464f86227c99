/// The four foreground/background steps, whose callback depends on the app's life cycle.
enum ForegroundStep {
  case resignActive, enterBackground, enterForeground, becomeActive
}

extension App {
  /// The callback UIKit delivers for `step` in this app's life cycle (Apple's "Managing your app's life cycle").
  func callback(for step: ForegroundStep) -> CallbackMethod {
    switch (step, isScene) {
    case (.resignActive, false): .willResignActive
    case (.resignActive, true): .sceneWillResignActive
    case (.enterBackground, false): .didEnterBackground
    case (.enterBackground, true): .sceneDidEnterBackground
    case (.enterForeground, false): .willEnterForeground
    case (.enterForeground, true): .sceneWillEnterForeground
    case (.becomeActive, false): .didBecomeActive
    case (.becomeActive, true): .sceneDidBecomeActive
    }
  }
}

extension App {
  /// The most callbacks one event or deadline queues for one app: a force-quit of an app with
  /// every scene session connected (a `sceneDidDisconnect` each, `didDiscardSceneSessions`,
  /// `applicationWillTerminate`), with room to spare. The property walk holds events to it.
  static let mostWaitingCallbacksPerEvent = 2 * Validation.maxScenesPerApp
}

extension Device {
  /// Refuses an event that could queue callbacks past an app's bound
  /// (`EngineLimits.maxWaitingCallbacksPerApp`), so that no queue ever holds more: one it is
  /// posted to, or for a device event, one whose process it may reach.
  func checkRoomForWaitingCallbacks(of apps: some Sequence<App>) throws(EngineError) {
    let limit = limits.maxWaitingCallbacksPerApp
    for app in apps
    where app.waitingCallbacks.count + App.mostWaitingCallbacksPerEvent > limit {
      throw .tooManyWaitingCallbacks(app: String(app.name), limit: limit)
    }
  }
}

/// Event handlers. Each runs only after the transition table allowed the event, so none of
/// them checks state again; callback sequences follow Apple's UIKit documentation (LifecycleEngine.docc).
///
/// Their force unwraps are of what that check proved (`Device+Rules.swift`, `refusal`): a scene
/// the event names exists, a focused scene exists where one is shown, the addressee of a device
/// event exists. Every device they run on is one the events made, or one restoring checked
/// against the same invariants (`DeviceImage.swift`); `SnapshotFuzzer` drives restored
/// documents through every event to keep the two in step.
extension Device {
  func apply(_ posted: AppEvent, to app: App) throws(EngineError) -> EventOutcome {
    // The event as posted is read where it is, not copied, unless it has to change.
    if let named = posted.namingItsSession(for: app.name) {
      return try apply(delivered: named, to: app)
    }
    return try apply(delivered: posted, to: app)
  }

  /// `apply(_:to:)` with the event as the system delivers it.
  private func apply(delivered event: AppEvent, to app: App) throws(EngineError) -> EventOutcome {
    try checkPossible(event, for: app)
    let before = app.state
    var outcome = perform {
      record(.app(event), app: app.name)
      runSequence(of: event, on: app)
      weighAgain(app)  // whatever the event changed of it
    }
    outcome.subject = Effect(app: app.name, previousState: before, state: app.state)
    return outcome
  }

  /// Throws why `event` cannot be applied to `app` now: its parameters, a bound it would pass,
  /// or the transition table's refusal.
  private func checkPossible(_ event: AppEvent, for app: App) throws(EngineError) {
    try Self.validate(event)
    let taskLimit = limits.maxBackgroundTasksPerApp
    if case .beginBackgroundTask = event, app.tasks.count >= taskLimit {
      throw .tooManyBackgroundTasks(app: String(app.name), limit: taskLimit)
    }
    try checkRoomForWaitingCallbacks(of: CollectionOfOne(app))
    if let reason = refusal(of: event, for: app) {
      throw .refused(
        Refusal(
          event: event.type, app: String(app.name), currentState: app.state.rawValue,
          allowedEvents: allowedEvents(for: app), reason: reason))
    }
  }

  /// The sequence of each app event: the table of what it does, once it is possible.
  private func runSequence(of event: AppEvent, on app: App) {
    let cause = TransitionCause.event(event.type)
    switch event {
    case .launch(let entry, let scene):
      launch(app, via: entry, scene: scene, opensSession: false, cause: cause)
    case .prewarm: prewarm(app)
    case .openScene(let id, let entry):
      launch(app, via: entry, scene: id, opensSession: true, cause: cause)
      setResult(.scene(id: app.focusedScene!))  // `launch` just focused the session it opened
    case .closeScene(let id): closeScene(app.sessionIndex(id)!, of: app)  // rule: `unknownScene`
    case .disconnectScene(let id):
      disconnectScene(app.sessionIndex(id)!, of: app, cause: cause)  // rule: `unknownScene`
    case .home: sendToBackground(app, cause: cause)
    case .openSwitcher: resignActive(app, because: .switcher, cause: cause)
    case .interruptionBegan(let source):
      resignActive(app, because: .interruption(source), cause: cause)
    case .closeSwitcher, .interruptionEnded(.resumed): becomeActive(app, cause: cause)
    case .interruptionEnded(.backgrounded): sendToBackground(app, cause: cause)
    case .terminate: forceQuit(app)
    case .crash(let atLaunch):
      if atLaunch { dropPreservedState(of: app) }
      kill(app, cause: cause)
    case .purge(let reason): kill(app, cause: cause, jetsamReason: reason)
    case .thermalKill: kill(app, cause: cause, terminationCode: .thermal)
    case .backgroundLaunch(let reason, let payload, let identifier):
      let work = launchInBackground(
        app, for: reason, payload: payload, identifier: identifier, cause: cause)
      if let work { setResult(.backgroundWork(id: work.id, deadline: work.deadline)) }
    case .backgroundWorkCompleted(let id):
      let index = id.flatMap { id in app.backgroundWork.firstIndex { $0.id == id } } ?? 0
      app.backgroundWork.remove(at: index)
      reschedule(app)
    case .beginBackgroundTask(let name): beginBackgroundTask(app, name: name)
    case .endBackgroundTask(let id):
      app.tasks.removeAll { $0.id == id }
      reschedule(app)
    case .memoryWarning: deliver(.didReceiveMemoryWarning, to: app, cause: cause)
    case .setMemory(let megabytes): setFootprint(of: app, to: megabytes)
    case .startActivity(let activity): setActivity(activity, of: app, on: true)
    case .stopActivity(let activity): setActivity(activity, of: app, on: false)
    case .submitTaskRequest(let request): submit(request, for: app)
    case .cancelTaskRequest(let identifier):
      // `cancel(taskRequestWithIdentifier:)` of an identifier with no request does nothing.
      changeTaskRequests(of: app) { $0.removeAll { $0.identifier == identifier } }
    case .launchTask(let identifier):
      let bypassed =
        app.taskRequests.first { $0.identifier == identifier }
        .map { holdReasons(for: $0, of: app).filter { $0 != .manualScheduling } } ?? []
      if let work = launchTask(identifier, of: app, cause: cause) {
        setResult(.backgroundWork(id: work.id, deadline: work.deadline, bypassed: bypassed))
      }
    case .expireTask(let identifier):  // rule: `noRunningTask` unless this one runs
      let work = app.backgroundWork.first { $0.isRunningTask && $0.identifier == identifier }!
      expireBackgroundWork(work.id, of: app, cause: cause)
      reschedule(app)
      setResult(.backgroundWork(id: work.id, deadline: work.deadline))
    case .reportProgress(let identifier, let progress):  // rule: `noContinuedTask` otherwise
      app.backgroundWork[app.continuedTaskIndex(identifier)!].progress = progress
    case .attachDebugger: attachDebugger(to: app)
    case .detachDebugger: detachDebugger(from: app)
    case .updateApp(let version, let build):
      app.version = version
      if let build { app.build = build }
      app.updatedAt = status.now
    case .reinstall: reinstall(app)
    case .setRestorationData(let data, let scene):
      if app.isScene {
        app.setRestorationData(  // rule: `sceneNotConnected` unless one is focused
          data, ofScene: scene.flatMap(app.sessionIndex) ?? app.focusedSessionIndex!)
      } else {
        app.restorationData = data
      }
    }
  }

  // MARK: Sequences

  /// The user opens `app`, a scene app showing session `scene` (or the one it showed last),
  /// or a new session when it `opensSession` or has none. One window is on screen at a time:
  /// the foreground app leaves first, even when it is `app` showing another of its windows
  /// (the user guide, "Behaviour decisions").
  private func launch(
    _ app: App, via entry: Entry?, scene: String?, opensSession: Bool, cause: TransitionCause
  ) {
    endProcessIfTerminating(app)
    if let name = status.foregroundApp, let other = apps[name] {
      sendToBackground(other, cause: cause)
    }
    let newSession = app.isScene && (opensSession || app.sessions.isEmpty)
    if newSession {
      app.openSession(scene ?? app.newSessionID())
      app.focusedScene = app.sessions.last!.id  // just opened
    } else if app.isScene {  // not `newSession`: it has a session
      app.focusedScene = scene ?? app.focusedScene ?? app.sessions.last!.id
    }
    if app.state == .notRunning || app.prewarmed {
      coldLaunch(app, via: entry, newSession: newSession, cause: cause)
    } else {
      bringToForeground(app, via: entry, newSession: newSession, cause: cause)
    }
    app.backgroundLaunchBlocked = false
  }

  /// A cold launch ("About the app launch sequence"), or the rest of a prewarmed one. A scene
  /// app launches in the background state, then connects its scene; the entry reaches an
  /// app-delegate app in its launch options (a local notification's response excepted) and a
  /// scene app in its connection options, and then in the entry's own callback where UIKit
  /// calls one (`Entry.callback`).
  private func coldLaunch(
    _ app: App, via entry: Entry?, newSession: Bool, cause: TransitionCause
  ) {
    if app.isScene {
      finishLaunching(app, into: .background, timedAs: .launch, cause: cause)
      connectScene(app, via: entry, newSession: newSession, cause: cause)
      enterForeground(app, via: entry, sceneJustConnected: true, cause: cause)
    } else if failsToLaunch(app) {
      failLaunch(of: app, inForeground: true, cause: cause)
    } else {
      let options = entry.flatMap { $0.isLaunchOption ? CallbackArguments.launchOptions($0) : nil }
      finishLaunching(
        app, into: .inactive, options: options, restoresState: true, timedAs: .launch,
        cause: cause)
      take(entry, app, sceneJustConnected: false, cause: cause)
      becomeActive(app, cause: cause)
    }
  }

  /// Whether UIKit's assertion stops `app` launching: an app-delegate app built with the iOS
  /// 27 SDK or later, on iOS 27 or later ("Transitioning to the UIKit scene-based life
  /// cycle": such apps "must adopt the scene-based life cycle or they fail to launch"). Built
  /// with an earlier SDK, it launches: "The assert is only evaluated when building with the
  /// next major release's SDK" (Apple Developer Forums, thread 789004).
  func failsToLaunch(_ app: App) -> Bool {
    !app.isScene && app.spec.sdkVersion >= ReleaseFeature.sceneLifecycleRequirement.since
      && runs(.sceneLifecycleRequirement)
  }

  /// The launch of an app that `failsToLaunch` (or the rest of a prewarmed one) traps as UIKit
  /// creates the app's first scene, before any `UIApplicationDelegate` callback: the process
  /// starts and ends with none. It is a crash during launch (UIKit drops the state it
  /// preserved) that MetricKit counts, in the foreground for a launch the user sees.
  private func failLaunch(of app: App, inForeground: Bool, cause: TransitionCause) {
    app.launches += 1
    app.prewarmed = false
    changeState(app, to: .background, cause: cause)
    dropPreservedState(of: app)
    kill(app, cause: .sceneLifecycleRequired, exitInForeground: inForeground)
  }

  /// will/didFinishLaunching, the app in `state` (inactive for an app-delegate app the user
  /// opens, background otherwise). UIKit restores an app-delegate app's saved state between
  /// them when the user opens it, and tells a scene app after them of the sessions discarded
  /// while it was not running. didFinishLaunching keeps the main thread for the app's
  /// configured time, which the watchdog times as `launch`: the user's, or one in the
  /// background.
  private func finishLaunching(
    _ app: App, into state: AppState, options: CallbackArguments? = nil,
    restoresState: Bool = false, timedAs launch: WatchdogTransition, cause: TransitionCause
  ) {
    app.launches += 1
    if app.prewarmed {  // the paused launch resumes, reading the device as it is now
      app.prewarmed = false
      app.protectedDataAvailable = status.protectedDataAvailable
      changeState(app, to: .background, cause: cause)
    }
    deliver(.willFinishLaunching, to: app, then: state, cause: cause, arguments: options)
    if restoresState, let data = app.savedRestorationData {
      app.restorationData = data
      deliver(
        .shouldRestoreSecureApplicationState, to: app, cause: cause,
        arguments: .restorationData(data))
    }
    deliver(.didFinishLaunching, to: app, cause: cause, arguments: options)
    // A new process's main thread is free: didFinishLaunching ran at once.
    occupyMainThread(
      of: app, for: app.spec.behavior.didFinishLaunchingDuration, timedAs: launch)
    if !app.discardedScenes.isEmpty {
      let discarded = app.discardedScenes
      app.discardedScenes = []
      deliver(.didDiscardSceneSessions, to: app, cause: cause, arguments: .sessions(discarded))
    }
  }

  /// Back from the background or from suspension. Background time does not run in the
  /// foreground: expired tasks are reset and the work of a background launch is over, with its
  /// deadline (LifecycleEngine.docc, "Background"); a continued-processing task goes on.
  func bringToForeground(
    _ app: App, via entry: Entry?, newSession: Bool = false, cause: TransitionCause
  ) {
    resume(app, cause: cause)
    let connects = app.isScene && app.sceneState == .unattached
    if connects { connectScene(app, via: entry, newSession: newSession, cause: cause) }
    for index in app.tasks.indices { app.tasks[index].expiredAt = nil }
    if !app.process.backgroundWork.isEmpty {
      app.backgroundWork.removeAll { $0.reason != .continuedProcessing }
    }
    enterForeground(app, via: entry, sceneJustConnected: connects, cause: cause)
  }

  /// The app (or its scene) enters the foreground, takes the entry where a callback hands it
  /// over, and becomes active.
  private func enterForeground(
    _ app: App, via entry: Entry?, sceneJustConnected: Bool, cause: TransitionCause
  ) {
    deliver(app.callback(for: .enterForeground), to: app, then: .inactive, cause: cause)
    take(entry, app, sceneJustConnected: sceneJustConnected, cause: cause)
    becomeActive(app, cause: cause)
  }

  /// The entry's own callback, where UIKit calls one (`Entry.callback`).
  private func take(_ entry: Entry?, _ app: App, sceneJustConnected: Bool, cause: TransitionCause) {
    guard let entry,
      let method = entry.callback(for: app.spec.lifecycle, sceneJustConnected: sceneJustConnected)
    else { return }
    deliver(method, to: app, cause: cause, arguments: .entry(entry))
  }

  private func becomeActive(_ app: App, cause: TransitionCause) {
    deliver(app.callback(for: .becomeActive), to: app, then: .active, cause: cause)
  }

  private func resignActive(
    _ app: App, because inactiveCause: InactiveCause, cause: TransitionCause
  ) {
    app.inactiveCause = inactiveCause
    deliver(app.callback(for: .resignActive), to: app, then: .inactive, cause: cause)
  }

  /// Connects a scene to the focused session: configurationForConnecting only for a new
  /// session (Apple's `application(_:configurationForConnecting:options:)` documentation); a
  /// remembered one brings back the activity its scene saved (`session.stateRestorationActivity`),
  /// which the new scene then holds again.
  private func connectScene(
    _ app: App, via entry: Entry?, newSession: Bool, cause: TransitionCause
  ) {
    // Each caller focused a session first: `launch` (opened or kept), unlock (the scene the
    // lock left, which restoring requires of `appBeforeLock`).
    let index = app.focusedSessionIndex!
    if newSession {
      deliver(
        .configurationForConnecting, to: app, cause: cause,
        arguments: .connecting(with: entry, restorationData: nil))
    }
    let restored = app.sessions[index].savedRestorationData
    if restored != nil { app.setRestorationData(restored, ofScene: index) }
    deliver(
      .sceneWillConnect, to: app, cause: cause, scene: index,
      arguments: .connecting(with: entry, restorationData: restored))
  }

  /// A suspended app runs again: first the queued significant time change and protected-data
  /// change (LifecycleEngine.docc, "States and transitions").
  func resume(_ app: App, cause: TransitionCause) {
    guard app.state == .suspended else { return }
    changeState(app, to: .background, cause: cause)
    if app.significantTimeChangePending {
      app.significantTimeChangePending = false
      deliver(.significantTimeChange, to: app, cause: cause)
    }
    tellProtectedDataState(to: app, cause: cause)
  }

  /// Home, lock, switching apps, an accepted call. An app that saves restoration data is
  /// asked for it once it is in the background (`application(_:shouldSaveSecureApplicationState:)`,
  /// a scene's `stateRestorationActivity(for:)`); UIKit keeps it from the moment the method runs.
  func sendToBackground(_ app: App, cause: TransitionCause) {
    if app.state == .active {
      deliver(app.callback(for: .resignActive), to: app, then: .inactive, cause: cause)
    }
    app.restorationStateSaved = true
    deliver(app.callback(for: .enterBackground), to: app, then: .background, cause: cause)
    if !app.isScene, let data = app.restorationData {
      deliver(
        .shouldSaveSecureApplicationState, to: app, cause: cause, arguments: .restorationData(data))
    } else if let index = app.focusedSessionIndex, let data = app.sessions[index].restorationData {
      deliver(
        .stateRestorationActivity, to: app, cause: cause, scene: index,
        arguments: .restorationData(data))
    }
  }

  /// Force-quit from the app switcher (LifecycleEngine.docc, "Launch and URLs"), or the last
  /// window closed there, even of an app that is not running: every session is discarded. A
  /// running scene app's connected scenes disconnect, the focused one first, and it learns at
  /// once that its sessions are discarded; an app whose code cannot run (suspended, or busy)
  /// learns it after its next didFinishLaunching (Apple's `application(_:didDiscardSceneSessions:)`
  /// documentation).
  func forceQuit(_ app: App) {
    let cause = TransitionCause.event(.terminate)
    let discarded = app.sessions.map(\.id)
    // Swiping away the app in front is a foreground exit ("Normal exits include terminations
    // by the app switcher when the user swipes up to exit the app": MXForegroundExitData),
    // though its callbacks take it through the background first.
    let inForeground = app.state.isForeground
    if !app.state.isRunning || app.isBusy(at: status.now) {
      changeState(app, to: .notRunning, cause: cause)  // nothing of the app's code runs
      app.discardedScenes += discarded
    } else {
      if app.state == .active {
        deliver(app.callback(for: .resignActive), to: app, then: .inactive, cause: cause)
      }
      if app.isScene {
        let focused = app.focusedSessionIndex
        if let focused, app.sessions[focused].isConnected {
          deliver(.sceneDidDisconnect, to: app, then: .background, cause: cause, scene: focused)
        }
        for index in app.sessions.indices where index != focused && app.sessions[index].isConnected
        {
          deliver(.sceneDidDisconnect, to: app, cause: cause, scene: index)
        }
        if !discarded.isEmpty {
          deliver(.didDiscardSceneSessions, to: app, cause: cause, arguments: .sessions(discarded))
        }
      } else if app.state.isForeground {
        deliver(.didEnterBackground, to: app, then: .background, cause: cause)
      }
      deliver(
        .willTerminate, to: app, then: .notRunning, cause: cause, exitInForeground: inForeground)
    }
    app.removeAllSessions()
    app.focusedScene = nil
    app.backgroundLaunchBlocked = true
    dropPreservedState(of: app)
  }

  /// The user opens an app, or the debugger launches its task, while its force-quit has not
  /// ended (`applicationWillTerminate` waits behind a busy main thread): the system ends that
  /// process without waiting, and the launch starts a new one.
  func endProcessIfTerminating(_ app: App) {
    if app.isTerminating { changeState(app, to: .notRunning, cause: .event(.terminate)) }
  }

  /// UIKit forgets the state the app preserved: after a force-quit or a crash at launch
  /// (Apple's StateRestoreChildViews sample, its read-me).
  private func dropPreservedState(of app: App) {
    app.restorationStateSaved = false
    app.savedRestorationData = nil
    for index in app.sessions.indices { app.setSavedRestorationData(nil, ofScene: index) }
  }

  /// The debugger attaches: the watchdog stops timing the process, so a kill it had pending
  /// is off, and `reschedule` drops every deadline that would suspend or expire it.
  private func attachDebugger(to app: App) {
    app.debuggerAttached = true
    app.watchdogKillAt = nil
    app.watchdogTransition = nil
    reschedule(app)
  }

  /// The debugger detaches: the process is timed again from now, its clocks started afresh
  /// (its background time, each piece of work's time, the grace of what expired unended), so
  /// that no deadline falls in the time the debugger held it.
  private func detachDebugger(from app: App) {
    app.debuggerAttached = false
    if app.state == .background { app.backgroundSince = status.now }
    for index in app.tasks.indices where app.tasks[index].expiredAt != nil {
      app.tasks[index].expiredAt = status.now
    }
    app.backgroundWork = app.backgroundWork.map { work in
      BackgroundWork(
        id: work.id, reason: work.reason, identifier: work.identifier,
        deadline: scheduler.time(toComplete: work.reason).map { status.now + $0 },
        expiredAt: work.expiredAt.map { _ in status.now }, progress: work.progress)
    }
    reschedule(app)
  }

  /// The user deletes the app and installs it again: a new installation keeps only the
  /// version it was installed at and the simulator's own counts and numbering.
  private func reinstall(_ app: App) {
    changeTaskRequests(of: app) { $0.removeAll() }  // BGTaskScheduler forgets them
    var fresh = AppRecord()
    fresh.version = app.version
    fresh.build = app.build
    fresh.installation = app.installation + 1
    fresh.launches = app.launches
    fresh.kills = app.kills
    fresh.nextTaskID = app.nextTaskID
    fresh.lastUsed = app.lastUsed
    app.restore(fresh)
    forgetMetricPeriod(of: app)  // its pending exits and reports are gone
  }

  /// The system prewarms the app (Apple's "About the app launch sequence": prewarming "executes
  /// an app's launch sequence up until, but not including, when main() calls
  /// UIApplicationMain"). The process is paused, suspended, with no callback: the user's launch
  /// later runs will/didFinishLaunching and connects the scene; jetsam may reclaim it first.
  private func prewarm(_ app: App) {
    app.prewarmed = true
    changeState(app, to: .suspended, cause: .event(.prewarm))
  }

  /// Launched, or woken from suspension, for background work. Either way an app-delegate app
  /// gets `applicationDidEnterBackground` before the event (Apple's "About the background
  /// execution sequence": "The system resumes the app. UIKit calls the app delegate's
  /// applicationDidEnterBackground(_:) method. UIKit delivers the event"); a scene app, whose
  /// scene is already in the background or not connected, gets the event alone.
  /// A launch passes launch options for a push (its payload) or location services; the push's
  /// callback gets the payload, a URL session's or a requested task's its identifier. Work to complete is numbered
  /// like background tasks (the callback's `taskId`): each push and task has its own, and the
  /// app is not suspended until all are completed.
  @discardableResult
  func launchInBackground(
    _ app: App, for reason: BackgroundLaunchReason, payload: String?, identifier: String?,
    cause: TransitionCause
  ) -> BackgroundWork? {
    let push = payload ?? BackgroundLaunchReason.silentPushPayload  // only a push has one
    switch app.state {
    case .notRunning,
      .suspended where app.prewarmed:
      guard !failsToLaunch(app) else {
        failLaunch(of: app, inForeground: false, cause: cause)
        return nil
      }
      // "If the app supports scenes, this is nil" (`application(_:didFinishLaunchingWithOptions:)`,
      // `launchOptions`): a scene app learns why from the callback that follows.
      let options =
        app.isScene
        ? nil : reason.launchOption(push: push).map(CallbackArguments.backgroundLaunchOptions)
      finishLaunching(
        app, into: .background, options: options, timedAs: .backgroundLaunch, cause: cause)
      if !app.isScene { deliver(.didEnterBackground, to: app, cause: cause) }
    case .suspended:
      resume(app, cause: cause)
      if !app.isScene { deliver(.didEnterBackground, to: app, cause: cause) }
    default:
      break
    }
    var work: BackgroundWork?
    if reason.completion != .none {
      let made = BackgroundWork(
        id: app.nextTaskID, reason: reason, identifier: identifier,
        deadline: scheduler.time(toComplete: reason).map { status.now + $0 })
      app.nextTaskID += 1
      app.backgroundWork.append(made)
      work = made
    }
    let arguments = reason.callbackArguments(push: push, identifier: identifier)
    deliver(reason.callback, to: app, cause: cause, taskId: work?.id, arguments: arguments)
    reschedule(app)
    return work
  }

  /// An activity keeps the app running in the background while it lasts; when the last one
  /// stops there, the app is suspended `suspendDelay` later like any idle app. Audio moves the
  /// app into jetsam's audio band.
  private func setActivity(_ activity: BackgroundActivity, of app: App, on: Bool) {
    if on {
      app.activities.insert(activity)
    } else {
      app.activities.remove(activity)
    }
    updateVictimOrder(of: app)
    reschedule(app)
  }

  private func beginBackgroundTask(_ app: App, name: String?) {
    let id = app.nextTaskID
    app.nextTaskID += 1
    app.tasks.append(BackgroundTask(id: id, name: name))
    reschedule(app)
    setResult(.backgroundTask(id: id, expiresAt: app.deadlines.backgroundTimeExpiry))
  }
}
