/// The transitions iOS's watchdog times, by the names its crash reports give them (Apple's
/// "Addressing watchdog terminations": "scene-create watchdog transgression ... exhausted real
/// (wall clock) time allowance").
public enum WatchdogEvent: String, CaseIterable, Sendable {
  /// The launch, until the app's scene is up: `application(_:didFinishLaunchingWithOptions:)`.
  case sceneCreate = "scene-create"
  /// A move between foreground and background: `applicationWillEnterForeground(_:)` or
  /// `sceneWillEnterForeground(_:)`, `applicationDidEnterBackground(_:)` or
  /// `sceneDidEnterBackground(_:)`.
  case sceneUpdate = "scene-update"
}

/// Whether the process was on screen during the transition: a crash report's
/// `ProcessVisibility`.
public enum ProcessVisibility: String, CaseIterable, Sendable {
  case foreground, background
}

/// One transition the watchdog times: what a watchdog kill's termination names.
public struct WatchdogTransition: Hashable, Sendable {
  public var event: WatchdogEvent
  public var visibility: ProcessVisibility

  public init(_ event: WatchdogEvent, _ visibility: ProcessVisibility) {
    self.event = event
    self.visibility = visibility
  }

  /// The user's launch; a launch for background work.
  public static let launch = WatchdogTransition(.sceneCreate, .foreground)
  public static let backgroundLaunch = WatchdogTransition(.sceneCreate, .background)
  /// Coming to the foreground; going to the background.
  public static let enterForeground = WatchdogTransition(.sceneUpdate, .foreground)
  public static let enterBackground = WatchdogTransition(.sceneUpdate, .background)
}

extension SchedulerSettings {
  /// How long the watchdog lets `transition` keep the main thread.
  func allowance(for transition: WatchdogTransition) -> Duration {
    switch (transition.event, transition.visibility) {
    case (.sceneCreate, .foreground): launchWatchdog
    case (.sceneCreate, .background): backgroundLaunchWatchdog
    case (.sceneUpdate, .foreground): enterForegroundWatchdog
    case (.sceneUpdate, .background): watchdog
    }
  }
}

extension AppBehavior {
  /// How long the app's code keeps the main thread in `method`, a move between foreground and
  /// background, and the transition the watchdog times it as; nil for any other method (the
  /// launch's didFinishLaunching is timed where the launch knows whether the user sees it:
  /// `finishLaunching`). A scene's willEnterForeground right after it connected belongs to
  /// its creation (`sceneJustConnected`), a launch's or a reconnection's: scene-create.
  func mainThreadTime(
    of method: CallbackMethod, sceneJustConnected: Bool
  ) -> (duration: Duration, transition: WatchdogTransition)? {
    switch method {
    case .willEnterForeground, .sceneWillEnterForeground:
      (willEnterForegroundDuration, sceneJustConnected ? .launch : .enterForeground)
    case .didEnterBackground, .sceneDidEnterBackground:
      (didEnterBackgroundDuration, .enterBackground)
    default: nil
    }
  }
}

extension Callback {
  /// Whether this is a scene's willEnterForeground delivered right after `previous` connected
  /// that scene.
  func follows(_ previous: Callback) -> Bool {
    method == .sceneWillEnterForeground && previous.method == .sceneWillConnect
      && previous.app == app && previous.scene == scene
  }
}

extension Device {
  /// The app's code keeps the main thread `duration` from now: callbacks wait behind it, and
  /// past the watchdog's allowance for `transition` the app will be killed with `0x8badf00d`,
  /// unless a debugger is attached ("the watchdog is disabled when launched from Xcode").
  func occupyMainThread(of app: App, for duration: Duration, timedAs transition: WatchdogTransition)
  {
    guard duration > .zero else { return }
    app.busyUntil = status.now + duration
    let allowance = scheduler.allowance(for: transition)
    if duration > allowance, !app.debuggerAttached {
      app.watchdogKillAt = status.now + allowance
      app.watchdogTransition = transition
    }
    reschedule(app)
  }
}
