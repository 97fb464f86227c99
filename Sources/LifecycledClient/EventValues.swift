import Foundation
import OpenAPIRuntime

// Events as values that read like the system events they are (`.launch()`, `.home`,
// `.backgroundLaunch(for: .fetch)`): each builds the generated schema, whose one-value `type`
// member it fills in. Every parameter has a label: an unlabeled one would make the generated
// decoder's `.closeScene(try .init(from: decoder))` ambiguous.

extension Components.Schemas.AppEvent {
  /// The user taps the app, or opens it through an entry point: a URL, a notification, a
  /// user activity (``launch(universalLink:scene:)``) or a Home Screen quick action; into
  /// `scene` of a multi-window app. Give at most one entry point.
  ///
  /// - Parameters:
  ///   - scene: The session to show; nil: the one the app showed last.
  ///   - url: A URL the app opens (`application(_:open:options:)`, `scene(_:openURLContexts:)`).
  ///   - notification: The user's response to a notification of the app's.
  ///   - userActivity: A user activity to continue, such as a universal link.
  ///   - shortcutItem: The type of a Home Screen quick action.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func launch(
    scene: String? = nil, url: String? = nil,
    notification: Components.Schemas.NotificationResponse? = nil,
    userActivity: Components.Schemas.UserActivity? = nil, shortcutItem: String? = nil
  ) -> Self {
    .launch(
      .init(
        _type: .launch, scene: scene, url: url, notification: notification,
        userActivity: userActivity, shortcutItem: shortcutItem.map { .init(_type: $0) }))
  }

  /// The user opens a universal link the app handles: a browsing-web user activity.
  ///
  /// - Parameters:
  ///   - universalLink: The link, an `https` URL of a domain the app is associated with.
  ///   - scene: The session to show; nil: the one the app showed last.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func launch(universalLink: String, scene: String? = nil) -> Self {
    .launch(scene: scene, userActivity: .init(webpageURL: universalLink))
  }

  /// The system launches the app ahead of use (prewarming), stopping before UIApplicationMain.
  public static var prewarm: Self { .prewarm(.init(_type: .prewarm)) }

  /// The user opens a new window of a multi-window app, through an entry point if given.
  ///
  /// - Parameters:
  ///   - scene: The new session's id; nil: `main`, `scene-2`, ... as the server names it.
  ///   - url: A URL the app opens (`application(_:open:options:)`, `scene(_:openURLContexts:)`).
  ///   - notification: The user's response to a notification of the app's.
  ///   - userActivity: A user activity to continue, such as a universal link.
  ///   - shortcutItem: The type of a Home Screen quick action.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func openScene(
    scene: String? = nil, url: String? = nil,
    notification: Components.Schemas.NotificationResponse? = nil,
    userActivity: Components.Schemas.UserActivity? = nil, shortcutItem: String? = nil
  ) -> Self {
    .openScene(
      .init(
        _type: .openScene, scene: scene, url: url, notification: notification,
        userActivity: userActivity, shortcutItem: shortcutItem.map { .init(_type: $0) }))
  }

  /// The user closes a window in the app switcher: its session is discarded.
  ///
  /// - Parameter scene: The session's id.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func closeScene(named scene: String) -> Self {
    .closeScene(.init(_type: .closeScene, scene: scene))
  }

  /// The system disconnects a background scene to reclaim memory; its session stays.
  ///
  /// - Parameter scene: The session's id.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func disconnectScene(named scene: String) -> Self {
    .disconnectScene(.init(_type: .disconnectScene, scene: scene))
  }

  public static var home: Self { .home(.init(_type: .home)) }
  public static var openSwitcher: Self { .openSwitcher(.init(_type: .openSwitcher)) }
  public static var closeSwitcher: Self { .closeSwitcher(.init(_type: .closeSwitcher)) }

  /// A call, an alert, Notification Center, Control Center or Siri covers the app.
  ///
  /// - Parameter source: What covers it.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func interruptionBegan(
    by source: Components.Schemas.InterruptionBeganEvent.SourcePayload
  ) -> Self {
    .interruptionBegan(.init(_type: .interruptionBegan, source: source))
  }

  /// The interruption ends: the app resumes, or (a call answered) is sent to the background.
  ///
  /// - Parameter outcome: How it ends; nil: `resumed`.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func interruptionEnded(
    outcome: Components.Schemas.InterruptionEndedEvent.OutcomePayload? = nil
  ) -> Self {
    .interruptionEnded(.init(_type: .interruptionEnded, outcome: outcome))
  }

  /// The user force-quits the app in the app switcher.
  public static var terminate: Self { .terminate(.init(_type: .terminate)) }

  /// The app crashes.
  ///
  /// - Parameter atLaunch: Whether it crashed during its launch, before didFinishLaunching
  ///   returned, so that UIKit also drops the state it preserved; nil: false.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func crash(atLaunch: Bool? = nil) -> Self {
    .crash(.init(_type: .crash, atLaunch: atLaunch))
  }

  /// Jetsam kills the app.
  ///
  /// - Parameter reason: Why; nil: `vm-pageshortage`.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func purge(reason: Components.Schemas.JetsamReason? = nil) -> Self {
    .purge(.init(_type: .purge, reason: reason))
  }

  /// The system kills the app for a thermal event (0xc00010ff).
  public static var thermalKill: Self { .thermalKill(.init(_type: .thermalKill)) }

  /// The system wakes or launches the app into the background for `reason` (a fetch, a silent
  /// push with its `payload`, a BGTask, the events of the URL session `identifier`, ...).
  ///
  /// - Parameters:
  ///   - reason: What the system launches it for; the app needs the matching background mode.
  ///   - payload: A `remoteNotification`'s push; nil: `{"aps": {"content-available": 1}}`.
  ///   - identifier: A `urlSession`'s session; nil: `APP.background-session`.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func backgroundLaunch(
    for reason: Components.Schemas.BackgroundLaunchReason,
    payload: Components.Schemas.PushPayload? = nil, identifier: String? = nil
  ) -> Self {
    .backgroundLaunch(
      .init(_type: .backgroundLaunch, reason: reason, payload: payload, identifier: identifier))
  }

  /// The app calls the completion handler of the oldest background work it was given.
  public static var backgroundWorkCompleted: Self {
    .backgroundWorkCompleted(.init(_type: .backgroundWorkCompleted))
  }

  /// The app calls the completion handler of background work `id` (a background launch's
  /// `workId`, its callback's `taskId`).
  ///
  /// - Parameter id: The work's number.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func backgroundWorkCompleted(id: Int) -> Self {
    .backgroundWorkCompleted(.init(_type: .backgroundWorkCompleted, id: id))
  }

  /// The app calls beginBackgroundTask(withName:expirationHandler:).
  ///
  /// - Parameter name: The task's name, which the journal shows.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``, whose result's
  ///   ``Components/Schemas/EventResult/begunTask`` has the task's id.
  public static func beginBackgroundTask(name: String? = nil) -> Self {
    .beginBackgroundTask(.init(_type: .beginBackgroundTask, name: name))
  }

  /// The app calls endBackgroundTask(_:).
  ///
  /// - Parameter id: The task's id, from the result of ``beginBackgroundTask(name:)``.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func endBackgroundTask(id: Int) -> Self {
    .endBackgroundTask(.init(_type: .endBackgroundTask, id: id))
  }

  /// The system sends the app alone a memory warning.
  public static var memoryWarning: Self { .memoryWarning(.init(_type: .memoryWarning)) }

  /// The app's footprint changes, in its current phase (foreground or background).
  ///
  /// - Parameter megabytes: The new footprint, 0 to 1,048,576.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func setMemory(megabytes: Int) -> Self {
    .setMemory(.init(_type: .setMemory, memoryMB: megabytes))
  }

  /// The app starts a background activity (audio, location, a VoIP call, ...).
  ///
  /// - Parameter activity: The activity; the app needs its background mode.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func startActivity(of activity: Components.Schemas.BackgroundActivity) -> Self {
    .startActivity(.init(_type: .startActivity, activity: activity))
  }

  /// The app stops a background activity.
  ///
  /// - Parameter activity: The activity.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func stopActivity(of activity: Components.Schemas.BackgroundActivity) -> Self {
    .stopActivity(.init(_type: .stopActivity, activity: activity))
  }

  /// The app's code sets what it returns when asked to save its state: `data` as JSON (a
  /// `Codable` value of the app's, say), of `scene` for a scene app.
  ///
  /// - Parameters:
  ///   - data: The value, at most 4,096 bytes of JSON nested at most 32 deep.
  ///   - scene: A scene app's connected scene; nil: the focused one.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  /// - Throws: An `EncodingError` if `data` does not encode as JSON.
  public static func setRestorationData(
    to data: some Encodable, scene: String? = nil
  ) throws -> Self {
    let value = try JSONDecoder().decode(
      OpenAPIValueContainer.self, from: JSONEncoder().encode(data))
    return .setRestorationData(.init(_type: .setRestorationData, scene: scene, data: value))
  }

  /// The app's code submits a `BGAppRefreshTaskRequest`, a `BGProcessingTaskRequest` or (iOS
  /// 26) a `BGContinuedProcessingTaskRequest` (`BGTaskScheduler.submit(_:)`). A refusal is
  /// thrown as a ``LifecycledProblem`` whose type names the `BGTaskScheduler.Error.Code`.
  ///
  /// - Parameters:
  ///   - identifier: One of the app's `permittedTaskIdentifiers`.
  ///   - kind: `appRefresh`, `processing` or `continuedProcessing`; a continued-processing task
  ///     starts at once in the active app when the system has room (the result's work).
  ///   - earliestBeginDate: `BGTaskRequest.earliestBeginDate`, in device seconds; not for
  ///     `continuedProcessing`.
  ///   - requiresNetworkConnectivity: A processing request's requirement; nil: false.
  ///   - requiresExternalPower: A processing request's requirement; nil: false.
  ///   - strategy: A continued-processing request's, with no room to run it at once: `queue`
  ///     (nil) or `fail`.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func submitTaskRequest(
    identifier: String, kind: Components.Schemas.TaskKind, earliestBeginDate: Double? = nil,
    requiresNetworkConnectivity: Bool? = nil, requiresExternalPower: Bool? = nil,
    strategy: Components.Schemas.SubmissionStrategy? = nil
  ) -> Self {
    .submitTaskRequest(
      .init(
        _type: .submitTaskRequest, identifier: identifier, kind: kind,
        earliestBeginDate: earliestBeginDate,
        requiresNetworkConnectivity: requiresNetworkConnectivity,
        requiresExternalPower: requiresExternalPower, strategy: strategy))
  }

  /// The app's code cancels its pending request (`cancel(taskRequestWithIdentifier:)`).
  ///
  /// - Parameter identifier: The request's identifier.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func cancelTaskRequest(identifier: String) -> Self {
    .cancelTaskRequest(.init(_type: .cancelTaskRequest, identifier: identifier))
  }

  /// The system runs the pending request now, as the debugger's
  /// `_simulateLaunchForTaskWithIdentifier:` does.
  ///
  /// - Parameter identifier: The pending request's identifier.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func launchTask(identifier: String) -> Self {
    .launchTask(.init(_type: .launchTask, identifier: identifier))
  }

  /// The running task's time is up now, as the debugger's
  /// `_simulateExpirationForTaskWithIdentifier:` makes it.
  ///
  /// - Parameter identifier: The running task's identifier.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func expireTask(identifier: String) -> Self {
    .expireTask(.init(_type: .expireTask, identifier: identifier))
  }

  /// The app's running continued-processing task reports its progress, as its `Progress`
  /// counts it: the system stops the tasks with the least first when it needs room.
  ///
  /// - Parameters:
  ///   - identifier: The running task's identifier.
  ///   - completed: `Progress.completedUnitCount`, at most `total`.
  ///   - total: `Progress.totalUnitCount`.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func reportProgress(identifier: String, completed: Int, of total: Int) -> Self {
    .reportProgress(
      .init(
        _type: .reportProgress, identifier: identifier, completedUnitCount: completed,
        totalUnitCount: total))
  }
  /// Xcode's debugger attaches to the app's process: it is no longer suspended, timed by the
  /// watchdog, or held to its background time.
  public static var attachDebugger: Self { .attachDebugger(.init(_type: .attachDebugger)) }
  /// The debugger detaches: the process is timed again from now.
  public static var detachDebugger: Self { .detachDebugger(.init(_type: .detachDebugger)) }
  /// The App Store updates the app, not running.
  ///
  /// - Parameters:
  ///   - version: Its new `CFBundleShortVersionString`.
  ///   - build: Its new `CFBundleVersion`; nil: the build it has.
  /// - Returns: The event, for ``SimulatedApp/post(_:)``.
  public static func updateApp(version: String, build: String? = nil) -> Self {
    .updateApp(.init(_type: .updateApp, version: version, build: build))
  }
  /// The user deletes the app, not running, and installs it again: a new
  /// `identifierForVendor`, and what the system kept of it gone.
  public static var reinstall: Self { .reinstall(.init(_type: .reinstall)) }
}

