import LifecycleEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One route: a method, a path template, the query parameters it takes and its handler.
///
/// Everything else about a route derives from its declaration in `LifecycleAPI.routes`: a path
/// that matches no template is 404; one whose templates take other methods is 405 with those
/// in `Allow` (GET routes answer HEAD too); a query parameter the route does not name is 422;
/// the template is the `route` label of the request metrics.
final class Route {
  /// How a route answers: from the API and the request, a response or a thrown `Problem` or
  /// `EngineError`.
  typealias Handler = (LifecycleAPI, borrowing RouteRequest) throws -> APIResponse

  let method: String
  /// The path template as `openapi.yaml` writes it, such as `/v1/devices/{device}/apps/{app}`:
  /// literal segments, and what a path can capture: `{device}`, `{app}` and `{jetsamEvent}`.
  let template: RouteTemplate
  let queryParameters: [String]
  let handler: Handler
  /// The template's segments after its leading `/`.
  private let segments: [Segment]
  /// Where the template captures each name it has, among `segments`: read straight from a
  /// path that matches.
  private let deviceSegment, appSegment, jetsamEventSegment: Int?

  /// Whether the path names a device: its responses carry the device's `ETag`, and it honours
  /// `If-Match`.
  var isDeviceScoped: Bool { deviceSegment != nil }

  private enum Segment {
    /// Bytes of the template's static text, which lives as long as the program.
    case literal(UnsafeBufferPointer<UInt8>)
    case capture(Capture)

    var capture: Capture? {
      if case .capture(let capture) = self { capture } else { nil }
    }
  }

  /// What a template's segment can capture.
  private enum Capture {
    case device, app
    /// A jetsam event's number: a positive decimal integer.
    case jetsamEvent
  }

  private init(
    _ method: String, _ template: StaticString, query: [String], handler: @escaping Handler
  ) {
    let text = UnsafeBufferPointer(start: template.utf8Start, count: template.utf8CodeUnitCount)
    precondition(text.first == UInt8(ascii: "/"), "\(template) does not start with /")
    self.method = method
    self.template = RouteTemplate(template)
    queryParameters = query
    self.handler = handler
    segments = text.dropFirst().split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: false
    )
    .map { segment -> Segment in
      let text = String(decoding: segment, as: UTF8.self)
      if text == "{device}" { return .capture(.device) }
      if text == "{app}" { return .capture(.app) }
      if text == "{jetsamEvent}" { return .capture(.jetsamEvent) }
      precondition(!text.contains("{"), "\(template): only {device}, {app}, {jetsamEvent}")
      return .literal(UnsafeBufferPointer(rebasing: segment))
    }
    deviceSegment = segments.firstIndex { $0.capture == .device }
    appSegment = segments.firstIndex { $0.capture == .app }
    jetsamEventSegment = segments.firstIndex { $0.capture == .jetsamEvent }
  }

  static func get(_ template: StaticString, query: [String] = [], _ handler: @escaping Handler)
    -> Route
  {
    Route("GET", template, query: query, handler: handler)
  }

  static func post(_ template: StaticString, query: [String] = [], _ handler: @escaping Handler)
    -> Route
  {
    Route("POST", template, query: query, handler: handler)
  }

  static func put(_ template: StaticString, _ handler: @escaping Handler) -> Route {
    Route("PUT", template, query: [], handler: handler)
  }

  static func delete(
    _ template: StaticString, query: [String] = [], _ handler: @escaping Handler
  ) -> Route {
    Route("DELETE", template, query: query, handler: handler)
  }

  var segmentCount: Int { segments.count }

  /// Whether `path` matches the template: its literal segments the same, a name where it
  /// captures one, a number where it captures one. Nothing is made: most templates a path is
  /// compared with do not match it. Compared from the last segment, where templates of the
  /// same length differ (`…/{app}/journal`, `…/{app}/events`).
  func matches(_ path: PathSegments) -> Bool {
    guard path.count == segments.count else { return false }
    for index in segments.indices.reversed() {
      let matches =
        switch segments[index] {
        case .literal(let literal): path.is(index, literal)
        case .capture(.device), .capture(.app): path.isName(index)
        case .capture(.jetsamEvent): path.number(index) != nil
        }
      guard matches else { return false }
    }
    return true
  }

  /// What `path`, which `matches` the template, captures.
  func captures(in path: PathSegments) -> PathCaptures {
    var captures = PathCaptures()
    if let index = deviceSegment { captures.device = path.name(index) }
    if let index = appSegment { captures.app = path.name(index) }
    if let index = jetsamEventSegment { captures.jetsamEvent = path.number(index) ?? 0 }
    return captures
  }
}

