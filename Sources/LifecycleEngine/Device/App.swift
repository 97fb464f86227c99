/// Why a foreground app is inactive rather than active.
public enum InactiveCause: Hashable, Sendable {
  case switcher
  case interruption(InterruptionSource)
}

/// A task begun with `beginBackgroundTask`.
public struct BackgroundTask: Hashable, Sendable {
  public let id: Int
  public let name: String?
  /// When its expiration handler ran without ending it; the app dies `expirationGrace` later.
  public var expiredAt: Instant?

  public init(id: Int, name: String?, expiredAt: Instant? = nil) {
    self.id = id
    self.name = name
    self.expiredAt = expiredAt
  }
}

/// A callback queued behind the app's busy main thread, with the cause of the state it reached.
public struct WaitingCallback: Hashable, Sendable {
  public var callback: Callback
  public let cause: TransitionCause

  public init(callback: Callback, cause: TransitionCause) {
    self.callback = callback
    self.cause = cause
  }
}

/// The callbacks waiting for an app's main thread, oldest first, as a view of the app's
/// queue: reading it shares the queue's storage rather than copying it.
public struct WaitingCallbacks: RandomAccessCollection, Hashable, Sendable {
  let queue: [WaitingCallback]

  public var startIndex: Int { queue.startIndex }
  public var endIndex: Int { queue.endIndex }
  public subscript(position: Int) -> Callback { queue[position].callback }
}

/// Work handed to the app by a background launch, due by `deadline`: the app is killed then,
/// or for a `BGTask`, its expiration handler runs then. Each push and task is its own work with
/// its own completion (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`).
/// A continued-processing task has no deadline: it runs until the app completes it, a person
/// cancels it or the system needs its room.
public struct BackgroundWork: Hashable, Sendable {
  /// Numbered from the app's sequence of background task ids (`AppRecord.nextTaskID`).
  public let id: Int
  public let reason: BackgroundLaunchReason
  /// The background `URLSession`'s identifier for `urlSession` work; the task request's for a
  /// `BGTask` the system ran from one.
  public let identifier: String?
  /// Nil for a continued-processing task.
  public let deadline: Instant?
  /// When a `BGTask`'s expiration handler ran without completing it; the app dies
  /// `expirationGrace` later.
  public var expiredAt: Instant?
  /// What a continued-processing task last reported of its progress; nil until it does.
  public var progress: TaskProgress?

  public init(
    id: Int, reason: BackgroundLaunchReason, identifier: String? = nil, deadline: Instant?,
    expiredAt: Instant? = nil, progress: TaskProgress? = nil
  ) {
    self.id = id
    self.reason = reason
    self.identifier = identifier
    self.deadline = deadline
    self.expiredAt = expiredAt
    self.progress = progress
  }

  /// When its time is up without a completion, the app is killed: at the deadline for a
  /// completion handler, `grace` after the expiration handler for a `BGTask`; nil for a task
  /// whose expiration handler has not run yet (its deadline is an expiry, not a kill).
  func killTime(grace: Duration) -> Instant? {
    switch (reason.completion, expiredAt) {
    case (.taskExpiration, let expired?): expired + grace
    case (.taskExpiration, nil): nil
    case (.completionHandler, _), (.none, _): deadline
    }
  }

  /// Whether it is a `BGTask` whose expiration handler has not run.
  var isRunningTask: Bool { reason.completion == .taskExpiration && expiredAt == nil }

  /// Whether it is a `BGProcessingTask` whose expiration handler has not run: what a user
  /// starting to use the device ends.
  var isRunningProcessingTask: Bool { reason == .processing && expiredAt == nil }

  /// Whether it is a `BGContinuedProcessingTask` whose expiration handler has not run: one of
  /// the tasks the system makes room for.
  var isRunningContinuedTask: Bool { reason == .continuedProcessing && expiredAt == nil }

  /// When its expiration handler runs: a `BGTask`'s deadline, until it has run.
  var expiryTime: Instant? {
    isRunningTask ? deadline : nil
  }
}

