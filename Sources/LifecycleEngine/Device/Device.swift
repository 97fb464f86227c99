/// The kinds of deadline an app can have, in the order they fire when due together.
enum DeadlineKind: Int, Comparable, CaseIterable {
  case watchdogKill, mainThreadFree, backgroundWorkTimeout, expirationKill, backgroundWorkExpiry
  case backgroundTimeExpiry, suspend, taskDue

  static func < (lhs: DeadlineKind, rhs: DeadlineKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// When each kind of deadline of one app falls due, if it is pending.
struct AppDeadlines: Hashable {
  var watchdogKill: Instant?
  /// didEnterBackground returns while callbacks wait for the main thread.
  var mainThreadFree: Instant?
  var backgroundWorkTimeout: Instant?
  var expirationKill: Instant?
  /// A `BGTask`'s time is up: its expiration handler runs.
  var backgroundWorkExpiry: Instant?
  var backgroundTimeExpiry: Instant?
  var suspend: Instant?
  /// A pending task request's `earliestBeginDate` passes: the scheduler looks again.
  var taskDue: Instant?

  /// The earliest pending deadline; among equal times, the kind that comes first.
  var next: (time: Instant, kind: DeadlineKind)? {
    var next: (time: Instant, kind: DeadlineKind)?
    func consider(_ time: Instant?, _ kind: DeadlineKind) {
      if let time, next.map({ time < $0.time }) ?? true { next = (time, kind) }
    }
    consider(watchdogKill, .watchdogKill)
    consider(mainThreadFree, .mainThreadFree)
    consider(backgroundWorkTimeout, .backgroundWorkTimeout)
    consider(expirationKill, .expirationKill)
    consider(backgroundWorkExpiry, .backgroundWorkExpiry)
    consider(backgroundTimeExpiry, .backgroundTimeExpiry)
    consider(suspend, .suspend)
    consider(taskDue, .taskDue)
    return next
  }
}

/// The earlier of two optional instants; nil only if both are.
func earliest(_ first: Instant?, _ second: Instant?) -> Instant? {
  guard let first, let second else { return first ?? second }
  return min(first, second)
}

/// One simulated phone: its apps, clock, memory budget, lock state, deadlines and journal.
///
/// A device is a pure state machine. Its clock moves only through `advance(to:)`; every
/// change goes through `changeState` and `deliver`, which keep memory accounting, jetsam
/// order, deadlines and the journal in step. Operations are split by concern across the
/// `Device+*.swift` files.
@dynamicMemberLookup
final class Device {
  let configuration: DeviceConfiguration
  /// Its model, the releases it runs and its apps' memory limits.
  let profile: ResolvedProfile
  var id: String { configuration.id }
  /// The device's key in the engine's realtime heap, given when the engine takes it in.
  @exclusivity(unchecked)  // one thread; see Engine
  var slot: Int
  /// A scenario applied over several calls holds it (`Engine.hold`).
  @exclusivity(unchecked)  // one thread; see Engine
  var isHeldByScenario = false
  /// Which device under its id this is (`DeviceVersion`), given when the engine takes it in.
  @exclusivity(unchecked)  // one thread; see Engine
  var incarnation: Int
  let scheduler: SchedulerSettings
  let limits: EngineLimits
  /// What the device's state retains: itself, its apps and their tasks, its logs.
  let ledger: MemoryLedger
  /// The device's own state beside its apps, the value its image holds; its fields read and
  /// write as the device's own (`device.locked`) through dynamic member lookup.
  @exclusivity(unchecked)  // one thread; see Engine
  var status = DeviceStatus()
  /// For a realtime device, the host instant at which its device time was zero (moved back
  /// when a client advances its clock); the engine keeps it, the device never reads it.
  var hostEpoch: Instant?

  @exclusivity(unchecked)  // one thread; see Engine
  var apps: [AppName: App] = [:]
  /// The same apps by slot, the key of every heap in `queues`.
  @exclusivity(unchecked)  // one thread; see Engine
  var slots = SlotTable<App>()
  /// Apps that hold memory (running or suspended): the ones device-wide events reach. In no
  /// order: each knows its position (`App.livePosition`), so adding and removing one is
  /// O(1) and hashes nothing.
  @exclusivity(unchecked)  // one thread; see Engine
  private(set) var liveApps: [App] = []

  @exclusivity(unchecked)  // one thread; see Engine
  var usedMB = 0
  /// Apps whose footprint grew past the per-process limit during the current operation:
  /// jetsam kills those still running over it when the operation ends.
  @exclusivity(unchecked)  // one thread; see Engine
  var grewPastProcessLimit: [AppName] = []
  /// Each app's earliest deadline and its place among jetsam's victims.
  @exclusivity(unchecked)  // one thread; see Engine
  var queues = AppQueues()

  @exclusivity(unchecked)  // one thread; see Engine
  private(set) var journal: BoundedLog<JournalEntry>
  @exclusivity(unchecked)  // one thread; see Engine
  var jetsamLog: JetsamLog
  @exclusivity(unchecked)  // one thread; see Engine
  private var nextSeq = 1
  /// The apps with pending task requests.
  @exclusivity(unchecked)  // one thread; see Engine
  var taskRequesters: Set<AppName> = []
  /// The apps with continued-processing requests in the queue.
  @exclusivity(unchecked)  // one thread; see Engine
  var continuedTaskQueuers: Set<AppName> = []
  /// The requesting apps whose requests the scheduler weighs when the operation settles, each
  /// once (`App.awaitsWeighing`): those changed since it last weighed them.
  @exclusivity(unchecked)  // one thread; see Engine
  var appsToWeigh: [App] = []
  /// The device-wide inputs the scheduler last weighed requests under: when they change, it
  /// weighs every requesting app's again.
  @exclusivity(unchecked)  // one thread; see Engine
  var weighedUnder = DeviceHoldInputs(DeviceStatus())
  /// How many requests the scheduler has weighed: its work, which tests hold to what changed.
  @exclusivity(unchecked)  // one thread; see Engine
  var requestsWeighed = 0
  /// The apps with exits counted in MetricKit's day under way, and when that day ends: the
  /// clock ends it only while there are some.
  @exclusivity(unchecked)  // one thread; see Engine
  var metricPeriodHolders: Set<AppName> = []
  @exclusivity(unchecked)  // one thread; see Engine
  var metricDayEnd: Instant?
  /// The apps that may take MetricKit's reports when the operation settles
  /// (`deliverDueReports`).
  @exclusivity(unchecked)  // one thread; see Engine
  var reportsDue: [App] = []
  /// How far the largest of the device's counts may be ahead of its last seq
  /// (`checkCountsLeft`): zero for a device the engine made, an image's for a restored one.
  @exclusivity(unchecked)  // one thread; see Engine
  var countsAheadOfSeq = 0
  /// What the operation under way has done so far.
  @exclusivity(unchecked)  // one thread; see Engine
  private var outcome = EventOutcome()

  init(
    _ configuration: DeviceConfiguration, profile: ResolvedProfile, slot: Int = 0,
    incarnation: Int = 0, scheduler: SchedulerSettings, limits: EngineLimits,
    ledger: MemoryLedger
  ) {
    self.configuration = configuration
    self.profile = profile
    status.osVersion = configuration.initialOSVersion
    self.slot = slot
    self.incarnation = incarnation
    self.scheduler = scheduler
    self.limits = limits
    journal = BoundedLog(
      capacity: limits.journalCapacity, byteCapacity: limits.journalCapacityBytes)
    jetsamLog = JetsamLog(
      capacity: limits.jetsamLogCapacity, byteCapacity: limits.jetsamLogCapacityBytes)
    self.ledger = ledger
    ledger.add(Self.retainedBytes + labelBytes(configuration.labels))
  }

  /// A copy of `other`, its state counted in `ledger`: what a dry run or an atomic scenario
  /// works on. It is made as a snapshot is restored, from `other`'s image, and goes on with
  /// `other`'s journal and jetsam log.
  convenience init(copying other: Device, ledger: MemoryLedger) {
    self.init(
      other.configuration, profile: other.profile, slot: other.slot,
      incarnation: other.incarnation,
      scheduler: other.scheduler, limits: other.limits, ledger: ledger)
    let issues = restore(other.image)
    assert(issues.isEmpty, "a device restores from its own image: \(issues)")
    hostEpoch = other.hostEpoch
    journal = other.journal
    jetsamLog = other.jetsamLog
    ledger.add(journal.bytes + jetsamLog.events.bytes)
  }

  /// Goes on recording after `seq` (a restored device, after its image's).
  func continueRecording(after seq: Int) {
    nextSeq = seq + 1
  }

  subscript<Value>(dynamicMember field: WritableKeyPath<DeviceStatus, Value>) -> Value {
    get { status[keyPath: field] }
    set { status[keyPath: field] = newValue }
  }

  func has(_ label: DeviceLabel) -> Bool { configuration.labels[label.key] == label.value }

  /// Changes whenever the journal grows.
  var version: DeviceVersion { DeviceVersion(incarnation: incarnation, seq: nextSeq - 1) }

  /// The earliest of the device's own deadlines (they fire before apps' at the same instant).
  var deviceDeadline: Instant? {
    earliest(
      earliest(status.protectedDataLocksAt, status.warningGraceEndsAt), nextMetricPayloadTime)
  }

  /// The earliest pending deadline, in device time.
  var nextDeadline: Instant? { earliest(deviceDeadline, queues.earliestDeadline?.order.time) }

  // MARK: Operations

  /// Runs one operation and returns everything it did; the system's own work is done last.
  func perform<Failure>(_ body: () throws(Failure) -> Void) throws(Failure) -> EventOutcome {
    outcome.removeAll()
    try body()
    settle()
    endJetsamEvent()
    outcome.lastSeq = nextSeq - 1
    var done = EventOutcome()
    swap(&done, &outcome)  // moved out, not copied
    return done
  }

  /// Takes back an outcome its reader is done with: the next operation records into its
  /// arrays rather than allocating new ones (a scenario's events come one after another).
  func recycle(_ used: consuming EventOutcome) {
    outcome = used
  }

  func setResult(_ result: EventResult) { outcome.result = result }

  /// Fires every deadline due by `target` in order, then sets the clock to `target`.
  func advance(to target: Instant) -> EventOutcome {
    perform {
      while let due = nextDeadline, due <= target {
        if due > status.now { endJetsamEvent() }  // the instant before is over
        fireNextDeadline()
        settle()
      }
      status.now = max(status.now, target)
    }
  }

  /// What the system does after every event and deadline: it relieves memory pressure, runs
  /// the task requests nothing holds back any more (and relieves what they cost), then hands
  /// MetricKit's reports to the apps that can take them.
  private func settle() {
    relieveMemoryPressure()
    if !taskRequesters.isEmpty {
      runEligibleTasks()
      relieveMemoryPressure()
    }
    deliverDueReports()
  }

  /// Fires the earliest deadline and every other due at its instant (the engine interleaves
  /// realtime devices by instant this way), so that their kills are one jetsam event.
  func advanceToNextDeadline() -> EventOutcome {
    advance(to: nextDeadline ?? status.now)
  }

  // MARK: Recording

  func record(_ event: RecordedEvent, app: AppName?) {
    let size = JournalEntry.retainedBytes(of: event)
    journal(.event(seq: takeSeq(), time: status.now, app: app, event: event), size: size)
    status.counters.events += 1
  }

  /// Appends `entry`, which retains `size` bytes (`JournalEntry.retainedBytes`).
  private func journal(_ entry: consuming JournalEntry, size: Int) {
    // Readers find an entry by its seq (`Engine.journal`): each takes the next one.
    assert(entry.seq == nextSeq - 1, "journal entries are recorded as their seqs are taken")
    ledger.add(journal.append(entry, retainedBytes: size))
  }

  private func takeSeq() -> Int {
    defer { nextSeq += 1 }
    return nextSeq
  }

  /// Delivers one callback to `app`, moving it to `newState` if given.
  ///
  /// Scene callbacks go to the scene of session `scene` (an index in `app.sessions`), or when
  /// nil of the focused one; they also move that scene, and carry the aggregate `UIApplication`
  /// notification when they change the app's state (LifecycleEngine.docc, "Notifications").
  ///
  /// While the app's main thread is busy (didEnterBackground executing) or callbacks already
  /// wait for it, the callback waits too: the state moves now, as the system decided, and the
  /// callback is delivered when the main thread is free (`deliverWaitingCallbacks`). The one
  /// exception is the end of the process, which waits for its `applicationWillTerminate`.
  func deliver(
    _ method: CallbackMethod, to app: App, then newState: AppState? = nil,
    cause: TransitionCause, scene: Int? = nil, taskId: Int? = nil,
    arguments: CallbackArguments? = nil, exitInForeground: Bool? = nil
  ) {
    let old = app.state
    let new = newState ?? old
    let isSceneCallback = app.isScene && method.isSceneCallback
    let aggregateNotification =
      isSceneCallback ? CallbackMethod.aggregateNotification(from: old, to: new) : nil
    let sceneIndex = isSceneCallback ? scene ?? app.focusedSessionIndex : nil
    if let sceneIndex, let sceneState = method.sceneStateAfter {
      setState(ofScene: sceneIndex, of: app, to: sceneState)
    }
    // A scene callback shows its scene's state; an app callback, the focused scene's.
    var sceneState: SceneState?
    if app.isScene {
      sceneState =
        new == .notRunning
        ? .unattached : sceneIndex.map { app.sessions[$0].state } ?? app.sceneState
    }
    let callback = Callback(
      seq: 0, time: status.now, app: app.name, method: method,
      aggregateNotification: aggregateNotification, state: new, sceneState: sceneState,
      scene: sceneIndex.map { app.sessions[$0].id }, arguments: arguments, taskId: taskId)
    if app.isBusy(at: status.now) || !app.waitingCallbacks.isEmpty {
      app.queue(WaitingCallback(callback: callback, cause: cause))
      outcome.recordWaiting(callback)
      if new != old, new != .notRunning {
        changeState(app, to: new, cause: cause)  // reschedules
      } else {
        reschedule(app)
      }
    } else {
      emit(consume callback, to: app)
      if new != old {
        changeState(app, to: new, cause: cause, exitInForeground: exitInForeground)
      }
    }
  }

  /// Records a callback as delivered now. A move between foreground and background keeps the
  /// main thread busy for the app's configured time, wherever it is called; over the
  /// watchdog's allowance the app will be killed (LifecycleEngine.docc, "Background").
  private func emit(_ callback: consuming Callback, to app: App) {
    callback.seq = takeSeq()
    callback.time = status.now
    status.counters.callbacks += 1
    // Saved when the method runs, not when it was asked for.
    if case .restorationData(let data) = callback.arguments, callback.method.savesState {
      if let index = callback.scene.flatMap(app.sessionIndex) {
        app.setSavedRestorationData(data, ofScene: index)
      } else {
        app.savedRestorationData = data
      }
    }
    var sceneJustConnected = false
    if callback.method == .sceneWillEnterForeground, let previous = outcome.callbacks.last {
      sceneJustConnected = callback.follows(previous)
    }
    let mainThreadTime = app.spec.behavior.mainThreadTime(
      of: callback.method, sceneJustConnected: sceneJustConnected)
    outcome.record(callback)
    let size = JournalEntry.retainedBytes(of: callback)
    journal(.callback(consume callback), size: size)  // moved into the journal, not copied
    if let (duration, transition) = mainThreadTime {
      occupyMainThread(of: app, for: duration, timedAs: transition)
    }
  }

  /// Delivers the callbacks that waited for the app's main thread, in order, until one of them
  /// (a didEnterBackground) makes it busy again; a waiting `applicationWillTerminate` ends the
  /// process.
  func deliverWaitingCallbacks(of app: App) {
    var waiting = app.takeWaitingCallbacks()[...]
    while let next = waiting.first, !app.isBusy(at: status.now) {
      waiting.removeFirst()
      emit(next.callback, to: app)
      if next.callback.state == .notRunning {
        changeState(app, to: .notRunning, cause: next.cause)
        return
      }
    }
    app.requeue(waiting)
    reschedule(app)
    if app.holdsReports { reportsDue.append(app) }  // MetricKit's, kept while it was busy
  }

  /// Moves `app` to `state`: the one place where an app's state changes.
  ///
  /// Keeps memory accounting, jetsam order, the foreground app and the live set in step,
  /// records the transition, and recomputes the app's deadlines. A process that ends is
  /// counted as a foreground or a background exit by the state it leaves, unless told
  /// (`exitInForeground`: a force-quit counts where the user found the app).
  func changeState(
    _ app: App, to state: AppState, cause: TransitionCause,
    terminationCode: TerminationCode? = nil, jetsamReason: JetsamReason? = nil,
    exitInForeground: Bool? = nil
  ) {
    let old = app.state
    guard state != old else { return }
    if state.isRunning, !old.isRunning { noteRunning(app) }
    if state == .notRunning {  // every end of a process, as MetricKit counts it
      let inForeground = exitInForeground ?? old.isForeground
      let category = ExitCategory.of(
        cause: cause, terminationCode: terminationCode, jetsamReason: jetsamReason,
        inForeground: inForeground)
      countExit(
        of: app, category, inForeground: inForeground,
        crashReport: CrashReportCause.of(
          cause: cause, terminationCode: terminationCode, jetsamReason: jetsamReason))
    }
    usedMB += app.footprint(in: state) - app.footprint(in: old)
    // Jetsam's per-process limit holds in every state, a paused (prewarmed) process's too.
    notePassingLimit(of: app, in: state)
    app.state = state
    if state != .inactive { app.inactiveCause = nil }  // the switcher or call is behind it

    if old.isForeground, !state.isForeground {
      app.lastUsed = status.now
      if status.foregroundApp == app.name { status.foregroundApp = nil }
    }
    if state.isForeground { status.foregroundApp = app.name }
    if state == .background, old != .background { app.backgroundSince = status.now }
    if state != .background { app.backgroundSince = nil }
    if app.isScene, state == .background || state == .suspended {
      app.mirrorConnectedScenes(state)
    }
    if state == .notRunning {
      let ranWith = runContext(of: app)
      removeFromLiveApps(app)
      app.processDidExit()
      dropContinuedTaskRequests(of: app)
      app.lastTermination = Termination(
        cause: cause, jetsamReason: jetsamReason, terminationCode: terminationCode,
        time: status.now, state: old, ranWith: ranWith)
      if status.appBeforeLock == app.name { status.appBeforeLock = nil }
    } else if old == .notRunning {
      addToLiveApps(app)
      app.protectedDataAvailable = status.protectedDataAvailable  // a new process reads it
    }
    updateVictimOrder(of: app)

    let transition = Transition(
      seq: takeSeq(), time: status.now, app: app.name, from: old, to: state, cause: cause,
      terminationCode: terminationCode)
    outcome.record(transition)
    journal(.transition(transition), size: JournalEntry.transitionBytes)
    status.counters.transitions += 1
    reschedule(app)
  }

  /// What `app`'s process runs with now, as a crash reporter would record it.
  func runContext(of app: App) -> RunContext {
    RunContext(
      appVersion: app.version, build: app.build, osVersion: status.osVersion,
      bootSession: status.bootSession, installation: app.installation,
      debuggerAttached: app.debuggerAttached)
  }

  /// Kills `app` silently (no callback): crash, watchdog, background-time or jetsam kill.
  func kill(
    _ app: App, cause: TransitionCause, terminationCode: TerminationCode? = nil,
    jetsamReason: JetsamReason? = nil, exitInForeground: Bool? = nil
  ) {
    if let jetsamReason { jetsamLog.noteKill(of: app, reason: jetsamReason, at: status.now) }
    app.kills += 1
    status.counters.kills += 1
    changeState(
      app, to: .notRunning, cause: cause, terminationCode: terminationCode,
      jetsamReason: jetsamReason, exitInForeground: exitInForeground)
  }

  /// Live apps in name order: the order device-wide events reach them.
  var liveAppsInOrder: [App] {
    liveApps.sorted { $0.name < $1.name }
  }

  func addToLiveApps(_ app: App) {
    app.livePosition = liveApps.count
    liveApps.append(app)
  }

  /// Takes `app` out of `liveApps` if it is there, moving the last one into its place.
  func removeFromLiveApps(_ app: App) {
    guard let position = app.livePosition else { return }
    app.livePosition = nil
    let last = liveApps.removeLast()
    guard last !== app else { return }
    liveApps[position] = last
    last.livePosition = position
  }
}

extension CallbackMethod {
  /// Whether UIKit preserves what the app hands it in this callback.
  var savesState: Bool {
    self == .shouldSaveSecureApplicationState || self == .stateRestorationActivity
  }

  /// The scene's state after this callback, for scene callbacks that move it.
  var sceneStateAfter: SceneState? {
    switch self {
    case .sceneWillEnterForeground, .sceneWillResignActive: .foregroundInactive
    case .sceneDidBecomeActive: .foregroundActive
    case .sceneDidEnterBackground: .background
    case .sceneDidDisconnect: .unattached
    default: nil
    }
  }
}

/// Running totals a device reports.
public struct DeviceCounters: Hashable, Sendable {
  public var events = 0
  public var callbacks = 0
  public var transitions = 0
  public var kills = 0

  public init(events: Int = 0, callbacks: Int = 0, transitions: Int = 0, kills: Int = 0) {
    self.events = events
    self.callbacks = callbacks
    self.transitions = transitions
    self.kills = kills
  }
}
