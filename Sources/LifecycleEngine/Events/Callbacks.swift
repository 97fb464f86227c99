/// A UIKit callback the simulator delivers, with the notifications UIKit posts for it.
///
/// Raw values are Swift selector-style method names, as the API reports them.
public enum CallbackMethod: String, CaseIterable, Sendable, Codable {
  // UIApplicationDelegate, both models.
  case willFinishLaunching = "application(_:willFinishLaunchingWithOptions:)"
  case didFinishLaunching = "application(_:didFinishLaunchingWithOptions:)"
  case willTerminate = "applicationWillTerminate(_:)"
  case didReceiveMemoryWarning = "applicationDidReceiveMemoryWarning(_:)"
  case significantTimeChange = "applicationSignificantTimeChange(_:)"
  case protectedDataWillBecomeUnavailable = "applicationProtectedDataWillBecomeUnavailable(_:)"
  case protectedDataDidBecomeAvailable = "applicationProtectedDataDidBecomeAvailable(_:)"
  // UIApplicationDelegate, app-delegate model only.
  case didBecomeActive = "applicationDidBecomeActive(_:)"
  case willResignActive = "applicationWillResignActive(_:)"
  case didEnterBackground = "applicationDidEnterBackground(_:)"
  case willEnterForeground = "applicationWillEnterForeground(_:)"
  case openURL = "application(_:open:options:)"
  case continueUserActivity = "application(_:continue:restorationHandler:)"
  case performActionForShortcutItem = "application(_:performActionFor:completionHandler:)"
  // UIApplicationDelegate, scene model only.
  case didDiscardSceneSessions = "application(_:didDiscardSceneSessions:)"
  case configurationForConnecting = "application(_:configurationForConnecting:options:)"
  // UISceneDelegate.
  case sceneWillConnect = "scene(_:willConnectTo:options:)"
  case sceneWillEnterForeground = "sceneWillEnterForeground(_:)"
  case sceneDidBecomeActive = "sceneDidBecomeActive(_:)"
  case sceneWillResignActive = "sceneWillResignActive(_:)"
  case sceneDidEnterBackground = "sceneDidEnterBackground(_:)"
  case sceneDidDisconnect = "sceneDidDisconnect(_:)"
  case sceneOpenURLContexts = "scene(_:openURLContexts:)"
  case sceneContinueUserActivity = "scene(_:continue:)"
  case windowScenePerformActionForShortcutItem =
    "windowScene(_:performActionFor:completionHandler:)"
  /// UIKit asks the scene for the activity to save in its session.
  case stateRestorationActivity = "stateRestorationActivity(for:)"
  // State restoration of an app-delegate app (iOS 13.2+).
  case shouldSaveSecureApplicationState = "application(_:shouldSaveSecureApplicationState:)"
  case shouldRestoreSecureApplicationState =
    "application(_:shouldRestoreSecureApplicationState:)"
  // UNUserNotificationCenterDelegate, both models.
  case didReceiveNotificationResponse =
    "userNotificationCenter(_:didReceive:withCompletionHandler:)"
  // Background work handed to the app.
  case performFetch = "application(_:performFetchWithCompletionHandler:)"
  case didReceiveRemoteNotification =
    "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)"
  case didUpdateLocations = "locationManager(_:didUpdateLocations:)"
  case taskLaunchHandler = "BGTaskScheduler.launchHandler(_:)"
  /// A `BGAppRefreshTask` or `BGProcessingTask` runs out of time.
  case taskExpirationHandler = "BGTask.expirationHandler"
  case handleEventsForBackgroundURLSession =
    "application(_:handleEventsForBackgroundURLSession:completionHandler:)"
  /// The expiration handler given to `beginBackgroundTask(withName:expirationHandler:)`.
  case expirationHandler = "expirationHandler"
  /// MetricKit delivers the day's reports not yet delivered (`[MXMetricPayload]`).
  case didReceiveMetricPayloads = "MXMetricManagerSubscriber.didReceive(_:)"
  /// MetricKit delivers the crash reports not yet delivered: the same method's overload that
  /// takes `[MXDiagnosticPayload]`. Swift names both `didReceive(_:)`: this one goes by its
  /// Objective-C selector, which has no space to escape in a query.
  case didReceiveDiagnosticPayloads = "MXMetricManagerSubscriber.didReceiveDiagnosticPayloads:"
  /// iOS 27's MetricManager yields one day's report (`MetricReport`) to the app's loop over
  /// its `metricReports` sequence.
  case metricReports = "MetricManager.metricReports"
  /// It yields one crash's report (`DiagnosticReport`) to the loop over `diagnosticReports`.
  case diagnosticReports = "MetricManager.diagnosticReports"

