/// A binary min-heap whose elements are addressed by key.
///
/// Every operation that changes the heap costs O(log n): setting a key's priority inserts,
/// raises or lowers it in place, and removing a key needs no search. The engine uses one for
/// each device's deadlines, one for the devices whose clocks run in real time, and two per
/// device for jetsam's choice of victim.
struct IndexedHeap<Key: Hashable, Priority: Comparable> {
  private var entries: [(key: Key, priority: Priority)] = []
  private var positions: [Key: Int] = [:]

  var isEmpty: Bool { entries.isEmpty }
  var count: Int { entries.count }

  /// The key with the lowest priority, and that priority.
  var min: (key: Key, priority: Priority)? { entries.first }

  func priority(of key: Key) -> Priority? {
    positions[key].map { entries[$0].priority }
  }

  /// Inserts `key` with `priority`, or moves it there if it is already present.
  mutating func set(_ key: Key, to priority: Priority) {
    guard let index = positions[key] else {
      entries.append((key, priority))
      positions[key] = entries.count - 1
      siftUp(from: entries.count - 1)
      return
    }
    let old = entries[index].priority
    entries[index].priority = priority
    if priority < old { siftUp(from: index) } else { siftDown(from: index) }
  }

  /// Sets `key` to `priority`, or removes it when `priority` is nil.
  mutating func set(_ key: Key, to priority: Priority?) {
    if let priority { set(key, to: priority) } else { remove(key) }
  }

  mutating func remove(_ key: Key) {
    guard let index = positions.removeValue(forKey: key) else { return }
    let last = entries.removeLast()
    guard index < entries.count else { return }
    entries[index] = last
    positions[last.key] = index
    siftUp(from: index)
    siftDown(from: positions[last.key]!)
  }

  /// Removes and returns the key with the lowest priority.
  @discardableResult
  mutating func popMin() -> (key: Key, priority: Priority)? {
    guard let first = entries.first else { return nil }
    remove(first.key)
    return first
  }

  /// Every element in priority order; O(n log n), for views and tests, not hot paths.
  var sorted: [(key: Key, priority: Priority)] {
    entries.sorted { $0.priority < $1.priority }
  }

  private mutating func siftUp(from start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard entries[child].priority < entries[parent].priority else { return }
      swapEntries(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < entries.count else { return }
      let right = left + 1
      var smallest = left
      if right < entries.count, entries[right].priority < entries[left].priority {
        smallest = right
      }
      guard entries[smallest].priority < entries[parent].priority else { return }
      swapEntries(parent, smallest)
      parent = smallest
    }
  }

  private mutating func swapEntries(_ a: Int, _ b: Int) {
    entries.swapAt(a, b)
    positions[entries[a].key] = a
    positions[entries[b].key] = b
  }
}
