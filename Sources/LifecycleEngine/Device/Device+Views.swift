/// A read-only view of one app, as the API shows it: its configuration, what the system keeps
/// of it and its process (their fields read as the view's own: `view.launches`), and what
/// follows from them.
@dynamicMemberLookup
public struct AppView: Hashable, Sendable {
  public var device: String
  public var spec: AppSpec
  public var record: AppRecord
  /// In state `.notRunning` when the app has no process.
  public var process: ProcessImage
  /// The state of the focused scene (`unattached` without one); nil for app-delegate apps.
  public var sceneState: SceneState?
  /// What the app holds now (0 when not running).
  public var footprintMB: Int
  public var allowedEvents: [EventType]
  /// A callback that takes time (didFinishLaunching, willEnterForeground, didEnterBackground)
  /// is executing until then; nil once it has returned.
  public var busyUntil: Instant?
  /// When the watchdog, an unended expired task or unfinished background work kills the app.
  public var killAt: Instant?
  public var backgroundTasks: [BackgroundTaskSnapshot]
  /// The work of background launches not yet completed, oldest first.
  public var backgroundWork: [BackgroundWorkSnapshot]
  /// The app's pending task requests, each with what holds it back.
  public var taskRequests: [PendingTaskRequest]
  /// Whether protected data is available as far as the app has been told (a suspended app
  /// is told of a change when it next runs); for an app that is not running, the device's,
  /// which its next process reads.
  public var protectedDataAvailable: Bool

  public var name: String { spec.name }

  /// Callbacks waiting for the main thread, delivered at `busyUntil` (without `seq` and `time`
  /// until then).
  public var waitingCallbacks: WaitingCallbacks {
    WaitingCallbacks(queue: process.waitingCallbacks)
  }

  public subscript<Value>(dynamicMember field: KeyPath<AppRecord, Value>) -> Value {
    record[keyPath: field]
  }

  public subscript<Value>(dynamicMember field: KeyPath<ProcessImage, Value>) -> Value {
    process[keyPath: field]
  }
}

/// A background task of an app.
public struct BackgroundTaskSnapshot: Hashable, Sendable {
  public var id: Int
  public var name: String?
  /// When its expiration handler runs; nil while the app is in the foreground.
  public var expiresAt: Instant?
  /// Its expiration handler ran without ending it.
  public var expired: Bool
}

/// A pending task request and why it has not run ("why hasn't my task run?").
public struct PendingTaskRequest: Hashable, Sendable {
  public var request: TaskRequest
  /// Empty when nothing holds it back: under `eager` it runs at once.
  public var heldBy: [HoldReason]
}

/// Background work handed to an app by a background launch.
public struct BackgroundWorkSnapshot: Hashable, Sendable {
  /// What `backgroundWorkCompleted` names it by.
  public var id: Int
  public var reason: BackgroundLaunchReason
  /// The background `URLSession`'s identifier, for `urlSession` work.
  public var identifier: String?
  /// When its time is up: the app is killed then if it has not called its completion handler,
  /// or a `BGTask`'s expiration handler runs. Nil for a continued-processing task.
  public var deadline: Instant?
  /// A `BGTask`'s expiration handler ran without completing it (the app dies at `killAt`).
  public var expired: Bool = false
  /// What a continued-processing task last reported of its progress.
  public var progress: TaskProgress?
}

/// Which state a device is in, for optimistic concurrency (`ETag` and `If-Match` over HTTP):
/// it changes with every journal entry, and a reset or re-created device never repeats one of
/// its predecessor's.
public struct DeviceVersion: Hashable, Sendable {
  /// Which device under this id: the engine numbers every device it creates.
  public var incarnation: Int
  /// The journal's last `seq` (0 before the first entry).
  public var seq: Int
}

