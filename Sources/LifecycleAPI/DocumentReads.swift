import JSONCore
import LifecycleEngine

/// Large device documents (`PUT /v1/devices/{device}` with a body over `offLoopBytes`), read
/// off the loop: the body is parsed, read into a `DeviceImage` and the device recreated from it
/// (`Engine.recreate`) on a worker thread, so that a snapshot of a megabyte (a thousand apps:
/// about 15 ms) stalls no other client. The engine takes the device in on the loop once it is
/// made, and the request's `If-Match` is weighed then, against the device as it is then. Until then the
/// device answers as it was: the restore takes effect when it is answered, as any request's
/// does. At most `limit` are read at once; what each holds counts in the memory budget
/// (`heldBytes`) from the start.
struct DocumentReads {
  /// Bodies up to this many bytes are read on the loop: their reading costs less than the
  /// trip to a thread.
  static let offLoopBytes = 65_536
  static let limit = 4

  /// What a reading holds for each byte of its body, at most: the body, the parsed values (16
  /// bytes each, reserved at a quarter of the body's size), the image made from them and the
  /// device made from that (which then counts in the engine).
  static let heldBytesPerBodyByte = 6

  /// One document being read, and the request it answers.
  final class Reading: @unchecked Sendable {
    let body: [UInt8]
    let device: String
    let configuration: EngineConfiguration
    let exchange: UInt64
    let template: String
    let ifMatch: String?
    /// Written by `read` on a worker thread, read on the loop once it is done.
    private var recreated: Result<RecreatedDevice, Problem>?

    init(
      body: [UInt8], device: String, configuration: EngineConfiguration, exchange: UInt64,
      template: String, ifMatch: String?
    ) {
      self.body = body
      self.device = device
      self.configuration = configuration
      self.exchange = exchange
      self.template = template
      self.ifMatch = ifMatch
    }

    var heldBytes: Int { 256 + body.count * DocumentReads.heldBytesPerBodyByte }

    /// Reads the document and recreates the device it shows: on any thread, once.
    @Sendable func read() { recreated = made() }

    /// The device `read` made; made here if it did not run (its work was cancelled).
    var madeDevice: Result<RecreatedDevice, Problem> { recreated ?? made() }

    private func made() -> Result<RecreatedDevice, Problem> {
      var values: [JSONDocument.Value] = []
      return Result { () throws(Problem) in
        let image = try DeviceDocument.image(
          try LifecycleAPI.parsedJSON(body, reusing: &values), id: device,
          defaults: configuration.deviceDefaults)
        do throws(EngineError) {
          return try Engine.recreate(image, within: configuration)
        } catch {
          throw Problem(error)
        }
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
