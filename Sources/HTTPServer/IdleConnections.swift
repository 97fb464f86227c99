import HTTPCore

/// The connections the server may close to make room for a new one, in the order it closes
/// them: those lingering after their last response (done with), then those silent since they
/// were accepted (they have cost their client nothing), then those kept alive between requests
/// (their client has shown itself real, and closing one races its next request, which it
/// cannot then know was not applied: RFC 9112 §9.3.1).
///
/// Each kind is a list in the order its connections became idle. Every connection of a kind
/// has the same allowance, so the first of a list is also the one whose allowance ends first.
/// Placing, removing and choosing take constant time: a flood of arrivals costs no scans.
struct IdleConnections {
  private var lists = [List](repeating: List(), count: IdleKind.allCases.count)

  /// Moves `connection` to the end of the list of `kind` if its kind changed; nil takes it out.
  mutating func place(_ connection: Connection, as kind: IdleKind?) {
    guard connection.idleKind != kind else { return }
    if let current = connection.idleKind { lists[Self.index(of: current)].remove(connection) }
    connection.idleKind = kind
    if let kind { lists[Self.index(of: kind)].append(connection) }
  }

  /// The first connection, in closing order, that `included` accepts.
  func first(where included: (Connection) -> Bool) -> Connection? {
    for list in lists {
      var candidate = list.head
      while let connection = candidate {
        if included(connection) { return connection }
        candidate = connection.nextIdle
      }
    }
    return nil
  }

  /// The closing order.
  private static func index(of kind: IdleKind) -> Int {
    switch kind {
    case .lingering: 0
    case .awaitingFirstRequest: 1
    case .betweenRequests: 2
    }
  }

  /// A doubly linked list through the connections themselves (`nextIdle`, `previousIdle`).
  private struct List {
    var head: Connection?
    unowned(unsafe) var tail: Connection?

    mutating func append(_ connection: Connection) {
      connection.previousIdle = tail
      connection.nextIdle = nil
      if let tail { tail.nextIdle = connection } else { head = connection }
      tail = connection
    }

    mutating func remove(_ connection: Connection) {
      let previous = connection.previousIdle
      let next = connection.nextIdle
      if let previous { previous.nextIdle = next } else { head = next }
      if let next { next.previousIdle = previous } else { tail = previous }
      connection.previousIdle = nil
      connection.nextIdle = nil
    }
  }
}
