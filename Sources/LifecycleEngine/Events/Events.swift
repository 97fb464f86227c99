/// The name of every event the simulator accepts, app-scoped or device-scoped.
///
/// `allowedEvents` lists and refusals speak in these names; they are the `type` strings of the
/// HTTP API.
public enum EventType: String, CaseIterable, Sendable, Codable {
  case launch, prewarm, openScene, closeScene, disconnectScene
  case home, openSwitcher, closeSwitcher, interruptionBegan, interruptionEnded
  case terminate, crash, purge, thermalKill, backgroundLaunch, backgroundWorkCompleted
  case beginBackgroundTask, endBackgroundTask, memoryWarning, setMemory
  case startActivity, stopActivity, setRestorationData
  case submitTaskRequest, cancelTaskRequest, launchTask, expireTask, reportProgress
  case attachDebugger, detachDebugger, updateApp, reinstall
  case lock, unlock, significantTimeChange, shutdown, boot, setConditions
  case setBackgroundAppRefresh, push, deliverMetrics, updateOS
}

/// An event addressed to one app.
public enum AppEvent: Hashable, Sendable {
  /// The user taps the icon, or opens the app through an entry: a URL, a notification, a
  /// universal link or a quick action. A scene app shows `scene`, one of its sessions, or
  /// when nil the one it showed last.
  case launch(via: Entry? = nil, scene: String? = nil)
  /// The system prewarms the app (iOS 15+): it starts the process and pauses it before
  /// `UIApplicationMain`, so no app code runs until the user launches it.
  case prewarm
  /// The user opens a new window of an app that supports multiple scenes: a new session `id`
  /// (generated when nil) whose scene connects and comes to the foreground.
  case openScene(id: String? = nil, via: Entry? = nil)
  /// The user closes one window, session `id`, from the app switcher.
  case closeScene(String)
  /// The system disconnects the background scene of session `id` to reclaim its resources;
  /// the session stays.
  case disconnectScene(String)
  case home
  case openSwitcher
  case closeSwitcher
  case interruptionBegan(InterruptionSource)
  case interruptionEnded(InterruptionOutcome = .resumed)
  /// The user force-quits the app from the app switcher.
  case terminate
  /// The app crashes; `atLaunch`, during its launch, so UIKit also drops the state it preserved.
  case crash(atLaunch: Bool = false)
  /// The system kills the app to reclaim memory.
  case purge(JetsamReason = .vmPageshortage)
  /// The system kills the running app in response to a thermal event (`0xc00010ff`).
  case thermalKill
  /// The system launches or wakes the app for `reason`: a silent push with its `payload`
  /// (the `userInfo` the app gets, JSON text; nil: `BackgroundLaunchReason.silentPushPayload`),
  /// the events of the background `URLSession` named `sessionIdentifier`. Boxed, so that the
  /// other events (and a journal entry) keep the size of the largest unboxed one.
  indirect case backgroundLaunch(
    BackgroundLaunchReason, payload: String? = nil, sessionIdentifier: String? = nil)
  /// The app calls the completion handler of background work `id` (or marks its `BGTask`
  /// completed); when nil, of its oldest.
  case backgroundWorkCompleted(id: Int? = nil)
  case beginBackgroundTask(name: String? = nil)
  case endBackgroundTask(id: Int)
  case memoryWarning
  case setMemory(memoryMB: Int)
  /// The app starts an activity that keeps it running in the background (audio, location).
  case startActivity(BackgroundActivity)
  case stopActivity(BackgroundActivity)
  /// What the app's code hands UIKit when the system asks it to save its state, as JSON text
  /// (`application(_:shouldSaveSecureApplicationState:)`, a scene's
  /// `stateRestorationActivity(for:)`); nil: it saves none. A scene app's data is its scene's:
  /// `scene`, or when nil the focused one.
  case setRestorationData(String?, scene: String? = nil)
  /// The app's code submits a request to `BGTaskScheduler` (`submit(_:)`); a request for an
  /// identifier already pending replaces it. Boxed, like `backgroundLaunch`.
  indirect case submitTaskRequest(TaskRequest)
  /// The app's code cancels its pending request `identifier` (`cancel(taskRequestWithIdentifier:)`).
  case cancelTaskRequest(identifier: String)
  /// The system runs the pending request `identifier` now, whatever the conditions, as the
  /// debugger's `_simulateLaunchForTaskWithIdentifier:` does ("Starting and Terminating Tasks
  /// During Development").
  case launchTask(identifier: String)
  /// The running task `identifier`'s time is up now: its expiration handler runs, as the
  /// debugger's `_simulateExpirationForTaskWithIdentifier:` makes it.
  case expireTask(identifier: String)
  /// The running continued-processing task `identifier` reports its progress
  /// (`BGContinuedProcessingTask.progress`, `ProgressReporting`). Boxed, like
  /// `backgroundLaunch`.
  indirect case reportProgress(identifier: String, TaskProgress)
  /// Xcode's debugger attaches to the app's process, as Run or "Attach to Process" leaves it:
  /// the process is never suspended, the watchdog does not time it, and its background time
  /// does not run out, until it detaches or the process ends.
  case attachDebugger
  /// The debugger detaches: the process is timed as any other from now.
  case detachDebugger
  /// The App Store updates the app to `version` and `build` (nil: the build it has).
  case updateApp(version: String, build: String? = nil)
  /// The user deletes the app and installs it again: a new `identifierForVendor`, and what
  /// the system kept of it gone.
  case reinstall

