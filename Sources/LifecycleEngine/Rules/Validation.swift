/// Names and numbers the engine accepts: the one place each limit is defined. The API's
/// decoding reads them, and a test holds `openapi.yaml` to them.
public enum Validation {
  /// The longest device or app name, in bytes.
  public static let maxNameBytes = 64
  /// What a device or app name looks like: `isValidName` checks it.
  public static let namePattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,\(maxNameBytes - 1)}$"
  /// What `isValidName` asks, as a refusal says it.
  public static let nameRule = "must match \(namePattern)"
  /// The largest memory figure accepted, in MB (1 TiB): keeps sums far from overflow.
  public static let maxMemoryMB = 1_048_576
  /// A footprint in MB: an app's, a process's or a scene's.
  public static let footprints = 0...maxMemoryMB
  /// What a whole number outside `range` is told.
  public static func integerRule(_ range: ClosedRange<Int>) -> String {
    "must be an integer from \(range.lowerBound) to \(range.upperBound)"
  }
  /// What a number of seconds outside `range` is told.
  public static func secondsRule(_ range: ClosedRange<Int>) -> String {
    "must be a number from \(Double(range.lowerBound)) to \(Double(range.upperBound))"
  }
  /// A battery level, in percent, and what one outside them is told.
  public static let batteryLevels = 0...100
  static let batteryLevelsIssue =
    "must be \(batteryLevels.lowerBound) to \(batteryLevels.upperBound)"
  /// The longest an app's behaviour may take (`AppBehavior`'s durations): a day.
  public static let maxBehaviorSeconds = 86_400
  /// The longest clock advance: 10 years.
  public static let maxAdvanceSeconds = 315_360_000
  /// The latest device time: what an event names (`earliestBeginDate`), and as far as a
  /// device's clock is advanced.
  public static let latestInstant = Instant.seconds(Double(maxAdvanceSeconds))
  /// The longest URL a `launch` opens, in bytes.
  public static let maxURLBytes = 2048
  /// The longest background task name, in bytes.
  public static let maxTaskNameBytes = 256
  /// The longest identifier an entry carries (a notification's, an action's, an activity
  /// type, a quick action's type), in bytes.
  public static let maxIdentifierBytes = 256
  /// The largest state restoration data an app saves, as compact JSON text, in bytes.
  public static let maxRestorationDataBytes = 4096
  /// A push notification's payload: APNs takes at most 4 KB ("Sending notification requests to
  /// APNs").
  public static let maxPushPayloadBytes = 4096
  /// The deepest an app's own JSON nests (restoration data, a push's payload), its arrays and
  /// objects counted: a snapshot holds such data a dozen levels below its top, and a document
  /// is read to 64 levels (`JSON.maxDepth`), so whatever an event stores, its snapshot reads.
  public static let maxDataNesting = 32
  /// What `isRestorationData` asks, as a refusal says it.
  public static let restorationDataRule =
    "must be JSON of 1 to \(maxRestorationDataBytes) bytes, compact, nested at most "
    + "\(maxDataNesting) deep"
  /// The most scene sessions an app keeps (windows the user opened and did not close).
  public static let maxScenesPerApp = 16
  /// The most background work one app holds at once (pushes and tasks not yet completed):
  /// iOS sets no documented limit, and throttles pushes long before it.
  public static let maxBackgroundWorkPerApp = 16
  /// The most reports of each kind MetricKit keeps for an app not yet delivered, the oldest
  /// dropped first: a month of daily payloads. Apple documents no such number; only an app
  /// killed at each launch before it can take them ever comes near it.
  public static let maxWaitingReports = 30
  /// How many continued-processing tasks a device may be told it has room for.
  public static let continuedProcessingCapacities = 0...64
  /// A continued-processing task's units of progress (`Progress.totalUnitCount`): as many as
  /// a snapshot writes exactly.
  public static let unitCounts = 0...maxCount
  /// The iOS SDKs an app can be built with: those from scenes on (iOS 13) to the latest whose
  /// behaviour is known. A later one is refused rather than guessed at.
  public static let sdkVersions = 13...27
  /// The most task identifiers an app permits (`BGTaskSchedulerPermittedIdentifiers`).
  public static let maxPermittedTaskIdentifiers = 16
  /// Whether `identifier` can name a task or a URL session: 1 to `maxIdentifierBytes` bytes.
  public static func isIdentifier(_ identifier: String) -> Bool {
    !identifier.isEmpty && identifier.utf8.count <= maxIdentifierBytes
  }
  /// What `isIdentifier` asks, as a refusal says it.
  public static let identifierRule = "must be 1 to \(maxIdentifierBytes) bytes long"
  /// What a version looks like, an app's or the OS's: one to three period-separated
  /// integers ("Information Property List": `CFBundleShortVersionString`, `CFBundleVersion`),
  /// each of one to four digits here, so that its text stays inline. `isVersion` checks it.
  public static let versionPattern = "^[0-9]{1,4}(\\.[0-9]{1,4}){0,2}$"
  /// The longest version that pattern allows, in bytes.
  public static let maxVersionBytes = 14
  /// What `isVersion` asks, as a refusal says it.
  public static let versionRule = "must match \(versionPattern)"
  public static func isVersion(_ text: String) -> Bool {
    let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    return (1...3).contains(parts.count)
      && parts.allSatisfy { part in
        (1...4).contains(part.count) && part.allSatisfy { (48...57).contains($0) }
      }
  }
  /// The longest a device may be left idle before it is removed, in seconds: 30 days.
  public static let maxIdleTimeoutSeconds = 2_592_000
  /// The most labels a device carries.
  public static let maxLabels = 16
  /// The largest `seq` or count a device holds (its journal's numbers, its counters, an app's
  /// launches, kills, task ids and exits): a snapshot writes them as JSON numbers, which hold
  /// integers exactly to 2^53, and reads them to this.
  public static let maxCount = 1 << 52
  /// How close to `maxCount` a device's counts may come before events and clock advances are
  /// refused: far more journal entries than one request makes, so that no count passes
  /// `maxCount` and every snapshot restores. (A realtime device's deadlines still fire there:
  /// 2^32 entries of them take years.)
  public static let countHeadroom = 1 << 32
  /// The most events one scenario applies.
  public static let maxScenarioEvents = 100
  /// The most journal entries or callbacks one read returns, and how many it returns unasked.
  public static let maxPageSize = 10_000
  public static let defaultPageSize = 1_000

  /// Whether `data` fits as restoration data (`setRestorationData`; the API checks that it is
  /// JSON).
  public static func isRestorationData(_ data: String) -> Bool {
    !data.isEmpty && data.utf8.count <= maxRestorationDataBytes
      && nesting(ofJSON: data) <= maxDataNesting
  }

  /// Whether `payload` fits as a push's payload: at most `maxPushPayloadBytes`, nested at most
  /// `maxDataNesting` deep.
  public static func isPushPayload(_ payload: String) -> Bool {
    payload.utf8.count <= maxPushPayloadBytes && nesting(ofJSON: payload) <= maxDataNesting
  }

  /// How deep `json`, JSON text, nests its arrays and objects (0 for a scalar); brackets in
  /// strings do not count.
  static func nesting(ofJSON json: String) -> Int {
    var depth = 0
    var deepest = 0
    var inString = false
    var escaped = false
    for byte in json.utf8 {
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""): inString = true
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
        deepest = max(deepest, depth)
      case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
      default: break
      }
    }
    return deepest
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
