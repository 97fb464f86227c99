/// The network a device is on, as far as background work cares.
public enum NetworkStatus: String, CaseIterable, Sendable, Codable {
  case none, wifi, cellular
}

/// How the system decides when a pending task request runs.
public enum TaskSchedulingPolicy: String, CaseIterable, Sendable, Codable {
  /// A request runs at the first instant its `earliestBeginDate` has passed and nothing else
  /// holds it back (`HoldReason`); apps in name order, each app's requests in the order
  /// submitted. A policy, not iOS's: iOS also weighs app usage, budgets and rate limits.
  case eager
  /// Requests run only when the harness says (`launchTask`), as with the debugger's
  /// `_simulateLaunchForTaskWithIdentifier:`.
  case manual
}

/// What the system weighs before it runs background work, as a harness sets it, and how it
/// decides (WWDC 2020, "Background execution demystified": battery, Low Power Mode, the
/// Background App Refresh switch, ...). Not modelled: app usage, energy and data budgets,
/// rate limiting.
public struct BackgroundConditions: Hashable, Sendable {
  /// Percent.
  public var batteryLevel = 100
  public var charging = false
  public var lowPowerMode = false
  public var network = NetworkStatus.wifi
  /// The device's Background App Refresh switch (each app has its own too).
  public var backgroundAppRefresh = true
  public var taskScheduling = TaskSchedulingPolicy.eager
  /// How many continued-processing tasks the system runs at once now: Apple documents such a
  /// maximum ("the system reaches a maximum number of concurrent tasks") but not its value,
  /// so the default, 2, is lifecycled's policy. Lowered below the tasks running, it stands
  /// for resources becoming constrained: the system stops the tasks that reported the least
  /// progress.
  public var continuedProcessingCapacity = 2

  /// At or below this battery level, not charging, the system runs only essential work.
  public static let criticalBatteryLevel = 20

  public init() {}

  /// Whether the battery is critically low: background work waits.
  var batteryCritical: Bool { batteryLevel <= Self.criticalBatteryLevel && !charging }
}

/// A change to some of a device's `BackgroundConditions`; nil leaves one as it is.
public struct ConditionsChange: Hashable, Sendable {
  public var batteryLevel: Int?
  public var charging: Bool?
  public var lowPowerMode: Bool?
  public var network: NetworkStatus?
  public var backgroundAppRefresh: Bool?
  public var taskScheduling: TaskSchedulingPolicy?
  public var continuedProcessingCapacity: Int?

  public init(
    batteryLevel: Int? = nil, charging: Bool? = nil, lowPowerMode: Bool? = nil,
    network: NetworkStatus? = nil, backgroundAppRefresh: Bool? = nil,
    taskScheduling: TaskSchedulingPolicy? = nil, continuedProcessingCapacity: Int? = nil
  ) {
    self.batteryLevel = batteryLevel
    self.charging = charging
    self.lowPowerMode = lowPowerMode
    self.network = network
    self.backgroundAppRefresh = backgroundAppRefresh
    self.taskScheduling = taskScheduling
    self.continuedProcessingCapacity = continuedProcessingCapacity
  }
}

extension BackgroundConditions {
  mutating func apply(_ change: ConditionsChange) {
    if let level = change.batteryLevel { batteryLevel = level }
    if let charging = change.charging { self.charging = charging }
    if let lowPowerMode = change.lowPowerMode { self.lowPowerMode = lowPowerMode }
    if let network = change.network { self.network = network }
    if let refresh = change.backgroundAppRefresh { backgroundAppRefresh = refresh }
    if let policy = change.taskScheduling { taskScheduling = policy }
    if let capacity = change.continuedProcessingCapacity { continuedProcessingCapacity = capacity }
  }
}

