/// How the simulated app's own code behaves when UIKit calls it.
public struct AppBehavior: Hashable, Sendable {
  /// How long `application(_:didFinishLaunchingWithOptions:)` takes to return. Over the
  /// watchdog's launch allowance the app is killed with `0x8badf00d`.
  public var didFinishLaunchingDuration: Duration
  /// How long `applicationWillEnterForeground`/`sceneWillEnterForeground` takes to return.
  /// Over the watchdog's allowance the app is killed with `0x8badf00d`.
  public var willEnterForegroundDuration: Duration
  /// How long `applicationDidEnterBackground`/`sceneDidEnterBackground` takes to return.
  /// Over the watchdog's allowance the app is killed with `0x8badf00d`.
  public var didEnterBackgroundDuration: Duration
  /// Whether the expiration handler of a background task ends the task.
  /// If not, the app is killed `expirationGrace` after the handler with `0x2182bad2`.
  public var endsBackgroundTasksOnExpiration: Bool
  /// Whether the app still holds a file or SQLite database lock when the system suspends it:
  /// if so, it is killed instead, with `0xdead10cc`.
  public var holdsFileLockAtSuspension: Bool

  public init(
    didFinishLaunchingDuration: Duration = .zero,
    willEnterForegroundDuration: Duration = .zero,
    didEnterBackgroundDuration: Duration = .zero,
    endsBackgroundTasksOnExpiration: Bool = true,
    holdsFileLockAtSuspension: Bool = false
  ) {
    self.didFinishLaunchingDuration = didFinishLaunchingDuration
    self.willEnterForegroundDuration = willEnterForegroundDuration
    self.didEnterBackgroundDuration = didEnterBackgroundDuration
    self.endsBackgroundTasksOnExpiration = endsBackgroundTasksOnExpiration
    self.holdsFileLockAtSuspension = holdsFileLockAtSuspension
  }
}

extension AppBehavior: ConfigurationForm {
  public mutating func visitConfiguration(_ members: inout some ConfigurationMembers & ~Copyable) {
    let seconds = 0...Validation.maxBehaviorSeconds
    members.describe(
      """
      How long application(_:didFinishLaunchingWithOptions:) keeps the main thread: the \
      callbacks after it wait. Past the watchdog's scene-create allowance \
      (launchWatchdogSeconds, 20 s, for a launch the user sees; backgroundLaunchWatchdogSeconds, \
      30 s, for one in the background) the app is killed with 0x8badf00d.
      """)
    members.seconds("didFinishLaunchingSeconds", &didFinishLaunchingDuration, in: seconds)
    members.describe(
      """
      How long applicationWillEnterForeground or sceneWillEnterForeground keeps the main \
      thread. Past the watchdog's scene-update allowance (enterForegroundWatchdogSeconds, 10 s) \
      the app is killed with 0x8badf00d.
      """)
    members.seconds("willEnterForegroundSeconds", &willEnterForegroundDuration, in: seconds)
    members.describe(
      """
      How long applicationDidEnterBackground or sceneDidEnterBackground keeps the main thread. \
      Past watchdogSeconds (5 s) the app is killed with 0x8badf00d.
      """)
    members.seconds("didEnterBackgroundSeconds", &didEnterBackgroundDuration, in: seconds)
    members.describe(
      """
      Whether the app's expiration handler ends its background tasks, as a well-behaved app's \
      does. False: an expired task is not ended, and the app is killed 1 s after the handler \
      (expirationGrace) with 0x2182bad2. By default the handler ends them, and an expiration \
      kills nothing.
      """)
    members.bool("endsBackgroundTasksOnExpiration", &endsBackgroundTasksOnExpiration)
    members.describe(
      """
      The app's code still holds a file or SQLite lock when the system suspends it: it is \
      killed at suspendAt instead, with 0xdead10cc.
      """)
    members.bool("holdsFileLockAtSuspension", &holdsFileLockAtSuspension)
  }
}

/// What a client asks for when it creates an app; every field but `name` has a default.
public struct AppSpec: Hashable, Sendable {
  public var name: String
  public var lifecycle: LifecycleModel
  /// Foreground footprint in MB.
  public var memoryMB: Int
  /// Footprint in MB once in the background; nil means equal to `memoryMB`.
  public var backgroundMemoryMB: Int?
  public var backgroundModes: Set<BackgroundMode>
  public var behavior: AppBehavior
  /// A scene app that declares `UIApplicationSupportsMultipleScenes`: the user can open more
  /// than one window (scene session) of it.
  public var supportsMultipleScenes: Bool
  /// What each connected scene adds to the footprint, in MB (its views and layers): what
  /// jetsam reclaims by disconnecting a background scene. 0: scenes are counted in the app's
  /// footprints.
  public var sceneMemoryMB: Int
  /// `BGTaskSchedulerPermittedIdentifiers`: the task identifiers the app may submit requests
  /// for, each with a launch handler its code registers during every launch.
  public var permittedTaskIdentifiers: [String]
  /// The app has the `com.apple.developer.kernel.increased-memory-limit` entitlement: in the
  /// foreground, jetsam holds it to the model's raised limit.
  public var increasedMemoryLimit: Bool
  /// The major version of the iOS SDK the app was built with (Xcode 27 builds with the iOS 27
  /// SDK). From 27 on, on iOS 27 or later, an app-delegate app does not launch
  /// (`ReleaseFeature.sceneLifecycleRequirement`). By default 26: apps built with Xcode 26,
  /// as App Store submissions may be until April 2027.
  public var sdkVersion: Int
  /// Which of MetricKit's interfaces the app's code takes its reports from.
  public var metricKit: MetricKitInterface

