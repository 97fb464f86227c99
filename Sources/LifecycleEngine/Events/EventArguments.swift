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
  /// A `BGContinuedProcessingTask` (iOS 26): it starts in the foreground, from
  /// `submitTaskRequest`, never from a launch in the background.
  case continuedProcessing

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
    case .fetch, .appRefresh, .processing, .urlSession, .continuedProcessing: nil
    }
  }

  /// What `callback` receives: the push's `payload` as its `userInfo`, the URL session's
  /// or the task request's `identifier` if there is one; nil for the others.
  func callbackArguments(push payload: String, identifier: String?) -> CallbackArguments? {
    switch self {
    case .remoteNotification: .userInfo(payload)
    case .urlSession: identifier.map(CallbackArguments.sessionIdentifier)
    case .appRefresh, .processing, .continuedProcessing:
      identifier.map(CallbackArguments.taskIdentifier)
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
    case .urlSession, .continuedProcessing: nil
    }
  }

  /// The callback that hands the app its background work.
  var callback: CallbackMethod {
    switch self {
    case .fetch: .performFetch
    case .remoteNotification: .didReceiveRemoteNotification
    case .location: .didUpdateLocations
    case .appRefresh, .processing, .continuedProcessing: .taskLaunchHandler
    case .urlSession: .handleEventsForBackgroundURLSession
    }
  }

  /// How the app ends its work: a completion handler to call in time, a `BGTask` that expires
  /// and must be marked completed, or nothing (location: ordinary background time).
  var completion: WorkCompletion {
    switch self {
    case .fetch, .remoteNotification, .urlSession: .completionHandler
    case .appRefresh, .processing, .continuedProcessing: .taskExpiration
    case .location: .none
    }
  }

  /// The code of a kill for work not completed in time ("EXC_CRASH (SIGKILL)").
  var terminationCode: TerminationCode {
    switch self {
    case .fetch, .remoteNotification: .backgroundFetch
    case .urlSession: .backgroundURLSession
    case .location, .appRefresh, .processing, .continuedProcessing: .backgroundTask
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

  /// Whether jetsam kills the app in front for this reason ("Identifying high-memory use with
  /// jetsam event reports": `vnode-limit` and `fc-thrashing` kill background apps so as to
  /// spare the frontmost one; `highwater` is a system daemon's).
  public var killsForegroundApp: Bool {
    switch self {
    case .vmPageshortage, .perProcessLimit, .jettisoned: true
    case .vnodeLimit, .highwater, .fcThrashing: false
    }
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
