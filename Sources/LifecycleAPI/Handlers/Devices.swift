import JSONCore
import LifecycleEngine

/// `/v1/devices` and what hangs off a device: its events, clock, journal and jetsam log.
extension LifecycleAPI {
  func listDevices(_ request: borrowing RouteRequest) throws -> APIResponse {
    let limit = try request.query.pageLimit()
    let devices = engine.devices(
      after: try request.query.name("after"), label: try request.query.label(), limit: limit + 1,
      now: request.now)
    return json(200) { w in
      w.object { w in w.page("devices", devices, limit: limit) { $0.device($1) } }
    }
  }

  /// Removes the devices with a label, all at once: what a parallel worker cleans up with.
  /// The label is required: a request without one would remove every device.
  func removeLabeledDevices(_ request: borrowing RouteRequest) throws -> APIResponse {
    guard let label = try request.query.label() else {
      throw Problem.validation(
        "label", "is required: DELETE /v1/devices removes the devices with this label")
    }
    let removed = engine.removeDevices(labeled: label, now: request.now)
    return json(200) { w in w.object { w in w.member("removed", removed) } }
  }

  func createDevice(_ request: borrowing RouteRequest) throws -> APIResponse {
    // A device the body does not name gets an id of the server's (the response's `id`).
    let configuration = try Decode.device(
      try jsonBody(of: request), id: engine.unusedDeviceID(),
      defaults: engine.configuration.deviceDefaults)
    let device = try engine.createDevice(configuration, now: request.now)
    return created(at: "/v1/devices/\(device.id)") { $0.device(device) }
  }

  func showDevice(_ request: borrowing RouteRequest) throws -> APIResponse {
    let device = try engine.device(request.device, now: request.now)
    return json(200) { $0.device(device) }
  }

  /// The whole device as one document (`SnapshotFormat`), with its journal if asked: a costly
  /// read, written off the loop from the device's image (`CostlyReads`).
  func showSnapshot(_ request: borrowing RouteRequest) throws -> APIResponse {
    let withJournal = try request.query.boolean("journal") ?? false
    let (device, now) = (request.device, request.now)
    return try costlyRead(request, contentType: "application/json") { _ in
      let image = try engine.image(of: device, now: now)
      let journal = withJournal ? try engine.journal(of: device, now: now) : nil
      let copied =
        engine.retainedBytes(of: device)
        + (journal?.entries.count ?? 0) * MemoryLayout<JournalEntry>.stride
      return (
        copied, { JSONWriter.encode(capacity: 65_536) { $0.snapshot(image, journal: journal) } }
      )
    }
  }

  /// The device a snapshot or a declaration shows (`DeviceDocument`): created (201), or
  /// replacing the device with its id (200). A document of more than
  /// `BodyReads.offLoopBytes` is read, and its device recreated, off the loop.
  func putDevice(_ request: borrowing RouteRequest) throws -> APIResponse {
    let (id, configuration) = (request.device, engine.configuration)
    let recreated: RecreatedDevice
    if request.request.body.count > BodyReads.offLoopBytes {
      recreated = try readOffLoop(request) { body throws(Problem) in
        try Self.recreatedDevice(Self.parsedJSON(body), id: id, within: configuration)
      }
    } else {
      recreated = try Self.recreatedDevice(jsonBody(of: request), id: id, within: configuration)
    }
    return try replaceDevice(with: recreated, ifMatch: request.request.ifMatch, now: request.now)
  }

  /// The device `document` shows, recreated apart from the engine.
  private static func recreatedDevice(
    _ document: JSONDocument, id: String, within configuration: EngineConfiguration
  ) throws(Problem) -> RecreatedDevice {
    let image = try DeviceDocument.image(document, id: id, defaults: configuration.deviceDefaults)
    do throws(EngineError) {
      return try Engine.recreate(image, within: configuration)
    } catch {
      throw Problem(error)
    }
  }

  /// Creates or replaces the device `recreated` is, if `ifMatch` (a request's `If-Match`)
  /// names the device as it is.
  private func replaceDevice(with recreated: RecreatedDevice, ifMatch: String?, now: Instant)
    throws -> APIResponse
  {
    if ifMatch != nil, engine.lastVersion(of: recreated.id) == nil {
      throw Problem(
        kind: .preconditionFailed,
        detail: "If-Match names a version of device '\(recreated.id)', which does not exist")
    }
    try checkPrecondition(ifMatch, device: recreated.id, now: now)
    let (device, isNew) = try engine.restore(recreated, now: now)
    guard isNew else { return json(200) { $0.device(device) } }
    return created(at: "/v1/devices/\(device.id)") { $0.device(device) }
  }

  func removeDevice(_ request: borrowing RouteRequest) throws -> APIResponse {
    try checkPrecondition(request)
    try engine.removeDevice(request.device, now: request.now)
    return .noContent
  }

  func resetDevice(_ request: borrowing RouteRequest) throws -> APIResponse {
    try checkPrecondition(request)
    let device = try engine.resetDevice(request.device, now: request.now)
    return json(200) { $0.device(device) }
  }