  /// The notification posted with this callback, whatever the app's state does.
  /// (Scene callbacks also carry the aggregate `UIApplication` notification when they change
  /// the app's state; see `Device.deliver`.)
  public var notification: UIKitNotification? {
    switch self {
    case .didFinishLaunching: .didFinishLaunching
    case .willTerminate: .willTerminate
    case .didReceiveMemoryWarning: .didReceiveMemoryWarning
    case .significantTimeChange: .significantTimeChange
    case .protectedDataWillBecomeUnavailable: .protectedDataWillBecomeUnavailable
    case .protectedDataDidBecomeAvailable: .protectedDataDidBecomeAvailable
    case .didBecomeActive: .didBecomeActive
    case .willResignActive: .willResignActive
    case .didEnterBackground: .didEnterBackground
    case .willEnterForeground: .willEnterForeground
    case .sceneWillConnect: .sceneWillConnect
    case .sceneWillEnterForeground: .sceneWillEnterForeground
    case .sceneDidBecomeActive: .sceneDidActivate
    case .sceneWillResignActive: .sceneWillDeactivate
    case .sceneDidEnterBackground: .sceneDidEnterBackground
    case .sceneDidDisconnect: .sceneDidDisconnect
    default: nil
    }
  }

  /// Whether this is a `UISceneDelegate` callback, delivered to a scene.
  public var isSceneCallback: Bool {
    switch self {
    case .sceneWillConnect, .sceneWillEnterForeground, .sceneDidBecomeActive,
      .sceneWillResignActive, .sceneDidEnterBackground, .sceneDidDisconnect,
      .sceneOpenURLContexts, .sceneContinueUserActivity, .windowScenePerformActionForShortcutItem,
      .stateRestorationActivity:
      true
    default: false
    }
  }

  /// The aggregate `UIApplication` notification a scene app posts when its state moves from
  /// `old` to `new` (it rides on the scene callback that causes the change: LifecycleEngine.docc, "Notifications").
  static func aggregateNotification(from old: AppState, to new: AppState) -> UIKitNotification? {
    switch (old.isForeground, new) {
    case (_, .active) where old != .active: .didBecomeActive
    case (true, .inactive) where old == .active: .willResignActive
    case (true, .background): .didEnterBackground
    case (false, .inactive): .willEnterForeground
    default: nil
    }
  }
}

/// A notification UIKit posts along with a callback; raw values are the names the API reports.
public enum UIKitNotification: String, CaseIterable, Sendable, Codable {
  // UIApplication.
  case didFinishLaunching = "UIApplication.didFinishLaunchingNotification"
  case willTerminate = "UIApplication.willTerminateNotification"
  case didReceiveMemoryWarning = "UIApplication.didReceiveMemoryWarningNotification"
  case significantTimeChange = "UIApplication.significantTimeChangeNotification"
  case protectedDataWillBecomeUnavailable =
    "UIApplication.protectedDataWillBecomeUnavailableNotification"
  case protectedDataDidBecomeAvailable = "UIApplication.protectedDataDidBecomeAvailableNotification"
  case didBecomeActive = "UIApplication.didBecomeActiveNotification"
  case willResignActive = "UIApplication.willResignActiveNotification"
  case didEnterBackground = "UIApplication.didEnterBackgroundNotification"
  case willEnterForeground = "UIApplication.willEnterForegroundNotification"
  // UIScene.
  case sceneWillConnect = "UIScene.willConnectNotification"
  case sceneWillEnterForeground = "UIScene.willEnterForegroundNotification"
  case sceneDidActivate = "UIScene.didActivateNotification"
  case sceneWillDeactivate = "UIScene.willDeactivateNotification"
  case sceneDidEnterBackground = "UIScene.didEnterBackgroundNotification"
  case sceneDidDisconnect = "UIScene.didDisconnectNotification"
}

/// One callback delivered to a simulated app.
///
/// The properties are declared so that the one-byte ones share a word and the nine-byte
/// `taskId` comes last: 121 bytes, within the 128 that copies move inline (at 136, every copy
/// of a callback or a journal entry calls `memcpy`: about 4,800 instructions per `POST` of
/// the events benchmark).
public struct Callback: Hashable, Sendable {
  /// Position in the device's journal; strictly increasing per device.
  public var seq: Int
  public var time: Instant
  public var app: AppName
  public var method: CallbackMethod
  /// The aggregate `UIApplication` notification a scene callback posts when it changes the
  /// app's state (LifecycleEngine.docc, "Notifications"), after the method's own.
  public var aggregateNotification: UIKitNotification?
  /// The app's state right after the callback.
  public var state: AppState
  /// The state right after the callback of the scene it names, or for an app callback of the
  /// app's focused scene; nil for app-delegate apps.
  public var sceneState: SceneState?
  /// The scene a scene callback is delivered to (its session's id); nil for an app callback.
  public var scene: String?
  /// The options, entry or restoration data the method receives; nil when it receives none.
  public var arguments: CallbackArguments?
  /// The background task whose expiration handler this is.
  public var taskId: Int?
}

