import Foundation
import OpenAPIRuntime

// Events as values that read like the system events they are (`.launch()`, `.home`,
// `.backgroundLaunch(for: .fetch)`): each builds the generated schema, whose one-value `type`
// member it fills in. Every parameter has a label: an unlabeled one would make the generated
// decoder's `.closeScene(try .init(from: decoder))` ambiguous.

extension Components.Schemas.AppEvent {
  /// The user taps the app, or opens it through an entry point: a URL, a notification, a
  /// user activity (``launch(universalLink:scene:)``) or a Home Screen quick action; into
  /// `scene` of a multi-window app.
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
  public static func launch(universalLink: String, scene: String? = nil) -> Self {
    .launch(scene: scene, userActivity: .init(webpageURL: universalLink))
  }

  /// The system launches the app ahead of use (prewarming), stopping before UIApplicationMain.
  public static var prewarm: Self { .prewarm(.init(_type: .prewarm)) }

  /// The user opens a new window of a multi-window app, through an entry point if given.
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
  public static func closeScene(named scene: String) -> Self {
    .closeScene(.init(_type: .closeScene, scene: scene))
  }

  /// The system disconnects a background scene to reclaim memory; its session stays.
  public static func disconnectScene(named scene: String) -> Self {
    .disconnectScene(.init(_type: .disconnectScene, scene: scene))
  }

  public static var home: Self { .home(.init(_type: .home)) }
  public static var openSwitcher: Self { .openSwitcher(.init(_type: .openSwitcher)) }
  public static var closeSwitcher: Self { .closeSwitcher(.init(_type: .closeSwitcher)) }

  /// A call, an alert, Notification Center, Control Center or Siri covers the app.
  public static func interruptionBegan(
    by source: Components.Schemas.InterruptionBeganEvent.SourcePayload
  ) -> Self {
    .interruptionBegan(.init(_type: .interruptionBegan, source: source))
  }

  /// The interruption ends: the app resumes, or (a call answered) is sent to the background.
  public static func interruptionEnded(
    outcome: Components.Schemas.InterruptionEndedEvent.OutcomePayload? = nil
  ) -> Self {
    .interruptionEnded(.init(_type: .interruptionEnded, outcome: outcome))
  }

  /// The user force-quits the app in the app switcher.
  public static var terminate: Self { .terminate(.init(_type: .terminate)) }

  /// The app crashes; `atLaunch`, before didFinishLaunching returned.
  public static func crash(atLaunch: Bool? = nil) -> Self {
    .crash(.init(_type: .crash, atLaunch: atLaunch))
  }

  /// Jetsam kills the app, for `reason`.
  public static func purge(reason: Components.Schemas.JetsamReason? = nil) -> Self {
    .purge(.init(_type: .purge, reason: reason))
  }

  /// The system kills the app for a thermal event (0xc00010ff).
  public static var thermalKill: Self { .thermalKill(.init(_type: .thermalKill)) }

  /// The system wakes or launches the app into the background for `reason` (a fetch, a silent
  /// push with its `payload`, a BGTask, the events of the URL session `identifier`, ...).
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
  public static func backgroundWorkCompleted(id: Int) -> Self {
    .backgroundWorkCompleted(.init(_type: .backgroundWorkCompleted, id: id))
  }

  /// The app calls beginBackgroundTask(withName:expirationHandler:).
  public static func beginBackgroundTask(name: String? = nil) -> Self {
    .beginBackgroundTask(.init(_type: .beginBackgroundTask, name: name))
  }

  /// The app calls endBackgroundTask(_:) for the task `id`.
  public static func endBackgroundTask(id: Int) -> Self {
    .endBackgroundTask(.init(_type: .endBackgroundTask, id: id))
  }

  /// The system sends the app alone a memory warning.
  public static var memoryWarning: Self { .memoryWarning(.init(_type: .memoryWarning)) }

  /// The app's footprint becomes `megabytes`.
  public static func setMemory(megabytes: Int) -> Self {
    .setMemory(.init(_type: .setMemory, memoryMB: megabytes))
  }

  /// The app starts a background activity (audio, location, a VoIP call, ...).
  public static func startActivity(of activity: Components.Schemas.BackgroundActivity) -> Self {
    .startActivity(.init(_type: .startActivity, activity: activity))
  }

  public static func stopActivity(of activity: Components.Schemas.BackgroundActivity) -> Self {
    .stopActivity(.init(_type: .stopActivity, activity: activity))
  }

  /// The app's code sets what it returns when asked to save its state: `data` as JSON (a
  /// `Codable` value of the app's, say), of `scene` for a scene app.
  public static func setRestorationData(
    to data: some Encodable, scene: String? = nil
  ) throws -> Self {
    let value = try JSONDecoder().decode(
      OpenAPIValueContainer.self, from: JSONEncoder().encode(data))
    return .setRestorationData(.init(_type: .setRestorationData, scene: scene, data: value))
  }