  public init(
    name: String,
    lifecycle: LifecycleModel = .scene,
    memoryMB: Int = 100,
    backgroundMemoryMB: Int? = nil,
    backgroundModes: Set<BackgroundMode> = [],
    behavior: AppBehavior = AppBehavior(),
    supportsMultipleScenes: Bool = false,
    sceneMemoryMB: Int = 0,
    permittedTaskIdentifiers: [String] = [],
    increasedMemoryLimit: Bool = false,
    sdkVersion: Int = 26,
    metricKit: MetricKitInterface = .mxMetricManager
  ) {
    self.name = name
    self.lifecycle = lifecycle
    self.memoryMB = memoryMB
    self.backgroundMemoryMB = backgroundMemoryMB
    self.backgroundModes = backgroundModes
    self.behavior = behavior
    self.supportsMultipleScenes = supportsMultipleScenes
    self.sceneMemoryMB = sceneMemoryMB
    self.permittedTaskIdentifiers = permittedTaskIdentifiers
    self.increasedMemoryLimit = increasedMemoryLimit
    self.sdkVersion = sdkVersion
    self.metricKit = metricKit
  }
}

extension AppSpec: ConfigurationForm {
  /// The members after the app's `name`, which names the app rather than configures it.
  public mutating func visitConfiguration(_ members: inout some ConfigurationMembers & ~Copyable) {
    members.choice("lifecycle", &lifecycle)
    members.integer("memoryMB", &memoryMB, in: Validation.footprints)
    members.describe("Default: memoryMB.")
    members.integer("backgroundMemoryMB", &backgroundMemoryMB, in: Validation.footprints)
    members.choices("backgroundModes", &backgroundModes)
    members.object("behavior", &behavior)
    members.describe(
      """
      The app declares UIApplicationSupportsMultipleScenes: the user can open more windows \
      (openScene). Scene apps only.
      """)
    members.bool("supportsMultipleScenes", &supportsMultipleScenes)
    members.describe(
      """
      What each connected scene adds to the app's footprint: what UIKit reclaims by \
      disconnecting a background scene under memory pressure. 0: the footprints include the \
      scenes. Scene apps only.
      """)
    members.integer("sceneMemoryMB", &sceneMemoryMB, in: Validation.footprints)
    members.describe(
      """
      BGTaskSchedulerPermittedIdentifiers: the task identifiers the app may submit requests \
      for (submitTaskRequest); its code registers each one's launch handler during every \
      launch.
      """)
    members.identifiers(
      "permittedTaskIdentifiers", &permittedTaskIdentifiers,
      maxCount: Validation.maxPermittedTaskIdentifiers)
    members.describe(
      """
      The app has the com.apple.developer.kernel.increased-memory-limit entitlement: in the \
      foreground, jetsam holds it to its device's increasedAppLimitMB (the model's raised \
      limit, where a source measures one; else the entitlement changes nothing).
      """)
    members.bool("increasedMemoryLimit", &increasedMemoryLimit)
    members.describe(
      """
      The major version of the iOS SDK the app was built with (Xcode 27 builds with the iOS 27 \
      SDK). Built with 27 or later, an app-delegate app does not launch on iOS 27 or later: \
      UIKit's assertion traps as it creates the app's first scene, before \
      application(_:willFinishLaunchingWithOptions:), so the process ends with no callback \
      (TN3187). Default: 26, an app built with Xcode 26, which launches.
      """)
    members.integer("sdkVersion", &sdkVersion, in: Validation.sdkVersions)
    members.describe(
      """
      Which MetricKit interface the app's code takes its reports from. mxMetricManager: an \
      MXMetricManagerSubscriber, whose didReceive(_:) takes every report waiting in one array \
      of each kind. metricManager: iOS 27's MetricManager, whose metricReports and \
      diagnosticReports sequences yield one MetricReport or DiagnosticReport each; it is in \
      the iOS 27 SDK (sdkVersion 27), and before iOS 27 the app falls back to \
      MXMetricManager, as its code must where MetricManager is not available.
      """)
    members.choice("metricKit", &metricKit)
  }
}

