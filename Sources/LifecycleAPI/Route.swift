import JSONCore
import LifecycleEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A resource of the API, found from a path. `/v1/apps/...` paths address the `default` device.
enum Route: Equatable {
  case devices
  case device(String)
  case deviceEvents(String)
  case clock(String)
  case clockAdvance(String)
  case journal(String)
  case jetsam(String)
  case apps(device: String)
  case app(device: String, app: String)
  case appEvents(device: String, app: String)
  case callbacks(device: String, app: String)
  case livez, readyz, health, reset, openapi, metrics

  init?(path: Substring) {
    var path = path
    guard let route = path.withUTF8({ Self.match(PathSegments($0)) }) else { return nil }
    self = route
  }

  /// The route table: the path's segments matched literal by literal (no allocation but the
  /// captured names).
  private static func match(_ path: PathSegments?) -> Route? {
    guard let path else { return nil }
    let device = { path.name(2) }
    switch path.count {
    case 1:
      if path.is(0, "health") { return .health }
      if path.is(0, "livez") { return .livez }
      if path.is(0, "readyz") { return .readyz }
      if path.is(0, "metrics") { return .metrics }
      if path.is(0, "openapi.yaml") { return .openapi }
    case 2:
      if path.is(0, "__admin"), path.is(1, "reset") { return .reset }
      guard path.is(0, "v1") else { return nil }
      if path.is(1, "devices") { return .devices }
      if path.is(1, "apps") { return .apps(device: Engine.defaultDeviceID) }
    case 3:
      guard path.is(0, "v1") else { return nil }
      if path.is(1, "devices") { return device().map { .device($0) } }
      if path.is(1, "apps") {
        return path.name(2).map { .app(device: Engine.defaultDeviceID, app: $0) }
      }
    case 4:
      guard path.is(0, "v1") else { return nil }
      if path.is(1, "apps"), let app = path.name(2) {
        if path.is(3, "events") { return .appEvents(device: Engine.defaultDeviceID, app: app) }
        if path.is(3, "callbacks") { return .callbacks(device: Engine.defaultDeviceID, app: app) }
        return nil
      }
      guard path.is(1, "devices"), let device = device() else { return nil }
      if path.is(3, "events") { return .deviceEvents(device) }
      if path.is(3, "clock") { return .clock(device) }
      if path.is(3, "journal") { return .journal(device) }
      if path.is(3, "jetsam") { return .jetsam(device) }
      if path.is(3, "apps") { return .apps(device: device) }
    case 5:
      guard path.is(0, "v1"), path.is(1, "devices"), let device = device() else { return nil }
      if path.is(3, "clock"), path.is(4, "advance") { return .clockAdvance(device) }
      if path.is(3, "apps"), let app = path.name(4) { return .app(device: device, app: app) }
    case 6:
      guard path.is(0, "v1"), path.is(1, "devices"), let device = device(), path.is(3, "apps"),
        let app = path.name(4)
      else { return nil }
      if path.is(5, "events") { return .appEvents(device: device, app: app) }
      if path.is(5, "callbacks") { return .callbacks(device: device, app: app) }
    default:
      break
    }
    return nil
  }

  /// The path template, as `openapi.yaml` writes it: the `route` label of the request metrics.
  var template: String {
    switch self {
    case .devices: "/v1/devices"
    case .device: "/v1/devices/{device}"
    case .deviceEvents: "/v1/devices/{device}/events"
    case .clock: "/v1/devices/{device}/clock"
    case .clockAdvance: "/v1/devices/{device}/clock/advance"
    case .journal: "/v1/devices/{device}/journal"
    case .jetsam: "/v1/devices/{device}/jetsam"
    case .apps: "/v1/devices/{device}/apps"
    case .app: "/v1/devices/{device}/apps/{app}"
    case .appEvents: "/v1/devices/{device}/apps/{app}/events"
    case .callbacks: "/v1/devices/{device}/apps/{app}/callbacks"
    case .livez: "/livez"
    case .readyz: "/readyz"
    case .health: "/health"
    case .reset: "/__admin/reset"
    case .openapi: "/openapi.yaml"
    case .metrics: "/metrics"
    }
  }

  /// The query parameters the resource takes.
  var queryParameters: [String] {
    switch self {
    case .journal: ["since", "app", "limit"]
    case .callbacks: ["since", "limit"]
    default: []
    }
  }

  /// The methods the resource answers, for `Allow`.
  var methods: [String] {
    switch self {
    case .devices, .apps: ["GET", "POST"]
    case .device, .app: ["GET", "DELETE"]
    case .deviceEvents, .clockAdvance, .appEvents, .reset: ["POST"]
    case .clock, .journal, .jetsam, .callbacks, .livez, .readyz, .health, .openapi, .metrics:
      ["GET"]
    }
  }
}

/// The segments of a path after its leading `/`, as ranges of its bytes, kept inline (no
/// allocation).
private struct PathSegments {
  private let bytes: UnsafeBufferPointer<UInt8>
  /// Room for the most segments a route has: a longer path matches none.
  private var bounds = InlineArray<6, Range<Int>>(repeating: 0..<0)
  private(set) var count = 0

  /// Nil unless the path starts with `/` and has no more segments than any route.
  init?(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard bytes.first == UInt8(ascii: "/") else { return nil }
    self.bytes = bytes
    var start = 1
    for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
      guard count < bounds.count else { return nil }
      bounds[count] = start..<index
      count += 1
      start = index + 1
    }
  }

  /// Whether segment `index` is `literal`.
  func `is`(_ index: Int, _ literal: StaticString) -> Bool {
    let segment = bounds[index]
    return segment.count == literal.utf8CodeUnitCount
      && memcmp(bytes.baseAddress! + segment.lowerBound, literal.utf8Start, segment.count) == 0
  }

  /// Segment `index` as a name, or nil if it is empty.
  func name(_ index: Int) -> String? {
    let segment = bounds[index]
    guard !segment.isEmpty else { return nil }
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[segment]), as: UTF8.self)
  }
}
