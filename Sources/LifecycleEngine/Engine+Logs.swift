/// What an engine's devices record: their journals and jetsam logs.
extension Engine {
  /// Journal entries after `since` (a seq) that `filter` matches, at most `limit` of them.
  public func journal(
    of device: String, since: Int = 0, filter: JournalFilter = JournalFilter(),
    limit: Int = .max, now: Instant
  ) throws(EngineError) -> JournalPage {
    try withDevice(device, now: now) { device in
      // Entries have consecutive seqs, the newest the device's last: those after `since`
      // begin at a known offset.
      let lastSeq = device.version.seq
      let oldestSeq = lastSeq - device.journal.count + 1
      let entries = device.journal.elements(from: since - oldestSeq + 1).lazy
        .filter { filter.matches($0) }
        .prefix(limit)
      return JournalPage(
        entries: Array(entries), dropped: device.journal.dropped, oldestSeq: oldestSeq,
        lastSeq: lastSeq)
    }
  }

  /// Callbacks delivered to one app after `since` (a seq), at most `limit` of them.
  public func callbacks(
    of app: String, on device: String, since: Int = 0, limit: Int = .max, now: Instant
  ) throws(EngineError) -> [Callback] {
    try withApp(app, on: device, now: now) { device, app in
      let callbacks = device.journal.lazy.compactMap { entry -> Callback? in
        guard case .callback(let callback) = entry, callback.app == app.name,
          callback.seq > since
        else { return nil }
        return callback
      }
      return Array(callbacks.prefix(limit))
    }
  }

  /// The device's jetsam log: its events kept, oldest first.
  public func jetsamLog(of device: String, now: Instant) throws(EngineError) -> JetsamPage {
    try withDevice(device, now: now) { device in device.jetsamLog.page }
  }

  /// The device's jetsam event `number` (from 1), what its report describes.
  public func jetsamEvent(_ number: Int, of device: String, now: Instant) throws(EngineError)
    -> JetsamEvent
  {
    try withDevice(device, now: now) { device throws(EngineError) in
      guard let event = device.jetsamLog.event(number) else {
        throw .unknownJetsamEvent(
          device: device.id, number: number, kept: device.jetsamLog.keptNumbers)
      }
      return event
    }
  }
}

/// A slice of a device's journal.
public struct JournalPage: Hashable, Sendable {
  public var entries: [JournalEntry]
  /// How many of the oldest entries the bounded journal has dropped.
  public var dropped: Int
  /// The seq of the oldest entry kept (the next one's if none is): those before it are gone.
  public var oldestSeq: Int
  /// The seq of the device's newest entry (0 before the first).
  public var lastSeq: Int
}
