import OpenAPIRuntime

/// One simulated device of a lifecycled server: its apps, device events, its clock, its
/// journal and snapshots. A handle: it holds the device's id, and each call is a request.
public struct SimulatedDevice: Sendable {
  public let id: String
  let lifecycled: Lifecycled

  /// Fetches the device as it is now (a request): lock state, memory, deadlines, counters.
  public func fetch() async throws -> Components.Schemas.Device {
    try await lifecycled.send { try await $0.getDevice(path: .init(device: id)) }.ok.body.json
  }

  /// Creates an app, not running, as `app` declares it (`.init(name: "mail")`).
  public func createApp(_ app: Components.Schemas.AppCreate) async throws -> SimulatedApp {
    let created = try await lifecycled.send {
      try await $0.createApp(path: .init(device: id), body: .json(app))
    }
    return self.app(try created.created.body.json.name)
  }

  /// Creates an app, not running: a scene-based app with one window unless told. Its
  /// `permittedTaskIdentifiers` are its `BGTaskSchedulerPermittedIdentifiers`; its `behavior`
  /// says how its code acts (a slow `didEnterBackground`, tasks not ended on expiration, a
  /// file lock held at suspension). ``createApp(_:)`` takes every field of the contract.
  public func createApp(
    _ name: String, lifecycle: Components.Schemas.Lifecycle? = nil,
    backgroundModes: [Components.Schemas.BackgroundMode]? = nil, memoryMB: Int? = nil,
    supportsMultipleScenes: Bool? = nil, permittedTaskIdentifiers: [String]? = nil,
    behavior: Components.Schemas.AppBehaviorSettings? = nil
  ) async throws -> SimulatedApp {
    try await createApp(
      .init(
        name: name, lifecycle: lifecycle, memoryMB: memoryMB, backgroundModes: backgroundModes,
        behavior: behavior, supportsMultipleScenes: supportsMultipleScenes,
        permittedTaskIdentifiers: permittedTaskIdentifiers))
  }

  /// The app `name` of this device, without asking the server.
  public func app(_ name: String) -> SimulatedApp {
    SimulatedApp(device: self, name: name)
  }

  /// Posts a device event (home, lock, memory warning, ...): what each app did.
  @discardableResult
  public func post(_ event: Components.Schemas.DeviceEvent) async throws
    -> Components.Schemas.DeviceEventResponse
  {
    let answer = try await lifecycled.send {
      try await $0.postDeviceEvent(path: .init(device: id), body: .json(.DeviceEvent(event)))
    }
    guard case .DeviceEventResponse(let response) = try answer.ok.body.json else {
      throw LifecycledClientError.unexpectedAnswer("a scenario's results for one event")
    }
    return response
  }

  /// Moves the device's clock forward by `duration`, firing every deadline on the way.
  @discardableResult
  public func advanceClock(by duration: Duration) async throws -> Components.Schemas.ClockAdvance {
    try await advanceClock(.AdvanceBySeconds(.init(seconds: duration.seconds)))
  }

  /// Moves the device's clock to its next deadline, firing it and every other due then.
  @discardableResult
  public func advanceToNextDeadline() async throws -> Components.Schemas.ClockAdvance {
    try await advanceClock(.AdvanceToNextDeadline(.init(to: .nextDeadline)))
  }

  private func advanceClock(_ body: Operations.AdvanceClock.Input.Body.JsonPayload) async throws
    -> Components.Schemas.ClockAdvance
  {
    try await lifecycled.send {
      try await $0.advanceClock(path: .init(device: id), body: .json(body))
    }.ok.body.json
  }

  /// The journal's entries after `since`, of one `kind` or `app` if given: a page of at most
  /// the server's page size (`hasMore` says if more follow).
  public func journal(
    since: JournalPosition = .start, kind: Components.Schemas.JournalEntryKind? = nil,
    app: String? = nil
  ) async throws -> Components.Schemas.Journal {
    try await lifecycled.send {
      try await $0.getJournal(
        path: .init(device: id), query: .init(since: since.parameter, kind: kind, app: app))
    }.ok.body.json
  }