  public var type: EventType {
    switch self {
    case .launch: .launch
    case .prewarm: .prewarm
    case .openScene: .openScene
    case .closeScene: .closeScene
    case .disconnectScene: .disconnectScene
    case .home: .home
    case .openSwitcher: .openSwitcher
    case .closeSwitcher: .closeSwitcher
    case .interruptionBegan: .interruptionBegan
    case .interruptionEnded: .interruptionEnded
    case .terminate: .terminate
    case .crash: .crash
    case .purge: .purge
    case .thermalKill: .thermalKill
    case .backgroundLaunch: .backgroundLaunch
    case .backgroundWorkCompleted: .backgroundWorkCompleted
    case .beginBackgroundTask: .beginBackgroundTask
    case .endBackgroundTask: .endBackgroundTask
    case .memoryWarning: .memoryWarning
    case .setMemory: .setMemory
    case .startActivity: .startActivity
    case .stopActivity: .stopActivity
    case .setRestorationData: .setRestorationData
    case .submitTaskRequest: .submitTaskRequest
    case .cancelTaskRequest: .cancelTaskRequest
    case .launchTask: .launchTask
    case .expireTask: .expireTask
    case .reportProgress: .reportProgress
    case .attachDebugger: .attachDebugger
    case .detachDebugger: .detachDebugger
    case .updateApp: .updateApp
    case .reinstall: .reinstall
    }
  }

  /// The event types that can be addressed to an app.
  public static let types = EventType.allCases.filter(\.isAppEvent)

  /// The event as the system delivers it to `app` where that differs from the event as
  /// posted, nil where it does not: the events of a background `URLSession` always name their
  /// session (`application(_:handleEventsForBackgroundURLSession:completionHandler:)` is
  /// handed its `identifier`), `<app>.background-session` unless the event named one.
  func namingItsSession(for app: AppName) -> AppEvent? {
    guard case .backgroundLaunch(.urlSession, let payload, nil) = self else { return nil }
    return .backgroundLaunch(
      .urlSession, payload: payload, sessionIdentifier: "\(app).background-session")
  }
}

