/// The keys of one object with many members, sorted by a hash of their text and, where hashes
/// tie, by the text itself: a key that repeats an earlier one sits beside it, a member is found
/// by binary search, and no `String` is made for a key (`JSONDocument`).
///
/// Sorting rather than a hash table: a body of 90,000 keys is sorted in a few sequential passes
/// over memory, where a table of its keys costs a cache miss per key; and keys made to share a
/// hash cost a sort by their text, never a search per key.
struct KeyIndex: Sendable {
  /// Objects of more members than this have an index; smaller ones are searched.
  static let minimumMembers = 16

  /// A key as the index sorts it: its hash in the high half and its index in the document in
  /// the low half, so that sorting the numbers sorts by hash, keys of one hash in document order.
  static func entry(key: Int, hash: UInt32) -> UInt64 { UInt64(hash) << 32 | UInt64(key) }

  private var entries: [UInt64]

  /// The index of the keys `entries` (made by `entry(key:hash:)`). `order` compares the texts
  /// of two keys, given by their indices in the document: negative if the first sorts first,
  /// zero if the texts are the same.
  init(_ entries: [UInt64], order: (Int, Int) -> Int) {
    var entries = entries
    Self.sortByHash(&entries)
    entries.withUnsafeMutableBufferPointer { entries in
      Self.forEachRunOfOneHash(in: UnsafeBufferPointer(entries)) { run in
        // Ties by text, then by place, so that a repeated text follows its first use.
        entries[run].sort { first, second in
          let sign = order(Self.key(first), Self.key(second))
          return sign != 0 ? sign < 0 : first < second
        }
      }
    }
    self.entries = entries
  }

  /// The first key, in document order, whose text an earlier key has.
  func firstRepeatedKey(order: (Int, Int) -> Int) -> Int? {
    var first: Int?
    entries.withUnsafeBufferPointer { entries in
      Self.forEachRunOfOneHash(in: entries) { run in
        for position in run.dropFirst()
        where order(Self.key(entries[position - 1]), Self.key(entries[position])) == 0 {
          first = min(first ?? .max, Self.key(entries[position]))
        }
      }
    }
    return first
  }

  /// The key whose hash is `hash` and whose text is the one sought: `order` compares a key's
  /// text with it (negative if the key's sorts first).
  func find(hash: UInt32, order: (Int) -> Int) -> Int? {
    let lowest = UInt64(hash) << 32
    let start = firstPosition(in: 0..<entries.count) { $0 >= lowest }
    let end = firstPosition(in: start..<entries.count) { $0 > lowest | 0xFFFF_FFFF }
    let position = firstPosition(in: start..<end) { order(Self.key($0)) >= 0 }
    guard position < end, order(Self.key(entries[position])) == 0 else { return nil }
    return Self.key(entries[position])
  }

  /// The hash of a key's text (its UTF-8 bytes, escapes decoded): eight bytes at a time, each
  /// folded into the state by a full-width multiply, from a seed chosen when the process
  /// starts. A few instructions a key where the standard library's hasher takes two hundred;
  /// the sort keeps keys that collide from costing more than a sort by their text.
  static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt32 {
    var state = seed ^ UInt64(text.count)
    var rest = UnsafeRawBufferPointer(text)
    while rest.count >= 8 {
      state = fold(state, rest.loadUnaligned(as: UInt64.self))
      rest = UnsafeRawBufferPointer(rebasing: rest[8...])
    }
    var last: UInt64 = 0
    for (offset, byte) in rest.enumerated() { last |= UInt64(byte) << (8 * offset) }
    state = fold(state, last)
    return UInt32(truncatingIfNeeded: state >> 32 ^ state)
  }

  private static let seed = UInt64.random(in: .min ... .max)

  private static func fold(_ state: UInt64, _ word: UInt64) -> UInt64 {
    let product = (state ^ word).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
    return product.high ^ product.low
  }

  private static func key(_ entry: UInt64) -> Int { Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) }

  /// Calls `body` with the positions of each run of two or more sorted entries of one hash.
  private static func forEachRunOfOneHash(
    in entries: UnsafeBufferPointer<UInt64>, _ body: (Range<Int>) -> Void
  ) {
    var start = 0  // read only while `position` is in bounds, and it is never past it
    for position in 1..<entries.count + 1
    where position == entries.count || entries[position] >> 32 != entries[start] >> 32 {
      if position - start > 1 { body(start..<position) }
      start = position
    }
  }

  /// The first position in `range` whose entry satisfies `isPast`, which must hold for every
  /// entry after one for which it holds (`range.upperBound` if none does).
  private func firstPosition(in range: Range<Int>, where isPast: (UInt64) -> Bool) -> Int {
    var (low, high) = (range.lowerBound, range.upperBound)
    while low < high {
      let middle = (low + high) / 2
      if isPast(entries[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }

  /// Sorts `entries` in ascending order; from 256 entries by four passes of a radix sort on
  /// the hash's bytes (stable, and the entries arrive in document order).
  private static func sortByHash(_ entries: inout [UInt64]) {
    guard entries.count >= 256 else { return entries.sort() }
    var sorted = [UInt64](repeating: 0, count: entries.count)
    var counts = [Int](repeating: 0, count: 4 * 256)  // of each byte's values, pass by pass
    entries.withUnsafeMutableBufferPointer { entries in
      sorted.withUnsafeMutableBufferPointer { sorted in
        counts.withUnsafeMutableBufferPointer { counts in
          for entry in entries {
            for pass in 0..<4 { counts[pass << 8 | digit(entry, pass)] += 1 }
          }
          var (source, target) = (entries, sorted)
          for pass in 0..<4 {
            var start = 0  // each digit's next place
            for digit in pass << 8..<(pass + 1) << 8 {
              (counts[digit], start) = (start, start + counts[digit])
            }
            for entry in source {
              let digit = pass << 8 | digit(entry, pass)  // below 1,024: `counts` has as many
              // Below `entries.count`: the places of a digit start where the smaller digits'
              // counts end, and as many entries take them as were counted.
              target[counts[digit]] = entry
              counts[digit] += 1
            }
            swap(&source, &target)
          }
        }
      }
    }
  }

  /// Byte `pass` of an entry's hash.
  private static func digit(_ entry: UInt64, _ pass: Int) -> Int {
    Int(truncatingIfNeeded: entry >> (32 + 8 * pass) & 0xFF)
  }
}
