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
  case submitTaskRequest, cancelTaskRequest, launchTask, expireTask
  case lock, unlock, significantTimeChange, shutdown, boot, setConditions
  case setBackgroundAppRefresh, push, deliverMetrics
}

/// What interrupts the foreground app (it goes inactive until the interruption ends).
public enum InterruptionSource: String, CaseIterable, Sendable, Codable {
  case call, alert, notificationCenter, controlCenter, siri
}

/// How an interruption ends: back to the app, or the app goes to the background
/// (a call accepted, another app opened from the alert).
public enum InterruptionOutcome: String, CaseIterable, Sendable, Codable {
  case resumed, backgrounded
}

/// Why the system launches or wakes an app in the background ("About the background execution
/// sequence"). Each hands the app its work in its own way: a completion handler, a
/// `BGTask` with an expiration handler, or (location) ordinary background time.
public enum BackgroundLaunchReason: String, CaseIterable, Sendable, Codable {
  /// Legacy background fetch (`performFetchWithCompletionHandler`).
  case fetch
  /// A silent push (`content-available`).
  case remoteNotification
  /// A location update.
  case location
  /// A `BGAppRefreshTask`.
  case appRefresh
  /// A `BGProcessingTask`.
  case processing
  /// The events of a background `URLSession` finished.
  case urlSession

  /// What a silent push carries when its event gives no payload: "To send a background
  /// notification, create a remote notification with an aps dictionary that includes only the
  /// content-available key" (Apple's "Pushing background updates to your App").
  public static let silentPushPayload = #"{"aps":{"content-available":1}}"#

  /// What the app finds in its launch options when this launches it (a wake from suspension
  /// passes none): the push's `payload`, or that location services relaunched it
  /// (`UIApplication.LaunchOptionsKey`); nil for the others.
  func launchOption(push payload: String) -> BackgroundLaunchOption? {
    switch self {
    case .remoteNotification: .remoteNotification(payload: payload)
    case .location: .location
    case .fetch, .appRefresh, .processing, .urlSession: nil
    }
  }

  /// What `callback` receives: the push's `payload` as its `userInfo`, the URL session's
  /// or the task request's `identifier` if there is one; nil for the others.
  func callbackArguments(push payload: String, identifier: String?) -> CallbackArguments? {
    switch self {
    case .remoteNotification: .userInfo(payload)
    case .urlSession: identifier.map(CallbackArguments.sessionIdentifier)
    case .appRefresh, .processing: identifier.map(CallbackArguments.taskIdentifier)
    case .fetch, .location: nil
    }
  }

  /// The `UIBackgroundModes` entry the app must declare; background URL sessions need none.
  public var requiredMode: BackgroundMode? {
    switch self {
    case .fetch, .appRefresh: .fetch
    case .remoteNotification: .remoteNotification
    case .location: .location
    case .processing: .processing
    case .urlSession: nil
    }
  }

  /// The callback that hands the app its background work.
  var callback: CallbackMethod {
    switch self {
    case .fetch: .performFetch
    case .remoteNotification: .didReceiveRemoteNotification
    case .location: .didUpdateLocations
    case .appRefresh, .processing: .taskLaunchHandler
    case .urlSession: .handleEventsForBackgroundURLSession
    }
  }

  /// How the app ends its work: a completion handler to call in time, a `BGTask` that expires
  /// and must be marked completed, or nothing (location: ordinary background time).
  var completion: WorkCompletion {
    switch self {
    case .fetch, .remoteNotification, .urlSession: .completionHandler
    case .appRefresh, .processing: .taskExpiration
    case .location: .none
    }
  }

  /// The code of a kill for work not completed in time ("EXC_CRASH (SIGKILL)").
  var terminationCode: TerminationCode {
    switch self {
    case .fetch, .remoteNotification: .backgroundFetch
    case .urlSession: .backgroundURLSession
    case .location, .appRefresh, .processing: .backgroundTask
    }
  }
}

/// How the work of a background launch ends.
enum WorkCompletion {
  /// The app calls a completion handler within `backgroundWork`, or is killed.
  case completionHandler
  /// The task's `expirationHandler` runs when its time is up; the app then calls
  /// `setTaskCompleted`, or is killed `expirationGrace` later.
  case taskExpiration
  /// No work to complete: the app has ordinary background time, then is suspended.
  case none
}

/// Something an app does that keeps it running in the background for as long as it lasts:
/// declaring the background mode only allows it (Apple's "Configuring background execution
/// modes"). An app in the background that does none is suspended like any other.
public enum BackgroundActivity: String, CaseIterable, Sendable, Codable {
  /// Playing audio: the app sits in jetsam's audio-and-accessory band, the last user band to go.
  case audio
  /// Receiving location updates.
  case location

  /// The `UIBackgroundModes` entry that lets the activity go on in the background.
  public var requiredMode: BackgroundMode {
    switch self {
    case .audio: .audio
    case .location: .location
    }
  }
}

/// The reason recorded for a jetsam kill, as in iOS jetsam event reports.
public enum JetsamReason: String, CaseIterable, Sendable, Codable {
  case vmPageshortage = "vm-pageshortage"
  case perProcessLimit = "per-process-limit"
  case vnodeLimit = "vnode-limit"
  case highwater
  case fcThrashing = "fc-thrashing"
  case jettisoned
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
    }
  }

  /// The event types that can be addressed to an app.
  public static let types = EventType.allCases.filter(\.isAppEvent)

  /// The event as the system delivers it to `app`: the events of a background `URLSession`
  /// always name their session (`application(_:handleEventsForBackgroundURLSession:
  /// completionHandler:)` is handed its `identifier`), `<app>.background-session` unless the
  /// event named one.
  func namingItsSession(for app: AppName) -> AppEvent {
    guard case .backgroundLaunch(.urlSession, let payload, nil) = self else { return self }
    return .backgroundLaunch(
      .urlSession, payload: payload, sessionIdentifier: "\(app).background-session")
  }
}

/// What kind of push APNs delivers.
public enum PushKind: String, CaseIterable, Sendable, Codable {
  /// A background notification (`content-available`, `apns-push-type: background`): it wakes
  /// or launches the app in the background.
  case background
  /// A notification the user sees: the app gets nothing until the user taps it (a `launch`
  /// with its notification's response).
  case alert

  /// What the push carries when its event gives no payload.
  public var defaultPayload: String {
    switch self {
    case .background: BackgroundLaunchReason.silentPushPayload
    case .alert: #"{"aps":{"alert":"New message"}}"#
    }
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
  /// (`MXMetricManagerSubscriber.didReceive(_:)`). The device's clock also does, every 24
  /// hours of its time.
  case deliverMetrics
  /// APNs delivers a push for `app`, with its `payload` (JSON text; nil: the kind's default).
  /// Boxed, so that it does not set the size of every journal entry.
  indirect case push(app: String, PushKind, payload: String? = nil)

  public var type: EventType {
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
    }
  }

  /// The event types that can be addressed to a device.
  public static let types = EventType.allCases.filter(\.isDeviceEvent)

  /// The app a device event is about, if it is about one.
  public var app: String? {
    switch self {
    case .setBackgroundAppRefresh(let app, _), .push(let app, _, _): app
    default: nil
    }
  }
}
