import JSONCore
import LifecycleEngine

extension JSONWriter {
  /// A device's snapshot document, with no member that has no value; with its journal if
  /// given (for reading: a restore refuses it).
  mutating func snapshot(_ image: DeviceImage, journal: JournalPage?) {
    object { w in
      w.member("format", SnapshotFormat.format)
      w.member("version", SnapshotFormat.version)
      w.key("device")
      w.object { w in
        w.member("id", image.id)
        w.member("clock", image.clock)
        w.member("memoryLimitMB", image.memoryLimitMB)
        w.member("perAppLimitMB", image.perAppLimitMB)
        w.member("passcode", image.passcode)
        w.key("labels")
        w.labels(image.labels)
        if let timeout = image.idleTimeout { w.member("idleTimeoutSeconds", seconds: timeout) }
      }
      w.member("now", time: image.status.now)
      w.member("seq", image.seq)
      w.member("poweredOn", image.status.poweredOn)
      w.member("locked", image.status.locked)
      w.member("protectedDataAvailable", image.status.protectedDataAvailable)
      let status = image.status
      if let time = status.protectedDataLocksAt { w.member("protectedDataLocksAt", time: time) }
      if let app = status.foregroundApp { w.member("foregroundApp", app) }
      if let app = status.appBeforeLock { w.member("appBeforeLock", app) }
      w.member("memoryPressure", status.underPressure)
      if let time = status.warningGraceEndsAt { w.member("warningGraceEndsAt", time: time) }
      w.key("conditions")
      w.conditions(status.conditions)
      w.key("counters")
      w.object { $0.counterMembers(image.status.counters) }
      w.key("apps")
      w.array(image.apps) { $0.appImage($1) }
      if let journal {
        w.key("journal")
        w.object { w in
          w.key("entries")
          w.array(journal.entries) { $0.journalEntry($1) }
          w.member("dropped", journal.dropped)
        }
      }
    }
  }

  private mutating func appImage(_ app: AppImage) {
    object { w in
      w.member("name", app.spec.name)
      w.member("lifecycle", app.spec.lifecycle)
      w.member("memoryMB", app.spec.memoryMB)
      w.member("backgroundMemoryMB", app.spec.backgroundMemoryMB ?? app.spec.memoryMB)
      w.member("backgroundModes", app.spec.backgroundModes)
      w.key("behavior")
      w.behavior(app.spec.behavior)
      w.member("supportsMultipleScenes", app.spec.supportsMultipleScenes)
      w.member("sceneMemoryMB", app.spec.sceneMemoryMB)
      w.member("permittedTaskIdentifiers", app.spec.permittedTaskIdentifiers)
      w.member("launches", app.record.launches)
      w.member("kills", app.record.kills)
      w.key("pendingExits")
      w.exitMetric(app.record.pendingExits)
      w.member("lastUsed", time: app.record.lastUsed)
      w.member("nextTaskId", app.record.nextTaskID)
      w.key("taskRequests")
      w.array(app.record.taskRequests) { $0.taskRequest($1) }
      w.member("backgroundLaunchBlocked", app.record.backgroundLaunchBlocked)
      w.member("backgroundAppRefresh", app.record.backgroundAppRefresh)
      w.key("recentPushes")
      w.array(app.record.recentPushes) { $0.seconds(milliseconds: $1.milliseconds) }
      w.member("restorationStateSaved", app.record.restorationStateSaved)
      if let data = app.record.savedRestorationData { w.member("savedRestorationData", json: data) }
      w.key("scenes")
      w.array(app.record.sessions) { w, session in
        w.object { w in
          w.member("id", session.id)
          w.member("state", session.state)
          if let data = session.restorationData { w.member("restorationData", json: data) }
          if let data = session.savedRestorationData {
            w.member("savedRestorationData", json: data)
          }
        }
      }
      if let scene = app.record.focusedScene { w.member("focusedScene", scene) }
      w.member("discardedScenes", app.record.discardedScenes)
      if let termination = app.record.lastTermination {
        w.key("lastTermination")
        w.termination(termination)
      }
      if let process = app.process {
        w.key("process")
        w.processImage(process)
      }
    }
  }

