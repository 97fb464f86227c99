import CPacing
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
        w.members(of: image.configuration)
      }
      w.members(of: image)
      if let journal {
        w.key("journal")
        w.object { w in
          w.key("entries")
          w.array(journal.entries) {
            pacing_pause()
            $0.journalEntry($1)
          }
          w.member("dropped", journal.dropped)
        }
      }
    }
  }

  /// An app: its configuration as it was created, what the system keeps of it, and its
  /// process if it runs.
  mutating func appImage(_ app: AppImage) {
    pacing_pause()
    object { w in
      w.member("name", app.spec.name)
      w.members(of: app.spec)
      w.members(of: app.record)
      if let process = app.process { w.object("process", process) }
    }
  }

  mutating func snapshotSession(_ session: SceneSession) {
    object { w in
      w.member("id", session.id)
      w.member("state", session.state)
      if let data = session.restorationData { w.member("restorationData", json: data) }
      if let data = session.savedRestorationData { w.member("savedRestorationData", json: data) }
    }
  }

  mutating func inactiveCause(_ cause: InactiveCause) {
    switch cause {
    case .switcher: unescaped("switcher")
    case .interruption(let source): enumCase(source)
    }
  }

  mutating func snapshotTask(_ task: BackgroundTask) {
    object { w in
      w.member("id", task.id)
      if let name = task.name { w.member("name", name) }
      if let time = task.expiredAt { w.member("expiredAt", time: time) }
    }
  }

  mutating func snapshotWork(_ work: BackgroundWork) {
    object { w in
      w.member("id", work.id)
      w.member("reason", work.reason)
      if let identifier = work.identifier { w.member("identifier", identifier) }
      if let deadline = work.deadline { w.member("deadline", time: deadline) }
      if let time = work.expiredAt { w.member("expiredAt", time: time) }
      if let progress = work.progress { w.member("progress", progress: progress) }
    }
  }

  mutating func waitingCallback(_ waiting: WaitingCallback) {
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
      case .metrics(let payloads):
        w.member("kind", "metricPayloads")
        w.key("metricPayloads")
        w.reports(payloads)
      case .diagnostics(let payloads):
        w.member("kind", "diagnosticPayloads")
        w.key("diagnosticPayloads")
        w.reports(payloads)
      case .metricReport(let payload):
        w.member("kind", "metricReport")
        w.key("metricPayload")
        w.object { $0.members(of: payload) }
      case .diagnosticReport(let crash):
        w.member("kind", "diagnosticReport")
        w.key("crashDiagnostic")
        w.object { $0.members(of: crash) }
      case .taskIdentifier(let identifier):
        w.member("kind", "taskIdentifier")
        w.member("identifier", identifier)
      }
    }
  }
}
