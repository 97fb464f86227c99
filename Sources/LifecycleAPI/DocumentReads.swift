import JSONCore
import LifecycleEngine

/// Large device documents (`PUT /v1/devices/{device}` with a body over `offLoopBytes`), read
/// off the loop: the body is parsed and read into a `DeviceImage` on a worker thread, so that a
/// snapshot of a megabyte (a thousand apps: about 10 ms of parsing and reading) stalls no other
/// client. The device is replaced on the loop once its image is made, and the request's
/// `If-Match` is weighed then, against the device as it is at that moment. Until then the
/// device answers as it was: the restore takes effect when it is answered, as any request's
/// does. At most `limit` are read at once; what each holds counts in the memory budget
/// (`heldBytes`) from the start.
struct DocumentReads {
  /// Bodies up to this many bytes are read on the loop: their reading costs less than the
  /// trip to a thread.
  static let offLoopBytes = 65_536
  static let limit = 4

  /// What a reading holds for each byte of its body, at most: the body, the parsed values (16
  /// bytes each, reserved at a quarter of the body's size) and the image made from them.
  static let heldBytesPerBodyByte = 6

  /// One document being read, and the request it answers.
  final class Reading: @unchecked Sendable {
    let body: [UInt8]
    let device: String
    let defaults: DeviceDefaults
    let exchange: UInt64
    let template: String
    let ifMatch: String?
    /// Written by `read` on a worker thread, read on the loop once it is done.
    private(set) var image: Result<DeviceImage, Problem>?

    init(
      body: [UInt8], device: String, defaults: DeviceDefaults, exchange: UInt64,
      template: String, ifMatch: String?
    ) {
      self.body = body
      self.device = device
      self.defaults = defaults
      self.exchange = exchange
      self.template = template
      self.ifMatch = ifMatch
    }

    var heldBytes: Int { 256 + body.count * DocumentReads.heldBytesPerBodyByte }

    /// Reads the document into the device's image: on any thread, once.
    @Sendable func read() { image = made() }

    /// The image `read` made; made here if it did not run (its work was cancelled).
    var madeImage: Result<DeviceImage, Problem> { image ?? made() }

    private func made() -> Result<DeviceImage, Problem> {
      var values: [JSONDocument.Value] = []
      return Result { () throws(Problem) in
        try DeviceDocument.image(
          try LifecycleAPI.parsedJSON(body, reusing: &values), id: device, defaults: defaults)
      }
    }
  }

  private var reading: [Reading] = []
  /// Those of `reading` not yet handed to a thread (`takeUnstarted`).
  private var unstarted: [Reading] = []

  var isFull: Bool { reading.count >= Self.limit }

  var heldBytes: Int { reading.reduce(0) { $0 + $1.heldBytes } }

  mutating func start(_ document: Reading) {
    reading.append(document)
    unstarted.append(document)
  }

  /// The readings to hand to threads now.
  mutating func takeUnstarted() -> [Reading] {
    defer { unstarted = [] }
    return unstarted
  }

  mutating func finished(_ document: Reading) {
    reading.removeAll { $0 === document }
  }
}
