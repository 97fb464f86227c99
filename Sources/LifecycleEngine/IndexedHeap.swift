/// A binary min-heap whose elements are addressed by slot: a small non-negative integer that
/// its owner assigns densely (see `SlotTable`).
///
/// Every operation that changes the heap costs O(log n) and none hashes: positions live in an
/// array indexed by slot. Setting a slot's priority inserts, raises or lowers it in place, and
/// removing a slot needs no search. The engine uses one for each device's deadlines, one for
/// the realtime devices, and two per device for jetsam's choice of victim.
struct IndexedHeap<Priority: Comparable> {
  private var entries: [(slot: Int, priority: Priority)] = []
  /// For each slot, its index in `entries`, or -1.
  private var positions: [Int] = []

  var isEmpty: Bool { entries.isEmpty }
  var count: Int { entries.count }

  /// The slot with the lowest priority, and that priority.
  var min: (slot: Int, priority: Priority)? { entries.first }

  func priority(of slot: Int) -> Priority? {
    guard slot < positions.count, positions[slot] >= 0 else { return nil }
    return entries[positions[slot]].priority
  }

  /// Inserts `slot` with `priority`, or moves it there if it is already present.
  mutating func set(_ slot: Int, to priority: Priority) {
    if slot >= positions.count {
      positions.append(contentsOf: repeatElement(-1, count: slot - positions.count + 1))
    }
    let index = positions[slot]
    guard index >= 0 else {
      entries.append((slot, priority))
      positions[slot] = entries.count - 1
      siftUp(from: entries.count - 1)
      return
    }
    let old = entries[index].priority
    entries[index].priority = priority
    if priority < old { siftUp(from: index) } else { siftDown(from: index) }
  }

  /// Sets `slot` to `priority`, or removes it when `priority` is nil.
  mutating func set(_ slot: Int, to priority: Priority?) {
    if let priority { set(slot, to: priority) } else { remove(slot) }
  }

  mutating func remove(_ slot: Int) {
    guard slot < positions.count, positions[slot] >= 0 else { return }
    let index = positions[slot]
    positions[slot] = -1
    let last = entries.removeLast()
    guard index < entries.count else { return }
    entries[index] = last
    positions[last.slot] = index
    siftUp(from: index)
    siftDown(from: positions[last.slot])
  }

  /// Removes and returns the slot with the lowest priority.
  @discardableResult
  mutating func popMin() -> (slot: Int, priority: Priority)? {
    guard let first = entries.first else { return nil }
    remove(first.slot)
    return first
  }

  /// Every element in priority order; O(n log n), for views and tests, not hot paths.
  var sorted: [(slot: Int, priority: Priority)] {
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
    positions[entries[a].slot] = a
    positions[entries[b].slot] = b
  }
}

/// Objects numbered by dense slots, with freed slots reused: the keys of an `IndexedHeap`.
struct SlotTable<Element: AnyObject> {
  private var elements: [Element?] = []
  private var free: [Int] = []

  /// Stores the element `make` builds for a free slot, and returns it.
  mutating func insert(_ make: (_ slot: Int) -> Element) -> Element {
    let slot = free.popLast() ?? elements.count
    let element = make(slot)
    if slot == elements.count { elements.append(element) } else { elements[slot] = element }
    return element
  }

  mutating func remove(_ slot: Int) {
    elements[slot] = nil
    free.append(slot)
  }

  subscript(slot: Int) -> Element { elements[slot]! }
}
