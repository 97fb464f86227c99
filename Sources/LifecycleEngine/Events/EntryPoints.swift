/// How the user opens an app, beyond tapping its icon: what UIKit hands the app on the way in.
///
/// Indirect, so that an event or a callback that carries none costs one word.
public indirect enum Entry: Hashable, Sendable {
  /// A URL the app handles (its custom scheme, or a document).
  case url(String)
  /// The user tapped one of the app's notifications, or one of its actions.
  case notification(NotificationResponse)
  /// A universal link or Handoff: an `NSUserActivity` to continue.
  case userActivity(UserActivity)
  /// A Home Screen quick action (`UIApplicationShortcutItem`), by its `type`.
  case shortcutItem(type: String)

  /// The callback that hands the entry to the app once it runs, in the app's life cycle;
  /// nil where UIKit hands it over only in the scene's connection options (Apple's
  /// `scene(_:openURLContexts:)`, `scene(_:continue:)` and
  /// `windowScene(_:performActionFor:completionHandler:)` pages).
  func callback(for lifecycle: LifecycleModel, sceneJustConnected: Bool) -> CallbackMethod? {
    switch (self, lifecycle) {
    // The notification center's delegate is not a scene delegate: it hears every response.
    case (.notification, _): .didReceiveNotificationResponse
    case (_, .scene) where sceneJustConnected: nil
    case (.url, .appDelegate): .openURL
    case (.url, .scene): .sceneOpenURLContexts
    case (.userActivity, .appDelegate): .continueUserActivity
    case (.userActivity, .scene): .sceneContinueUserActivity
    case (.shortcutItem, .appDelegate): .performActionForShortcutItem
    case (.shortcutItem, .scene): .windowScenePerformActionForShortcutItem
    }
  }

  /// What is wrong with the entry's texts, each named by its field in a `launch` event.
  public func issues() -> ValidationIssues {
    var issues = ValidationIssues()
    func check(_ text: String?, _ field: String, maxBytes: Int) {
      guard let text, text.isEmpty || text.utf8.count > maxBytes else { return }
      issues.append(ValidationIssue(field: field, message: "must be 1 to \(maxBytes) bytes long"))
    }
    let identifier = Validation.maxIdentifierBytes
    switch self {
    case .url(let url): check(url, "url", maxBytes: Validation.maxURLBytes)
    case .notification(let response):
      check(response.identifier, "notification.identifier", maxBytes: identifier)
      check(response.actionIdentifier, "notification.actionIdentifier", maxBytes: identifier)
    case .userActivity(let activity):
      check(activity.activityType, "userActivity.activityType", maxBytes: identifier)
      check(activity.webpageURL, "userActivity.webpageURL", maxBytes: Validation.maxURLBytes)
    case .shortcutItem(let type): check(type, "shortcutItem.type", maxBytes: identifier)
    }
    return issues
  }

  /// Whether an app-delegate app finds the entry in its launch options: every entry but a
  /// local notification's response, which only its notification center delegate receives.
  var isLaunchOption: Bool {
    if case .notification(let response) = self { return response.isRemote }
    return true
  }
}

/// A `UNNotificationResponse`: which notification, and what the user chose.
public struct NotificationResponse: Hashable, Sendable {
  /// The notification request's identifier.
  public var identifier: String
  /// `UNNotificationDefaultActionIdentifier` when the user tapped the notification itself.
  public var actionIdentifier: String
  /// A remote (push) notification: a cold launch also finds it in the launch options.
  public var isRemote: Bool

  public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"

  public init(
    identifier: String, actionIdentifier: String = Self.defaultActionIdentifier,
    isRemote: Bool = false
  ) {
    self.identifier = identifier
    self.actionIdentifier = actionIdentifier
    self.isRemote = isRemote
  }
}

/// An `NSUserActivity` handed to the app: a universal link is a browsing-web activity with
/// the link as its `webpageURL`.
public struct UserActivity: Hashable, Sendable {
  public var activityType: String
  public var webpageURL: String?

  public static let browsingWeb = "NSUserActivityTypeBrowsingWeb"

  public init(activityType: String = Self.browsingWeb, webpageURL: String? = nil) {
    self.activityType = activityType
    self.webpageURL = webpageURL
  }
}

/// What UIKit passes a callback beyond the application and the scene: the launch or
/// connection options, the entry itself, state restoration data, or discarded sessions. A callback without any
/// receives nil launch options, empty connection options, or nothing else.
public indirect enum CallbackArguments: Hashable, Sendable {
  /// `application(_:willFinishLaunchingWithOptions:)` and `didFinishLaunching` of an
  /// app-delegate app opened through the entry.
  case launchOptions(Entry)
  /// `application(_:configurationForConnecting:options:)` and
  /// `scene(_:willConnectTo:options:)`: the entry in the connection options, and the
  /// restoration data UIKit kept in the session (`session.stateRestorationActivity`).
  case connectionOptions(Entry?, restorationData: String?)
  /// The entry's own callback (`application(_:open:options:)`, `scene(_:continue:)`, ...).
  case entry(Entry)
  /// The state restoration data the app saves or gets back, as JSON text.
  case restorationData(String)
  /// `application(_:didDiscardSceneSessions:)`: the ids of the sessions discarded.
  case sessions([String])
  /// `application(_:willFinishLaunchingWithOptions:)` and `didFinishLaunching` of an app the
  /// system launched in the background, when that passes launch options.
  case backgroundLaunchOptions(BackgroundLaunchOption)
  /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: the push's
  /// payload, as JSON text.
  case userInfo(String)
  /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`: the identifier
  /// of the session whose events are done.
  case sessionIdentifier(String)
  /// `BGTaskScheduler.launchHandler(_:)` of a task the app requested: its identifier
  /// (`BGTask.identifier`).
  case taskIdentifier(String)
  /// `MXMetricManagerSubscriber.didReceive(_:)`: the day's reports (`MXMetricPayload`).
  case metrics([MetricPayload])
  /// Its overload for crash reports (`MXDiagnosticPayload`).
  case diagnostics([DiagnosticPayload])
  /// `MetricManager.metricReports`: one day's report, which the API writes as a
  /// `MetricReport`.
  case metricReport(MetricPayload)
  /// `MetricManager.diagnosticReports`: one crash, which the API writes as a
  /// `DiagnosticReport`.
  case diagnosticReport(CrashDiagnostic)

  /// The connection options of a scene connecting with `entry` and `restorationData`; nil
  /// when both are empty.
  public static func connecting(with entry: Entry?, restorationData: String?) -> Self? {
    entry == nil && restorationData == nil
      ? nil : .connectionOptions(entry, restorationData: restorationData)
  }
}

/// What a background launch puts in the launch options (`UIApplication.LaunchOptionsKey`).
public enum BackgroundLaunchOption: Hashable, Sendable {
  /// `.remoteNotification`: the payload of the push that launched the app, as JSON text.
  case remoteNotification(payload: String)
  /// `.location`: location services relaunched the app ("Handling location updates in the
  /// background": a relaunch after `startMonitoringSignificantLocationChanges()` passes it).
  case location
}