/// A read-only view of one device, as the API shows it.
@dynamicMemberLookup
public struct DeviceView: Hashable, Sendable {
  /// Its fields read as the view's own (`view.clock`).
  public var configuration: DeviceConfiguration
  /// Its model's identifier (`iPhone16,1`); the configuration's `model` is its name.
  public var modelIdentifier: String
  /// The release it runs now.
  public var osRelease: OSRelease
  /// The memory its apps live under: the model's, or what the configuration gives instead.
  public var memory: MemoryLimits
  /// The device's own state, its fields read as the view's own (`view.locked`).
  public var status: DeviceStatus
  public var apps: Int
  /// The journal's last `seq` (0 before the first entry).
  public var lastSeq: Int
  public var usedMB: Int
  /// Used memory exceeds the limit (a pressure episode is under way).
  public var pressure: Bool
  public var allowedEvents: [EventType]
  public var nextDeadline: Instant?
  public var journalEntries: Int
  public var journalDropped: Int
  public var jetsamKills: Int

  public subscript<Value>(dynamicMember field: KeyPath<DeviceStatus, Value>) -> Value {
    status[keyPath: field]
  }

  public subscript<Value>(dynamicMember field: KeyPath<DeviceConfiguration, Value>) -> Value {
    configuration[keyPath: field]
  }
}

extension Device {
  /// The release the device runs now. (Its version is one its model runs: checked when it is
  /// made, restored or updated; the fallback names the version alone.)
  var osRelease: OSRelease {
    profile.release(status.osVersion)
      ?? OSRelease(version: status.osVersion, build: "", source: "")
  }

  var view: DeviceView {
    DeviceView(
      configuration: configuration, modelIdentifier: profile.identifier, osRelease: osRelease,
      memory: profile.memory, status: status, apps: apps.count, lastSeq: version.seq,
      usedMB: usedMB,
      pressure: isOverLimit, allowedEvents: allowedDeviceEvents, nextDeadline: nextDeadline,
      journalEntries: journal.count, journalDropped: journal.dropped,
      jetsamKills: jetsamLog.killCount)
  }

  func appView(of app: App) -> AppView {
    let expiresAt = app.deadlines.backgroundTimeExpiry
    // Counted once for the app's queued continued-processing requests, not once each.
    let runningContinued =
      continuedTaskQueuers.contains(app.name) ? runningContinuedTasks : nil
    let killAt = [
      app.deadlines.watchdogKill, app.deadlines.expirationKill,
      app.deadlines.backgroundWorkTimeout,
    ].compactMap { $0 }.min()
    return AppView(
      device: id, spec: app.spec, record: app.record, process: app.process,
      sceneState: app.isScene ? app.sceneState : nil, footprintMB: app.footprint,
      allowedEvents: allowedEvents(for: app),
      busyUntil: app.isBusy(at: status.now) ? app.busyUntil : nil,
      killAt: killAt,
      backgroundTasks: app.tasks.map {
        BackgroundTaskSnapshot(
          id: $0.id, name: $0.name, expiresAt: $0.expiredAt ?? expiresAt,
          expired: $0.expiredAt != nil)
      },
      backgroundWork: app.backgroundWork.map {
        BackgroundWorkSnapshot(
          id: $0.id, reason: $0.reason, identifier: $0.identifier, deadline: $0.deadline,
          expired: $0.expiredAt != nil, progress: $0.progress)
      },
      taskRequests: app.taskRequests.map {
        PendingTaskRequest(
          request: $0, heldBy: holdReasons(for: $0, of: app, runningContinued: runningContinued))
      },
      protectedDataAvailable: app.state == .notRunning
        ? status.protectedDataAvailable : app.protectedDataAvailable)
  }
}

extension AppView {
  /// `UIDevice.identifierForVendor` as the app's code reads it: a UUID the same for every
  /// process of one installation and new with each `reinstall` (each app is its own vendor
  /// here). Made from the app's name and its installation, so that a snapshot restores it.
  public var identifierForVendor: String {
    identifierForVendor(installation: record.installation)
  }

  /// The identifier of the app's installation `installation`.
  public func identifierForVendor(installation: Int) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits
    for byte in name.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    func hex(_ value: UInt64, _ digits: Int) -> String {
      let text = String(value, radix: 16, uppercase: true)
      return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
    let count = UInt64(installation)
    return "\(hex(hash >> 32, 8))-\(hex(hash >> 16 & 0xFFFF, 4))-4\(hex(hash >> 4 & 0xFFF, 3))-"
      + "8\(hex(count >> 48 & 0xFFF, 3))-\(hex(count & 0xFFFF_FFFF_FFFF, 12))"
  }
}
