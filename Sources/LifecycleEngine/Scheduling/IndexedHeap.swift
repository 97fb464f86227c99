/// A binary min-heap whose elements are addressed by slot: a small non-negative integer that
/// its owner assigns densely (see `SlotTable`).
///
/// Every operation that changes the heap costs O(log n) and none hashes: positions and
/// priorities live in arrays indexed by slot, and the heap itself holds only slots, so sifting
/// moves integers (a priority that holds a String would be retained and released at every
/// step). Setting a slot's priority inserts, raises or lowers it in place, and removing a slot
/// needs no search. The engine uses one for each device's deadlines, one for the realtime
/// devices, and two per device for jetsam's choice of victim.
struct IndexedHeap<Priority: Comparable> {
  /// The slots, in heap order by their priorities.
  private var heap: [Int] = []
  /// For each slot, its index in `heap`, or -1.
  private var positions: [Int] = []
  /// For each slot in the heap, its priority (its unwraps below read slots of `heap`, which
  /// always have one: nothing a client sends reaches a slot any other way).
  private var priorities: [Priority?] = []

  var isEmpty: Bool { heap.isEmpty }
  var count: Int { heap.count }

  /// The slot with the lowest priority, and that priority.
  var min: (slot: Int, priority: Priority)? {
    heap.first.map { ($0, priorities[$0]!) }
  }

  func priority(of slot: Int) -> Priority? {
    slot < priorities.count ? priorities[slot] : nil
  }

  /// Inserts `slot` with `priority`, or moves it there if it is already present.
  mutating func set(_ slot: Int, to priority: Priority) {
    if slot >= positions.count {
      let added = slot - positions.count + 1
      positions.append(contentsOf: repeatElement(-1, count: added))
      priorities.append(contentsOf: repeatElement(nil, count: added))
    }
    let old = priorities[slot]
    priorities[slot] = priority
    guard let old else {
      heap.append(slot)
      positions[slot] = heap.count - 1
      siftUp(from: heap.count - 1)
      return
    }
    if priority < old { siftUp(from: positions[slot]) } else { siftDown(from: positions[slot]) }
  }

  /// Sets `slot` to `priority`, or removes it when `priority` is nil.
  mutating func set(_ slot: Int, to priority: Priority?) {
    if let priority { set(slot, to: priority) } else { remove(slot) }
  }

  mutating func remove(_ slot: Int) {
    guard slot < positions.count, positions[slot] >= 0 else { return }
    let index = positions[slot]
    positions[slot] = -1
    priorities[slot] = nil
    let last = heap.removeLast()
    guard index < heap.count else { return }
    heap[index] = last
    positions[last] = index
    siftUp(from: index)
    siftDown(from: positions[last])
  }

  /// Removes and returns the slot with the lowest priority.
  @discardableResult
  mutating func popMin() -> (slot: Int, priority: Priority)? {
    guard let first = min else { return nil }
    remove(first.slot)
    return first
  }

  /// Every element in priority order; O(n log n), for views and tests, not hot paths.
  var sorted: [(slot: Int, priority: Priority)] {
    heap.map { ($0, priorities[$0]!) }.sorted { $0.priority < $1.priority }
  }

  /// Whether the slot at heap index `a` comes before the one at `b`.
  private func precedes(_ a: Int, _ b: Int) -> Bool {
    priorities[heap[a]]! < priorities[heap[b]]!
  }

  private mutating func siftUp(from start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard precedes(child, parent) else { return }
      swapEntries(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      let right = left + 1
      var smallest = left
      if right < heap.count, precedes(right, left) { smallest = right }
      guard precedes(smallest, parent) else { return }
      swapEntries(parent, smallest)
      parent = smallest
    }
  }

  private mutating func swapEntries(_ a: Int, _ b: Int) {
    heap.swapAt(a, b)
    positions[heap[a]] = a
    positions[heap[b]] = b
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

  /// The element in the occupied `slot`: slots come from `insert` and are let go only by
  /// `remove`, which their owner calls with the element (no slot comes from a request).
  subscript(slot: Int) -> Element { elements[slot]! }

  /// Puts `element` in the occupied `slot`, in place of the one there.
  mutating func replace(_ slot: Int, with element: Element) {
    precondition(elements[slot] != nil, "slot \(slot) is free")
    elements[slot] = element
  }

  /// The same slots, each element transformed, the free ones still free.
  func mapped(_ transform: (Element) -> Element) -> SlotTable {
    var table = SlotTable()
    table.elements = elements.map { $0.map(transform) }
    table.free = free
    return table
  }
}