/// The clock a device keeps.
public enum ClockMode: String, CaseIterable, Sendable, Codable {
  /// Time moves only when a client advances it: deterministic tests that never sleep.
  case manual
  /// Time follows the host's monotonic clock; advancing adds an offset.
  case realtime
}

/// What a device is made with and keeps for its life: its id, clock, model and the iOS release
/// it starts on, the memory limits that override its model's, passcode, labels and idle
/// timeout. The live device, its image and its view hold this one value; a client's
/// declaration is one whose members it leaves out keep the configured defaults
/// (`DeviceDefaults.configuration(id:)`).
public struct DeviceConfiguration: Hashable, Sendable {
  public var id: String
  public var clock: ClockMode
  /// The model, by its marketing name (`DeviceProfiles.model(named:)`): its memory and its
  /// apps' limits, unless the members below override them.
  public var model: String
  /// The iOS release the device starts on, its `osVersion` member (`updateOS` moves the
  /// device's status on).
  public var initialOSVersion: String
  /// The apps' memory budget, in place of the model's RAM.
  public var memoryLimitMB: Int?
  /// The per-process limit of an app in the foreground, in place of the model's.
  public var perAppLimitMB: Int?
  /// The per-process limit of an app out of the foreground, in place of the model's.
  public var backgroundAppLimitMB: Int?
  /// The foreground limit of an app with the increased-memory-limit entitlement, in place of
  /// the model's.
  public var increasedAppLimitMB: Int?
  public var passcode: Bool
  /// What a client tags the device with to find it again (`suite: checkout`): at most
  /// `Validation.maxLabels`, each key and value a name.
  public var labels: [String: String]
  /// How long the device may go without a request before it is removed (host time): devices a
  /// crashed client leaked do not pile up. Nil: it stays until removed.
  public var idleTimeout: Duration?

  public init(
    id: String, clock: ClockMode, model: String = DeviceProfiles.defaultModel,
    initialOSVersion: String = DeviceProfiles.defaultOSVersion, memoryLimitMB: Int? = nil,
    perAppLimitMB: Int? = nil, backgroundAppLimitMB: Int? = nil,
    increasedAppLimitMB: Int? = nil, passcode: Bool, labels: [String: String] = [:],
    idleTimeout: Duration? = nil
  ) {
    self.id = id
    self.clock = clock
    self.model = model
    self.initialOSVersion = initialOSVersion
    self.memoryLimitMB = memoryLimitMB
    self.perAppLimitMB = perAppLimitMB
    self.backgroundAppLimitMB = backgroundAppLimitMB
    self.increasedAppLimitMB = increasedAppLimitMB
    self.passcode = passcode
    self.labels = labels
    self.idleTimeout = idleTimeout
  }
}

extension DeviceConfiguration: ConfigurationForm {
  /// The members after the device's `id`, which names the device rather than configures it. A
  /// snapshot holds the clock, model and release; a declaration may leave them to the
  /// defaults.
  public mutating func visitConfiguration(_ members: inout some ConfigurationMembers & ~Copyable) {
    let megabytes = 1...Validation.maxMemoryMB
    members.choice("clock", &clock, required: true)
    members.describe(
      """
      The model, by its name, model identifier or simulator device type (GET /v1/profiles): \
      its memory and its apps' limits, unless the members below override them.
      """)
    members.profileName("model", &model, required: true)
    members.describe(
      """
      The iOS release the device starts on, one the model runs (GET /v1/profiles); updateOS \
      moves it on.
      """)
    members.profileName("osVersion", &initialOSVersion, required: true)
    members.describe("The apps' memory budget, in place of the model's RAM.")
    members.integer("memoryLimitMB", &memoryLimitMB, in: megabytes)
    members.describe(
      """
      Jetsam's per-process limit for an app in the foreground, in place of the model's: an \
      app whose footprint passes its limit is killed (per-process-limit).
      """)
    members.integer("perAppLimitMB", &perAppLimitMB, in: megabytes)
    members.describe(
      "The per-process limit of an app out of the foreground, in place of the model's.")
    members.integer("backgroundAppLimitMB", &backgroundAppLimitMB, in: megabytes)
    members.describe(
      """
      The foreground limit of an app with the increased-memory-limit entitlement, in place of \
      the model's.
      """)
    members.integer("increasedAppLimitMB", &increasedAppLimitMB, in: megabytes)
    members.bool("passcode", &passcode)
    members.labels("labels", &labels)
    members.seconds("idleTimeoutSeconds", &idleTimeout, in: 1...Validation.maxIdleTimeoutSeconds)
  }
}

/// One label of a device, `key=value`, as a client selects devices by it.
public struct DeviceLabel: Hashable, Sendable {
  public var key: String
  public var value: String

  public init(key: String, value: String) {
    self.key = key
    self.value = value
  }
}
