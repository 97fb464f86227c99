import OpenAPIRuntime

/// One simulated device of a lifecycled server: its apps, device events, its clock, its
/// journal and snapshots. A handle: it holds the device's id, and each call is a request.
public struct SimulatedDevice: Sendable {
  public let id: String
  let lifecycled: Lifecycled

  /// Fetches the device as it is now (a request): lock state, memory, deadlines, counters.
  ///
  /// - Returns: The device's view.
  /// - Throws: ``LifecycledProblem`` (`not-found` once the device is gone),
  ///   ``LifecycledUnreachable`` if no server answers.
  public func fetch() async throws -> Components.Schemas.Device {
    try await lifecycled.send { try await $0.getDevice(path: .init(device: id)) }.ok.body.json
  }

  /// Creates an app, not running, as `app` declares it (`.init(name: "mail")`).
  ///
  /// - Parameter app: Every field of the contract's app creation form.
  /// - Returns: The new app.
  /// - Throws: ``LifecycledProblem`` (a taken name is `conflict`, a bad field `validation`),
  ///   ``LifecycledUnreachable`` if no server answers.
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
  ///
  /// - Parameters:
  ///   - name: The app's name on this device.
  ///   - lifecycle: `scene` (the default) or `appDelegate`, for an app without scenes.
  ///   - backgroundModes: Its `UIBackgroundModes`; none unless given.
  ///   - memoryMB: Its footprint; the server's default (100) unless given.
  ///   - supportsMultipleScenes: Whether it opens several windows.
  ///   - permittedTaskIdentifiers: Its `BGTaskSchedulerPermittedIdentifiers`.
  ///   - behavior: How its code acts, where it differs from a well-behaved app.
  ///   - sdkVersion: The major version of the iOS SDK it was built with (26 unless given): an
  ///     `appDelegate` app built with 27 does not launch on iOS 27.
  ///   - metricKit: The MetricKit interface its code takes reports from:
  ///     `mxMetricManager` (the default) or iOS 27's `metricManager`, which needs `sdkVersion`
  ///     27.
  /// - Returns: The new app.
  /// - Throws: As ``createApp(_:)``.
  public func createApp(
    _ name: String, lifecycle: Components.Schemas.Lifecycle? = nil,
    backgroundModes: [Components.Schemas.BackgroundMode]? = nil, memoryMB: Int? = nil,
    supportsMultipleScenes: Bool? = nil, permittedTaskIdentifiers: [String]? = nil,
    behavior: Components.Schemas.AppBehaviorSettings? = nil, sdkVersion: Int? = nil,
    metricKit: Components.Schemas.MetricKitInterface? = nil
  ) async throws -> SimulatedApp {
    try await createApp(
      .init(
        name: name, lifecycle: lifecycle, memoryMB: memoryMB, backgroundModes: backgroundModes,
        behavior: behavior, supportsMultipleScenes: supportsMultipleScenes,
        permittedTaskIdentifiers: permittedTaskIdentifiers, sdkVersion: sdkVersion,
        metricKit: metricKit))
  }

  /// The app `name` of this device, without asking the server.
  ///
  /// - Parameter name: The app's name.
  /// - Returns: A handle whose calls ask about that app.
  public func app(_ name: String) -> SimulatedApp {
    SimulatedApp(device: self, name: name)
  }

  /// Posts a device event (home, lock, memory warning, ...): what each app did.
  ///
  /// - Parameter event: The event (`.lock`, `.setConditions(charging: true)`, ...).
  /// - Returns: The device's state before and after it, the callbacks and transitions it
  ///   caused in order, and its effects on each app.
  /// - Throws: ``LifecycledProblem`` (`event-refused`, with the events allowed now, for one
  ///   impossible in the device's state), ``LifecycledUnreachable`` if no server answers.
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
  ///
  /// - Parameter duration: How far; kept to the millisecond.
  /// - Returns: What the deadlines on the way did, in order.
  /// - Throws: ``LifecycledProblem`` if the server refuses it, ``LifecycledUnreachable`` if
  ///   no server answers.
  @discardableResult
  public func advanceClock(by duration: Duration) async throws -> Components.Schemas.ClockAdvance {
    try await advanceClock(.AdvanceBySeconds(.init(seconds: duration.seconds)))
  }

