/// The keys of one object with many members, found by a hash of their text: with it, the
/// duplicate check while parsing and a reader's look-up of a member cost the same however many
/// members the object has, and no `String` is made for a key (`JSONDocument`).
///
/// Open addressing over a power-of-two table at most half full. The hash is the standard
/// library's seeded one, so a body cannot be made of keys that all collide.
struct KeyIndex: Sendable {
  /// Objects of more members than this have an index; smaller ones are searched.
  static let minimumMembers = 16

  /// Eight bytes: the table of a 1 MiB body's 90,000 keys stays within 2 MiB.
  private struct Slot {
    /// The key's index in the document; -1 where the slot is empty.
    var key: Int32 = -1
    var hash: UInt32 = 0
  }

  private var slots: [Slot]
  private var count = 0

  /// An index with room for `capacity` keys before it grows.
  init(capacity: Int) {
    var size = 16
    while size < 2 * capacity { size *= 2 }
    slots = Array(repeating: Slot(), count: size)
  }

  /// The hash of a key's text (its UTF-8 bytes, escapes decoded), fed to the hasher eight
  /// bytes at a time, which costs a third of handing it the bytes.
  static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt32 {
    var hasher = Hasher()
    var rest = UnsafeRawBufferPointer(text)
    while rest.count >= 8 {
      hasher.combine(rest.loadUnaligned(as: UInt64.self))
      rest = UnsafeRawBufferPointer(rebasing: rest[8...])
    }
    var last: UInt64 = 0
    withUnsafeMutableBytes(of: &last) { $0.copyMemory(from: rest) }
    hasher.combine(last ^ UInt64(text.count) << 56)  // the length tells "a" from "a\0"
    return UInt32(truncatingIfNeeded: hasher.finalize())
  }

  /// The key whose hash is `hash` and for which `isSame` holds, if there is one.
  func find(hash: UInt32, _ isSame: (Int) -> Bool) -> Int? {
    let mask = slots.count - 1
    var position = Int(hash) & mask
    while slots[position].key >= 0 {
      if slots[position].hash == hash, isSame(Int(slots[position].key)) {
        return Int(slots[position].key)
      }
      position = (position + 1) & mask
    }
    return nil
  }

  /// Adds `key`, whose text hashes to `hash`: the caller has checked that no key has its text.
  mutating func insert(_ key: Int, hash: UInt32) {
    if 2 * (count + 1) > slots.count { grow() }
    let mask = slots.count - 1
    var position = Int(hash) & mask
    while slots[position].key >= 0 { position = (position + 1) & mask }
    slots[position] = Slot(key: Int32(key), hash: hash)
    count += 1
  }

  /// Four times the room: a large object is rehashed about a third as often as by doubling.
  private mutating func grow() {
    let old = slots
    slots = Array(repeating: Slot(), count: 4 * old.count)
    count = 0
    for slot in old where slot.key >= 0 { insert(Int(slot.key), hash: slot.hash) }
  }
}
