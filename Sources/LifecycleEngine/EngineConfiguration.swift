/// The scheduler's numbers (the user guide's "Configuration keys"), the same for every device.
public struct SchedulerSettings: Hashable, Sendable {
  /// An idle background app is suspended this long after its didEnterBackground returned.
  public var suspendDelay: Duration = .seconds(2)
  /// didEnterBackground running longer than this gets the app killed with `0x8badf00d`.
  public var watchdog: Duration = .seconds(5)
  /// Background tasks expire this long after the app entered the background.
  public var backgroundTask: Duration = .seconds(30)
  /// An app that does not end an expired task is killed this long after the handler.
  public var expirationGrace: Duration = .seconds(1)
  /// Time the app has to complete the work of a background launch (fetch, silent push,
  /// URL session events), and a `BGAppRefreshTask` runs before it expires.
  public var backgroundWork: Duration = .seconds(30)
  /// Time a `BGProcessingTask` runs before it expires.
  public var processingTask: Duration = .seconds(300)
  /// With a passcode, protected data becomes unavailable this long after the device locks.
  public var protectedDataLockDelay: Duration = .seconds(10)
  /// Under memory pressure, background-running apps are killed this long after the memory
  /// warning if pressure persists: an app that frees memory in time survives.
  public var memoryWarningGrace: Duration = .seconds(5)

  public init() {}
}

/// Settings for devices created without them, and for the `default` device.
public struct DeviceDefaults: Hashable, Sendable {
  public var clock: ClockMode = .realtime
  public var memoryLimitMB = 4096
  public var perAppLimitMB = 2048
  public var passcode = true

  public init() {}
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
  /// Kills each device's jetsam log keeps before dropping the oldest.
  public var jetsamLogCapacity = 1_000

  public init() {}
}

/// Everything the engine is configured with.
public struct EngineConfiguration: Hashable, Sendable {
  public var scheduler = SchedulerSettings()
  public var deviceDefaults = DeviceDefaults()
  public var limits = EngineLimits()

  public init() {}
}

/// Names and numbers the engine accepts: the one place each limit is defined. The API's
/// decoding reads them, and a test holds `openapi.yaml` to them.
public enum Validation {
  /// The longest device or app name, in bytes.
  public static let maxNameBytes = 64
  /// What a device or app name looks like: `isValidName` checks it.
  public static let namePattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,\(maxNameBytes - 1)}$"
  /// The largest memory figure accepted, in MB (1 TiB): keeps sums far from overflow.
  public static let maxMemoryMB = 1_048_576
  /// The longest an app's behaviour may take (`didEnterBackgroundSeconds`): a day.
  public static let maxBehaviorSeconds = 86_400
  /// The longest clock advance: 10 years.
  public static let maxAdvanceSeconds = 315_360_000
  /// The longest URL a `launch` opens, in bytes.
  public static let maxURLBytes = 2048
  /// The longest background task name, in bytes.
  public static let maxTaskNameBytes = 256
  /// The longest identifier an entry carries (a notification's, an action's, an activity
  /// type, a quick action's type), in bytes.
  public static let maxIdentifierBytes = 256
  /// The largest state restoration data an app saves, as compact JSON text, in bytes.
  public static let maxRestorationDataBytes = 4096
  /// What `isRestorationData` asks, as a refusal says it.
  public static let restorationDataRule =
    "must be JSON of 1 to \(maxRestorationDataBytes) bytes, compact"
  /// The most scene sessions an app keeps (windows the user opened and did not close).
  public static let maxScenesPerApp = 16
  /// The most events one scenario applies.
  public static let maxScenarioEvents = 100
  /// The most journal entries or callbacks one read returns, and how many it returns unasked.
  public static let maxPageSize = 10_000
  public static let defaultPageSize = 1_000

  /// Whether `data` fits as restoration data (`setRestorationData`; the API checks that it is
  /// JSON).
  public static func isRestorationData(_ data: String) -> Bool {
    !data.isEmpty && data.utf8.count <= maxRestorationDataBytes
  }

  /// Whether `name` matches `namePattern`, for apps and devices alike.
  public static func isValidName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...maxNameBytes).contains(bytes.count), isAlphanumeric(bytes[0]) else {
      return false
    }
    return bytes.dropFirst().allSatisfy {
      isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
        || $0 == UInt8(ascii: "-")
    }
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
  }
}