/// What a path captured for its template's names (empty or 0 where it has none).
struct PathCaptures {
  var device = ""
  var app = ""
  var jetsamEvent = 0
}

/// A request as a handler sees it: the names its path captured, its checked query, the time.
struct RouteRequest {
  let request: APIRequest
  /// The route's template, as `openapi.yaml` writes it: the request metrics' label.
  let template: RouteTemplate
  /// The `{device}` of the path; `default` for paths under `/v1/apps`.
  let device: String
  /// The `{app}` of the path, if the template has one.
  let app: String
  /// The `{jetsamEvent}` of the path, if the template has one.
  let jetsamEvent: Int
  let query: Query
  let now: Instant
  let isDraining: Bool
  /// Its `Idempotency-Key` and fingerprint, if it has one (`LifecycleAPI.retry(of:to:)`).
  let retry: IdempotencyStore.Retry?
}

/// A route's path template, the label its requests are counted under in the metrics: the
/// program's static text, copied and compared without reference counting on every request.
struct RouteTemplate: Equatable, CustomStringConvertible {
  private let text: StaticString

  init(_ text: StaticString) { self.text = text }

  /// The label of the requests no route matched.
  static let unmatched = RouteTemplate("unmatched")

  var description: String { text.description }

  /// The same text: nearly always the same route's, told by its address.
  static func == (lhs: Self, rhs: Self) -> Bool {
    let count = lhs.text.utf8CodeUnitCount
    return count == rhs.text.utf8CodeUnitCount
      && (lhs.text.utf8Start == rhs.text.utf8Start
        || memcmp(lhs.text.utf8Start, rhs.text.utf8Start, count) == 0)
  }
}

/// The routes of the API, searched in the order declared.
struct Router {
  /// The routes, those of templates with fewer segments first (otherwise as declared).
  private let routes: [Route]
  /// Where the routes of templates with each number of segments are in `routes`: a path is
  /// compared only with those of its length.
  private let bySegmentCount: [Range<Int>]

  init(_ routes: [Route]) {
    let sorted = routes.enumerated().sorted {
      ($0.element.segmentCount, $0.offset)
        < ($1.element.segmentCount, $1.offset)
    }.map(\.element)
    let longest = sorted.last?.segmentCount ?? 0
    bySegmentCount = (0...longest).map { count in
      let first = sorted.firstIndex { $0.segmentCount >= count } ?? sorted.count
      let end = sorted.firstIndex { $0.segmentCount > count } ?? sorted.count
      return first..<end
    }
    self.routes = sorted
  }

  /// What a path and method lead to.
  enum Match {
    case route(Route, PathCaptures)
    /// Templates match the path, but none with this method: they allow these.
    case methodNotAllowed(template: RouteTemplate, allowed: [String])
    case notFound
  }

