import JSONCore
import LifecycleEngine

/// The snapshot document's forms: each field of a device's and an app's state as one member,
/// its name, its type and its rule, which the writer (`JSONWriter.snapshot`) and the reader
/// (`SnapshotFormat.image`) both follow. `SnapshotFormTests` holds them to the contract's
/// schemas, member by member.
extension SnapshotFormat {
  /// A device's state, after its configuration (`device`), in the document itself.
  static let deviceMembers: [SnapshotMember<DeviceImage>] = [
    .time("now", \.status.now, required: true),
    .integer("seq", \.seq, in: 0...maxCount, required: true),
    .bool("poweredOn", \.status.poweredOn),
    .bool("locked", \.status.locked),
    .bool("protectedDataAvailable", \.status.protectedDataAvailable),
    .time("protectedDataLocksAt", \.status.protectedDataLocksAt),
    .appName("foregroundApp", \.status.foregroundApp),
    .appName("appBeforeLock", \.status.appBeforeLock),
    .bool("memoryPressure", \.status.underPressure),
    .time("warningGraceEndsAt", \.status.warningGraceEndsAt),
    .object("conditions", \.status.conditions, conditionsMembers),
    .object("counters", \.status.counters, counterMembers),
    .array(
      "apps", \.apps, maxCount: maxElements, required: true, write: { $0.appImage($1) },
      read: { app(&$0, version: $1.version) }),
  ]

  /// A device's background conditions and scheduling policy (also the device view's).
  static let conditionsMembers: [SnapshotMember<BackgroundConditions>] = [
    .integer("batteryLevel", \.batteryLevel, in: 0...100),
    .bool("charging", \.charging),
    .bool("lowPowerMode", \.lowPowerMode),
    .choice("network", \.network),
    .bool("backgroundAppRefresh", \.backgroundAppRefresh),
    .choice("taskScheduling", \.taskScheduling),
  ]

  /// A device's counters (also the device view's).
  static let counterMembers: [SnapshotMember<DeviceCounters>] = [
    .integer("events", \.events, in: 0...maxCount),
    .integer("callbacks", \.callbacks, in: 0...maxCount),
    .integer("transitions", \.transitions, in: 0...maxCount),
    .integer("kills", \.kills, in: 0...maxCount),
  ]

  /// What the system keeps of an app across its processes (`AppRecord`), after the app's
  /// configuration.
  static let recordMembers: [SnapshotMember<AppRecord>] = [
    .integer("launches", \.launches, in: 0...maxCount),
    .integer("kills", \.kills, in: 0...maxCount),
    .value(
      "pendingExits", \.pendingExits, write: { $0.exitMetric($1) },
      read: { fields, name, _ in fields.exitCounts(name) }),
    .time("lastUsed", \.lastUsed),
    .integer("nextTaskId", \.nextTaskID, in: 1...maxCount),
    .array(
      "taskRequests", \.taskRequests, maxCount: maxElements, write: { $0.taskRequest($1) },
      read: { fields, _ in taskRequest(&fields) }),
    .bool("backgroundLaunchBlocked", \.backgroundLaunchBlocked),
    .bool("backgroundAppRefresh", \.backgroundAppRefresh),
    .value(
      "recentPushes", \.recentPushes,
      write: { w, times in w.array(times) { $0.seconds(milliseconds: $1.milliseconds) } },
      read: { fields, name, _ in
        fields.secondsArray(name, maxCount: maxElements, max: maxSeconds)?.map { .zero + $0 }
      }),
    .bool("restorationStateSaved", \.restorationStateSaved),
    .json("savedRestorationData", \.savedRestorationData),
    .array(
      "scenes", \.sessions, maxCount: Validation.maxScenesPerApp,
      write: { $0.snapshotSession($1) }, read: { fields, _ in session(&fields) }),
    .name("focusedScene", \.focusedScene),
    .names("discardedScenes", \.discardedScenes, maxCount: Validation.maxScenesPerApp),
    .optional(
      "lastTermination", \.lastTermination, write: { $0.termination($1) },
      read: { fields, name in fields.nested(name, termination) }),
  ]

  /// A running app's process (`ProcessImage`).
  static let processMembers: [SnapshotMember<ProcessImage>] = [
    .choice("state", \.state, required: true),
    .optional(
      "inactiveCause", \.inactiveCause, write: { $0.inactiveCause($1) },
      read: { fields, name in fields.inactiveCause(name) }),
    .integer("memoryMB", \.memoryMB, in: 0...Validation.maxMemoryMB, required: true),
    .integer(
      "backgroundMemoryMB", \.backgroundMemoryMB, in: 0...Validation.maxMemoryMB, required: true),
    .time("backgroundSince", \.backgroundSince),
    .time("busyUntil", \.busyUntil),
    .time("watchdogKillAt", \.watchdogKillAt),
    .array(
      "waitingCallbacks", \.waitingCallbacks, maxCount: maxElements,
      write: { $0.waitingCallback($1) }, read: { waitingCallback(of: $1.app, &$0) }),
    .array(
      "backgroundTasks", \.tasks, maxCount: maxElements, write: { $0.snapshotTask($1) },
      read: { fields, _ in task(&fields) }),
    SnapshotMember(
      "backgroundWork",
      write: { w, process in
        w.key("backgroundWork")
        w.array(process.backgroundWork) { $0.snapshotWork($1) }
      },
      read: { fields, process, reading in
        if let work = backgroundWork(&fields, version: reading.version) {
          process.backgroundWork = work
        }
      }),
    .choices("activities", \.activities),
    .bool("significantTimeChangePending", \.significantTimeChangePending),
    .bool("protectedDataAvailable", \.protectedDataAvailable),
    .time("suspendAt", \.suspendAt),
    .json("restorationData", \.restorationData),
    .bool("prewarmed", \.prewarmed),
  ]
}
