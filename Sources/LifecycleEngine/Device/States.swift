/// The process-level state of a simulated app (UIKit's five app states).
public enum AppState: String, CaseIterable, Sendable, Codable {
  case notRunning, inactive, active, background, suspended

  /// On screen: the user sees it (active, or inactive over a switcher or an interruption).
  public var isForeground: Bool { self == .active || self == .inactive }

  /// Executing code: in the foreground or running in the background.
  public var isRunning: Bool { isForeground || self == .background }

  /// Holding memory: running or suspended.
  public var isLive: Bool { self != .notRunning }
}

/// The state of a scene (`UIScene.ActivationState`, plus the suspended state UIKit describes).
public enum SceneState: String, CaseIterable, Sendable, Codable {
  case unattached, foregroundInactive, foregroundActive, background, suspended

  /// The scene state that mirrors an app state for an attached scene.
  init(mirroring state: AppState) {
    switch state {
    case .notRunning: self = .unattached
    case .inactive: self = .foregroundInactive
    case .active: self = .foregroundActive
    case .background: self = .background
    case .suspended: self = .suspended
    }
  }
}

/// Whether a device is on, and if so whether it is locked: the state device events report.
public enum DeviceState: String, CaseIterable, Sendable, Codable {
  case unlocked, locked
  /// Shut down: it refuses every event until `boot`.
  case off
}

/// Which UIKit life cycle the simulated app adopts.
public enum LifecycleModel: String, CaseIterable, Sendable, Codable {
  /// Scene-based (iOS 13+): the scene delegate receives foreground/background callbacks.
  case scene
  /// App-delegate only ("iOS 12 style"): the app delegate receives every callback.
  case appDelegate
}

/// A capability from `UIBackgroundModes` in the app's Info.plist.
public enum BackgroundMode: String, CaseIterable, Sendable, Codable {
  case fetch
  case remoteNotification = "remote-notification"
  case audio, location, voip, processing
}
