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
/// or for a `BGTask`, its expiration handler runs then.
public struct BackgroundWork: Hashable, Sendable {
  public let reason: BackgroundLaunchReason
  public let deadline: Instant
  /// When a `BGTask`'s expiration handler ran without completing it; the app dies
  /// `expirationGrace` later.
  public var expiredAt: Instant?

  public init(reason: BackgroundLaunchReason, deadline: Instant, expiredAt: Instant? = nil) {
    self.reason = reason
    self.deadline = deadline
    self.expiredAt = expiredAt
  }
}

/// One simulated app on a device: its configuration and everything its process holds.
///
/// Owned by its `Device`, which alone changes it; see `Device.changeState` for the one place
/// where the state moves.
final class App {
  let name: AppName
  /// The app's key in its device's heaps.
  let slot: Int
  /// Where the app is in its device's `liveApps`, while its process holds memory.
  var livePosition: Int?
  let lifecycle: LifecycleModel
  let backgroundModes: Set<BackgroundMode>
  let behavior: AppBehavior
  let supportsMultipleScenes: Bool
  let sceneMemoryMB: Int
  /// The footprints a new process starts with (`setMemory` changes only the running one's).
  let configuredMemoryMB: Int
  let configuredBackgroundMemoryMB: Int
  var memoryMB: Int
  var backgroundMemoryMB: Int

  var state = AppState.notRunning
  /// The scene sessions UIKit remembers for a scene app, in the order they were opened;
  /// always empty for an app-delegate app. Changed only through the methods at the end of
  /// this file, which count what their restoration data retains.
  @exclusivity(unchecked)  // one thread; see Engine
  private(set) var sessions: [SceneSession] = []
  /// The session the user sees while the app is in the foreground, and gets back by a
  /// `launch` that names none; nil until the first is opened.
  var focusedScene: String?
  /// Sessions the user discarded while the app's code could not hear it: reported after its
  /// next didFinishLaunching.
  var discardedScenes: [String] = []
  var inactiveCause: InactiveCause?
  /// Start of the current stretch in the background; background tasks expire relative to it.
  var backgroundSince: Instant?
  /// didEnterBackground is executing until then: the main thread runs no other callback.
  var busyUntil: Instant?
  /// Callbacks that wait for the main thread, in order, to be delivered when it is free
  /// (`Device.deliver`). Their state was reached when they were queued. Changed only through
  /// `queue(_:)`, `takeWaitingCallbacks()` and `requeue(_:)`, which count them in the ledger.
  @exclusivity(unchecked)  // one thread; see Engine
  private(set) var waitingCallbacks: [WaitingCallback] = []
  /// What `waitingCallbacks` retains.
  private var waitingBytes = 0
  /// didEnterBackground overruns the watchdog: the app is killed then.
  var watchdogKillAt: Instant?
  @exclusivity(unchecked)  // one thread; see Engine
  var tasks: [BackgroundTask] = [] {
    didSet { recountHeldBytes() }
  }
  /// What `tasks`, the sessions, the restoration data and the waiting callbacks retain, as
  /// counted in the device's ledger.
  private(set) var heldBytes = 0
  /// The device's ledger: what the app holds beside its object counts in it.
  private unowned let ledger: MemoryLedger
  var nextTaskID = 1
  var backgroundWork: BackgroundWork?
  /// What the app is doing that keeps it running in the background.
  var activities: Set<BackgroundActivity> = []
  /// A significant time change arrived while suspended; it is delivered when the app next runs.
  var significantTimeChangePending = false
  /// Whether protected data is available as far as the app has been told. It differs from the
  /// device's only while the app could not be told (suspended); it is told when it next runs.
  var knowsProtectedDataAvailable = true
  /// Set by a user force-quit; cleared when the user launches the app.
  var backgroundLaunchBlocked = false
  /// State restoration data saved when the app last went to the background.
  var restorationStateSaved = false
  /// What an app-delegate app's code hands UIKit when asked to save its state (JSON text),
  /// if anything; a restored process holds what it got back. (A scene app's scenes each hold
  /// their own: `SceneSession`.)
  var restorationData: String? {
    didSet { recountHeldBytes() }
  }
  /// What UIKit preserved of `restorationData` when the app last saved its state: handed
  /// back at the next launch after a system kill, dropped by a force-quit or a crash at
  /// launch.
  var savedRestorationData: String? {
    didSet { recountHeldBytes() }
  }
  /// The process was prewarmed: it is paused before `UIApplicationMain`, no app code has run.
  var prewarmed = false
  /// When the app last left the foreground: jetsam's least-recently-used order.
  var lastUsed = Instant.zero
  var launches = 0
  var kills = 0
  /// When each kind of deadline falls due; kept by `Device.reschedule`.
  @exclusivity(unchecked)  // one thread; see Engine
  var deadlines = AppDeadlines()

