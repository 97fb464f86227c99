/// One process as a jetsam event report lists it ("Identifying high-memory use with jetsam
/// event reports"): its footprint and state, and the reason if jetsam killed it.
public struct JetsamProcess: Hashable, Sendable {
  public var app: AppName
  public var footprintMB: Int
  public var state: AppState
  /// Why jetsam killed the process; nil for one it left running.
  public var reason: JetsamReason?
}

extension JetsamProcess {
  /// `app` as it is now.
  init(_ app: App, reason: JetsamReason?) {
    self.init(app: app.name, footprintMB: app.footprint, state: app.state, reason: reason)
  }
}

/// One jetsam event: the processes jetsam killed at one instant and every one it left.
public struct JetsamEvent: Hashable, Sendable {
  public var time: Instant
  /// The device's model identifier, the report's `product`: `iPhone16,1`.
  public var product: String
  /// The release the device ran, the report's `build`.
  public var os: OSRelease
  /// The killed processes first, in the order jetsam killed them, each as it was just
  /// before; then the processes left, in name order, as they were when jetsam was done.
  public var processes: [JetsamProcess]
  /// How many of `processes`, from the first, jetsam killed.
  public var killCount: Int

  /// The processes jetsam killed, in order.
  public var kills: ArraySlice<JetsamProcess> { processes.prefix(killCount) }
}

/// A device's jetsam log as it stands: the events kept and their numbers.
public struct JetsamPage: Hashable, Sendable {
  /// The events kept, oldest first, numbered from `firstNumber`.
  public var events: [JetsamEvent]
  public var firstNumber: Int
  /// The kills of the events dropped to keep the log bounded.
  public var droppedKills: Int

  /// The kills of the events kept, oldest first.
  public var kills: [JetsamRecord] {
    zip(firstNumber..., events).flatMap { number, event in
      event.kills.map {
        JetsamRecord(
          event: number, time: event.time, app: $0.app, reason: $0.reason!,  // kills have one
          footprintMB: $0.footprintMB, state: $0.state)
      }
    }
  }
}

/// One jetsam kill: its process and the event it belongs to, by number.
public struct JetsamRecord: Hashable, Sendable {
  /// The number of the jetsam event, from 1 on each device.
  public var event: Int
  public var time: Instant
  public var app: AppName
  public var reason: JetsamReason
  public var footprintMB: Int
  /// The app's state when it was killed.
  public var state: AppState
}

/// A device's jetsam events, oldest first, bounded like its journal, numbered from 1.
///
/// Kills are noted as they happen; the event that gathers them ends when jetsam is done
/// relieving memory, and only then are the processes it left known.
struct JetsamLog {
  private(set) var events: BoundedLog<JetsamEvent>
  /// Every jetsam kill on the device, those of dropped events too.
  private(set) var killCount = 0
  /// The kills of the event under way, in order, and their instant.
  private var killsUnderWay: [JetsamProcess] = []
  private var underWayAt = Instant.zero

  init(capacity: Int, byteCapacity: Int) {
    events = BoundedLog(capacity: capacity, byteCapacity: byteCapacity)
  }

  /// The number of the oldest event kept (the next one's if none is).
  var firstNumber: Int { events.dropped + 1 }

  /// The numbers of the events kept.
  var keptNumbers: Range<Int> { firstNumber..<(firstNumber + events.count) }

  /// Event `number`, if the log keeps it.
  func event(_ number: Int) -> JetsamEvent? {
    keptNumbers.contains(number) ? events[offset: number - firstNumber] : nil
  }

  /// Notes that jetsam killed `app` for `reason` at `time`; call before the kill changes its
  /// state.
  mutating func noteKill(of app: App, reason: JetsamReason, at time: Instant) {
    if killsUnderWay.isEmpty { underWayAt = time }
    killsUnderWay.append(JetsamProcess(app, reason: reason))
    killCount += 1
  }

  /// Whether jetsam has killed since the last event ended.
  var isEventUnderWay: Bool { !killsUnderWay.isEmpty }

  /// Ends the event under way, at the instant of its kills, its report listing `survivors`
  /// after them; returns the change in retained bytes.
  mutating func endEvent(survivors: [App], product: String, os: OSRelease) -> Int {
    var processes: [JetsamProcess] = []
    processes.reserveCapacity(killsUnderWay.count + survivors.count)  // as counted: no slack
    processes += killsUnderWay
    processes += survivors.lazy.map { JetsamProcess($0, reason: nil) }
    let event = JetsamEvent(
      time: underWayAt, product: product, os: os, processes: processes,
      killCount: killsUnderWay.count)
    killsUnderWay.removeAll(keepingCapacity: true)
    return events.append(event)
  }

  /// The log as it stands.
  var page: JetsamPage {
    let kept = Array(events)
    return JetsamPage(
      events: kept, firstNumber: firstNumber,
      droppedKills: killCount - kept.reduce(0) { $0 + $1.killCount })
  }
}
