import LifecycleEngine

/// The last timeline picture drawn, by what it shows: the request's path and query, and the
/// device's version and clock. Clients that follow one device (live pages, a harness polling
/// its picture) ask for the same picture until the device changes; one picture is kept,
/// counted in the memory budget (`LifecycleAPI.heldBytes`).
struct PictureCache {
  /// What a picture shows: the same key, the same bytes.
  struct Key: Equatable {
    var path: String
    var query: String
    var version: DeviceVersion?
    var now: Instant
  }

  private var last: (key: Key, bytes: [UInt8])?

  /// What the memory budget counts for it.
  var bytes: Int { last.map { 64 + $0.bytes.count + $0.key.path.utf8.count } ?? 0 }

  /// The picture kept for `key`, if it is the one kept.
  func picture(for key: Key) -> [UInt8]? {
    guard let last, last.key == key else { return nil }
    return last.bytes
  }

  /// Keeps `bytes`, the picture for `key`, in place of the one kept.
  mutating func keep(_ bytes: [UInt8], for key: Key) {
    last = (key, bytes)
  }
}

/// Pictures being drawn off the loop: drawing a large one takes tens of milliseconds, which
/// on the loop would stall every client. At most `limit` are drawn at once; a request for a
/// picture already being drawn waits for that one.
struct PictureDrawings {
  static let limit = 4

  /// A picture to draw from a copy of its entries, and the requests waiting for it.
  final class Drawing: @unchecked Sendable {
    let key: PictureCache.Key
    let picture: TimelineSVG
    /// The requests it answers, with their routes' templates (the loop's alone).
    fileprivate(set) var requests: [(exchange: UInt64, template: String)]
    /// Written by `draw` on a worker thread, read on the loop once the drawing finished.
    private(set) var bytes: [UInt8] = []

    init(key: PictureCache.Key, picture: TimelineSVG, exchange: UInt64, template: String) {
      self.key = key
      self.picture = picture
      requests = [(exchange, template)]
    }

    /// Draws the picture: on any thread, once.
    @Sendable func draw() { bytes = picture.bytes }

    /// What it holds while it is drawn: its copy of the entries, then the picture.
    var heldBytes: Int {
      256 + picture.entries.count * MemoryLayout<JournalEntry>.stride + bytes.count
    }
  }

  private var drawings: [Drawing] = []
  /// Those not yet handed to a thread (`takeUnstarted`).
  private var unstarted: [Drawing] = []

  var isFull: Bool { drawings.count >= Self.limit }
  var heldBytes: Int { drawings.reduce(0) { $0 + $1.heldBytes } }

  /// Adds the request to the drawing of `key`, if one is under way; false if none is.
  mutating func join(_ key: PictureCache.Key, exchange: UInt64, template: String) -> Bool {
    guard let drawing = drawings.first(where: { $0.key == key }) else { return false }
    drawing.requests.append((exchange, template))
    return true
  }

  mutating func start(_ drawing: Drawing) {
    drawings.append(drawing)
    unstarted.append(drawing)
  }

  /// The drawings to hand to threads now.
  mutating func takeUnstarted() -> [Drawing] {
    defer { unstarted = [] }
    return unstarted
  }

  mutating func finished(_ drawing: Drawing) {
    drawings.removeAll { $0 === drawing }
  }
}