  init(spec: AppSpec, slot: Int, ledger: MemoryLedger) {
    name = AppName(spec.name)!  // validated by Engine.createApp
    self.slot = slot
    self.ledger = ledger
    lifecycle = spec.lifecycle
    backgroundModes = spec.backgroundModes
    behavior = spec.behavior
    supportsMultipleScenes = spec.supportsMultipleScenes
    sceneMemoryMB = spec.sceneMemoryMB
    configuredMemoryMB = spec.memoryMB
    configuredBackgroundMemoryMB = spec.backgroundMemoryMB ?? spec.memoryMB
    memoryMB = configuredMemoryMB
    backgroundMemoryMB = configuredBackgroundMemoryMB
  }

  /// A copy of `other`, its tasks counted in `ledger` (which the caller credits with them).
  /// Every stored property is copied: one added to the class must be added here
  /// (`PropertyTests.aCopyHoldsEveryStoredPropertyOfItsOriginal` finds one that is not).
  init(copying other: App, ledger: MemoryLedger) {
    name = other.name
    slot = other.slot
    livePosition = other.livePosition
    lifecycle = other.lifecycle
    backgroundModes = other.backgroundModes
    behavior = other.behavior
    supportsMultipleScenes = other.supportsMultipleScenes
    sceneMemoryMB = other.sceneMemoryMB
    configuredMemoryMB = other.configuredMemoryMB
    configuredBackgroundMemoryMB = other.configuredBackgroundMemoryMB
    memoryMB = other.memoryMB
    backgroundMemoryMB = other.backgroundMemoryMB
    state = other.state
    sessions = other.sessions
    focusedScene = other.focusedScene
    discardedScenes = other.discardedScenes
    inactiveCause = other.inactiveCause
    backgroundSince = other.backgroundSince
    busyUntil = other.busyUntil
    waitingCallbacks = other.waitingCallbacks
    waitingBytes = other.waitingBytes
    watchdogKillAt = other.watchdogKillAt
    tasks = other.tasks
    heldBytes = other.heldBytes
    self.ledger = ledger
    nextTaskID = other.nextTaskID
    backgroundWork = other.backgroundWork
    activities = other.activities
    significantTimeChangePending = other.significantTimeChangePending
    knowsProtectedDataAvailable = other.knowsProtectedDataAvailable
    backgroundLaunchBlocked = other.backgroundLaunchBlocked
    restorationStateSaved = other.restorationStateSaved
    restorationData = other.restorationData
    savedRestorationData = other.savedRestorationData
    prewarmed = other.prewarmed
    lastUsed = other.lastUsed
    launches = other.launches
    kills = other.kills
    deadlines = other.deadlines
  }

  var isScene: Bool { lifecycle == .scene }

  /// Counts again what the app retains beside its object, after a change to it.
  func recountHeldBytes() {
    let bytes =
      tasks.reduce(0) { $0 + $1.retainedBytes } + sessions.reduce(0) { $0 + $1.retainedBytes }
      + textBytes(restorationData) + textBytes(savedRestorationData) + waitingBytes
    ledger.add(bytes - heldBytes)
    heldBytes = bytes
  }

  /// Memory the app holds in `state`, in MB: its process's, and its connected scenes'.
  func footprint(in state: AppState) -> Int {
    let scenes = sceneMemoryMB == 0 ? 0 : sceneMemoryMB * connectedScenes
    switch state {
    case .notRunning: return 0
    case .active, .inactive: return memoryMB + scenes
    case .background, .suspended: return backgroundMemoryMB + scenes
    }
  }