extension Components.Schemas.DeviceEvent {
  public static var home: Self { .home(.init(_type: .home)) }
  public static var lock: Self { .lock(.init(_type: .lock)) }
  public static var unlock: Self { .unlock(.init(_type: .unlock)) }
  /// The system sends every running app a memory warning.
  public static var memoryWarning: Self { .memoryWarning(.init(_type: .memoryWarning)) }
  public static var significantTimeChange: Self {
    .significantTimeChange(.init(_type: .significantTimeChange))
  }
  public static var shutdown: Self { .shutdown(.init(_type: .shutdown)) }
  public static var boot: Self { .boot(.init(_type: .boot)) }

  /// What the system weighs before it runs background work changes: the ones given.
  ///
  /// - Parameters:
  ///   - batteryLevel: The battery's charge, 0 to 100 percent.
  ///   - charging: Whether the device is on external power.
  ///   - lowPowerMode: Whether Low Power Mode is on.
  ///   - network: The network the device has.
  ///   - backgroundAppRefresh: The device's Background App Refresh switch.
  ///   - taskScheduling: When pending task requests run: `eager`, once nothing holds them
  ///     back, or `manual`, only by ``Components/Schemas/AppEvent/launchTask(identifier:)``.
  ///   - continuedProcessingCapacity: How many continued-processing tasks the system runs at
  ///     once; fewer than run stops those with the least progress.
  /// - Returns: The event, for ``SimulatedDevice/post(_:)``.
  public static func setConditions(
    batteryLevel: Int? = nil, charging: Bool? = nil, lowPowerMode: Bool? = nil,
    network: Components.Schemas.NetworkStatus? = nil, backgroundAppRefresh: Bool? = nil,
    taskScheduling: Components.Schemas.TaskSchedulingPolicy? = nil,
    continuedProcessingCapacity: Int? = nil
  ) -> Self {
    .setConditions(
      .init(
        _type: .setConditions, batteryLevel: batteryLevel, charging: charging,
        lowPowerMode: lowPowerMode, network: network,
        backgroundAppRefresh: backgroundAppRefresh, taskScheduling: taskScheduling,
        continuedProcessingCapacity: continuedProcessingCapacity))
  }

