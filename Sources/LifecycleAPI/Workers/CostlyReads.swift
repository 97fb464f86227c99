import LifecycleEngine

/// The costliest reads, a device's timeline picture and its snapshot, answered off the loop:
/// made on a worker thread from a copy of what they show, so that a large one (tens of
/// milliseconds for a device of a thousand apps) stalls no other client. At most `limit` are
/// made at once, and a request for an answer being made waits for that one. The last answer
/// made is kept by what it shows and answers the requests for it until the device changes, as
/// clients that follow one device (live pages, a harness polling its picture) ask. All of it
/// counts in the memory budget (`heldBytes`).
struct CostlyReads {
  static let limit = 4

  /// What an answer shows: the same key, the same bytes.
  struct Key: Equatable {
    var path: String
    var query: String
    var version: DeviceVersion?
    var now: Instant
  }

  /// An answer made off the loop, and the requests waiting for it.
  final class Answer: @unchecked Sendable {
    let key: Key
    let contentType: String
    let headers: [(name: String, value: String)]
    /// What its copy of the device holds while it is made.
    let copyBytes: Int
    private let write: @Sendable () -> [UInt8]
    /// The requests it answers, with their routes' templates (the loop's alone).
    fileprivate(set) var requests: [(exchange: UInt64, template: RouteTemplate)] = []
    /// Written by `make` on a worker thread, read on the loop once it is made.
    private(set) var bytes: [UInt8] = []

    init(
      key: Key, contentType: String, headers: [(name: String, value: String)] = [],
      copyBytes: Int, write: @escaping @Sendable () -> [UInt8]
    ) {
      self.key = key
      self.contentType = contentType
      self.headers = headers
      self.copyBytes = copyBytes
      self.write = write
    }

    /// Makes the answer's bytes: on any thread, once.
    @Sendable func make() { bytes = write() }

    /// The response that carries it, tagged with the version of the device it shows.
    var response: APIResponse {
      var response = APIResponse(
        status: 200, contentType: contentType, headers: headers, body: bytes)
      response.version = key.version
      return response
    }
  }

  private var making: [Answer] = []
  /// Those of `making` not yet handed to a thread (`takeUnstarted`).
  private var unstarted: [Answer] = []
  private var kept: Answer?

  var isFull: Bool { making.count >= Self.limit }

  var heldBytes: Int {
    making.reduce(0) { $0 + 256 + $1.copyBytes + $1.bytes.count }
      + (kept.map { 256 + $0.bytes.count + $0.key.path.utf8.count + $0.key.query.utf8.count }
        ?? 0)
  }

  /// The answer kept for `key`, if it is the one kept.
  func kept(for key: Key) -> APIResponse? {
    guard let kept, kept.key == key else { return nil }
    return kept.response
  }

  /// Adds the request to the answer for `key` being made; false if none is.
  mutating func join(_ key: Key, exchange: UInt64, template: RouteTemplate) -> Bool {
    guard let answer = making.first(where: { $0.key == key }) else { return false }
    answer.requests.append((exchange, template))
    return true
  }

  /// Starts making `answer` for the request `exchange`.
  mutating func start(_ answer: Answer, exchange: UInt64, template: RouteTemplate) {
    answer.requests = [(exchange, template)]
    making.append(answer)
    unstarted.append(answer)
  }

  /// The answers to hand to threads now.
  mutating func takeUnstarted() -> [Answer] {
    defer { unstarted = [] }
    return unstarted
  }

  /// `answer` is made: it is kept, in place of the one kept before.
  mutating func finished(_ answer: Answer) {
    making.removeAll { $0 === answer }
    kept = answer
  }
}