/// An event addressed to a whole device.
public enum DeviceEvent: Hashable, Sendable {
  /// The user goes to the home screen from the foreground app.
  case home
  /// Every running app receives a memory warning.
  case memoryWarning
  case lock, unlock
  /// Midnight, a carrier time update or a daylight-saving change.
  case significantTimeChange
  /// The user powers the device off: running apps get `applicationWillTerminate`.
  case shutdown
  /// The device starts again, locked, with protected data unavailable until the first unlock.
  case boot
  /// The battery, the charger, Low Power Mode, the network, the Background App Refresh switch
  /// or the scheduling policy change: the ones the change names.
  case setConditions(ConditionsChange)
  /// The user turns Background App Refresh on or off for `app` in Settings.
  case setBackgroundAppRefresh(app: String, enabled: Bool)
  /// MetricKit delivers each running app's pending payload: its exits since the last one
  /// (`MXMetricManagerSubscriber.didReceive(_:)`, or iOS 27's `MetricManager`). The device's
  /// clock also does, every 24 hours of its time.
  case deliverMetrics
  /// APNs delivers a push for `app`, with its `payload` (JSON text; nil: the kind's default).
  /// Boxed, so that it does not set the size of every journal entry.
  indirect case push(app: String, PushKind, payload: String? = nil)
  /// The powered-off device installs iOS `version`; it runs it from its next boot.
  case updateOS(version: String)

  public var type: EventType { kind.type }

  /// The event's case, without its parameters.
  public var kind: Kind {
    switch self {
    case .home: .home
    case .memoryWarning: .memoryWarning
    case .lock: .lock
    case .unlock: .unlock
    case .significantTimeChange: .significantTimeChange
    case .shutdown: .shutdown
    case .boot: .boot
    case .setConditions: .setConditions
    case .setBackgroundAppRefresh: .setBackgroundAppRefresh
    case .push: .push
    case .deliverMetrics: .deliverMetrics
    case .updateOS: .updateOS
    }
  }

  /// The types of the events addressed to a device, by themselves: what the device's rules
  /// and the reader of its events switch over, so that neither lists an app's events, and the
  /// compiler names both for a new device event. Each is named as its `EventType`, and
  /// declared in its order.
  public enum Kind: String, CaseIterable, Sendable {
    case home, memoryWarning, lock, unlock, significantTimeChange, shutdown, boot
    case setConditions, setBackgroundAppRefresh, push, deliverMetrics, updateOS

    /// The kind of device event `type` is; nil for an event addressed to apps only.
    public init?(_ type: EventType) {
      guard let kind = Self.byType[type.position] else { return nil }
      self = kind
    }

    /// Read by the case's position, the byte it is stored as (see `EventType.position`).
    public var type: EventType { Self.types[Int(unsafeBitCast(self, to: UInt8.self))] }

    /// The kind of each event type, by the type's position: a read, not a search by name.
    private static let byType = EventType.allCases.map { Kind(rawValue: $0.rawValue) }
    /// The type of each kind, in `allCases`' order.
    fileprivate static let types = allCases.map { kind in
      // Every kind is named as its type: `eachDeviceEventTypeHasItsKindAndNoOtherTypeHasOne`.
      EventType(rawValue: kind.rawValue)!
    }
  }

  /// The event types that can be addressed to a device, in `EventType`'s order.
  public static let types = Kind.types

  /// The app a device event is about, if it is about one.
  public var app: String? {
    switch self {
    case .setBackgroundAppRefresh(let app, _), .push(let app, _, _): app
    case .home, .memoryWarning, .lock, .unlock, .significantTimeChange, .shutdown, .boot,
      .setConditions, .deliverMetrics, .updateOS:
      nil
    }
  }
}