/// Why the system holds background work back: why a pending task request has not run, or a
/// background push was not delivered, each in words a developer can act on (`detail`).
public enum HoldReason: Hashable, Sendable {
  /// Its `earliestBeginDate` is this far away.
  case earliestBeginDate(in: Duration)
  case deviceOff
  /// The user swiped the app away in the switcher.
  case appSwipedAway
  /// The app does not declare the background mode the work needs.
  case backgroundModeMissing(BackgroundMode)
  case backgroundAppRefreshOffForDevice
  case backgroundAppRefreshOffForApp
  case lowPowerMode
  /// The battery is at this level, not charging.
  case batteryCritical(Int)
  case noNetwork
  case notCharging
  /// A processing task waits until the device is idle (locked).
  case deviceInUse
  case appInForeground
  /// The same task still runs: it runs again once completed.
  case stillRunning
  /// The app holds as much background work as it may.
  case tooMuchBackgroundWork
  /// The device's policy is `manual`: only `launchTask` runs it.
  case manualScheduling
  /// The app got as many background pushes in the last hour as the budget allows.
  case pushBudgetSpent(perHour: Int)
  /// The system runs as many continued-processing tasks as it has room for
  /// (`continuedProcessingCapacity`).
  case noRoomForContinuedTask(capacity: Int)

  /// A stable name for the reason (the API's `reason`).
  public var name: String {
    switch self {
    case .earliestBeginDate: "earliestBeginDate"
    case .deviceOff: "deviceOff"
    case .appSwipedAway: "appSwipedAway"
    case .backgroundModeMissing: "backgroundModeMissing"
    case .backgroundAppRefreshOffForDevice: "backgroundAppRefreshOffForDevice"
    case .backgroundAppRefreshOffForApp: "backgroundAppRefreshOffForApp"
    case .lowPowerMode: "lowPowerMode"
    case .batteryCritical: "batteryCritical"
    case .noNetwork: "noNetwork"
    case .notCharging: "notCharging"
    case .deviceInUse: "deviceInUse"
    case .appInForeground: "appInForeground"
    case .stillRunning: "stillRunning"
    case .tooMuchBackgroundWork: "tooMuchBackgroundWork"
    case .manualScheduling: "manualScheduling"
    case .pushBudgetSpent: "pushBudgetSpent"
    case .noRoomForContinuedTask: "noRoomForContinuedTask"
    }
  }

  public var detail: String {
    switch self {
    case .earliestBeginDate(let wait):
      "earliestBeginDate is \((wait / .seconds(1)).asWritten) s away"
    case .deviceOff: "the device is off"
    case .appSwipedAway:
      "the user swiped the app away: no background launches until it is opened"
    case .backgroundModeMissing(let mode):
      "the app does not declare the '\(mode.rawValue)' background mode"
    case .backgroundAppRefreshOffForDevice: "Background App Refresh is off for the device"
    case .backgroundAppRefreshOffForApp: "Background App Refresh is off for this app"
    case .lowPowerMode: "Low Power Mode is on"
    case .batteryCritical(let level):
      "the battery is at \(level)%, not charging: the system runs only essential work"
    case .noNetwork: "requires network connectivity: the device has no network"
    case .notCharging: "requires external power: the device is not charging"
    case .deviceInUse: "processing tasks wait until the device is idle (locked)"
    case .appInForeground: "the app is in the foreground: its tasks run in the background"
    case .stillRunning: "the same task is still running: it runs again once completed"
    case .tooMuchBackgroundWork: "the app holds as much background work as it may"
    case .manualScheduling: "the device's taskScheduling is manual: launchTask runs it"
    case .pushBudgetSpent(let limit):
      "the app got \(limit) background push\(limit == 1 ? "" : "es") in the last hour, the "
        + "budget (backgroundPushesPerHour): the system throttles the rest"
    case .noRoomForContinuedTask(let capacity):
      "the system runs \(capacity) continued-processing task\(capacity == 1 ? "" : "s") at once "
        + "(continuedProcessingCapacity): queued, it starts when one ends"
    }
  }
}