/// What a continued-processing task reports of its progress, as its `Progress`
/// (`ProgressReporting`) counts it: the system stops the tasks that show the least first when
/// it needs room.
public struct TaskProgress: Hashable, Sendable {
  public var completedUnitCount: Int
  public var totalUnitCount: Int

  public init(completedUnitCount: Int, totalUnitCount: Int) {
    self.completedUnitCount = completedUnitCount
    self.totalUnitCount = totalUnitCount
  }

  /// `Progress.fractionCompleted`: 0 for a task that reported none.
  static func fraction(of progress: TaskProgress?) -> Double {
    guard let progress, progress.totalUnitCount > 0 else { return 0 }
    return Double(progress.completedUnitCount) / Double(progress.totalUnitCount)
  }
}

/// One simulated app on a device: its configuration, what the system keeps of it across
/// processes (`AppRecord`), and its process (`ProcessImage`), the same values an image of it
/// holds.
///
/// Their fields read and write as the app's own (`app.state`, `app.launches`) through dynamic
/// member lookup. A field that holds memory beside the app's object is counted in the
/// device's ledger at each change: by its type for the tasks, the task requests, MetricKit's
/// reports and the restoration data (`CountedMember`), by the methods that alone change them
/// for the sessions and the waiting callbacks. Owned by its `Device`, which alone changes it;
/// see `Device.changeState` for the one place where the state moves.
@dynamicMemberLookup
final class App {
  let name: AppName
  /// The app's key in its device's heaps.
  let slot: Int
  /// Where the app is in its device's `liveApps`, while its process holds memory.
  var livePosition: Int?
  /// How the app is configured, its `backgroundMemoryMB` given: the footprints each new
  /// process starts with.
  let spec: AppSpec
  @exclusivity(unchecked)  // one thread; see Engine
  private(set) var record = AppRecord()
  /// The app's process; in state `.notRunning` when there is none.
  @exclusivity(unchecked)  // one thread; see Engine
  private(set) var process: ProcessImage
  /// When each kind of deadline falls due; kept by `Device.reschedule`.
  @exclusivity(unchecked)  // one thread; see Engine
  var deadlines = AppDeadlines()
  /// Whether its device's heaps have yet to file its deadlines and place among jetsam's
  /// victims (`AppQueues`).
  var isUnfiled = false
  /// Whether the scheduler has yet to weigh its pending task requests again
  /// (`Device.weighAgain`): something that holds them back may have changed.
  var awaitsWeighing = false
  /// What the waiting callbacks retain.
  private var waitingBytes = 0
  /// What the app retains beside its object, as counted in the device's ledger.
  private(set) var heldBytes = 0
  /// The device's ledger: what the app holds beside its object counts in it.
  private let ledger: MemoryLedger

  init(spec: AppSpec, slot: Int, ledger: MemoryLedger) {
    name = AppName(spec.name)!  // validated by Engine.createApp
    self.slot = slot
    self.ledger = ledger
    var spec = spec
    spec.backgroundMemoryMB = spec.backgroundMemoryMB ?? spec.memoryMB
    self.spec = spec
    process = ProcessImage(notRunning: spec)
  }

  subscript<Value>(dynamicMember field: WritableKeyPath<AppRecord, Value>) -> Value {
    get { record[keyPath: field] }
    set { record[keyPath: field] = newValue }
  }

  subscript<Value>(dynamicMember field: WritableKeyPath<ProcessImage, Value>) -> Value {
    get { process[keyPath: field] }
    set { process[keyPath: field] = newValue }
  }

  /// A member of the record that holds memory beside the app's object (`CountedMember`): the
  /// compiler picks this subscript over the plain ones above for every member of such a type, so
  /// that each change to it is counted in the device's ledger. Its setter is inlined so that
  /// the key path is resolved where it is written, not walked at run time (Benchmarks/README.md,
  /// "What the performance attributes buy").
  subscript<Value: CountedMember>(dynamicMember field: WritableKeyPath<AppRecord, Value>) -> Value
  {
    get { record[keyPath: field] }
    @inline(__always) set {
      let before = record[keyPath: field].countedBytes
      record[keyPath: field] = newValue
      countHeld(newValue.countedBytes - before)
    }
  }

