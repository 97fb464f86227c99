import CPacing

/// Everything a device is, as plain values: what `Engine.image(of:now:)` reads and
/// `Engine.restore(_:now:)` recreates, so that the restored device answers every later event
/// exactly as the original would.
///
/// Not in it: the journal and the jetsam log, which a restored device starts afresh (its
/// journal numbered after `seq`), and what follows from the rest (memory use, jetsam order,
/// deadlines other than a pending suspension).
@dynamicMemberLookup
public struct DeviceImage: Hashable, Sendable {
  /// Its fields read and written as the image's own (`image.id`).
  public var configuration: DeviceConfiguration
  /// The journal's last `seq`.
  public var seq: Int
  public var status: DeviceStatus
  /// In name order.
  public var apps: [AppImage]

  public init(
    _ configuration: DeviceConfiguration, seq: Int = 0, status: DeviceStatus = DeviceStatus(),
    apps: [AppImage] = []
  ) {
    self.configuration = configuration
    self.seq = seq
    self.status = status
    self.apps = apps
  }

  public subscript<Value>(dynamicMember field: WritableKeyPath<DeviceConfiguration, Value>)
    -> Value
  {
    get { configuration[keyPath: field] }
    set { configuration[keyPath: field] = newValue }
  }
}

extension DeviceImage {
  /// The device `Engine.createDevice` makes for `configuration`, with `apps` as
  /// `Engine.createApp` adds them: not running, the clock at zero.
  public init(declaring configuration: DeviceConfiguration, apps: [AppSpec]) {
    var status = DeviceStatus()
    status.osVersion = configuration.initialOSVersion
    self.init(configuration, status: status, apps: apps.map { AppImage(spec: $0) })
  }
}

/// A device's own state beside its apps: its clock, power, lock, protected data, foreground
/// app, memory pressure and counters. A new device's is the initial value of each field.
public struct DeviceStatus: Hashable, Sendable {
  /// Device time, counted from creation.
  public var now = Instant.zero
  /// Off after a shutdown until the next boot.
  public var poweredOn = true
  public var locked = false
  /// Protected files are readable: false from a lock with a passcode until the unlock.
  public var protectedDataAvailable = true
  /// With a passcode, when protected data becomes unavailable after a lock.
  public var protectedDataLocksAt: Instant?
  public var foregroundApp: AppName?
  /// The app that was in the foreground when the device locked; unlock brings it back.
  public var appBeforeLock: AppName?
  /// A memory pressure episode is under way: its memory warning has been sent.
  public var underPressure = false
  /// When the episode's grace ends: background-running apps are killed then if pressure
  /// persists. Nil once it has ended (they are killed at once) or with no episode.
  public var warningGraceEndsAt: Instant?
  /// What the system weighs before it runs background work, and its policy.
  public var conditions = BackgroundConditions()
  public var counters = DeviceCounters()
  /// The iOS version the device runs: its configuration's at first, then `updateOS`'s.
  public var osVersion = DeviceProfiles.defaultOSVersion
  /// Which boot of the device this is: 1 from its creation, one more at each `boot`, as iOS's
  /// boot session changes.
  public var bootSession = 1

  public init() {}
}

/// One app of a `DeviceImage`: its configuration, what the system keeps of it across
/// processes, and its process if it has one. A live app holds the same values.
public struct AppImage: Hashable, Sendable {
  public var spec: AppSpec
  public var record: AppRecord
  /// Nil when the app is not running.
  public var process: ProcessImage?

  public init(spec: AppSpec, record: AppRecord = AppRecord(), process: ProcessImage? = nil) {
    self.spec = spec
    self.record = record
    self.process = process
  }
}

