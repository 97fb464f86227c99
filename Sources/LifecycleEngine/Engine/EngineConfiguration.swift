/// The scheduler's numbers (the user guide's "Configuration keys"), the same for every device.
public struct SchedulerSettings: Hashable, Sendable {
  /// An idle background app is suspended this long after its didEnterBackground returned.
  public var suspendDelay: Duration = .seconds(2)
  /// didEnterBackground running longer than this gets the app killed with `0x8badf00d`
  /// (`applicationDidEnterBackground(_:)`: "approximately five seconds").
  public var watchdog: Duration = .seconds(5)
  /// A launch the user sees, didFinishLaunching until the scene is up, running longer than
  /// this gets the app killed (the 19.97 s `scene-create` allowance Apple's "Addressing
  /// watchdog terminations" shows for a foreground launch).
  public var launchWatchdog: Duration = .seconds(20)
  /// The same for a launch in the background (crash reports show 29.91 s).
  public var backgroundLaunchWatchdog: Duration = .seconds(30)
  /// willEnterForeground running longer than this gets the app killed (crash reports show a
  /// `scene-update` allowance of 10.00 s).
  public var enterForegroundWatchdog: Duration = .seconds(10)
  /// Background tasks expire this long after the app entered the background.
  public var backgroundTask: Duration = .seconds(30)
  /// An app that does not end an expired task is killed this long after the handler.
  public var expirationGrace: Duration = .seconds(1)
  /// Time the app has to complete the work of a background launch (fetch, silent push,
  /// URL session events), and a `BGAppRefreshTask` runs before it expires.
  public var backgroundWork: Duration = .seconds(30)
  /// Time a `BGProcessingTask` runs before it expires.
  public var processingTask: Duration = .seconds(300)
  /// Background pushes delivered to one app in any hour; the system drops the rest (Apple's
  /// "Pushing background updates to your App": "don't try to send more than two or three per
  /// hour"). A policy, not iOS's documented number.
  public var backgroundPushesPerHour = 3
  /// With a passcode, protected data becomes unavailable this long after the device locks.
  public var protectedDataLockDelay: Duration = .seconds(10)
  /// Under memory pressure, background-running apps are killed this long after the memory
  /// warning if pressure persists: an app that frees memory in time survives.
  public var memoryWarningGrace: Duration = .seconds(5)

  public init() {}

  /// The time the app has to complete the work of a launch for `reason`; none for a
  /// continued-processing task ("work that can take minutes or more").
  func time(toComplete reason: BackgroundLaunchReason) -> Duration? {
    switch reason {
    case .processing: processingTask
    case .continuedProcessing: nil
    case .fetch, .remoteNotification, .location, .appRefresh, .urlSession: backgroundWork
    }
  }
}

/// Settings for devices created without them, and for the `default` device: a model and
/// release of `EngineConfiguration.profiles`, and the memory limits that override the
/// model's (nil: the model's own).
public struct DeviceDefaults: Hashable, Sendable {
  public var clock: ClockMode = .realtime
  public var model = DeviceProfiles.defaultModel
  public var osVersion = DeviceProfiles.defaultOSVersion
  public var memoryLimitMB: Int?
  public var perAppLimitMB: Int?
  public var passcode = true

  public init() {}

  /// The device `id` as these defaults make it: no labels, no idle timeout.
  public func configuration(id: String) -> DeviceConfiguration {
    DeviceConfiguration(
      id: id, clock: clock, model: model, initialOSVersion: osVersion, memoryLimitMB: memoryLimitMB,
      perAppLimitMB: perAppLimitMB, passcode: passcode)
  }
}

/// Bounds that keep the engine's memory finite whatever clients do.
public struct EngineLimits: Hashable, Sendable {
  public var maxDevices = 1_000
  public var maxAppsPerDevice = 1_000
  /// Background tasks one app may hold at once (UIKit sets no documented limit; this one
  /// bounds what a client can make an app hold).
  public var maxBackgroundTasksPerApp = 100
  /// Callbacks one app may hold waiting behind its busy main thread: an event that could
  /// queue more is refused until the main thread is free and they are delivered.
  public var maxWaitingCallbacksPerApp = 1_000
  /// Entries each device's journal keeps before dropping the oldest.
  public var journalCapacity = 10_000
  /// Bytes each device's journal keeps (`RetainedSize`) before dropping the oldest: URLs and
  /// task names make entries of very different sizes.
  public var journalCapacityBytes = 4 << 20
  /// What the whole engine's state may retain (`Engine.retainedBytes`); past it, requests
  /// that would grow it are refused until devices or apps are removed.
  public var memoryBudgetBytes = 1 << 30
  /// Jetsam events each device's jetsam log keeps before dropping the oldest.
  public var jetsamLogCapacity = 1_000
  /// Bytes each device's jetsam log keeps (`RetainedSize`) before dropping the oldest: an
  /// event's report lists every process on the device.
  public var jetsamLogCapacityBytes = 1 << 20

  public init() {}
}

/// Everything the engine is configured with.
public struct EngineConfiguration: Hashable, Sendable {
  public var scheduler = SchedulerSettings()
  /// The models and releases devices are made as.
  public var profiles = DeviceProfiles.builtIn
  public var deviceDefaults = DeviceDefaults()
  public var limits = EngineLimits()

  public init() {}
}