  /// The journal as it happens: its entries after `since`, then each new one as the device
  /// records it, until the stream ends (``JournalStream``). `.latest` is the device's last
  /// entry now, when the stream is made: what happens after this call is streamed, however
  /// late the iteration starts.
  public func journalStream(
    since: JournalPosition = .start, kind: Components.Schemas.JournalEntryKind? = nil,
    app: String? = nil
  ) async throws -> JournalStream {
    let position = since == .latest ? .after(seq: try await fetch().lastSeq) : since
    return JournalStream(device: self, since: position, kind: kind, app: app)
  }

  /// The apps jetsam killed, most recent last, each with the number of its jetsam event.
  public func jetsamLog() async throws -> Components.Schemas.JetsamLog {
    try await lifecycled.send { try await $0.getJetsamLog(path: .init(device: id)) }.ok.body.json
  }

  /// Jetsam event `number` (a kill's `jetsamEvent`) as Apple's jetsam event report describes
  /// it: the page size, the largest process, and every process with its pages, states and,
  /// for the killed ones, the reason.
  public func jetsamReport(_ number: Int) async throws -> Components.Schemas.JetsamReport {
    try await lifecycled.send {
      try await $0.getJetsamReport(path: .init(device: id, jetsamEvent: number))
    }.ok.body.json
  }

  /// The journal drawn as an SVG picture: a lane per app, its states as bands, its callbacks
  /// as marks (`openapi.yaml`, `getTimeline`), to attach to a failed test's report.
  public func timeline() async throws -> String {
    let answer = try await lifecycled.send {
      try await $0.getTimeline(path: .init(device: id))
    }
    guard case .imageSvgXml(let body) = try answer.ok.body else {
      throw LifecycledClientError.unexpectedAnswer("an SVG picture")
    }
    return try await String(collecting: body, upTo: 16 << 20)
  }

  /// The whole device as one document, to restore it later (``restore(_:)``), here or on
  /// another server.
  public func snapshot() async throws -> Components.Schemas.DeviceSnapshotDocument {
    try await lifecycled.send {
      try await $0.getDeviceSnapshot(path: .init(device: id))
    }.ok.body.json
  }

  /// Replaces this device (or creates it) with the one `snapshot` shows, under this id
  /// whichever device the snapshot was taken of.
  @discardableResult
  public func restore(_ snapshot: Components.Schemas.DeviceSnapshotDocument) async throws
    -> Components.Schemas.Device
  {
    var snapshot = snapshot
    snapshot.device.id = nil  // the path's
    let answer = try await lifecycled.send {
      try await $0.putDevice(
        path: .init(device: id), body: .json(.DeviceSnapshotDocument(snapshot)))
    }
    switch answer {
    case .ok(let replaced): return try replaced.body.json
    case .created(let created): return try created.body.json
    default: throw LifecycledClientError.unexpectedAnswer("\(answer)")
    }
  }

  /// Removes the device and its apps.
  public func remove() async throws {
    _ = try await lifecycled.send { try await $0.deleteDevice(path: .init(device: id)) }.noContent
  }
}

/// A position in a device's journal, to read or stream it from.
public enum JournalPosition: Sendable, Hashable {
  /// From the oldest entry the journal holds.
  case start
  /// After the entry with this `seq`.
  case after(seq: Int)
  /// After the device's last entry as the request finds it: only what happens from then on.
  case latest

  var parameter: Components.Parameters.Since? {
    switch self {
    case .start: nil
    case .after(let seq): .Seq(seq)
    case .latest: .Latest(.latest)
    }
  }
}

/// An answer the contract allows but this layer does not expect of the request it made.
public enum LifecycledClientError: Error, Sendable {
  case unexpectedAnswer(String)
}
