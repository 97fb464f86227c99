import JSONCore
import LifecycleEngine

/// Request bodies of more than `offLoopBytes`, read off the loop: parsed on a worker thread,
/// and for `PUT /v1/devices/{device}` read into the device the document shows, which is
/// recreated there too (`Engine.recreate`), so that a body of a megabyte (a JSON string: about
/// 1 ms to parse; a snapshot of a thousand apps: about 15 ms to parse and recreate) holds up
/// no other client. The request is then handled on the loop like any other, with what its
/// body was read into: a device's `If-Match` is weighed then, against the device as it is.
/// Until then the request waits, and its device answers as it was. What a reading holds
/// counts in the memory budget from its start (`heldBytes`).
struct BodyReads {
  /// Bodies up to this many bytes are parsed on the loop: their parsing costs less than the
  /// trip to a thread.
  static let offLoopBytes = 65_536

  /// What a reading holds for each byte of its body, at most: the body, the parsed values (16
  /// bytes each, reserved at a quarter of the body's size), and for a device document the
  /// image and the device made from them.
  static let heldBytesPerBodyByte = 6

  /// What a body was read into: a value of the type its handler asks for, or the problem the
  /// body has.
  typealias Made = Result<any Sendable, Problem>

  /// A request whose body is being read, and how.
  final class Reading: @unchecked Sendable {
    let request: APIRequest
    private let make: @Sendable ([UInt8]) -> Made
    /// Written by `read` on a worker thread, read on the loop once it is done.
    private var made: Made?

    init(_ request: APIRequest, make: @escaping @Sendable ([UInt8]) -> Made) {
      self.request = request
      self.make = make
    }

    var heldBytes: Int { 256 + request.body.count * BodyReads.heldBytesPerBodyByte }

    /// Reads the body: on any thread, once.
    @Sendable func read() { made = make(request.body) }

    /// What `read` made; made here if it did not run (its work was cancelled).
    var result: Made { made ?? make(request.body) }
  }

  /// The readings begun and not yet handled.
  private var reading: [Reading] = []
  /// Those of `reading` not yet handed to a thread (`takeUnstarted`).
  private var unstarted: [Reading] = []
  /// What the request being handled again had its body read into, by its exchange.
  private var handing: (exchange: UInt64, made: Made)?

  var heldBytes: Int { reading.reduce(0) { $0 + $1.heldBytes } }

  mutating func start(_ reading: Reading) {
    self.reading.append(reading)
    unstarted.append(reading)
  }

  /// The readings to hand to threads now.
  mutating func takeUnstarted() -> [Reading] {
    defer { unstarted = [] }
    return unstarted
  }

  /// `reading` is done: its request is handled again now, and finds what its body was read
  /// into (`made(for:)`) until `handled`.
  mutating func finished(_ reading: Reading) {
    self.reading.removeAll { $0 === reading }
    handing = (reading.request.exchange, reading.result)
  }

  mutating func handled() { handing = nil }

  /// What the body of the request `exchange` was read into, if it is being handled again.
  func made(for exchange: UInt64) -> Made? {
    guard let handing, handing.exchange == exchange else { return nil }
    return handing.made
  }
}

/// Thrown by a handler whose request's body began to be read off the loop (`BodyReads`): the
/// request waits, and is handled again once it is read.
struct ReadingOffLoop: Error {}