extension EventDeclaration {
  /// The events addressed to one app, in the contract's order.
  public static let app: [EventDeclaration] = [
    EventDeclaration(
      .launch,
      """
      The user opens the app (cold launch, or back from background or suspension), by its icon \
      or through at most one entry: a URL, a notification's response, a user activity (a \
      universal link) or a Home Screen quick action. An app-delegate app finds the entry in the \
      launch options of a cold launch (a local notification's response excepted) and then gets \
      the entry's own callback before applicationDidBecomeActive; a scene app finds it in the \
      connection options when its scene connects, and otherwise gets the entry's scene callback \
      before sceneDidBecomeActive. A notification's response always reaches \
      userNotificationCenter(_:didReceive:withCompletionHandler:).
      """),
    EventDeclaration(
      .prewarm,
      """
      The system prewarms the app (iOS 15+): the process starts and pauses before \
      UIApplicationMain, suspended, with no callback. The user's next launch runs the whole \
      launch sequence in that process; a background launch runs it in the background; jetsam may \
      reclaim it first. Not running apps only, on a device running iOS 15 or later (409 \
      otherwise).
      """),
    EventDeclaration(
      .openScene,
      """
      The user opens a new window of an app that supports multiple scenes (a new scene session), \
      through an entry as launch takes it: the session is created (scene, or main, scene-2, ... \
      when not given), configurationForConnecting and scene(_:willConnectTo:options:) connect \
      it, and it comes to the foreground while the window shown before leaves (one window on \
      screen at a time). A not-running app launches first. The result names the session.
      """),
    EventDeclaration(
      .closeScene,
      """
      The user closes one window from the app switcher: its scene disconnects \
      (sceneDidDisconnect; the shown one without entering the background) and \
      application(_:didDiscardSceneSessions:) names that session only. A suspended app runs \
      again in the background to hear it; an app that is not running hears of it right after its \
      next didFinishLaunching. Closing the last window quits the app, as terminate does.
      """),
    EventDeclaration(
      .disconnectScene,
      """
      The system disconnects a background (or suspended) scene to reclaim its resources while \
      the process lives: a scene with state to save is asked for it first \
      (stateRestorationActivity(for:), as UISceneSession.stateRestorationActivity documents), \
      then sceneDidDisconnect (a suspended app runs again in the background for it). The session \
      and its saved stateRestorationActivity stay; the user's next launch of that scene \
      reconnects it with scene(_:willConnectTo:options:). Jetsam does the same under pressure \
      (README, Memory and jetsam).
      """),
    EventDeclaration(
      .home,
      "The user goes to the home screen."),
    EventDeclaration(
      .openSwitcher,
      "The app switcher shows over the app."),
    EventDeclaration(
      .closeSwitcher,
      "The switcher is dismissed back to the app."),
    EventDeclaration(
      .interruptionBegan,
      "A call, alert, Notification or Control Center, or Siri covers the app."),
    EventDeclaration(
      .interruptionEnded,
      """
      The interruption ends: back to the app, or the app goes to the background (a call \
      accepted).
      """),
    EventDeclaration(
      .terminate,
      """
      The user force-quits the app from the switcher. Its continued-processing tasks end with \
      the process, and its queued continued-processing requests are cancelled.
      """),
    EventDeclaration(
      .crash,
      "The process dies; no callbacks."),
    EventDeclaration(
      .purge,
      """
      The system kills the app to reclaim memory; no callbacks. The app in front is not killed \
      for vnode-limit or fc-thrashing (jetsam kills background apps to spare it) nor highwater \
      (a system daemon's): 409 for those.
      """),
    EventDeclaration(
      .thermalKill,
      """
      The system kills the running app in response to a thermal event; no callbacks, termination \
      code 0xc00010ff.
      """),
    EventDeclaration(
      .backgroundLaunch,
      """
      The system launches or wakes the app in the background; needs the matching background mode \
      (urlSession needs none); continuedProcessing is not a reason to launch an app (422: \
      submitTaskRequest starts such a task, in the foreground). An app-delegate app gets applicationDidEnterBackground before the \
      event's callback, launched or woken; a scene app gets the callback alone. A processing \
      task runs only while the device is idle, locked (409 with the device unlocked); unlocking \
      runs its expirationHandler at once (BGProcessingTask). A launch (not a wake) of an \
      app-delegate app for a push or for location passes launch options: remoteNotification with \
      the payload, or location (UIApplication.LaunchOptionsKey); a scene app's are nil \
      (application(_:didFinishLaunchingWithOptions:): "If the app supports scenes, this is \
      nil"). A push's payload must carry aps.content-available 1 (422 otherwise). Each push and \
      task is its own work (the result's workId, the callback's taskId) with its own completion, \
      and wakes overlap: a push is handed over while other work runs; a fetch, the same BGTask \
      (its identifier, whatever its kind; without one, the kind's) or the same URL session's \
      events are not (409) until the app completes them; tasks of other identifiers run beside \
      it. At most 16 pieces of work per app (409 beyond).
      """),
    EventDeclaration(
      .backgroundWorkCompleted,
      """
      The app calls the completion handler of background work, or setTaskCompleted on its \
      BGTask: the work `id` (a backgroundLaunch's result, workId), or without one the oldest. \
      409 if the app has none, or none with that id.
      """),
    EventDeclaration(
      .beginBackgroundTask,
      "The app begins a background task; the result carries its id."),
    EventDeclaration(
      .endBackgroundTask,
      "The app ends a background task."),
    EventDeclaration(
      .memoryWarning,
      "A memory warning to this app."),
    EventDeclaration(
      .setMemory,
      "The app's footprint in its current phase (foreground or background) changes."),
    EventDeclaration(
      .startActivity,
      """
      The running app starts playing audio or receiving location updates: it stays running in \
      the background until it stops (or dies). Needs the matching background mode.
      """),
    EventDeclaration(
      .stopActivity,
      """
      The app stops the activity; with nothing else holding it in the background it is suspended \
      suspendDelaySeconds later.
      """),
    EventDeclaration(
      .setRestorationData,
      """
      What the running app's code hands UIKit when the system asks it to save its state, from \
      now on: any JSON value (null: nothing). Once the app is in the background it is asked: \
      application(_:shouldSaveSecureApplicationState:) or the scene's \
      stateRestorationActivity(for:), with the data as arguments.restorationData, and UIKit \
      keeps it. After a system kill the next launch hands it back \
      (application(_:shouldRestoreSecureApplicationState:) between will- and didFinishLaunching, \
      or the session's stateRestorationActivity in scene(_:willConnectTo:options:)); a \
      force-quit drops it.
      """),
    EventDeclaration(
      .submitTaskRequest,
      """
      The running app's code submits a request to BGTaskScheduler (submit(_:)); a request for an \
      identifier already pending replaces it. Refused (409) as BGTaskScheduler.Error.Code says: \
      bgtaskscheduler-not-permitted (the identifier not in permittedTaskIdentifiers, or the \
      kind's background mode missing: fetch for appRefresh, processing for processing), \
      bgtaskscheduler-too-many-pending-task-requests (1 appRefresh, 10 processing and 10 \
      queued continuedProcessing requests pending at most), \
      bgtaskscheduler-immediate-run-ineligible (continuedProcessing with strategy fail, and no \
      room: continuedProcessingCapacity tasks running). A continuedProcessing request \
      (BGContinuedProcessingTaskRequest, iOS 26; 409 on earlier releases) is submitted by the \
      active app, in response to a person's action (409 otherwise), and needs no background \
      mode: with room, its task starts at once, in the foreground (its launch handler, the \
      result's workId), and goes on in the background until the app completes it \
      (backgroundWorkCompleted); without, strategy queue (the default) queues it, to start as \
      soon as a task ends or the room grows, and the process's end (a force-quit among them) \
      cancels it ("Performing long-running tasks on iOS and iPadOS").
      """),
    EventDeclaration(
      .cancelTaskRequest,
      """
      The running app's code cancels its pending request (cancel(taskRequestWithIdentifier:)); \
      an identifier with none pending changes nothing, as in iOS.
      """),
    EventDeclaration(
      .launchTask,
      """
      The system runs the pending request now, as the debugger's \
      _simulateLaunchForTaskWithIdentifier: does ("Starting and Terminating Tasks During \
      Development"), in any state, usually with the app in the foreground of an unlocked device: \
      the request is consumed and BGTaskScheduler.launchHandler(_:) runs with the identifier in \
      its arguments, the app launched or woken in the background first if it was not running \
      there. Nothing that holds the request back is weighed (its earliestBeginDate, its \
      requirements, the device in use, the app in the foreground or swiped away, the \
      conditions); the result's bypassed lists each. Refused (409) only while the same task runs \
      or the app holds 16 pieces of work. A task running in the foreground expires there (its \
      expirationHandler runs), but the app is not killed there for a late one: that kill comes \
      once it leaves the foreground.
      """),
    EventDeclaration(
      .expireTask,
      """
      The running task's time is up now, in any state: its BGTask.expirationHandler runs, as the \
      debugger's _simulateExpirationForTaskWithIdentifier: makes it; then the app completes the \
      task (backgroundWorkCompleted) or is killed expirationGraceSeconds later (out of the \
      foreground). A person cancelling a continued-processing task from its Live Activity is \
      this event too: "the framework invokes the task's expiration handler". The result names \
      the task's work and the deadline its expiry came before (none for a continued-processing \
      task). 409 if the app runs no such task whose handler has not run.
      """),
    EventDeclaration(
      .reportProgress,
      """
      The app's running continued-processing task reports its progress (its Progress, \
      completedUnitCount of totalUnitCount), which the system shows in the task's Live \
      Activity. When it needs room (setConditions lowering continuedProcessingCapacity), the \
      system stops the tasks that report the least first ("The system prioritizes the \
      termination of tasks that reflect minimal or no progress": BGContinuedProcessingTask); \
      a task that never reported counts as none. 409 if the app runs no continued-processing \
      task of that identifier.
      """),
    EventDeclaration(
      .attachDebugger,
      """
      Xcode's debugger attaches to the app's process (Run, or Debug > Attach to Process), in any \
      state but not running; no callbacks. Until it detaches or the process ends, the process is \
      never suspended, the watchdog does not time it (a pending watchdog kill is off), and its \
      background time does not run out: no background task or background work expires and no \
      suspension is scheduled (Apple's forums: the debugger "prevents your app from being \
      suspended"; the watchdog is disabled under the debugger). Jetsam still kills it. 409 if \
      one is attached already.
      """),
    EventDeclaration(
      .detachDebugger,
      """
      The debugger detaches from the app's process; no callbacks. From now the process is timed \
      as any other, its clocks started afresh: an idle background app is suspended \
      suspendDelaySeconds later, its background time and each piece of work's time count from \
      now, and the next slow transition meets the watchdog. 409 if no debugger is attached.
      """),
    EventDeclaration(
      .updateApp,
      """
      The App Store updates the app, not running (409 otherwise): its version and build change; \
      its data, sessions and identifierForVendor stay. Its next process runs the new version, \
      and lastTermination still shows the version the last one ran, as a crash reporter \
      compares them.
      """),
    EventDeclaration(
      .reinstall,
      """
      The user deletes the app, not running (409 otherwise), and installs it again: a new \
      installation, with a new identifierForVendor; what the system kept of the old one is gone \
      (its scene sessions and saved state, task requests, pending MetricKit exits, \
      lastTermination, the force-quit's block, the Background App Refresh switch back on). Its \
      version and build stay.
      """),
  ]

