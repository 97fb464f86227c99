import JSONCore
import LifecycleEngine

// The snapshot document's forms: each field of a device's and an app's state as one member,
// its name, its type and its rule, which the writer (`JSONWriter.snapshot`) and the reader
// (`SnapshotFormat.image`) both follow; their configurations are the engine's forms
// (`ConfigurationForm`). `SnapshotFormTests` holds them to the contract's
// schemas, member by member.

extension DeviceImage: SnapshotForm {
  /// A device's state, after its configuration (`device`), in the document itself.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    members.time("now", &status.now, required: true)
    members.integer("seq", &seq, in: 0...SnapshotFormat.maxCount, required: true)
    members.bool("poweredOn", &status.poweredOn)
    members.bool("locked", &status.locked)
    members.bool("protectedDataAvailable", &status.protectedDataAvailable)
    members.time("protectedDataLocksAt", &status.protectedDataLocksAt)
    members.appName("foregroundApp", &status.foregroundApp)
    members.appName("appBeforeLock", &status.appBeforeLock)
    members.bool("memoryPressure", &status.underPressure)
    members.time("warningGraceEndsAt", &status.warningGraceEndsAt)
    members.object("conditions", &status.conditions)
    members.object("counters", &status.counters)
    members.version("osVersion", &status.osVersion)
    members.integer("bootSession", &status.bootSession, in: 1...SnapshotFormat.maxCount)
    members.array(
      "apps", &apps, maxCount: SnapshotFormat.maxElements, required: true,
      write: { $0.appImage($1) }, read: { SnapshotFormat.app(&$0, version: $1.version) })
  }
}

extension BackgroundConditions: SnapshotForm {
  /// A device's background conditions and scheduling policy (also the device view's).
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    members.integer("batteryLevel", &batteryLevel, in: Validation.batteryLevels)
    members.bool("charging", &charging)
    members.bool("lowPowerMode", &lowPowerMode)
    members.choice("network", &network)
    members.bool("backgroundAppRefresh", &backgroundAppRefresh)
    members.choice("taskScheduling", &taskScheduling)
    members.integer(
      "continuedProcessingCapacity", &continuedProcessingCapacity,
      in: Validation.continuedProcessingCapacities)
  }
}

extension DeviceCounters: SnapshotForm {
  /// A device's counters (also the device view's).
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    let counts = 0...SnapshotFormat.maxCount
    members.integer("events", &events, in: counts)
    members.integer("callbacks", &callbacks, in: counts)
    members.integer("transitions", &transitions, in: counts)
    members.integer("kills", &kills, in: counts)
  }
}

extension AppRecord: SnapshotForm {
  /// What the system keeps of an app across its processes, after the app's configuration.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    let counts = 0...SnapshotFormat.maxCount
    let elements = SnapshotFormat.maxElements
    members.version("version", &version)
    members.version("build", &build)
    members.integer("installation", &installation, in: 1...SnapshotFormat.maxCount)
    members.integer("launches", &launches, in: counts)
    members.integer("kills", &kills, in: counts)
    members.value(
      "pendingExits", &pendingExits, required: false, write: { $0.exitMetric($1) },
      read: { fields, name, _, _ in fields.exitCounts(name) })
    members.time("metricPeriodBegin", &metricPeriodBegin)
    members.time("updatedAt", &updatedAt)
    members.reports("metricPayloads", &metricPayloads)
    members.reports("diagnosticPayloads", &diagnosticPayloads)
    members.time("lastUsed", &lastUsed)
    members.integer("nextTaskId", &nextTaskID, in: 1...SnapshotFormat.maxCount)
    members.array(
      "taskRequests", &taskRequests, maxCount: elements, write: { $0.taskRequest($1) },
      read: { fields, _ in SnapshotFormat.taskRequest(&fields) })
    members.bool("backgroundLaunchBlocked", &backgroundLaunchBlocked)
    members.bool("backgroundAppRefresh", &backgroundAppRefresh)
    members.value(
      "recentPushes", &recentPushes, required: false,
      write: { w, times in w.array(times) { $0.seconds(milliseconds: $1.milliseconds) } },
      read: { fields, name, _, _ in
        fields.secondsArray(name, maxCount: elements, max: SnapshotFormat.maxSeconds)?.map {
          .zero + $0
        }
      })
    members.bool("restorationStateSaved", &restorationStateSaved)
    members.json("savedRestorationData", &savedRestorationData)
    members.array(
      "scenes", &sessions, maxCount: Validation.maxScenesPerApp,
      write: { $0.snapshotSession($1) }, read: { fields, _ in SnapshotFormat.session(&fields) })
    members.name("focusedScene", &focusedScene)
    members.names("discardedScenes", &discardedScenes, maxCount: Validation.maxScenesPerApp)
    members.optional(
      "lastTermination", &lastTermination, write: { $0.termination($1) },
      read: { fields, name, reading in
        fields.nested(name) { SnapshotFormat.termination(&$0, version: reading.version) }
      })
  }
}

