/// Everything one event (or one clock advance) did on a device, in order.
public struct EventOutcome: Hashable, Sendable {
  public var callbacks: [Callback] = []
  /// Callbacks queued behind a busy main thread: delivered later, by the clock advance or
  /// timer that finds the main thread free (their `seq` and `time` are given then).
  public var waitingCallbacks: [Callback] = []
  public var transitions: [Transition] = []
  /// What the event returns to its caller, if anything.
  public var result: EventResult?
  /// The app the event was posted to, with its state before and after; nil for device events
  /// and clock advances.
  public var subject: Effect?
  /// The device journal's last `seq` once the operation was done: what came after it is
  /// what happened next.
  public var lastSeq = 0

  public init() {}

  /// Empties the outcome for another operation, keeping its arrays' storage.
  mutating func removeAll() {
    // Emptied only when not empty already: each call costs more than the elements it drops.
    if !callbacks.isEmpty { callbacks.removeAll(keepingCapacity: true) }
    if !waitingCallbacks.isEmpty { waitingCallbacks.removeAll(keepingCapacity: true) }
    if !transitions.isEmpty { transitions.removeAll(keepingCapacity: true) }
    result = nil
    subject = nil
  }

  /// Adds a callback; the first makes room for a typical event's (one allocation, not four).
  mutating func record(_ callback: Callback) {
    if callbacks.isEmpty { callbacks.reserveCapacity(8) }
    callbacks.append(callback)
  }

  /// Adds a callback that waits for the app's main thread.
  mutating func recordWaiting(_ callback: Callback) {
    waitingCallbacks.append(callback)
  }

  /// Adds a transition; the first makes room for a typical event's.
  mutating func record(_ transition: Transition) {
    if transitions.isEmpty { transitions.reserveCapacity(4) }
    transitions.append(transition)
  }

  /// The apps other than `app` whose state the event changed: first and last state of each,
  /// in the order they were first touched.
  public func effects(excluding app: AppName?) -> [Effect] {
    guard transitions.contains(where: { $0.app != app }) else { return [] }  // the usual case
    var effects: [Effect] = []
    var positions: [AppName: Int] = [:]
    for transition in transitions where transition.app != app {
      if let index = positions[transition.app] {
        effects[index].state = transition.to
      } else {
        positions[transition.app] = effects.count
        effects.append(
          Effect(app: transition.app, previousState: transition.from, state: transition.to))
      }
    }
    return effects.filter { $0.previousState != $0.state }
  }
}

/// The value an event returns.
public enum EventResult: Hashable, Sendable {
  /// `beginBackgroundTask`: the task's id, and when it expires (nil while in the foreground,
  /// where background time does not run).
  case backgroundTask(id: Int, expiresAt: Instant?)
  /// `backgroundLaunch` and `launchTask`: the id of the work it handed the app
  /// (`backgroundWorkCompleted` takes it), and when its time is up; for `launchTask`, what
  /// held the request back that the debugger's launch went past. `expireTask`: the task's
  /// work, and the deadline its expiry came before. No deadline for a continued-processing task.
  case backgroundWork(id: Int, deadline: Instant?, bypassed: [HoldReason] = [])
  /// `push`: what became of it.
  case push(PushDelivery)
  /// `openScene`: the id of the session it opened.
  case scene(id: String)
}

/// What became of a push.
public enum PushDelivery: Hashable, Sendable {
  /// The app got it, as the background work `workId` when it was not in the foreground.
  case delivered(workId: Int?)
  /// An alert the user sees; the app gets nothing until the user taps it.
  case displayed
  /// The system did not deliver it, for these reasons.
  case dropped([HoldReason])
}

/// Another app an event changed.
public struct Effect: Hashable, Sendable {
  public var app: AppName
  public var previousState: AppState
  public var state: AppState
}