/// What the system keeps of an app across its processes. A new app's is the initial value of
/// each field.
public struct AppRecord: Hashable, Sendable {
  /// The installed version (`CFBundleShortVersionString`) and build (`CFBundleVersion`):
  /// `updateApp` changes them.
  public var version = "1.0"
  public var build = "1"
  /// Which installation of the app this is: 1 from its creation, one more at each
  /// `reinstall`. Its `identifierForVendor` follows from it.
  public var installation = 1
  public var launches = 0
  public var kills = 0
  /// When the app last left the foreground (jetsam's least-recently-used order).
  public var lastUsed = Instant.zero
  /// The next id for a background task (`beginBackgroundTask`) or background work.
  public var nextTaskID = 1
  /// What the app submitted to `BGTaskScheduler` and the system has not run, in the order
  /// submitted (a resubmission takes the place of the request it replaces).
  public var taskRequests: [TaskRequest] = []
  /// Set by a user force-quit; cleared when the user launches the app.
  public var backgroundLaunchBlocked = false
  /// The app's Background App Refresh switch in Settings.
  public var backgroundAppRefresh = true
  /// When the background pushes of the last hour were delivered, oldest first: at most
  /// `backgroundPushesPerHour`.
  public var recentPushes: [Instant] = []
  /// State restoration data was saved when the app last went to the background.
  public var restorationStateSaved = false
  /// The restoration data UIKit keeps for an app-delegate app's next launch (JSON text):
  /// handed back at the next launch after a system kill, dropped by a force-quit or a crash
  /// at launch.
  public var savedRestorationData: String?
  /// A scene app's sessions, in the order they were opened, each with its scene's state.
  public var sessions: [SceneSession] = []
  /// The session shown while the app is in the foreground, and the one a `launch` that names
  /// none gets back; nil only with no session.
  public var focusedScene: String?
  /// Sessions the user discarded while the app's code could not hear it, reported after its
  /// next didFinishLaunching.
  public var discardedScenes: [String] = []
  /// How the app's last process ended; nil until one has.
  public var lastTermination: Termination?
  /// The exits MetricKit has counted in the period under way, not yet in a payload
  /// (`MXAppExitMetric`).
  public var pendingExits = ExitCounts()
  /// When that period began, or the last one ended, in device time.
  public var metricPeriodBegin = Instant.zero
  /// When `updateApp` last changed the version; nil if it never has.
  public var updatedAt: Instant?
  /// The reports MetricKit has made and not delivered yet, oldest first: at most
  /// `Validation.maxWaitingReports` of each kind.
  public var metricPayloads: [MetricPayload] = []
  public var diagnosticPayloads: [DiagnosticPayload] = []

  public init() {}
}

/// How a process ended: why (with jetsam's reason, for a jetsam kill or a `purge`; the
/// transition the watchdog timed, for its kill), with the code a crash report would show,
/// when, the state it ended in, and what it ran with.
public struct Termination: Hashable, Sendable {
  public var cause: TransitionCause
  public var jetsamReason: JetsamReason?
  public var watchdog: WatchdogTransition?
  public var terminationCode: TerminationCode?
  public var time: Instant
  /// The state the process was in: the one a force-quit, a crash or a kill found it in.
  public var state: AppState
  /// Nil only when read from a snapshot that left it out (one before version 5).
  public var ranWith: RunContext?

  public init(
    cause: TransitionCause, jetsamReason: JetsamReason? = nil,
    watchdog: WatchdogTransition? = nil, terminationCode: TerminationCode?, time: Instant,
    state: AppState, ranWith: RunContext?
  ) {
    self.cause = cause
    self.jetsamReason = jetsamReason
    self.watchdog = watchdog
    self.terminationCode = terminationCode
    self.time = time
    self.state = state
    self.ranWith = ranWith
  }

  /// Who ended the process: the user (a force-quit, the device powered off), the app's own
  /// code (a crash), or the system (every kill).
  public var endedBy: TerminationInitiator {
    switch cause {
    case .event(.terminate), .event(.shutdown): .user
    case .event(.crash): .app
    default: .system
    }
  }
}