  /// The user turns Background App Refresh on or off for one app in Settings.
  ///
  /// - Parameters:
  ///   - app: The app's name.
  ///   - enabled: Whether the switch is on.
  /// - Returns: The event, for ``SimulatedDevice/post(_:)``.
  public static func setBackgroundAppRefresh(of app: String, enabled: Bool) -> Self {
    .setBackgroundAppRefresh(.init(_type: .setBackgroundAppRefresh, app: app, enabled: enabled))
  }

  /// APNs delivers a push for `app`: a background one unless told (the result says whether it
  /// was delivered, and why not).
  ///
  /// - Parameters:
  ///   - app: The app's name.
  ///   - type: `background` or `alert`; nil: `background`.
  ///   - payload: The push; nil: the type's default.
  /// - Returns: The event, for ``SimulatedDevice/post(_:)``.
  public static func push(
    to app: String, type: Components.Schemas.DevicePushEvent.PushTypePayload? = nil,
    payload: Components.Schemas.PushPayload? = nil
  ) -> Self {
    .push(.init(_type: .push, app: app, pushType: type, payload: payload))
  }

  /// MetricKit delivers each running app its exits since the last payload
  /// (`MXMetricManagerSubscriber.didReceive(_:)`, the app's `pendingExits`).
  public static var deliverMetrics: Self { .deliverMetrics(.init(_type: .deliverMetrics)) }
  /// The powered-off device installs an iOS version; it runs it from its next boot.
  ///
  /// - Parameter version: The version, such as `18.2`.
  /// - Returns: The event, for ``SimulatedDevice/post(_:)``.
  public static func updateOS(version: String) -> Self {
    .updateOS(.init(_type: .updateOS, version: version))
  }
}

extension OpenAPIValueContainer {
  /// The JSON value decoded as `type`: restoration data (a session's
  /// `stateRestorationActivity`, an app's `restorationData`) read back as the `Codable` value
  /// the app saved with ``Components/Schemas/AppEvent/setRestorationData(to:scene:)``; nil
  /// when the value is null (nothing saved).
  ///
  /// - Parameter type: The type the app saved.
  /// - Returns: The value, or nil for null.
  /// - Throws: A `DecodingError` if the value is not a `type`.
  public func decoded<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value? {
    if isNull { return nil }
    return try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
  }

  /// Whether the value is JSON's null: a field the contract always sends, such as an app's
  /// `restorationData`, holds null when there is nothing.
  public var isNull: Bool { value == nil }
}
