/// An append-only log that keeps the newest `capacity` elements and counts what it dropped.
///
/// Backs each device's journal and jetsam log: memory stays bounded however long a device
/// lives, and a reader can tell that it missed entries.
public struct BoundedLog<Element> {
  public let capacity: Int
  /// How many of the oldest elements were dropped to make room.
  public private(set) var dropped = 0
  private var storage: [Element] = []
  private var start = 0

  public init(capacity: Int) {
    precondition(capacity > 0, "a log keeps at least one element")
    self.capacity = capacity
  }

  public var count: Int { storage.count }

  public mutating func append(_ element: consuming Element) {
    if storage.count < capacity {
      storage.append(element)
    } else {
      storage[start] = element
      start = (start + 1) % capacity
      dropped += 1
    }
  }

  /// The kept elements, oldest first.
  public var elements: [Element] {
    Array(storage[start...] + storage[..<start])
  }
}

extension BoundedLog: Equatable where Element: Equatable {
  public static func == (lhs: BoundedLog, rhs: BoundedLog) -> Bool {
    lhs.capacity == rhs.capacity && lhs.dropped == rhs.dropped && lhs.elements == rhs.elements
  }
}

extension BoundedLog: Sendable where Element: Sendable {}