  /// A member of the process that holds memory beside the app's object, counted likewise.
  subscript<Value: CountedMember>(dynamicMember field: WritableKeyPath<ProcessImage, Value>)
    -> Value
  {
    get { process[keyPath: field] }
    @inline(__always) set {
      let before = process[keyPath: field].countedBytes
      process[keyPath: field] = newValue
      countHeld(newValue.countedBytes - before)
    }
  }

  /// The focused session's id: a `String?` as restoration data is, but not counted again, its
  /// text being its session's.
  var focusedScene: String? {
    get { record.focusedScene }
    set { record.focusedScene = newValue }
  }

  var isScene: Bool { spec.lifecycle == .scene }

  /// Counts again all the app retains beside its object, after its record or its process
  /// was replaced.
  private func recountHeldBytes() {
    countHeld(record.countedBytes + process.countedBytes + waitingBytes - heldBytes)
  }

  /// Counts a change of what the app retains in the device's ledger.
  private func countHeld(_ delta: Int) {
    heldBytes += delta
    ledger.add(delta)
  }

  /// Memory the app holds in `state`, in MB: its process's, and its connected scenes'.
  func footprint(in state: AppState) -> Int {
    let scenes = spec.sceneMemoryMB == 0 ? 0 : spec.sceneMemoryMB * connectedScenes
    switch state {
    case .notRunning: return 0
    case .active, .inactive: return process.memoryMB + scenes
    case .background, .suspended: return process.backgroundMemoryMB + scenes
    }
  }

  var footprint: Int { footprint(in: process.state) }

  func isBusy(at now: Instant) -> Bool {
    process.busyUntil.map { now < $0 } ?? false
  }

  /// Whether a `BGProcessingTask` runs, its expiration handler not yet called.
  var runsProcessingTask: Bool {
    !process.backgroundWork.isEmpty  // the usual case: no work at all
      && process.backgroundWork.contains(where: \.isRunningProcessingTask)
  }

  /// Where the continued-processing task `identifier` is among the app's background work, if
  /// it runs: the task `reportProgress` reports for.
  func continuedTaskIndex(_ identifier: String) -> Int? {
    process.backgroundWork.firstIndex {
      $0.reason == .continuedProcessing && $0.identifier == identifier
    }
  }

  /// Whether the app still works on what a launch for `reason` handed it (the URL session's or
  /// the task's `identifier`): the system does not hand it over again until it is completed.
  ///
  /// A `BGTask` is its identifier, whatever its kind: the launch handler is registered for
  /// an identifier (`BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)`),
  /// and tasks of other identifiers run beside it. One launched without an identifier is the
  /// kind's only such task.
  func isWorking(on reason: BackgroundLaunchReason, identifier: String?) -> Bool {
    let isTask = reason.completion == .taskExpiration
    return process.backgroundWork.contains { work in
      work.identifier == identifier
        && (isTask && identifier != nil
          ? work.reason.completion == .taskExpiration : work.reason == reason)
    }
  }

  /// Whether the app holds as much background work as it may
  /// (`Validation.maxBackgroundWorkPerApp`).
  var holdsMostBackgroundWork: Bool {
    process.backgroundWork.count >= Validation.maxBackgroundWorkPerApp
  }

  /// Whether the process is ending: its `applicationWillTerminate` waits for the main thread.
  var isTerminating: Bool {
    process.waitingCallbacks.contains { $0.callback.state == .notRunning }
  }

  /// Whether the scheduler may suspend the app: in the background with nothing holding it
  /// (a debugger "prevents your app from being suspended", Apple's forums).
  var isSuspendable: Bool {
    process.state == .background && process.watchdogKillAt == nil && !process.debuggerAttached
      && process.waitingCallbacks.isEmpty && process.tasks.isEmpty
      && process.backgroundWork.isEmpty && process.activities.isEmpty
  }

  /// Takes what `image` shows the system keeps of the app.
  func restore(_ record: AppRecord) {
    self.record = record
    recountHeldBytes()
  }