extension Callback {
  /// A callback that waits for the app's busy main thread: its `seq` and `time` are those of
  /// its delivery, set then.
  public init(
    waitingFor app: AppName, method: CallbackMethod, aggregateNotification: UIKitNotification?,
    state: AppState, scene: String? = nil, sceneState: SceneState?, taskId: Int?,
    arguments: CallbackArguments? = nil
  ) {
    self.init(
      seq: 0, time: .zero, app: app, method: method,
      aggregateNotification: aggregateNotification, state: state, sceneState: sceneState,
      scene: scene, arguments: arguments, taskId: taskId)
  }

  /// The notifications posted with this callback, in order: the method's own, then the
  /// aggregate one.
  public var notifications: [UIKitNotification] {
    [method.notification, aggregateNotification].compactMap { $0 }
  }
}

/// Termination codes iOS writes into crash reports for the kills the simulator makes (Apple's
/// "EXC_CRASH (SIGKILL)").
public enum TerminationCode: String, CaseIterable, Sendable, Codable {
  /// "ate bad food": a scene or app transition took longer than the watchdog allows.
  case watchdog = "0x8badf00d"
  /// "a background task failing to complete in time" (`beginBackgroundTask`, `BGTask`).
  case backgroundTask = "0x2182bad2"
  /// "a background URL session failing to complete in time".
  case backgroundURLSession = "0x2182bad3"
  /// "a background fetch failing to complete in time" (fetch, silent push).
  case backgroundFetch = "0x2182bad4"
  /// "cool off": killed in response to a thermal event.
  case thermal = "0xc00010ff"
  /// "dead lock": a file or SQLite database lock held during suspension.
  case fileLock = "0xdead10cc"
}

/// What caused a transition.
public enum TransitionCause: Hashable, Sendable {
  /// A client-posted event.
  case event(EventType)
  /// The scheduler suspended an idle background app.
  case suspension
  /// didEnterBackground overran the watchdog allowance.
  case watchdog
  /// A background task was not ended after its expiration handler.
  case backgroundTaskExpiration
  /// Background work from a background launch was not completed in time.
  case backgroundWorkTimeout
  /// Jetsam reclaimed memory.
  case jetsam(JetsamReason)
  /// The app held a file lock when the system suspended it.
  case fileLockAtSuspension
  /// UIKit's assertion ended the launch of an app-delegate app built with the iOS 27 SDK or
  /// later ("UIScene life cycle is required for apps built with this SDK").
  case sceneLifecycleRequired

  /// The name the API reports.
  public var name: String {
    switch self {
    case .event(let type): type.rawValue
    case .suspension: "suspension"
    case .watchdog: "watchdog"
    case .backgroundTaskExpiration: "backgroundTaskExpiration"
    case .backgroundWorkTimeout: "backgroundWorkTimeout"
    case .jetsam: "jetsam"
    case .fileLockAtSuspension: "fileLockAtSuspension"
    case .sceneLifecycleRequired: "sceneLifecycleRequired"
    }
  }
}

/// A change of an app's state, including the silent ones that deliver no callback.
public struct Transition: Hashable, Sendable {
  public var seq: Int
  public var time: Instant
  public var app: AppName
  public var from: AppState
  public var to: AppState
  public var cause: TransitionCause
  /// Set for the kills Apple's crash reports give a code: watchdog, background time, thermal,
  /// file lock.
  public var terminationCode: TerminationCode?

  /// Whether the process was killed: it ended, and not because the user force-quit it or
  /// powered the device off.
  public var isKill: Bool {
    to == .notRunning && cause != .event(.terminate) && cause != .event(.shutdown)
  }
}

/// An event as the journal records it.
public enum RecordedEvent: Hashable, Sendable {
  case app(AppEvent)
  case device(DeviceEvent)

  public var type: EventType {
    switch self {
    case .app(let event): event.type
    case .device(let event): event.type
    }
  }
}

/// One entry of a device's journal: everything that happened on the device, in order.
public enum JournalEntry: Hashable, Sendable {
  case event(seq: Int, time: Instant, app: AppName?, event: RecordedEvent)
  case callback(Callback)
  case transition(Transition)

  public var seq: Int {
    switch self {
    case .event(let seq, _, _, _): seq
    case .callback(let callback): callback.seq
    case .transition(let transition): transition.seq
    }
  }

  /// When it happened, in device time.
  public var time: Instant {
    switch self {
    case .event(_, let time, _, _): time
    case .callback(let callback): callback.time
    case .transition(let transition): transition.time
    }
  }

  /// The app the entry concerns; nil for device events.
  public var app: AppName? {
    switch self {
    case .event(_, _, let app, _): app
    case .callback(let callback): callback.app
    case .transition(let transition): transition.app
    }
  }
}
