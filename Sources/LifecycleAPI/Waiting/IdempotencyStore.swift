import LifecycleEngine

/// Responses kept for `Idempotency-Key` (the IETF httpapi draft "The Idempotency-Key HTTP
/// Header Field"): a retry of a request with the same key and the same content gets the stored
/// response again, without being applied twice; the same key with other content is refused.
///
/// Keys belong to one incarnation of a device: `forgetStale` drops them once the device is
/// reset, replaced or removed, so a harness that reuses its keys after a reset has its
/// requests applied. The store is bounded three ways: a key expires `lifetime` after its first
/// use, a device keeps its newest `maxKeysPerDevice` keys, and all entries together retain at
/// most `maxBytes` (`Entry.retainedBytes`, what they cost in memory), the oldest going first.
/// Every bound evicts from the front of a queue, so no request scans the store.
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
    /// What the entry costs in memory, counted when it is stored.
    let retainedBytes: Int
    /// Tells this entry from an earlier one under the same key, still in a queue.
    fileprivate let serial: Int
  }

  private struct Key: Hashable {
    let device: String
    let key: String
  }

  /// One device's keys: the incarnation they belong to, and the device's entries, oldest
  /// first (possibly naming entries already evicted through `oldest`, which are skipped).
  private struct DeviceKeys {
    let incarnation: Int
    var count = 0
    var oldest = Queue<(Key, Int)>()
  }

  private var entries: [Key: Entry] = [:]
  /// Every entry, oldest first; it may still name entries evicted through a device's queue.
  private var oldest = Queue<(Key, Int)>()
  private var devices: [String: DeviceKeys] = [:]
  private var nextSerial = 0
  /// What the entries retain, as `Entry.retainedBytes` counts it.
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

  /// Keeps `response` as the answer to `key` on `device`, in the device's `incarnation`.
  mutating func store(
    _ response: APIResponse, for key: String, on device: String, incarnation: Int,
    fingerprint: Int, now: Instant
  ) {
    let id = Key(device: device, key: key)
    guard entries[id] == nil else { return }
    if let kept = devices[device], kept.incarnation != incarnation { forget(device) }
    nextSerial += 1
    let entry = Entry(
      fingerprint: fingerprint, response: response, storedAt: now,
      retainedBytes: Self.retainedBytes(of: response, key: key, device: device),
      serial: nextSerial)
    entries[id] = entry
    oldest.append((id, nextSerial))
    let fresh = DeviceKeys(incarnation: incarnation)
    devices[device, default: fresh].oldest.append((id, nextSerial))
    devices[device, default: fresh].count += 1
    bytes += entry.retainedBytes
    while (devices[device]?.count ?? 0) > Self.maxKeysPerDevice,
      let (old, serial) = devices[device]?.oldest.removeFirst()
    {
      if live(old, serial) != nil { remove(old) }
    }
    while bytes > Self.maxBytes, let (old, serial) = oldest.removeFirst() {
      if live(old, serial) != nil { remove(old) }
    }
  }

  /// Forgets the keys of every device that is now another incarnation, or gone
  /// (`incarnation(of:)` is nil).
  mutating func forgetStale(incarnation: (String) -> Int?) {
    for (device, keys) in devices where incarnation(device) != keys.incarnation {
      forget(device)
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

  /// What keeping `response` costs: the entry in the table and both queues, the body and
  /// header fields, and the texts of the key and the device id. The fixed part is resident
  /// memory measured over 30,000 entries (Benchmarks/README.md, "Memory"), rounded up.
  static func retainedBytes(of response: APIResponse, key: String, device: String) -> Int {
    let fields = response.headers.reduce(response.headers.isEmpty ? 0 : 48) {
      $0 + 32 + textBytes($1.name) + textBytes($1.value)
    }
    return 512 + response.body.count + fields + textBytes(key) + textBytes(device)
  }

  /// The entry a queue element names, unless it has gone since.
  private func live(_ id: Key, _ serial: Int) -> Entry? {
    entries[id].flatMap { $0.serial == serial ? $0 : nil }
  }

  /// Forgets every entry of `device`.
  private mutating func forget(_ device: String) {
    while let (id, serial) = devices[device]?.oldest.removeFirst() {
      if live(id, serial) != nil { remove(id) }
    }
  }

  /// Removes an entry. The queues keep naming it until it reaches their front; when they name
  /// more gone entries than live ones, they are rebuilt, so they stay within twice the store.
  private mutating func remove(_ id: Key) {
    guard let entry = entries.removeValue(forKey: id) else { return }
    bytes -= entry.retainedBytes
    let left = (devices[id.device]?.count ?? 1) - 1
    if left == 0 {
      devices[id.device] = nil
    } else {
      devices[id.device]?.count = left
      if let queued = devices[id.device]?.oldest.count, queued > 2 * left + 32 {
        devices[id.device]?.oldest.keep { [entries] in entries[$0.0]?.serial == $0.1 }
      }
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
