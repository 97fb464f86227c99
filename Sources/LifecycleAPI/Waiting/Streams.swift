import JSONCore
import LifecycleEngine

/// Journals streamed live as Server-Sent Events (`GET /v1/devices/{device}/journal/stream`).
///
/// Each subscriber is sent the journal entries after the seq it starts from (`since`, or the
/// `Last-Event-ID` of a client that reconnects), then every new entry as it is recorded, each
/// as an unnamed event whose `id` is the device's incarnation and the entry's seq (`3-41`, as
/// in the device's `ETag`) and whose `data` is the entry as `/journal` shows it. Entries that
/// left the bounded journal before they could be sent are reported as one `dropped` event
/// (`{"after": A, "resumesAfter": B}`, with `id` naming B); so is an id of another incarnation
/// of the device (from before a reset, a `PUT` or a re-creation), which the stream follows
/// from the oldest entry kept: seqs repeat across incarnations, ids do not. A stream sends at most
/// `batchBytes` of entries at a time and the rest once its client has read them, so a long
/// journal is replayed at the client's pace; entries that come while the client reads more
/// slowly than they are made wait in the server's bounded backlog, and a client that falls
/// further behind is sent `end` (`{"reason": "behind"}`) and closed: it can reconnect with its
/// `Last-Event-ID`. A stream also ends with `end` when its device is reset or replaced
/// (`deviceReset`) or removed (`deviceRemoved`), when the time it asked for is up
/// (`timeout`), and when the server shuts down (`shutdown`).
struct Streams {
  /// Streams open at once, across all devices; beyond, a stream is refused with 503.
  static let limit = 256
  /// What a stream sends at most at once before its client has read it.
  static let batchBytes = 65_536
  /// A quiet stream's heartbeat interval unless the request asks for another, in seconds.
  static let defaultHeartbeatSeconds = 15
  /// What an open stream holds here, counted in the memory budget with the server's backlog
  /// for it: its subscriber, its entries in the tables and a batch being made, rounded up.
  static let retainedBytesPerStream = batchBytes + 1_024
  /// The heartbeat: a comment line, which clients ignore.
  static let heartbeat = Array(": heartbeat\n\n".utf8)

  /// One open stream.
  struct Subscriber {
    let exchange: UInt64
    let device: String
    /// Which device under the id: another incarnation ends the stream.
    let incarnation: Int
    let filter: JournalFilter
    /// When it ends, on the host clock, if it asked for an end.
    let until: Instant?
    /// The seq through which the journal has been sent (or passed over by the filter).
    var through: Int
    /// `through` is a seq of another incarnation of the device: the stream starts over, after
    /// a `dropped` event.
    var isFromAnotherIncarnation = false
    /// More entries wait than one batch holds: the next goes when the client drains.
    var awaitsDrain = false
  }

  private var subscribers: [UInt64: Subscriber] = [:]
  /// The devices streamed: their subscribers, in the order they subscribed, and the device's
  /// version when they were last sent what it had (unchanged since, there is nothing to send).
  private var byDevice: [String: (exchanges: [UInt64], checked: DeviceVersion?)] = [:]
  /// Devices that requests may have changed since the last `flush`; nil for every device.
  private var touched: Set<String>? = []
  /// The batches made since the last `flush`, by the place of the subscriber they were made
  /// for, with that subscriber as the batch left it.
  private var made: [Place: (bytes: [UInt8], subscriber: Subscriber)] = [:]
  /// How many subscribers asked for an end.
  private var timedCount = 0
  /// Parts ready for the server, in order.
  private var ready: [LateAnswer] = []

  var isFull: Bool { subscribers.count >= Self.limit }
  var isEmpty: Bool { subscribers.isEmpty }
  var count: Int { subscribers.count }
  /// The devices whose journals are streamed.
  var deviceIDs: Set<String> { Set(byDevice.keys) }

  /// Opens a stream for `subscriber`: its head, then its first batch.
  mutating func open(
    _ subscriber: Subscriber, head: APIResponse, heartbeatMilliseconds: Int64, engine: Engine,
    now: Instant
  ) {
    var subscriber = subscriber
    var head = head
    head.body = Self.batch(for: &subscriber, engine: engine, now: now)
    ready.append(
      LateAnswer(
        exchange: subscriber.exchange,
        part: .streamHead(
          head, heartbeat: Self.heartbeat, heartbeatMilliseconds: heartbeatMilliseconds,
          farewell: Self.end("behind"))))
    subscribers[subscriber.exchange] = subscriber
    byDevice[subscriber.device, default: ([], nil)].exchanges.append(subscriber.exchange)
    if subscriber.until != nil { timedCount += 1 }
  }