/// Who ended a process (`Termination.endedBy`).
public enum TerminationInitiator: String, CaseIterable, Sendable {
  case user, app, system
}

/// What a process ran with, as a crash reporter records it at launch and compares at the
/// next one: the app's version and build, the OS's version, the boot session, the
/// installation (its `identifierForVendor`) and whether a debugger was attached.
public struct RunContext: Hashable, Sendable {
  public var appVersion: String
  public var build: String
  public var osVersion: String
  public var bootSession: Int
  public var installation: Int
  public var debuggerAttached: Bool

  public init(
    appVersion: String, build: String, osVersion: String, bootSession: Int, installation: Int,
    debuggerAttached: Bool
  ) {
    self.appVersion = appVersion
    self.build = build
    self.osVersion = osVersion
    self.bootSession = bootSession
    self.installation = installation
    self.debuggerAttached = debuggerAttached
  }
}

/// An app's process: what it holds while it runs or is suspended. Each field's initial value
/// is the one a new process starts with.
public struct ProcessImage: Hashable, Sendable {
  public var state: AppState
  /// Why a foreground app is inactive rather than active.
  public var inactiveCause: InactiveCause?
  /// The process's footprints (`setMemory` changes them).
  public var memoryMB: Int
  public var backgroundMemoryMB: Int
  /// Start of the current stretch in the background; background tasks expire relative to it.
  public var backgroundSince: Instant?
  /// A callback the app's code takes time in (didFinishLaunching, willEnterForeground,
  /// didEnterBackground) is executing until then: the main thread runs no other callback.
  public var busyUntil: Instant?
  /// That callback overruns the watchdog's allowance: the app is killed then.
  public var watchdogKillAt: Instant?
  /// The transition the watchdog times, with `watchdogKillAt`.
  public var watchdogTransition: WatchdogTransition?
  /// Callbacks waiting for the main thread, oldest first.
  public var waitingCallbacks: [WaitingCallback] = []
  public var tasks: [BackgroundTask] = []
  /// The work of background launches not completed, oldest first.
  public var backgroundWork: [BackgroundWork] = []
  /// What the app is doing that keeps it running in the background.
  public var activities: Set<BackgroundActivity> = []
  /// A significant time change arrived while suspended; it is delivered when the app next runs.
  public var significantTimeChangePending = false
  /// Whether protected data is available as far as the process has been told. It differs from
  /// the device's only while the process could not be told (suspended); it is told when it
  /// next runs.
  public var protectedDataAvailable = true
  /// When the scheduler suspends the idle background app: kept once set, until the app is no
  /// longer idle.
  public var suspendAt: Instant?
  /// What the process's code saves when asked (JSON text), if anything.
  public var restorationData: String?
  /// Paused before `UIApplicationMain` by a prewarm: no app code has run.
  public var prewarmed = false
  /// A debugger is attached to the process: it is never suspended, the watchdog does not
  /// time it, and its background time does not run out.
  public var debuggerAttached = false

  public init(state: AppState, memoryMB: Int, backgroundMemoryMB: Int) {
    self.state = state
    self.memoryMB = memoryMB
    self.backgroundMemoryMB = backgroundMemoryMB
  }

  /// No process yet: a new one starts from `spec`'s footprints.
  init(notRunning spec: AppSpec) {
    self.init(
      state: .notRunning, memoryMB: spec.memoryMB,
      backgroundMemoryMB: spec.backgroundMemoryMB ?? spec.memoryMB)
  }
}

// MARK: Reading

extension Device {
  var image: DeviceImage {
    DeviceImage(
      configuration, seq: version.seq, status: status,
      apps: apps.sorted { $0.key < $1.key }.map {
        pacing_pause()
        return $0.value.image
      })
  }
}

extension App {
  /// The app as an image shows it.
  var image: AppImage {
    AppImage(spec: spec, record: record, process: process.state == .notRunning ? nil : process)
  }
}