extension RunContext: SnapshotForm {
  /// What a process ran with, in its termination (a snapshot's and the app view's). A snapshot
  /// written before the debugger was simulated leaves `debuggerAttached` out: not attached.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    let counts = 1...SnapshotFormat.maxCount
    members.version("appVersion", &appVersion, required: true)
    members.version("build", &build, required: true)
    members.version("osVersion", &osVersion, required: true)
    members.integer("bootSession", &bootSession, in: counts, required: true)
    members.integer("installation", &installation, in: counts, required: true)
    members.bool("debuggerAttached", &debuggerAttached)
  }

  /// What a context's members start from as they are read: each required one is then read.
  static let unread = RunContext(
    appVersion: "", build: "", osVersion: "", bootSession: 1, installation: 1,
    debuggerAttached: false)
}

extension ProcessImage: SnapshotForm {
  /// A running app's process.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    let elements = SnapshotFormat.maxElements
    members.choice("state", &state, required: true)
    members.optional(
      "inactiveCause", &inactiveCause, write: { $0.inactiveCause($1) },
      read: { fields, name, _ in fields.inactiveCause(name) })
    members.integer("memoryMB", &memoryMB, in: Validation.footprints, required: true)
    members.integer(
      "backgroundMemoryMB", &backgroundMemoryMB, in: Validation.footprints, required: true)
    members.time("backgroundSince", &backgroundSince)
    members.time("busyUntil", &busyUntil)
    members.time("watchdogKillAt", &watchdogKillAt)
    members.optional(
      "watchdogTransition", &watchdogTransition, write: { $0.watchdogTransition($1) },
      read: { fields, name, _ in fields.nested(name, SnapshotFormat.watchdogTransition) })
    members.array(
      "waitingCallbacks", &waitingCallbacks, maxCount: elements,
      write: { $0.waitingCallback($1) },
      read: { SnapshotFormat.waitingCallback(of: $1.app, version: $1.version, &$0) })
    members.array(
      "backgroundTasks", &tasks, maxCount: elements, write: { $0.snapshotTask($1) },
      read: { fields, _ in SnapshotFormat.task(&fields) })
    members.value(
      "backgroundWork", &backgroundWork, required: false,
      write: { w, work in w.array(work) { $0.snapshotWork($1) } },
      read: { fields, _, _, reading in
        SnapshotFormat.backgroundWork(&fields, version: reading.version)
      })
    members.choices("activities", &activities)
    members.bool("significantTimeChangePending", &significantTimeChangePending)
    members.bool("protectedDataAvailable", &protectedDataAvailable)
    members.time("suspendAt", &suspendAt)
    members.json("restorationData", &restorationData)
    members.bool("prewarmed", &prewarmed)
    members.bool("debuggerAttached", &debuggerAttached)
  }
}
