/// A device's heaps over its apps: each app's earliest deadline, and jetsam's orders of
/// suspended and of background victims.
///
/// A change to an app is noted, and filed when the heaps are next read. An event moves an app
/// through several states (a launch through background, inactive and active), and only the
/// last needs filing; most events are read by nothing before the next (jetsam reads its
/// victims only over the memory limit, and a manual clock reads deadlines only when it moves).
/// Every read files first, so a reader sees the heaps as if each change had been filed at once.
struct AppQueues {
  private var deadlines = IndexedHeap<DeadlineOrder>()
  private var suspendedVictims = IndexedHeap<VictimOrder>()
  private var backgroundVictims = IndexedHeap<VictimOrder>()
  /// The apps changed since the heaps last filed them, each once (`App.isUnfiled`): at most
  /// the device's apps.
  private var changed: [App] = []

  /// Notes that `app`'s deadlines (`App.deadlines`) or its place among jetsam's victims may
  /// have changed.
  mutating func noteChange(of app: App) {
    guard !app.isUnfiled else { return }
    app.isUnfiled = true
    changed.append(app)
  }

  /// The earliest deadline of any app, and the app's slot.
  var earliestDeadline: (slot: Int, order: DeadlineOrder)? {
    mutating get {
      fileChanges()
      return deadlines.min.map { ($0.slot, $0.priority) }
    }
  }

  /// Removes the earliest deadline of any app, and returns it with the app's slot.
  mutating func popEarliestDeadline() -> (slot: Int, order: DeadlineOrder)? {
    fileChanges()
    return deadlines.popMin().map { ($0.slot, $0.priority) }
  }

  /// The slot of the suspended app jetsam kills first.
  var firstSuspendedVictim: Int? {
    mutating get {
      fileChanges()
      return suspendedVictims.min?.slot
    }
  }

  /// The slot of the background app jetsam kills first.
  var firstBackgroundVictim: Int? {
    mutating get {
      fileChanges()
      return backgroundVictims.min?.slot
    }
  }

  /// Takes `app` out of every heap: it is being deleted.
  mutating func remove(_ app: App) {
    fileChanges()
    deadlines.remove(app.slot)
    suspendedVictims.remove(app.slot)
    backgroundVictims.remove(app.slot)
  }

  /// Files each changed app under its earliest deadline, and under the victims of its state
  /// if it is suspended or in the background.
  private mutating func fileChanges() {
    guard !changed.isEmpty else { return }
    for app in changed {
      app.isUnfiled = false
      deadlines.set(
        app.slot,
        to: app.deadlines.next.map { DeadlineOrder(time: $0.time, app: app.name, kind: $0.kind) })
      let state = app.state
      let order = state == .suspended || state == .background ? VictimOrder(of: app) : nil
      suspendedVictims.set(app.slot, to: state == .suspended ? order : nil)
      backgroundVictims.set(app.slot, to: state == .background ? order : nil)
    }
    changed.removeAll(keepingCapacity: true)
  }
}

/// Order in which apps' deadlines fire: by time, then app name, then kind.
struct DeadlineOrder: Comparable {
  let time: Instant
  let app: AppName
  let kind: DeadlineKind

  static func < (lhs: DeadlineOrder, rhs: DeadlineOrder) -> Bool {
    if lhs.time != rhs.time { return lhs.time < rhs.time }
    if lhs.app != rhs.app { return lhs.app < rhs.app }
    return lhs.kind < rhs.kind
  }
}

/// Jetsam's priority bands for apps not in the foreground, lowest (killed first) first
/// (XNU's `kern_memorystatus.h` priority bands: BACKGROUND 3 < AUDIO_AND_ACCESSORY 12).
enum JetsamBand: Int, Comparable {
  case background, audioAndAccessory
  /// The foreground app: never a victim of pressure, but last when UIKit reclaims scenes.
  case foreground

  static func < (lhs: JetsamBand, rhs: JetsamBand) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Jetsam's order of victims: lowest band first, then largest footprint, then least recently
/// used, then name.
struct VictimOrder: Comparable {
  let band: JetsamBand
  let footprint: Int
  let lastUsed: Instant
  let app: AppName

  static func < (lhs: VictimOrder, rhs: VictimOrder) -> Bool {
    if lhs.band != rhs.band { return lhs.band < rhs.band }
    if lhs.footprint != rhs.footprint { return lhs.footprint > rhs.footprint }
    if lhs.lastUsed != rhs.lastUsed { return lhs.lastUsed < rhs.lastUsed }
    return lhs.app < rhs.app
  }
}

extension VictimOrder {
  /// Where `app` stands in the order. (In an extension, which keeps the memberwise
  /// initializer it builds the order with.)
  init(of app: App) {
    let band: JetsamBand =
      app.state.isForeground
      ? .foreground : app.activities.contains(.audio) ? .audioAndAccessory : .background
    self.init(band: band, footprint: app.footprint, lastUsed: app.lastUsed, app: app.name)
  }
}