  var footprint: Int { footprint(in: state) }

  func isBusy(at now: Instant) -> Bool {
    busyUntil.map { now < $0 } ?? false
  }

  /// Whether the process is ending: its `applicationWillTerminate` waits for the main thread.
  var isTerminating: Bool {
    waitingCallbacks.contains { $0.callback.state == .notRunning }
  }

  /// Whether the scheduler may suspend the app: in the background with nothing holding it.
  var isSuspendable: Bool {
    state == .background && watchdogKillAt == nil && waitingCallbacks.isEmpty && tasks.isEmpty
      && backgroundWork == nil && activities.isEmpty
  }

  /// Forgets everything the process held; called when it dies. The next process starts from
  /// the configured footprints (the user guide, "Behaviour decisions").
  func processDidExit() {
    for index in sessions.indices {
      sessions[index].state = .unattached
      sessions[index].restorationData = nil
    }
    recountHeldBytes()
    backgroundSince = nil
    busyUntil = nil
    watchdogKillAt = nil
    _ = takeWaitingCallbacks()
    tasks = []
    backgroundWork = nil
    activities = []
    significantTimeChangePending = false
    restorationData = nil
    prewarmed = false
    memoryMB = configuredMemoryMB
    backgroundMemoryMB = configuredBackgroundMemoryMB
  }
}

// MARK: Scene sessions

/// The only ways `sessions` changes: each change of restoration data counts again what the app
/// retains.
extension App {
  /// Mirrors `state` (background or suspended) in every connected scene: they follow the
  /// process.
  func mirrorConnectedScenes(_ state: AppState) {
    for index in sessions.indices where sessions[index].isConnected {
      sessions[index].state = SceneState(mirroring: state)
    }
  }

  /// Sets a scene's state; the device keeps memory in step (`Device.setState(ofScene:of:to:)`).
  func setState(ofScene index: Int, to state: SceneState) {
    sessions[index].state = state
  }

  /// What the scene's code holds to hand UIKit when asked to save its state.
  func setRestorationData(_ data: String?, ofScene index: Int) {
    sessions[index].restorationData = data
    recountHeldBytes()
  }

  /// What the session keeps as its `stateRestorationActivity`.
  func setSavedRestorationData(_ data: String?, ofScene index: Int) {
    sessions[index].savedRestorationData = data
    recountHeldBytes()
  }

  /// A new session, last in the list, with no scene connected yet.
  func openSession(_ id: String) {
    sessions.append(SceneSession(id: id))
    recountHeldBytes()
  }

  func removeSession(at index: Int) {
    sessions.remove(at: index)
    recountHeldBytes()
  }

  /// The sessions an image shows.
  func replaceSessions(with sessions: [SceneSession]) {
    self.sessions = sessions
    recountHeldBytes()
  }

  /// None after a force-quit; the next launch opens its first in the same storage.
  func removeAllSessions() {
    sessions.removeAll(keepingCapacity: true)
    recountHeldBytes()
  }
}

// MARK: Waiting callbacks

/// The only ways `waitingCallbacks` changes: each counts what the queue retains.
extension App {
  /// Queues a callback behind the busy main thread.
  func queue(_ waiting: WaitingCallback) {
    waitingCallbacks.append(waiting)
    countWaiting(waiting.retainedBytes)
  }

  /// Empties the queue and returns what it held, oldest first.
  func takeWaitingCallbacks() -> [WaitingCallback] {
    guard !waitingCallbacks.isEmpty else { return [] }
    countWaiting(-waitingBytes)
    defer { waitingCallbacks = [] }
    return waitingCallbacks
  }

  /// Puts callbacks taken but not delivered back in front of the queue.
  func requeue(_ waiting: ArraySlice<WaitingCallback>) {
    guard !waiting.isEmpty else { return }
    waitingCallbacks.insert(contentsOf: waiting, at: 0)
    countWaiting(waiting.reduce(0) { $0 + $1.retainedBytes })
  }

  private func countWaiting(_ delta: Int) {
    waitingBytes += delta
    heldBytes += delta
    ledger.add(delta)
  }
}