  /// The events addressed to a whole device, in the contract's order.
  public static let device: [EventDeclaration] = [
    EventDeclaration(
      .home,
      """
      The user goes to the home screen from the foreground app: it leaves the foreground as the \
      app event home sends it.
      """,
      scope: .device),
    EventDeclaration(
      .memoryWarning,
      "Every running app receives a memory warning.",
      scope: .device),
    EventDeclaration(
      .lock,
      """
      The user locks the device: the foreground app resigns active and goes to the background; \
      with a passcode, protected data becomes unavailable after the configured delay.
      """,
      scope: .device),
    EventDeclaration(
      .unlock,
      """
      The user unlocks the device: protected data becomes available, a running BGProcessingTask \
      expires (its expirationHandler: the user is using the device), and the app that was in the \
      foreground comes back.
      """,
      scope: .device),
    EventDeclaration(
      .significantTimeChange,
      """
      Midnight, a carrier time update or a daylight-saving change: running apps are told, \
      suspended ones when they next run.
      """,
      scope: .device),
    EventDeclaration(
      .shutdown,
      """
      The user powers the device off: every running app whose main thread is free gets \
      applicationWillTerminate, suspended and busy apps end silently, and the device refuses \
      every event but boot.
      """,
      scope: .device),
    EventDeclaration(
      .boot,
      """
      The device starts again, locked, with protected data unavailable (with a passcode) until \
      the first unlock.
      """,
      scope: .device),
    EventDeclaration(
      .setConditions,
      """
      What the system weighs before it runs background work changes: the members given, the \
      others as they are (see BackgroundConditions). Pending task requests that nothing holds \
      back any more run at once under eager, in this event's outcome. A lower \
      continuedProcessingCapacity than tasks running stops the ones with the least progress \
      (their expiration handlers run); a higher one starts queued ones.
      """,
      scope: .device),
    EventDeclaration(
      .setBackgroundAppRefresh,
      """
      The user turns Background App Refresh on or off for one app in Settings: off, its task \
      requests wait, its background pushes are dropped, and submitTaskRequest is refused \
      (bgtaskscheduler-unavailable). 422 if the device has no such app.
      """,
      scope: .device),
    EventDeclaration(
      .push,
      """
      APNs delivers a push for the app ("Pushing background updates to your App"). An alert is \
      displayed: the app gets nothing until the user taps it (a launch with its notification). A \
      background push reaches a foreground app's \
      application(_:didReceiveRemoteNotification:fetchCompletionHandler:) at once; otherwise it \
      wakes or launches the app in the background with its own completion (backgroundWork), \
      unless something holds it back: the app swiped away, the remote-notification mode missing, \
      Background App Refresh off, Low Power Mode, a critically low battery, \
      backgroundPushesPerHour spent (the result says dropped, and why; iOS may also defer and \
      coalesce, which is not modelled). 422 if the device has no such app.
      """,
      scope: .device),
    EventDeclaration(
      .deliverMetrics,
      """
      MetricKit hands each running app whose main thread is free its reports now, as Xcode's \
      Debug > Simulate MetricKit Payloads does whenever asked: the exits of the period under \
      way become a payload that ends now, and every payload and crash report waiting arrives \
      (MXMetricManagerSubscriber.didReceive(_:) with payloads, then its [MXDiagnosticPayload] \
      overload with diagnosticPayloads; on iOS 27, to an app on MetricManager, one \
      MetricManager.metricReports or diagnosticReports callback per report). Not the system's \
      rhythm, which needs no event: at the end of each 24 hours of device time (86400 s, \
      172800 s, ...) the day's exits become a payload, delivered then to an app that runs, otherwise when it next runs, with every \
      report waiting (at most once a day); a crash report is made when the process ends and \
      reaches its next process. An app not running keeps its reports.
      """,
      scope: .device),
    EventDeclaration(
      .updateOS,
      """
      The device, powered off (409 otherwise: shutdown first), installs an iOS version its model \
      runs (GET /v1/profiles; 422 naming them otherwise); it runs it from the next boot. Apps' \
      lastTermination keeps the version their process ran, as a crash reporter compares them.
      """,
      scope: .device),
  ]
}
