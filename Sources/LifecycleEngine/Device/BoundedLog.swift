/// What a value costs to keep, in bytes: its own size and the text it holds on the heap.
///
/// The engine counts its state with it (`Engine.retainedBytes`): an estimate, the same on
/// every machine, so that the memory budget refuses the same request in every run.
public protocol RetainedSize {
  var retainedBytes: Int { get }
}

/// What a `BoundedLog` keeps: a value that knows its size, and has an empty value that holds
/// nothing on the heap, left in the place of an element dropped before the place is reused.
public protocol BoundedLogElement: RetainedSize {
  static var vacancy: Self { get }
}

/// An append-only log that keeps the newest elements within `capacity` elements and
/// `byteCapacity` bytes, and counts what it dropped.
///
/// Backs each device's journal and jetsam log: memory stays bounded however long a device
/// lives and however large its entries, and a reader can tell that it missed entries. An
/// element larger than `byteCapacity` on its own is still kept, alone.
public struct BoundedLog<Element: BoundedLogElement>: Sequence {
  public let capacity: Int
  public let byteCapacity: Int
  /// How many of the oldest elements were dropped to make room.
  public private(set) var dropped = 0
  /// The kept elements' `retainedBytes`.
  public private(set) var bytes = 0
  public private(set) var count = 0
  /// A ring: the oldest element at `head`, the others after it, wrapping around; places not
  /// in use hold `Element.vacancy`. (Not optionals: an optional element is destroyed, when
  /// replaced, through the generic value witness, at twice the cost.)
  private var storage: [Element] = []
  /// Each stored element's `retainedBytes`, at the same place in a ring of its own: dropping
  /// the oldest neither copies nor measures it again.
  private var sizes: [Int] = []
  private var head = 0

  public init(capacity: Int, byteCapacity: Int = .max) {
    // The configuration's bounds keep capacities at 1 or more; no request sets one.
    precondition(capacity > 0, "a log keeps at least one element")
    self.capacity = capacity
    self.byteCapacity = byteCapacity
  }

  /// Appends `element`, dropping the oldest until both bounds hold; returns the change in
  /// `bytes`.
  @discardableResult
  public mutating func append(_ element: consuming Element) -> Int {
    let size = element.retainedBytes
    return append(element, retainedBytes: size)
  }

  /// Appends `element`, whose `retainedBytes` the caller gives.
  @discardableResult
  mutating func append(_ element: consuming Element, retainedBytes size: Int) -> Int {
    assert(size == element.retainedBytes, "the size of an element is its retainedBytes")
    if count == capacity, bytes - sizes[head] + size <= byteCapacity {
      // Full by count, as a long-lived journal is: the element takes the oldest's place.
      let change = size - sizes[head]
      storage[head] = element
      sizes[head] = size
      head = advanced(head)
      bytes += change
      dropped += 1
      return change
    }
    let before = bytes
    while count > 0, count == capacity || bytes + size > byteCapacity { dropOldest() }
    if count == storage.count, storage.count < capacity {
      if head != 0 {  // the ring wrapped after byte drops: straighten it before growing
        storage = Array(self)
        sizes = Array(sizes[head...] + sizes[..<head])
        head = 0
      }
      storage.append(element)
      sizes.append(size)
    } else {
      let end = (head + count) % storage.count
      storage[end] = element
      sizes[end] = size
    }
    count += 1
    bytes += size
    return bytes - before
  }

  private mutating func dropOldest() {
    bytes -= sizes[head]
    storage[head] = .vacancy
    head = advanced(head)
    count -= 1
    dropped += 1
  }

  /// The place after `index` in the ring.
  private func advanced(_ index: Int) -> Int {
    index + 1 == storage.count ? 0 : index + 1
  }

  /// The kept elements, oldest first.
  public func makeIterator() -> Iterator { Iterator(log: self) }

  /// The kept elements from the `offset`-th oldest (0 for the oldest) on.
  public func elements(from offset: Int) -> some Sequence<Element> {
    (Swift.min(Swift.max(offset, 0), count)..<count).lazy.map { self[offset: $0] }
  }

  /// The `offset`-th oldest kept element (0 for the oldest), `offset` below `count`.
  public subscript(offset offset: Int) -> Element {
    storage[(head + offset) % storage.count]
  }

  public struct Iterator: IteratorProtocol {
    fileprivate let log: BoundedLog
    private var offset = 0

    fileprivate init(log: BoundedLog) { self.log = log }

    public mutating func next() -> Element? {
      guard offset < log.count else { return nil }
      defer { offset += 1 }
      return log.storage[(log.head + offset) % log.storage.count]
    }
  }

  public var underestimatedCount: Int { count }
}

extension BoundedLog: Equatable where Element: Equatable {
  public static func == (lhs: BoundedLog, rhs: BoundedLog) -> Bool {
    lhs.capacity == rhs.capacity && lhs.byteCapacity == rhs.byteCapacity
      && lhs.dropped == rhs.dropped && lhs.elementsEqual(rhs)
  }
}

extension BoundedLog: Sendable where Element: Sendable {}
