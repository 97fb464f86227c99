import LifecycleEngine

/// The JSON shapes of the engine's values (SPEC section 5; described in `openapi.yaml`).
enum View {
  static func time(_ instant: Instant?) -> JSON {
    instant.map { .double($0.seconds) } ?? .null
  }

  static func strings(_ values: [some RawRepresentable<String>]) -> JSON {
    .array(values.map { .string($0.rawValue) })
  }

  static func device(_ device: DeviceSnapshot) -> JSON {
    .object([
      ("id", .string(device.id)), ("clock", .string(device.clock.rawValue)),
      ("now", time(device.now)), ("locked", .bool(device.locked)),
      ("passcode", .bool(device.passcode)),
      ("foregroundApp", device.foregroundApp.map(JSON.string) ?? .null),
      ("apps", .integer(device.apps)),
      (
        "memory",
        .object([
          ("usedMB", .integer(device.usedMB)), ("limitMB", .integer(device.memoryLimitMB)),
          ("perAppLimitMB", .integer(device.perAppLimitMB)), ("pressure", .bool(device.pressure)),
        ])
      ),
      ("allowedEvents", strings(device.allowedEvents)),
      ("nextDeadline", time(device.nextDeadline)),
      (
        "counters",
        .object([
          ("events", .integer(device.counters.events)),
          ("callbacks", .integer(device.counters.callbacks)),
          ("transitions", .integer(device.counters.transitions)),
          ("kills", .integer(device.counters.kills)),
          ("jetsamKills", .integer(device.jetsamKills)),
          ("journalEntries", .integer(device.journalEntries)),
          ("journalDropped", .integer(device.journalDropped)),
        ])
      ),
    ])
  }

  static func app(_ app: AppSnapshot) -> JSON {
    .object([
      ("name", .string(app.name)), ("device", .string(app.device)),
      ("lifecycle", .string(app.lifecycle.rawValue)), ("state", .string(app.state.rawValue)),
      ("sceneState", app.sceneState.map { .string($0.rawValue) } ?? .null),
      ("memoryMB", .integer(app.memoryMB)),
      ("backgroundMemoryMB", .integer(app.backgroundMemoryMB)),
      ("footprintMB", .integer(app.footprintMB)),
      ("backgroundModes", strings(app.backgroundModes)),
      (
        "behavior",
        .object([
          (
            "didEnterBackgroundSeconds",
            .double(app.behavior.didEnterBackgroundDuration.secondsValue)
          ),
          ("endsBackgroundTasksOnExpiration", .bool(app.behavior.endsBackgroundTasksOnExpiration)),
        ])
      ),
      ("allowedEvents", strings(app.allowedEvents)),
      ("busyUntil", time(app.busyUntil)), ("suspendAt", time(app.suspendAt)),
      ("killAt", time(app.killAt)),
      (
        "backgroundTasks",
        .array(
          app.backgroundTasks.map { task in
            .object([
              ("id", .integer(task.id)), ("name", task.name.map(JSON.string) ?? .null),
              ("expiresAt", time(task.expiresAt)), ("expired", .bool(task.expired)),
            ])
          })
      ),
      (
        "backgroundWork",
        app.backgroundWork.map { work in
          .object([("reason", .string(work.reason.rawValue)), ("deadline", time(work.deadline))])
        } ?? .null
      ),
      ("significantTimeChangePending", .bool(app.significantTimeChangePending)),
      ("backgroundLaunchBlocked", .bool(app.backgroundLaunchBlocked)),
      ("restorationStateSaved", .bool(app.restorationStateSaved)),
      (
        "counters", .object([("launches", .integer(app.launches)), ("kills", .integer(app.kills))])
      ),
    ])
  }

  static func callback(_ callback: Callback) -> JSON {
    var members: [(String, JSON)] = [
      ("seq", .integer(callback.seq)), ("time", time(callback.time)),
      ("app", .string(callback.app)), ("scene", callback.scene.map(JSON.string) ?? .null),
      ("method", .string(callback.method.rawValue)),
      ("notifications", .array(callback.notifications.map(JSON.string))),
      ("state", .string(callback.state.rawValue)),
    ]
    if let sceneState = callback.sceneState {
      members.append(("sceneState", .string(sceneState.rawValue)))
    }
    if let taskId = callback.taskId { members.append(("taskId", .integer(taskId))) }
    return .object(members)
  }

  static func transition(_ transition: Transition) -> JSON {
    var members: [(String, JSON)] = [
      ("seq", .integer(transition.seq)), ("time", time(transition.time)),
      ("app", .string(transition.app)), ("from", .string(transition.from.rawValue)),
      ("to", .string(transition.to.rawValue)), ("cause", .string(transition.cause.name)),
    ]
    if let code = transition.terminationCode {
      members.append(("terminationCode", .string(code.rawValue)))
    }
    if case .jetsam(let reason) = transition.cause {
      members.append(("jetsamReason", .string(reason.rawValue)))
    }
    return .object(members)
  }

  static func result(_ result: EventResult?) -> JSON {
    switch result {
    case .backgroundTask(let id, let expiresAt):
      .object([("taskId", .integer(id)), ("expiresAt", time(expiresAt))])
    case nil:
      .null
    }
  }

  static func jetsamRecord(_ record: JetsamRecord) -> JSON {
    .object([
      ("time", time(record.time)), ("app", .string(record.app)),
      ("reason", .string(record.reason.rawValue)), ("footprintMB", .integer(record.footprintMB)),
      ("state", .string(record.state.rawValue)),
    ])
  }

  static func journalEntry(_ entry: JournalEntry) -> JSON {
    switch entry {
    case .callback(let callback):
      .object([("kind", .string("callback")), ("callback", View.callback(callback))])
    case .transition(let transition):
      .object([("kind", .string("transition")), ("transition", View.transition(transition))])
    case .event(let seq, let time, let app, let event):
      .object([
        ("kind", .string("event")), ("seq", .integer(seq)), ("time", View.time(time)),
        ("app", app.map(JSON.string) ?? .null), ("event", View.event(event)),
      ])
    }
  }

  /// An event as its request body wrote it.
  static func event(_ event: RecordedEvent) -> JSON {
    switch event {
    case .device(let event): .object([("type", .string(event.rawValue))])
    case .app(let event): .object([("type", .string(event.type.rawValue))] + parameters(of: event))
    }
  }

  private static func parameters(of event: AppEvent) -> [(String, JSON)] {
    switch event {
    case .launch(let url?): [("url", .string(url))]
    case .interruptionBegan(let source): [("source", .string(source.rawValue))]
    case .interruptionEnded(let outcome): [("outcome", .string(outcome.rawValue))]
    case .purge(let reason): [("reason", .string(reason.rawValue))]
    case .backgroundLaunch(let reason): [("reason", .string(reason.rawValue))]
    case .beginBackgroundTask(let name?): [("name", .string(name))]
    case .endBackgroundTask(let id): [("id", .integer(id))]
    case .setMemory(let megabytes): [("memoryMB", .integer(megabytes))]
    default: []
    }
  }
}
