/// Why the engine refused a request. Nothing changes when one is thrown.
public enum EngineError: Error, Hashable, Sendable {
  case unknownDevice(String)
  case unknownApp(device: String, app: String)
  /// The device's jetsam log keeps the events numbered `kept` (none yet, or dropped).
  case unknownJetsamEvent(device: String, number: Int, kept: Range<Int>)
  case deviceExists(String)
  case appExists(device: String, app: String)
  /// The `default` device always exists; it can be reset but not removed.
  case defaultDeviceIsPermanent
  case tooManyDevices(limit: Int)
  case tooManyApps(device: String, limit: Int)
  case tooManyBackgroundTasks(app: String, limit: Int)
  /// So many callbacks wait behind the app's busy main thread that one more event could
  /// queue past `EngineLimits.maxWaitingCallbacksPerApp`.
  case tooManyWaitingCallbacks(app: String, limit: Int)
  /// The device's counts came within `Validation.countHeadroom` of `Validation.maxCount`: the
  /// highest is `highest`.
  case countsExhausted(device: String, highest: Int)
  /// The engine's state has reached `EngineLimits.memoryBudgetBytes`.
  case memoryBudgetExhausted(retainedBytes: Int, budgetBytes: Int)
  /// Input that is well-formed but out of range: each issue names its field.
  case invalid(ValidationIssues)
  /// An event impossible in the current state.
  case refused(Refusal)
}

/// One invalid field of a request.
public struct ValidationIssue: Hashable, Sendable {
  public var field: String
  public var message: String

  public init(field: String, message: String) {
    self.field = field
    self.message = message
  }
}

/// The invalid fields found in a request or an image: the first `maxListed`, each named by its
/// place, and how many in all. The one collector of every check (a body's decoding, specs,
/// events, images), so that one 422 lists them all, and a body of 50,000 unknown keys gets a
/// short answer that costs little more than counting them.
public struct ValidationIssues: RandomAccessCollection, ExpressibleByArrayLiteral, Hashable,
  Sendable
{
  public static let maxListed = 20

  /// The first `maxListed` issues.
  public private(set) var listed: [ValidationIssue] = []
  /// How many issues were found, listed or not.
  public private(set) var total = 0
  /// Where the checks under way are: put before each field they name (`at(_:_:)`).
  private var place = ""

  public init() {}

  public init(arrayLiteral issues: ValidationIssue...) {
    for issue in issues { append(issue.field, issue.message) }
  }

  public var startIndex: Int { listed.startIndex }
  public var endIndex: Int { listed.endIndex }
  public subscript(position: Int) -> ValidationIssue { listed[position] }

  /// Whether another issue would only be counted.
  public var isFull: Bool { listed.count == Self.maxListed }

  /// Counts an issue with `field` (under the current place), and lists it if fewer than
  /// `maxListed` are.
  public mutating func append(_ field: String, _ message: String) {
    total += 1
    if !isFull { listed.append(ValidationIssue(field: place + field, message: message)) }
  }

  public mutating func append(_ issue: ValidationIssue) {
    append(issue.field, issue.message)
  }

  /// Adds `other`'s issues, their fields under the current place.
  public mutating func append(contentsOf other: ValidationIssues) {
    for issue in other.listed { append(issue) }
    total += other.total - other.listed.count  // counted there, never listed
  }

  /// Adds the issue unless `holds`.
  public mutating func check(
    _ holds: Bool, _ field: String, _ message: @autoclosure () -> String
  ) {
    if !holds { append(field, message()) }
  }

  /// Runs `body` with the fields it names under `place` (below the current place).
  public mutating func at(_ place: String, _ body: (inout ValidationIssues) -> Void) {
    let outer = self.place
    self.place += place
    body(&self)
    self.place = outer
  }

  /// Names the issues listed under `prefix` (below the current place) as under `replacement`.
  public mutating func rename(_ prefix: String, to replacement: String) {
    let old = place + prefix
    listed = listed.map {
      guard $0.field.hasPrefix(old) else { return $0 }
      return ValidationIssue(
        field: place + replacement + $0.field.dropFirst(old.count), message: $0.message)
    }
  }

  /// Issues are equal when the same are listed and as many were found.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.listed == rhs.listed && lhs.total == rhs.total
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(listed)
    hasher.combine(total)
  }
}