  private mutating func processImage(_ process: ProcessImage) {
    object { w in
      w.member("state", process.state)
      switch process.inactiveCause {
      case .switcher: w.member("inactiveCause", "switcher")
      case .interruption(let source): w.member("inactiveCause", source)
      case nil: break
      }
      w.member("memoryMB", process.memoryMB)
      w.member("backgroundMemoryMB", process.backgroundMemoryMB)
      if let time = process.backgroundSince { w.member("backgroundSince", time: time) }
      if let time = process.busyUntil { w.member("busyUntil", time: time) }
      if let time = process.watchdogKillAt { w.member("watchdogKillAt", time: time) }
      w.key("waitingCallbacks")
      w.array(process.waitingCallbacks) { $0.waitingCallback($1) }
      w.key("backgroundTasks")
      w.array(process.tasks) { w, task in
        w.object { w in
          w.member("id", task.id)
          if let name = task.name { w.member("name", name) }
          if let time = task.expiredAt { w.member("expiredAt", time: time) }
        }
      }
      w.key("backgroundWork")
      w.array(process.backgroundWork) { w, work in
        w.object { w in
          w.member("id", work.id)
          w.member("reason", work.reason)
          if let identifier = work.identifier { w.member("identifier", identifier) }
          w.member("deadline", time: work.deadline)
          if let time = work.expiredAt { w.member("expiredAt", time: time) }
        }
      }
      w.member("activities", process.activities)
      w.member("significantTimeChangePending", process.significantTimeChangePending)
      w.member("protectedDataAvailable", process.protectedDataAvailable)
      if let time = process.suspendAt { w.member("suspendAt", time: time) }
      if let data = process.restorationData { w.member("restorationData", json: data) }
      w.member("prewarmed", process.prewarmed)
    }
  }

  private mutating func waitingCallback(_ waiting: WaitingCallback) {
    let callback = waiting.callback
    object { w in
      w.member("method", callback.method)
      if let name = callback.aggregateNotification { w.member("notification", name) }
      w.member("state", callback.state)
      if let scene = callback.scene { w.member("scene", scene) }
      if let state = callback.sceneState { w.member("sceneState", state) }
      if let taskId = callback.taskId { w.member("taskId", taskId) }
      w.members(of: waiting.cause)
      if let arguments = callback.arguments {
        w.key("arguments")
        w.snapshotArguments(arguments)
      }
    }
  }
}

// A waiting callback's arguments in a snapshot: their `kind`, the entry as a `launch` event
// names it, the restoration data, a push's payload, a URL session's identifier.

extension JSONWriter {
  fileprivate mutating func snapshotArguments(_ arguments: CallbackArguments) {
    object { w in
      switch arguments {
      case .launchOptions(let entry):
        w.member("kind", "launchOptions")
        w.members(of: entry)
      case .connectionOptions(let entry, let data):
        w.member("kind", "connectionOptions")
        if let entry { w.members(of: entry) }
        if let data { w.member("restorationData", json: data) }
      case .entry(let entry):
        w.member("kind", "entry")
        w.members(of: entry)
      case .restorationData(let data):
        w.member("kind", "restorationData")
        w.member("restorationData", json: data)
      case .sessions(let ids):
        w.member("kind", "sessions")
        w.member("sessions", ids)
      case .backgroundLaunchOptions(.remoteNotification(let payload)):
        w.member("kind", "pushLaunchOptions")
        w.member("payload", json: payload)
      case .backgroundLaunchOptions(.location):
        w.member("kind", "locationLaunchOptions")
      case .userInfo(let payload):
        w.member("kind", "userInfo")
        w.member("payload", json: payload)
      case .sessionIdentifier(let identifier):
        w.member("kind", "sessionIdentifier")
        w.member("identifier", identifier)
      case .exitMetrics(let exits):
        w.member("kind", "exitMetrics")
        w.key("exits")
        w.exitMetric(exits)
      case .taskIdentifier(let identifier):
        w.member("kind", "taskIdentifier")
        w.member("identifier", identifier)
      }
    }
  }
}