  /// Moves the device's clock to its next deadline, firing it and every other due then.
  ///
  /// - Returns: What the deadlines did.
  /// - Throws: ``LifecycledProblem`` (`no-deadline` when none is pending),
  ///   ``LifecycledUnreachable`` if no server answers.
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
  ///
  /// - Parameters:
  ///   - since: Where to read from: the oldest entry the journal holds unless given.
  ///   - kind: Only entries of this kind (events, callbacks, transitions, ...).
  ///   - app: Only entries about this app.
  /// - Returns: A page of entries.
  /// - Throws: ``LifecycledProblem`` if the server refuses it, ``LifecycledUnreachable`` if
  ///   no server answers.
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
  ///
  /// - Parameters:
  ///   - since: Where to stream from: `.start`, `.after(seq:)` or `.latest`.
  ///   - kind: Only entries of this kind.
  ///   - app: Only entries about this app.
  /// - Returns: The stream, which connects when it is first iterated.
  /// - Throws: For `.latest`, what ``fetch()`` throws.
  public func journalStream(
    since: JournalPosition = .start, kind: Components.Schemas.JournalEntryKind? = nil,
    app: String? = nil
  ) async throws -> JournalStream {
    let position = since == .latest ? .after(seq: try await fetch().lastSeq) : since
    return JournalStream(device: self, since: position, kind: kind, app: app)
  }

  /// The apps jetsam killed, most recent last, each with the number of its jetsam event.
  ///
  /// - Returns: The kills the log holds, and how many it dropped.
  /// - Throws: ``LifecycledProblem`` if the server refuses it, ``LifecycledUnreachable`` if
  ///   no server answers.
  public func jetsamLog() async throws -> Components.Schemas.JetsamLog {
    try await lifecycled.send { try await $0.getJetsamLog(path: .init(device: id)) }.ok.body.json
  }

  /// Jetsam event `number` (a kill's `jetsamEvent`) as Apple's jetsam event report describes
  /// it: the page size, the largest process, and every process with its pages, states and,
  /// for the killed ones, the reason.
  ///
  /// - Parameter number: The kill's `jetsamEvent`.
  /// - Returns: The report.
  /// - Throws: ``LifecycledProblem`` (`not-found` for a number the log does not hold),
  ///   ``LifecycledUnreachable`` if no server answers.
  public func jetsamReport(_ number: Int) async throws -> Components.Schemas.JetsamReport {
    try await lifecycled.send {
      try await $0.getJetsamReport(path: .init(device: id, jetsamEvent: number))
    }.ok.body.json
  }

  /// The journal drawn as an SVG picture: a lane per app, its states as bands, its callbacks
  /// as marks (`openapi.yaml`, `getTimeline`), to attach to a failed test's report.
  ///
  /// - Returns: The SVG document's text.
  /// - Throws: ``LifecycledProblem`` if the server refuses it, ``LifecycledUnreachable`` if
  ///   no server answers.
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
  ///
  /// - Returns: The snapshot document.
  /// - Throws: ``LifecycledProblem`` if the server refuses it, ``LifecycledUnreachable`` if
  ///   no server answers.
  public func snapshot() async throws -> Components.Schemas.DeviceSnapshotDocument {
    try await lifecycled.send {
      try await $0.getDeviceSnapshot(path: .init(device: id))
    }.ok.body.json
  }

  /// Replaces this device (or creates it) with the one `snapshot` shows, under this id
  /// whichever device the snapshot was taken of.
  ///
  /// - Parameter snapshot: A document ``snapshot()`` returned (of this server's version or
  ///   an earlier one).
  /// - Returns: The device as restored.
  /// - Throws: ``LifecycledProblem`` (`validation` for a document that does not describe a
  ///   possible device: nothing changes), ``LifecycledUnreachable`` if no server answers.
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
  ///
  /// - Throws: ``LifecycledProblem`` (`not-found` if it is already gone),
  ///   ``LifecycledUnreachable`` if no server answers.
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