  func postDeviceEvents(_ request: borrowing RouteRequest) throws -> APIResponse {
    let posted = try Decode.events(try jsonBody(of: request), Decode.deviceEvent)
    let mode = try request.query.scenarioMode(posted)
    try checkPrecondition(request)
    return try results(posted, mode: mode, to: nil, of: request)
  }

  func showClock(_ request: borrowing RouteRequest) throws -> APIResponse {
    let device = try engine.device(request.device, now: request.now)
    return json(200) { w in
      w.object { w in
        w.member("device", unescaped: device.id)
        w.member("clock", device.clock)
        w.member("now", time: device.now)
        w.member("nextDeadline", time: device.nextDeadline)
      }
    }
  }

  /// `{"seconds": n}`, or `{"to": "nextDeadline"}`: to the device's next deadline, which
  /// fires with every other due at the same instant (409 when none is pending).
  func advanceClock(_ request: borrowing RouteRequest) throws -> APIResponse {
    var fields = Fields(try jsonBody(of: request))
    let target = fields.string("to", maxBytes: 16)
    let requested = fields.seconds(
      "seconds", max: Validation.maxAdvanceSeconds, required: target == nil)
    if let target, target != "nextDeadline" {
      fields.reject("to", "must be nextDeadline")
    } else if target != nil, requested != nil {
      fields.reject("to", "cannot be given with seconds")
    }
    if let problem = fields.problem() { throw problem }
    var seconds = requested ?? .zero
    if target != nil {
      let device = try engine.device(request.device, now: request.now)
      guard let deadline = device.nextDeadline else {
        throw Problem(kind: .noDeadline, detail: "device '\(device.id)' has no pending deadline")
      }
      seconds = deadline - device.now
    }
    try checkPrecondition(request)
    let outcome = try engine.advanceClock(of: request.device, by: seconds, now: request.now)
    record(outcome.transitions, device: request.device)
    let device = try engine.device(request.device, now: request.now)
    return json(200) { w in
      w.object { w in
        w.member("advanced", seconds: seconds)
        w.member("now", time: device.now)
        w.key("callbacks")
        w.callbacks(outcome.callbacks)
        w.key("waitingCallbacks")
        w.callbacks(outcome.waitingCallbacks, waiting: true)
        w.key("transitions")
        w.transitions(outcome.transitions)
        w.member("lastSeq", outcome.lastSeq)
      }
    }
  }

  func showJournal(_ request: borrowing RouteRequest) throws -> APIResponse {
    let query = request.query
    let limit = try query.pageLimit()
    let filter = try query.journalFilter()
    let device = request.device
    let since = try journalStart(of: request)
    let answer = { (api: LifecycleAPI, now: Instant) throws -> APIResponse in
      let entries = try api.engine.journalEntries(
        of: device, since: since, filter: filter, now: now)
      return api.json(200) { w in
        w.object { w in
          w.page("entries", entries, limit: limit) { $0.journalEntry($1) }
          w.member("dropped", entries.dropped)
        }
      }
    }
    guard query.has("wait") else { return try answer(self, request.now) }
    // With `wait`, once an entry after `since` matches the filters (`Waits`); a removed
    // device is answered at once, with its 404.
    let page = try? engine.journal(
      of: device, since: since, filter: filter, limit: 1, now: request.now)
    return try wait(
      for: request, seconds: try query.waitSeconds("wait"),
      condition: .journalEntry(filter, after: since),
      isMet: page.map { !$0.entries.isEmpty } ?? true, answer: answer)
  }

  /// The journal drawn (`TimelineSVG`): the entries the journal's filters select (an app's
  /// alone under its path), between `from` and `to` (device seconds; by default the first
  /// entry and the device's now). A costly read, drawn off the loop from a copy of its entries
  /// (`CostlyReads`).
  func showTimeline(_ request: borrowing RouteRequest) throws -> APIResponse {
    let query = request.query
    var filter = try query.journalFilter()
    if !request.app.isEmpty {
      filter.app = AppName(try engine.app(request.app, on: request.device, now: request.now).name)
    }
    let range = 0...Double(Validation.maxAdvanceSeconds)
    let from = query.has("from") ? try query.seconds("from", in: range, default: 0) : nil
    let to = query.has("to") ? try query.seconds("to", in: range, default: 0) : nil
    let since = try journalStart(of: request)
    let (device, now) = (request.device, request.now)
    return try costlyRead(request, contentType: "image/svg+xml", headers: Self.picturePolicy) {
      end in
      let page = try engine.journal(
        of: device, since: since, filter: filter, limit: Validation.maxPageSize, now: now)
      let entries = page.entries.filter { entry in
        let time = entry.time
        return from.map { .zero + $0 <= time } ?? true && to.map { time <= .zero + $0 } ?? true
      }
      let picture = TimelineSVG(
        title: "\(device): \(entries.count) journal entries",
        entries: entries, start: from.map { .zero + $0 } ?? entries.first?.time ?? .zero,
        end: to.map { .zero + $0 } ?? end)
      return (entries.count * MemoryLayout<JournalEntry>.stride, { picture.bytes })
    }
  }