  /// Forgets the stream of a client that left or fell behind, and what is ready for it.
  mutating func abandon(_ exchange: UInt64) {
    guard let subscriber = subscribers.removeValue(forKey: exchange) else { return }
    if subscriber.until != nil { timedCount -= 1 }
    byDevice[subscriber.device]?.exchanges.removeAll { $0 == exchange }
    if byDevice[subscriber.device]?.exchanges.isEmpty == true {
      byDevice[subscriber.device] = nil
    }
    ready.removeAll { $0.exchange == exchange }
  }

  /// The client of a stream read everything: a stream catching up sends its next batch.
  mutating func drained(_ exchange: UInt64, engine: Engine, now: Instant) {
    guard let subscriber = subscribers[exchange], subscriber.awaitsDrain,
      let version = engine.lastVersion(of: subscriber.device)
    else { return }
    sendNextBatch(to: subscriber, at: version, engine: engine, now: now)
  }

  /// Notes that a request may have changed `device`, or any device if nil, for the next
  /// `flush`: the entries of all a turn's requests then go out together, one piece per stream.
  mutating func touch(_ device: String?) {
    guard !subscribers.isEmpty else { return }
    guard let device else {
      touched = nil
      return
    }
    touched?.insert(device)
  }

  /// Sends the new entries of the devices touched since the last call.
  mutating func flush(_ engine: Engine, now: Instant) {
    made.removeAll(keepingCapacity: true)
    guard let devices = touched else {
      touched = []
      return check(engine, now: now)
    }
    guard !devices.isEmpty else { return }
    touched = []
    for device in devices { check(engine, device: device, now: now) }
  }

  /// Sends the new entries of `device`'s streams, or of every device's if nil, and ends the
  /// streams whose device is gone or was replaced.
  mutating func check(_ engine: Engine, device: String? = nil, now: Instant) {
    guard !subscribers.isEmpty else { return }
    guard let device else {
      for device in Array(byDevice.keys) { check(engine, device: device, now: now) }
      return
    }
    let version = engine.lastVersion(of: device)
    guard let (exchanges, checked) = byDevice[device], version != checked else { return }
    byDevice[device]?.checked = version
    for exchange in exchanges {
      guard let subscriber = subscribers[exchange] else { continue }
      guard let version, version.incarnation == subscriber.incarnation else {
        finish(subscriber, reason: version == nil ? "deviceRemoved" : "deviceReset")
        continue
      }
      guard !subscriber.awaitsDrain, version.seq > subscriber.through else { continue }
      sendNextBatch(to: subscriber, at: version, engine: engine, now: now)
    }
  }

  /// Sends the subscriber its next batch: the one made for another subscriber in the same
  /// place, if there is one (a hundred streams of a device cost one batch, not a hundred).
  private mutating func sendNextBatch(
    to subscriber: Subscriber, at version: DeviceVersion, engine: Engine, now: Instant
  ) {
    var subscriber = subscriber
    let place = Place(
      device: subscriber.device, version: version, filter: subscriber.filter,
      through: subscriber.through)
    if let (bytes, moved) = made[place] {
      subscriber.through = moved.through
      subscriber.awaitsDrain = moved.awaitsDrain
      return send(bytes, to: subscriber)
    }
    let bytes = Self.batch(for: &subscriber, engine: engine, now: now)
    made[place] = (bytes, subscriber)
    send(bytes, to: subscriber)
  }

  /// The earliest end a stream asked for, on the host clock.
  var nextTimeout: Instant? {
    timedCount == 0 ? nil : subscribers.values.lazy.compactMap(\.until).min()
  }

  /// Ends the streams whose time is up by `now`, in the order they subscribed.
  mutating func endExpired(now: Instant) {
    let expired = subscribers.values.filter { $0.until.map { $0 <= now } ?? false }
    for subscriber in expired.sorted(by: { $0.exchange < $1.exchange }) {
      finish(subscriber, reason: "timeout")
    }
  }

