import Testing

@testable import LifecycleEngine

/// Every way into an app × {not running, suspended, running in the background} × {app
/// delegate, scene}. Sources: "About the app launch sequence" (launch options, then
/// `scene(_:willConnectTo:options:)`); `UIScene.ConnectionOptions` (`urlContexts`,
/// `userActivities`, `notificationResponse`, `shortcutItem`); `scene(_:openURLContexts:)`,
/// `scene(_:continue:)` and `windowScene(_:performActionFor:completionHandler:)`, which UIKit
/// calls for a connected scene; `application(_:performActionFor:completionHandler:)` ("except
/// when you've intercepted the interaction in a launch method"); the notification center's
/// delegate, set before launching finishes, which hears every response
/// (`UNUserNotificationCenter.delegate`).
@Suite struct EntryPointTests {
  let sim = Simulator()

  init() {
    sim.add("mail", .scene, modes: [.fetch])
    sim.add("notes", .appDelegate, modes: [.fetch])
  }

  static let url = Entry.url("mail://inbox/7")
  static let localNotification = Entry.notification(NotificationResponse(identifier: "n1"))
  static let remoteNotification = Entry.notification(
    NotificationResponse(identifier: "p9", actionIdentifier: "reply", isRemote: true))
  static let universalLink = Entry.userActivity(
    UserActivity(webpageURL: "https://example.com/item/7"))
  static let quickAction = Entry.shortcutItem(type: "com.example.compose")
  static let all = [url, localNotification, remoteNotification, universalLink, quickAction]

  /// The starting states, each reached the way a user or the system gets there.
  enum Start: CaseIterable {
    case notRunning, suspended, background

    func reach(_ app: String, in sim: Simulator) throws {
      switch self {
      case .notRunning: return
      case .suspended:
        try sim.post(.launch(), to: app)
        try sim.post(.home, to: app)
        sim.advance(2)
      case .background:  // held by a background task
        try sim.post(.launch(), to: app)
        try sim.post(.beginBackgroundTask(), to: app)
        try sim.post(.home, to: app)
      }
    }
  }

  // MARK: App delegate

  /// The entry's own `UIApplicationDelegate` (or notification center) callback.
  static func appDelegateCallback(_ entry: Entry) -> String {
    let method =
      switch entry {
      case .url: "application(_:open:options:)"
      case .notification: "userNotificationCenter(_:didReceive:withCompletionHandler:)"
      case .userActivity: "application(_:continue:restorationHandler:)"
      case .shortcutItem: "application(_:performActionFor:completionHandler:)"
      }
    return "\(method) → inactive {entry: \(describe(entry))}"
  }

  @Test(arguments: all)
  func appDelegateColdLaunchHasTheEntryInItsLaunchOptionsThenItsCallback(entry: Entry) throws {
    // A local notification's response reaches only the notification center's delegate.
    let options = entry == Self.localNotification ? "" : " {options: \(describe(entry))}"
    #expect(
      trace(try sim.post(.launch(via: entry), to: "notes")) == [
        "application(_:willFinishLaunchingWithOptions:) → inactive" + options,
        "application(_:didFinishLaunchingWithOptions:) → inactive [UIApplication.didFinishLaunchingNotification]"
          + options,
        Self.appDelegateCallback(entry),
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
  }

  @Test(arguments: all, [Start.suspended, .background])
  func appDelegateWarmLaunchGetsTheEntryBetweenForegroundAndActive(entry: Entry, start: Start)
    throws
  {
    try start.reach("notes", in: sim)
    let outcome = try sim.post(.launch(via: entry), to: "notes")
    #expect(
      trace(outcome) == [
        "applicationWillEnterForeground(_:) → inactive [UIApplication.willEnterForegroundNotification]",
        Self.appDelegateCallback(entry),
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
    #expect(
      transitions(outcome).first
        == (start == .suspended
          ? "notes: suspended → background (launch)" : "notes: background → inactive (launch)"))
  }

  // MARK: Scene

  static let willEnterForeground =
    "sceneWillEnterForeground(_:)@main → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]"
  static let didBecomeActive =
    "sceneDidBecomeActive(_:)@main → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]"
  static let didReceive =
    "userNotificationCenter(_:didReceive:withCompletionHandler:) → inactive/foregroundInactive"

  /// A new scene session connects with the entry in its connection options and enters the
  /// foreground; only a notification's response gets a callback of its own.
  static func connectingWithSession(_ entry: Entry) -> [String] {
    let connection = " {connection: \(describe(entry))}"
    var lines = [
      "application(_:configurationForConnecting:options:) → background/unattached" + connection,
      "scene(_:willConnectTo:options:)@main → background/unattached [UIScene.willConnectNotification]"
        + connection,
      willEnterForeground,
      didBecomeActive,
    ]
    if case .notification = entry {
      lines.insert("\(didReceive) {entry: \(describe(entry))}", at: 3)
    }
    return lines
  }

  @Test(arguments: all)
  func sceneColdLaunchHasTheEntryInItsConnectionOptions(entry: Entry) throws {
    #expect(
      trace(try sim.post(.launch(via: entry), to: "mail")) == [
        "application(_:willFinishLaunchingWithOptions:) → background/unattached",
        "application(_:didFinishLaunchingWithOptions:) → background/unattached [UIApplication.didFinishLaunchingNotification]",
      ] + Self.connectingWithSession(entry))
  }

  @Test(arguments: all, [Start.suspended, .background])
  func sceneWarmLaunchGetsTheEntrysSceneCallback(entry: Entry, start: Start) throws {
    try start.reach("mail", in: sim)
    let callback =
      switch entry {
      case .url: "scene(_:openURLContexts:)@main → inactive/foregroundInactive"
      case .notification: Self.didReceive
      case .userActivity: "scene(_:continue:)@main → inactive/foregroundInactive"
      case .shortcutItem:
        "windowScene(_:performActionFor:completionHandler:)@main → inactive/foregroundInactive"
      }
    #expect(
      trace(try sim.post(.launch(via: entry), to: "mail")) == [
        Self.willEnterForeground, "\(callback) {entry: \(describe(entry))}", Self.didBecomeActive,
      ])
  }

  /// A scene app launched in the background connects no scene; opening it connects one, with
  /// the entry in its connection options (`UIScene.ConnectionOptions`).
  @Test(arguments: all)
  func openingABackgroundLaunchedSceneAppConnectsItsSceneWithTheEntry(entry: Entry) throws {
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      trace(try sim.post(.launch(via: entry), to: "mail")) == Self.connectingWithSession(entry))
  }

  @Test func anEntryNamesItsFieldWhenItsTextIsEmptyOrTooLong() {
    let long = String(repeating: "x", count: Validation.maxIdentifierBytes + 1)
    let cases: [(Entry, String)] = [
      (.url(""), "url"),
      (.notification(NotificationResponse(identifier: "")), "notification.identifier"),
      (
        .notification(NotificationResponse(identifier: "n", actionIdentifier: long)),
        "notification.actionIdentifier"
      ),
      (.userActivity(UserActivity(activityType: long)), "userActivity.activityType"),
      (.userActivity(UserActivity(webpageURL: "")), "userActivity.webpageURL"),
      (.shortcutItem(type: long), "shortcutItem.type"),
    ]
    for (entry, field) in cases {
      guard
        case .invalid(let issues) = engineError({ try sim.post(.launch(via: entry), to: "mail") })
      else {
        Issue.record("\(field) was not refused")
        continue
      }
      #expect(issues.map(\.field) == [field])
    }
    #expect(sim.journal.isEmpty)
  }
}