  /// Answers a costly read of the request's device (`CostlyReads`): with the answer kept, if
  /// it shows the same, or one made off the loop by the writer `copy` returns (given the
  /// device's clock) with what its copy of the device holds; past `CostlyReads.limit` being
  /// made, 503 `too-many-waits`.
  private func costlyRead(
    _ request: borrowing RouteRequest, contentType: String,
    headers: [(name: String, value: String)] = [],
    copy: (_ deviceNow: Instant) throws -> (bytes: Int, write: @Sendable () -> [UInt8])
  ) throws -> APIResponse {
    let deviceNow = try engine.device(request.device, now: request.now).now
    let key = CostlyReads.Key(
      path: String(request.request.path), query: request.request.query.map(String.init) ?? "",
      version: engine.lastVersion(of: request.device), now: deviceNow)
    if let kept = costlyReads.kept(for: key) { return kept }
    let (exchange, template) = (request.request.exchange, request.template)
    if costlyReads.join(key, exchange: exchange, template: template) { return .deferred }
    guard !costlyReads.isFull else {
      throw Problem.full(
        .tooManyWaits,
        "\(CostlyReads.limit) pictures and snapshots are being made already; retry when one is "
          + "done")
    }
    let (bytes, write) = try copy(deviceNow)
    costlyReads.start(
      CostlyReads.Answer(
        key: key, contentType: contentType, headers: headers, copyBytes: bytes, write: write),
      exchange: exchange, template: template)
    return .deferred
  }

  /// A picture opened on its own is a document: it runs nothing, loads nothing and is shown in
  /// no other site's frame (its text is escaped; this holds if that ever slips).
  private static let picturePolicy: [(name: String, value: String)] = [
    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
  ]

  /// The `seq` a journal read starts after (`Query.since`); `latest` is the request's device's
  /// last.
  func journalStart(of request: borrowing RouteRequest) throws -> Int {
    let (device, now) = (request.device, request.now)
    return try request.query.since { try engine.version(of: device, now: now).seq }
  }

  /// The journal as Server-Sent Events (`Streams`), from the entry after `Last-Event-ID`,
  /// else after `since` (0: the oldest kept; `latest`: from now on), until `timeout` if given.
  func streamJournal(_ request: borrowing RouteRequest) throws -> APIResponse {
    let query = request.query
    let filter = try query.journalFilter()
    let heartbeat = try query.seconds(
      "heartbeat", in: 0.1...300, default: Streams.defaultHeartbeatSeconds)
    let version = try engine.version(of: request.device, now: request.now)
    let resumed = try request.request.lastEventID.map(Self.lastEventID)
    // Read even when Last-Event-ID overrides it: a malformed `since` is refused either way.
    let since = try query.since { version.seq }
    let through = resumed?.seq ?? since
    var head = APIResponse(
      status: 200, contentType: "text/event-stream", headers: [("X-Accel-Buffering", "no")],
      body: [])
    guard request.request.method == "GET" else { return head }  // HEAD: the head alone
    guard !streams.isFull else {
      throw Problem.full(
        .tooManyStreams, "\(Streams.limit) journal streams are open already; retry when one closes")
    }
    tag(&head, with: request.device)
    streams.open(
      Streams.Subscriber(
        exchange: request.request.exchange, device: request.device,
        incarnation: version.incarnation, filter: filter,
        until: try query.has("timeout") ? request.now + query.waitSeconds("timeout") : nil,
        through: through,
        isFromAnotherIncarnation: resumed.map { $0.incarnation != version.incarnation } ?? false),
      head: head, heartbeatMilliseconds: heartbeat.wholeMilliseconds,
      engine: engine, now: request.now)
    metrics.count(request: request.template, status: 200)
    return .deferred
  }

  /// A `Last-Event-ID`: an event's `id` as a stream sends it, the device's incarnation and
  /// the entry's seq (`3-41`), each 1 to 18 digits.
  private static func lastEventID(_ value: String) throws(Problem)
    -> (incarnation: Int, seq: Int)
  {
    func number(_ digits: Substring) -> Int? {
      guard (1...18).contains(digits.utf8.count),
        digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
      else { return nil }
      return Int(digits)
    }
    let parts = value.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2, let incarnation = number(parts[0]), let seq = number(parts[1]) else {
      throw Problem.validation(
        "Last-Event-ID",
        "must be the id of an event of the stream: its incarnation and seq, as 3-41")
    }
    return (incarnation, seq)
  }

  func showJetsamLog(_ request: borrowing RouteRequest) throws -> APIResponse {
    let page = try engine.jetsamLog(of: request.device, now: request.now)
    return json(200) { w in
      w.object { w in
        w.key("kills")
        w.array(page.kills) { $0.jetsamRecord($1) }
        w.member("dropped", page.droppedKills)
      }
    }
  }

  func showJetsamReport(_ request: borrowing RouteRequest) throws -> APIResponse {
    let event = try engine.jetsamEvent(request.jetsamEvent, of: request.device, now: request.now)
    return json(200) { $0.jetsamReport(event) }
  }
}