  /// The route for `method` (HEAD as GET) at `path`. Paths under `/v1/apps` are those under
  /// `/v1/devices/default`.
  func match(method: String, path: Substring) -> Match {
    var path = path
    let match: Match? = path.withUTF8 { bytes in
      guard let segments = PathSegments(bytes), segments.count < bySegmentCount.count else {
        return .notFound
      }
      if segments.count >= 2, segments.is(0, "v1"), segments.is(1, "apps") { return nil }
      let wanted = method == "HEAD" ? "GET" : method
      var matched: (template: RouteTemplate, allowed: [String])?
      for index in bySegmentCount[segments.count] {
        let route = routes[index]
        guard route.matches(segments) else { continue }
        if route.method == wanted { return .route(route, route.captures(in: segments)) }
        matched = matched ?? (route.template, [])
        matched?.allowed.append(route.method)
      }
      guard let matched else { return .notFound }
      let allowed = matched.allowed + (matched.allowed.contains("GET") ? ["HEAD"] : [])
      return .methodNotAllowed(template: matched.template, allowed: allowed)
    }
    if let match { return match }
    let rest = path.dropFirst("/v1/apps".utf8.count)
    return self.match(method: method, path: "/v1/devices/\(Engine.defaultDeviceID)/apps\(rest)")
  }
}

/// The segments of a path after its leading `/`, found in its bytes and kept inline: small
/// enough to pass in registers, with no allocation.
struct PathSegments {
  private let bytes: UnsafeBufferPointer<UInt8>
  /// Where each segment ends (at the `/` after it, or at the end of the path); the next starts
  /// one byte later. Room for the most segments a route has: a longer path matches none. A
  /// tuple, read through its bytes (`InlineArray` needs macOS and iOS 26).
  private var ends: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
    (0, 0, 0, 0, 0, 0, 0, 0)
  /// The tuple's length.
  private static let room = 8
  private(set) var count = 0

  /// Nil unless the path starts with `/` and has no more segments than there is room for.
  init?(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress, bytes.first == UInt8(ascii: "/"),
      bytes.count <= UInt32.max
    else { return nil }
    self.bytes = bytes
    var start = 1
    while true {  // each `/` found by memchr: a loop over the bytes cost more
      guard count < Self.room else { return nil }
      let end =
        memchr(base + start, Int32(UInt8(ascii: "/")), bytes.count - start)
        .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
      withUnsafeMutableBytes(of: &ends) { [count] in
        $0.storeBytes(of: UInt32(end), toByteOffset: count * 4, as: UInt32.self)
      }
      count += 1
      guard end < bytes.count else { return }
      start = end + 1
    }
  }

  /// The bytes of segment `index`, as offsets into the path. Routes ask only for the
  /// segments of paths with as many as they have (`count` checked first): `index < count`, so
  /// the range lies within the path. Inlined: called apart, it copies `ends` to read it.
  @inline(__always)
  private func bounds(_ index: Int) -> Range<Int> {
    (index == 0 ? 1 : end(index - 1) + 1)..<end(index)
  }

  private func end(_ index: Int) -> Int {
    withUnsafeBytes(of: ends) { Int($0.load(fromByteOffset: index * 4, as: UInt32.self)) }
  }

  /// Whether segment `index` is `literal`.
  func `is`(_ index: Int, _ literal: StaticString) -> Bool {
    self.is(index, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// Whether segment `index` is `literal`.
  func `is`(_ index: Int, _ literal: UnsafeBufferPointer<UInt8>) -> Bool {
    let segment = bounds(index)
    // A template's literal segments are never empty, and the path holds the segment: both
    // have an address once their counts agree.
    return segment.count == literal.count
      && memcmp(bytes.baseAddress! + segment.lowerBound, literal.baseAddress!, segment.count) == 0
  }

  /// Segment `index` as a positive decimal number of at most 15 digits, or nil.
  func number(_ index: Int) -> Int? {
    let segment = bounds(index)
    guard (1...15).contains(segment.count), bytes[segment.lowerBound] != UInt8(ascii: "0") else {
      return nil
    }
    var number = 0
    for byte in bytes[segment] {
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
      number = number * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return number
  }

  /// Whether segment `index` can be a name: it is not empty.
  func isName(_ index: Int) -> Bool {
    !bounds(index).isEmpty
  }

  /// Segment `index` as text, copied in whole rather than decoded (the same String, made for
  /// less).
  func name(_ index: Int) -> String {
    let segment = UnsafeBufferPointer(rebasing: bytes[bounds(index)])
    return String(unsafeUninitializedCapacity: segment.count) {
      $0.initialize(fromContentsOf: segment)
    }
  }
}
