/// What an engine's devices record: their journals and jetsam logs.
extension Engine {
  /// Journal entries after `since` (a seq) that `filter` matches, at most `limit` of them.
  public func journal(
    of device: String, since: Int = 0, filter: JournalFilter = JournalFilter(),
    limit: Int = .max, now: Instant
  ) throws(EngineError) -> JournalPage {
    let selection = try journalEntries(of: device, since: since, filter: filter, now: now)
    return JournalPage(
      entries: Array(selection.prefix(limit)), dropped: selection.dropped,
      oldestSeq: selection.oldestSeq, lastSeq: selection.lastSeq)
  }

  /// The entries of the device's journal after `since` that `filter` selects, read where the
  /// journal keeps them: a writer that stops part way (a page ends at its size) copies none.
  public func journalEntries(
    of device: String, since: Int = 0, filter: JournalFilter = JournalFilter(), now: Instant
  ) throws(EngineError) -> JournalSelection {
    try withDevice(device, now: now) { device in
      JournalSelection(
        journal: device.journal, since: since, lastSeq: device.version.seq, filter: filter)
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

/// The entries of a device's journal after a seq that a filter selects, oldest first, read in
/// place: it shares the journal's storage, so it is held only while the device does not change
/// (a change would then copy the journal).
public struct JournalSelection: Sequence {
  private let journal: BoundedLog<JournalEntry>
  private let offset: Int
  private let filter: JournalFilter
  /// How many of the oldest entries the bounded journal has dropped.
  public let dropped: Int
  /// The seq of the oldest entry kept (the next one's if none is): those before it are gone.
  public let oldestSeq: Int
  /// The seq of the device's newest entry (0 before the first).
  public let lastSeq: Int

  init(journal: BoundedLog<JournalEntry>, since: Int, lastSeq: Int, filter: JournalFilter) {
    // Entries have consecutive seqs, the newest the device's last: those after `since` begin
    // at a known offset.
    self.journal = journal
    self.oldestSeq = lastSeq - journal.count + 1
    self.offset = since - oldestSeq + 1
    self.filter = filter
    self.dropped = journal.dropped
    self.lastSeq = lastSeq
  }

  public func makeIterator() -> some IteratorProtocol<JournalEntry> {
    journal.elements(from: offset).lazy.filter { [filter] in filter.matches($0) }.makeIterator()
  }
}