  /// Ends every stream (the server shuts down).
  mutating func endAll(reason: String) {
    for (exchanges, _) in byDevice.values {
      for exchange in exchanges {
        if let subscriber = subscribers[exchange] { finish(subscriber, reason: reason) }
      }
    }
  }

  /// The parts ready since the last call.
  mutating func takeReady() -> [LateAnswer] {
    defer { ready = [] }
    return ready
  }

  /// Where a subscriber is: the next batch of every subscriber in the same place is the same.
  private struct Place: Hashable {
    let device: String
    let version: DeviceVersion
    let filter: JournalFilter
    let through: Int
  }

  private mutating func send(_ bytes: [UInt8], to subscriber: Subscriber) {
    subscribers[subscriber.exchange] = subscriber
    if !bytes.isEmpty {
      ready.append(LateAnswer(exchange: subscriber.exchange, part: .streamPiece(bytes)))
    }
  }

  private mutating func finish(_ subscriber: Subscriber, reason: String) {
    let exchange = subscriber.exchange
    abandon(exchange)
    ready.append(LateAnswer(exchange: exchange, part: .streamPiece(Self.end(reason))))
    ready.append(LateAnswer(exchange: exchange, part: .streamEnd))
  }

  /// The events for the subscriber's next entries, at most about `batchBytes` of them (a
  /// `dropped` event first if entries it was owed are gone); moves it past them.
  private static func batch(for subscriber: inout Subscriber, engine: Engine, now: Instant)
    -> [UInt8]
  {
    let pageLimit = 256
    func fetch() -> JournalPage? {
      try? engine.journal(
        of: subscriber.device, since: subscriber.through, filter: subscriber.filter,
        limit: pageLimit, now: now)
    }
    guard var page = fetch() else { return [] }
    var writer = JSONWriter(capacity: 1024)
    var events: [UInt8] = []
    // Owed entries are gone, or the seq is not this device's (a client of a former one). A
    // stream from 0 asks for whatever is kept: on a device that dropped nothing (one restored
    // from a snapshot starts its journal after the snapshot's seq), nothing is missing.
    let missesEntries =
      subscriber.through < page.oldestSeq - 1 && (subscriber.through > 0 || page.dropped > 0)
    if subscriber.isFromAnotherIncarnation || missesEntries || subscriber.through > page.lastSeq {
      let resumesAfter = page.oldestSeq - 1
      writer.object { w in
        w.member("after", subscriber.through)
        w.member("resumesAfter", resumesAfter)
      }
      append(
        event: "dropped", id: subscriber.incarnation, resumesAfter, data: writer.bytes,
        to: &events)
      let startsOver = subscriber.through >= page.oldestSeq
      subscriber.through = resumesAfter
      subscriber.isFromAnotherIncarnation = false
      if startsOver { page = fetch() ?? page }
    }
    for entry in page.entries {
      writer.removeAll()
      writer.journalEntry(entry)
      append(event: nil, id: subscriber.incarnation, entry.seq, data: writer.bytes, to: &events)
      subscriber.through = entry.seq
      if events.count >= batchBytes { break }
    }
    // Every entry the page could hold seen: the filter passed over the rest.
    if subscriber.through == page.entries.last?.seq ?? subscriber.through,
      page.entries.count < pageLimit
    {
      subscriber.through = page.lastSeq
    }
    subscriber.awaitsDrain = subscriber.through < page.lastSeq
    return events
  }

  /// An event in the `text/event-stream` format, its id the incarnation and the seq: its data
  /// is one line of JSON.
  private static func append(
    event: String?, id incarnation: Int, _ seq: Int, data: [UInt8], to events: inout [UInt8]
  ) {
    if let event { events.append(contentsOf: Array("event: \(event)\n".utf8)) }
    events.append(contentsOf: Array("id: \(incarnation)-\(seq)\ndata: ".utf8))
    events.append(contentsOf: data)
    events.append(contentsOf: [0x0A, 0x0A])
  }

  /// The `end` event that closes a stream, saying why.
  static func end(_ reason: String) -> [UInt8] {
    var writer = JSONWriter(capacity: 64)
    writer.object { $0.member("reason", reason) }
    var events = Array("event: end\ndata: ".utf8)
    events.append(contentsOf: writer.bytes)
    events.append(contentsOf: [0x0A, 0x0A])
    return events
  }
}