/// A refused event: what was asked, the state it met, and what is possible now.
public struct Refusal: Hashable, Sendable {
  public var event: EventType
  /// The app addressed; nil for device events.
  public var app: String?
  /// The app's state, or for device events the device's (`locked`/`unlocked`).
  public var currentState: String
  public var allowedEvents: [EventType]
  public var reason: RefusalReason
}

/// Why an event was refused; `detail` says it in words.
public enum RefusalReason: Hashable, Sendable {
  case notAllowedInState
  case deviceLocked
  case deviceNotLocked
  case deviceOff
  case deviceOn
  case noForegroundApp
  case backgroundModeMissing(BackgroundMode)
  /// The user force-quit the app; the system does not launch it in the background.
  case backgroundLaunchBlocked
  /// The app still works on what a launch for this reason handed it.
  case backgroundWorkInProgress(BackgroundLaunchReason)
  /// The app holds `Validation.maxBackgroundWorkPerApp` pieces of background work.
  case tooMuchBackgroundWork(limit: Int)
  /// A `BGProcessingTask` runs only while the device is idle (locked).
  case deviceInUse
  case noBackgroundWork
  case unknownBackgroundWork(Int)
  case backgroundTimeExhausted
  case noBackgroundTasks
  case unknownBackgroundTask(Int)
  case activityInProgress(BackgroundActivity)
  case activityNotInProgress(BackgroundActivity)
  /// The app has no scene session with this id.
  case unknownScene(String)
  case sceneExists(String)
  case multipleScenesNotSupported
  case tooManyScenes(limit: Int)
  /// The scene of the session is not connected (nil: the app has no connected scene).
  case sceneNotConnected(String?)
  case sceneNotInBackground(String)
  case sceneInForeground(String)
  /// `BGTaskScheduler.Error.Code.notPermitted`: the identifier is not permitted, or (with a
  /// mode) the app lacks the background mode the request's kind needs.
  case taskRequestNotPermitted(identifier: String, missingMode: BackgroundMode?)
  /// `BGTaskScheduler.Error.Code.unavailable`: Background App Refresh is off for the app, or
  /// for the device.
  case taskSchedulingUnavailable(forApp: Bool)
  /// `BGTaskScheduler.Error.Code.tooManyPendingTaskRequests`.
  case tooManyPendingTaskRequests(TaskKind, limit: Int)
  /// `BGTaskScheduler.Error.Code.immediateRunIneligible`: a continued-processing request with
  /// the `fail` strategy, and no room to run it now.
  case immediateRunIneligible
  /// A continued-processing request comes from the active app, in response to a person's
  /// action ("Performing long-running tasks on iOS and iPadOS").
  case continuedTaskNotFromForeground
  /// The app runs no continued-processing task with this identifier (nil: none at all).
  case noContinuedTask(String?)
  /// The app has no pending request with this identifier (nil: none at all).
  case noTaskRequest(String?)
  /// The app runs no task with this identifier whose expiration handler has not run (nil:
  /// none at all).
  case noRunningTask(String?)
  /// Jetsam does not kill the app in front for this reason.
  case sparesForegroundApp(JetsamReason)
  /// The iOS release the device runs has no such behaviour: it arrived with iOS `since`.
  case notInOSVersion(String, what: String, since: Int)

  /// The `BGTaskScheduler.Error.Code` that `submit(_:)` throws for this refusal, if it is one.
  public var taskSchedulerError: TaskSchedulerError? {
    switch self {
    case .taskRequestNotPermitted: .notPermitted
    case .tooManyPendingTaskRequests: .tooManyPendingTaskRequests
    case .taskSchedulingUnavailable: .unavailable
    case .immediateRunIneligible: .immediateRunIneligible
    default: nil
    }
  }