  /// Takes `process` as the app's process (a new app's, not yet counted in its device).
  func restore(_ process: ProcessImage) {
    self.process = process
    self.process.waitingCallbacks = []
    waitingBytes = 0
    for waiting in process.waitingCallbacks { queue(waiting) }
    recountHeldBytes()
  }

  /// Forgets everything the process held; called when it dies. The next process starts from
  /// the configured footprints (the user guide, "Behaviour decisions").
  func processDidExit() {
    for index in record.sessions.indices {
      record.sessions[index].state = .unattached
      record.sessions[index].restorationData = nil
    }
    process = ProcessImage(notRunning: spec)
    waitingBytes = 0
    recountHeldBytes()
  }
}

// MARK: Scene sessions

/// The only ways `sessions` changes: each counts the change of what the app retains.
extension App {
  /// The scene sessions UIKit remembers for a scene app, in the order they were opened;
  /// always empty for an app-delegate app.
  var sessions: [SceneSession] { record.sessions }

  /// Mirrors `state` (background or suspended) in every connected scene: they follow the
  /// process.
  func mirrorConnectedScenes(_ state: AppState) {
    for index in record.sessions.indices where record.sessions[index].isConnected {
      record.sessions[index].state = SceneState(mirroring: state)
    }
  }

  /// Sets a scene's state; the device keeps memory in step (`Device.setState(ofScene:of:to:)`).
  func setState(ofScene index: Int, to state: SceneState) {
    record.sessions[index].state = state
  }

  /// What the scene's code holds to hand UIKit when asked to save its state.
  func setRestorationData(_ data: String?, ofScene index: Int) {
    countHeld(data.countedBytes - record.sessions[index].restorationData.countedBytes)
    record.sessions[index].restorationData = data
  }

  /// What the session keeps as its `stateRestorationActivity`.
  func setSavedRestorationData(_ data: String?, ofScene index: Int) {
    countHeld(data.countedBytes - record.sessions[index].savedRestorationData.countedBytes)
    record.sessions[index].savedRestorationData = data
  }

  /// A new session, last in the list, with no scene connected yet.
  func openSession(_ id: String) {
    let session = SceneSession(id: id)
    countHeld(session.retainedBytes)
    record.sessions.append(session)
  }

  func removeSession(at index: Int) {
    countHeld(-record.sessions.remove(at: index).retainedBytes)
  }

  /// None after a force-quit; the next launch opens its first in the same storage.
  func removeAllSessions() {
    countHeld(-record.sessions.countedBytes)
    record.sessions.removeAll(keepingCapacity: true)
  }
}

// MARK: Waiting callbacks

/// The only ways `waitingCallbacks` changes: each counts what the queue retains.
extension App {
  /// Callbacks that wait for the main thread, in order, to be delivered when it is free
  /// (`Device.deliver`). Their state was reached when they were queued.
  var waitingCallbacks: [WaitingCallback] { process.waitingCallbacks }

  /// Queues a callback behind the busy main thread. Its time is set on delivery; until then
  /// it has none (zero).
  func queue(_ waiting: consuming WaitingCallback) {
    waiting.callback.time = .zero
    countWaiting(waiting.retainedBytes)
    process.waitingCallbacks.append(waiting)
  }

  /// Empties the queue and returns what it held, oldest first.
  func takeWaitingCallbacks() -> [WaitingCallback] {
    guard !process.waitingCallbacks.isEmpty else { return [] }
    countWaiting(-waitingBytes)
    defer { process.waitingCallbacks = [] }
    return process.waitingCallbacks
  }

  /// Puts callbacks taken but not delivered back in front of the queue.
  func requeue(_ waiting: ArraySlice<WaitingCallback>) {
    guard !waiting.isEmpty else { return }
    process.waitingCallbacks.insert(contentsOf: waiting, at: 0)
    countWaiting(waiting.reduce(0) { $0 + $1.retainedBytes })
  }

  private func countWaiting(_ delta: Int) {
    waitingBytes += delta
    countHeld(delta)
  }
}
