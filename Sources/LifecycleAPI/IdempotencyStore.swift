import LifecycleEngine

/// Responses kept for `Idempotency-Key` (the IETF httpapi draft "The Idempotency-Key HTTP
/// Header Field"): a retry of a request with the same key and the same content gets the stored
/// response again, without being applied twice; the same key with other content is refused.
///
/// Keys are scoped to a device. The store is bounded three ways: a key expires `lifetime`
/// after its first use, a device keeps its newest `maxKeysPerDevice` keys, and all responses
/// together hold at most `maxBytes` of body, the oldest going first. Every bound evicts from
/// the front of a queue, so no request scans the store.
struct IdempotencyStore {
  static let lifetime = Duration.seconds(24 * 3600)
  static let maxKeysPerDevice = 1_000
  static let maxBytes = 32 << 20
  /// The longest key accepted, in bytes.
  static let maxKeyBytes = 255

  /// A request made with a key, and its fingerprint (`fingerprint(method:path:query:body:)`).
  struct Retry {
    let key: String
    let fingerprint: Int
  }

  /// What a key answered, and for which request.
  struct Entry {
    /// The method, target and body of the request that used the key first.
    let fingerprint: Int
    let response: APIResponse
    let storedAt: Instant
    /// Tells this entry from an earlier one under the same key, still in a queue.
    fileprivate let serial: Int
  }

  private struct Key: Hashable {
    let device: String
    let key: String
  }

  private var entries: [Key: Entry] = [:]
  /// Every entry, oldest first; and each device's, oldest first. Both may still hold entries
  /// already evicted through the other, which are skipped.
  private var oldest = Queue<(Key, Int)>()
  private var oldestOfDevice: [String: Queue<(Key, Int)>] = [:]
  private var keysPerDevice: [String: Int] = [:]
  private var nextSerial = 0
  private(set) var bytes = 0

  /// The stored entry for `key` on `device`, if it has not expired at `now`.
  mutating func entry(for key: String, on device: String, now: Instant) -> Entry? {
    while let (id, serial) = oldest.first {
      guard let entry = live(id, serial) else {
        oldest.removeFirst()
        continue
      }
      guard entry.storedAt + Self.lifetime <= now else { break }
      remove(id)
    }
    return entries[Key(device: device, key: key)]
  }

  /// Keeps `response` as the answer to `key` on `device`.
  mutating func store(
    _ response: APIResponse, for key: String, on device: String, fingerprint: Int, now: Instant
  ) {
    let id = Key(device: device, key: key)
    guard entries[id] == nil else { return }
    nextSerial += 1
    entries[id] = Entry(
      fingerprint: fingerprint, response: response, storedAt: now, serial: nextSerial)
    oldest.append((id, nextSerial))
    oldestOfDevice[device, default: Queue()].append((id, nextSerial))
    keysPerDevice[device, default: 0] += 1
    bytes += response.body.count
    while keysPerDevice[device, default: 0] > Self.maxKeysPerDevice,
      let (old, serial) = oldestOfDevice[device]?.removeFirst()
    {
      if live(old, serial) != nil { remove(old) }
    }
    while bytes > Self.maxBytes, let (old, serial) = oldest.removeFirst() {
      if live(old, serial) != nil { remove(old) }
    }
  }

  /// The request's fingerprint: its method, target (path and query) and body.
  static func fingerprint(method: String, path: Substring, query: Substring?, body: [UInt8])
    -> Int
  {
    var hasher = Hasher()
    hasher.combine(method)
    hasher.combine(path)
    hasher.combine(query)
    hasher.combine(body.count)
    body.withUnsafeBytes { hasher.combine(bytes: $0) }
    return hasher.finalize()
  }

  /// The entry a queue element names, unless it has gone since.
  private func live(_ id: Key, _ serial: Int) -> Entry? {
    entries[id].flatMap { $0.serial == serial ? $0 : nil }
  }

  /// Removes an entry. The queues keep naming it until it reaches their front; when they name
  /// more gone entries than live ones, they are rebuilt, so they stay within twice the store.
  private mutating func remove(_ id: Key) {
    guard let entry = entries.removeValue(forKey: id) else { return }
    bytes -= entry.response.body.count
    let left = keysPerDevice[id.device]! - 1
    keysPerDevice[id.device] = left == 0 ? nil : left
    if left == 0 {
      oldestOfDevice[id.device] = nil
    } else if oldestOfDevice[id.device]!.count > 2 * left + 32 {
      oldestOfDevice[id.device]!.keep { [entries] in entries[$0.0]?.serial == $0.1 }
    }
    if oldest.count > 2 * entries.count + 32 {
      oldest.keep { [entries] in entries[$0.0]?.serial == $0.1 }
    }
  }
}

/// A first-in first-out queue: an array consumed from a moving start, compacted once half of
/// it is consumed.
private struct Queue<Element> {
  private var elements: [Element] = []
  private var start = 0

  var first: Element? { start < elements.count ? elements[start] : nil }
  var count: Int { elements.count - start }

  /// Keeps only the elements `isIncluded` accepts, in order.
  mutating func keep(where isIncluded: (Element) -> Bool) {
    elements = elements[start...].filter(isIncluded)
    start = 0
  }

  mutating func append(_ element: Element) { elements.append(element) }

  @discardableResult
  mutating func removeFirst() -> Element? {
    guard let element = first else { return nil }
    start += 1
    if start > 32, start * 2 > elements.count {
      elements.removeFirst(start)
      start = 0
    }
    return element
  }
}