  public var detail: String {
    switch self {
    case .notAllowedInState: "the event is not possible in the current state"
    case .deviceLocked: "the device is locked"
    case .deviceNotLocked: "the device is not locked"
    case .deviceOff: "the device is off: boot it first"
    case .deviceOn: "the device is already on"
    case .noForegroundApp: "no app is in the foreground"
    case .backgroundModeMissing(let mode):
      "the app does not declare the '\(mode.rawValue)' background mode"
    case .backgroundLaunchBlocked:
      "the user force-quit the app; it is not launched in the background until the user opens it"
    case .backgroundWorkInProgress(.urlSession):
      "the app has not yet called the completion handler for this URL session's events"
    case .backgroundWorkInProgress(.appRefresh), .backgroundWorkInProgress(.processing),
      .backgroundWorkInProgress(.continuedProcessing):
      "the same task is still running: it starts again only once the app completes it"
    case .backgroundWorkInProgress(let reason):
      "the app's \(reason.rawValue) work is still in progress: the system hands it over again only once it is completed"
    case .tooMuchBackgroundWork(let limit):
      "the app already has \(limit) pieces of background work in progress, the most it holds"
    case .deviceInUse:
      "processing tasks run only while the device is idle: it is unlocked (lock it first)"
    case .noBackgroundWork: "the app has no background work in progress"
    case .unknownBackgroundWork(let id): "the app has no background work \(id)"
    case .backgroundTimeExhausted: "the app's background time has run out"
    case .noBackgroundTasks: "the app has no background task"
    case .unknownBackgroundTask(let id): "the app has no background task \(id)"
    case .activityInProgress(let activity):
      "the app's '\(activity.rawValue)' activity is already on"
    case .activityNotInProgress(let activity): "the app's '\(activity.rawValue)' activity is not on"
    case .unknownScene(let id): "the app has no scene session '\(id)'"
    case .sceneExists(let id): "the app already has a scene session '\(id)'"
    case .multipleScenesNotSupported:
      "the app does not support multiple scenes (supportsMultipleScenes)"
    case .tooManyScenes(let limit): "the app already has \(limit) scene sessions, the most it keeps"
    case .sceneNotConnected(let id?): "the scene of session '\(id)' is not connected"
    case .sceneNotConnected(nil): "the app has no connected scene"
    case .sceneNotInBackground(let id): "the scene of session '\(id)' is not in the background"
    case .sceneInForeground(let id): "the scene of session '\(id)' is already in the foreground"
    case .taskRequestNotPermitted(let identifier, nil):
      "'\(identifier)' is not among the app's permittedTaskIdentifiers "
        + "(BGTaskSchedulerPermittedIdentifiers)"
    case .taskRequestNotPermitted(_, let mode?):
      "the app does not declare the '\(mode.rawValue)' background mode this kind of task needs"
    case .taskSchedulingUnavailable(let forApp):
      "Background App Refresh is off for \(forApp ? "this app" : "the device")"
    case .tooManyPendingTaskRequests(.continuedProcessing, let limit):
      "the app already has \(limit) continuedProcessing requests queued, the most lifecycled "
        + "keeps (Apple documents no number)"
    case .tooManyPendingTaskRequests(let kind, let limit):
      "the app already has \(limit) \(kind.rawValue) request\(limit == 1 ? "" : "s") pending, "
        + "the most BGTaskScheduler keeps"
    case .immediateRunIneligible:
      "the system has no room to run the continued-processing task now "
        + "(continuedProcessingCapacity), and its strategy is fail"
    case .continuedTaskNotFromForeground:
      "a continued-processing task starts from a person's action in the active app"
    case .noContinuedTask(let identifier?):
      "the app runs no continued-processing task '\(identifier)'"
    case .noContinuedTask(nil): "the app runs no continued-processing task"
    case .noTaskRequest(let identifier?): "the app has no pending task request '\(identifier)'"
    case .noTaskRequest(nil): "the app has no pending task request"
    case .noRunningTask(let identifier?):
      "the app runs no task '\(identifier)' whose expiration handler has not run"
    case .noRunningTask(nil): "the app runs no task whose expiration handler has not run"
    case .sparesForegroundApp(let reason):
      "jetsam does not kill the app in front for \(reason.rawValue): it kills background apps, "
        + "or (highwater) a system daemon"
    case .notInOSVersion(let version, let what, let since):
      "iOS \(version) has no \(what): it arrived with iOS \(since)"
    }
  }
}