  /// The app's code submits a `BGAppRefreshTaskRequest` or `BGProcessingTaskRequest`
  /// (`BGTaskScheduler.submit(_:)`), to start no earlier than `earliestBeginDate` (device
  /// seconds). A refusal is thrown as a ``LifecycledProblem`` whose type names the
  /// `BGTaskScheduler.Error.Code`.
  public static func submitTaskRequest(
    identifier: String, kind: Components.Schemas.TaskKind, earliestBeginDate: Double? = nil,
    requiresNetworkConnectivity: Bool? = nil, requiresExternalPower: Bool? = nil
  ) -> Self {
    .submitTaskRequest(
      .init(
        _type: .submitTaskRequest, identifier: identifier, kind: kind,
        earliestBeginDate: earliestBeginDate,
        requiresNetworkConnectivity: requiresNetworkConnectivity,
        requiresExternalPower: requiresExternalPower))
  }

  /// The app's code cancels its pending request (`cancel(taskRequestWithIdentifier:)`).
  public static func cancelTaskRequest(identifier: String) -> Self {
    .cancelTaskRequest(.init(_type: .cancelTaskRequest, identifier: identifier))
  }

  /// The system runs the pending request now, as the debugger's
  /// `_simulateLaunchForTaskWithIdentifier:` does.
  public static func launchTask(identifier: String) -> Self {
    .launchTask(.init(_type: .launchTask, identifier: identifier))
  }

  /// The running task's time is up now, as the debugger's
  /// `_simulateExpirationForTaskWithIdentifier:` makes it.
  public static func expireTask(identifier: String) -> Self {
    .expireTask(.init(_type: .expireTask, identifier: identifier))
  }
  /// Xcode's debugger attaches to the app's process: it is no longer suspended, timed by the
  /// watchdog, or held to its background time.
  public static var attachDebugger: Self { .attachDebugger(.init(_type: .attachDebugger)) }
  /// The debugger detaches: the process is timed again from now.
  public static var detachDebugger: Self { .detachDebugger(.init(_type: .detachDebugger)) }
  /// The App Store updates the app, not running, to `version` and `build` (nil: the build it
  /// has).
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
  public static func setConditions(
    batteryLevel: Int? = nil, charging: Bool? = nil, lowPowerMode: Bool? = nil,
    network: Components.Schemas.NetworkStatus? = nil, backgroundAppRefresh: Bool? = nil,
    taskScheduling: Components.Schemas.TaskSchedulingPolicy? = nil
  ) -> Self {
    .setConditions(
      .init(
        _type: .setConditions, batteryLevel: batteryLevel, charging: charging,
        lowPowerMode: lowPowerMode, network: network,
        backgroundAppRefresh: backgroundAppRefresh, taskScheduling: taskScheduling))
  }

  /// The user turns Background App Refresh on or off for `app` in Settings.
  public static func setBackgroundAppRefresh(of app: String, enabled: Bool) -> Self {
    .setBackgroundAppRefresh(.init(_type: .setBackgroundAppRefresh, app: app, enabled: enabled))
  }

  /// APNs delivers a push for `app`: a background one unless told (the result says whether it
  /// was delivered, and why not).
  public static func push(
    to app: String, type: Components.Schemas.DevicePushEvent.PushTypePayload? = nil,
    payload: Components.Schemas.PushPayload? = nil
  ) -> Self {
    .push(.init(_type: .push, app: app, pushType: type, payload: payload))
  }

  /// MetricKit delivers each running app its exits since the last payload
  /// (`MXMetricManagerSubscriber.didReceive(_:)`, the app's `pendingExits`).
  public static var deliverMetrics: Self { .deliverMetrics(.init(_type: .deliverMetrics)) }
  /// The powered-off device installs iOS `version`; it runs it from its next boot.
  public static func updateOS(version: String) -> Self {
    .updateOS(.init(_type: .updateOS, version: version))
  }
}

extension OpenAPIValueContainer {
  /// The JSON value decoded as `type`: restoration data (a session's
  /// `stateRestorationActivity`, an app's `restorationData`) read back as the `Codable` value
  /// the app saved with ``Components/Schemas/AppEvent/setRestorationData(to:scene:)``; nil
  /// when the value is null (nothing saved).
  public func decoded<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value? {
    if isNull { return nil }
    return try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
  }

  /// Whether the value is JSON's null: a field the contract always sends, such as an app's
  /// `restorationData`, holds null when there is nothing.
  public var isNull: Bool { value == nil }
}
