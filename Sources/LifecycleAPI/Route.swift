import LifecycleEngine

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
    guard
      let route = path.withUTF8({ bytes -> Route? in
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        // The segments after the leading slash, as ranges of `bytes`; paths have few.
        var segments: [Range<Int>] = []
        segments.reserveCapacity(8)
        var start = 1
        var index = 1
        while index <= bytes.count {
          if index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            segments.append(start..<index)
            start = index + 1
          }
          index += 1
        }
        return Self.match(segments.map { UnsafeBufferPointer(rebasing: bytes[$0]) })
      })
    else { return nil }
    self = route
  }

  /// The route of the first pattern the segments match.
  private static func match(_ segments: [UnsafeBufferPointer<UInt8>]) -> Route? {
    patterns: for (pattern, make) in patterns where pattern.count == segments.count {
      var captured: [String] = []
      for (expected, segment) in zip(pattern, segments) {
        if expected == "*" {
          guard !segment.isEmpty else { continue patterns }
          captured.append(String(decoding: segment, as: UTF8.self))
        } else {
          guard segment.elementsEqual(expected.utf8) else { continue patterns }
        }
      }
      return make(captured)
    }
    return nil
  }

  /// Path patterns, `*` standing for one non-empty segment, and the route each makes.
  private static let patterns: [([String], @Sendable ([String]) -> Route)] = {
    let defaultDevice = Engine.defaultDeviceID
    return [
      (["livez"], { _ in .livez }), (["readyz"], { _ in .readyz }),
      (["health"], { _ in .health }), (["__admin", "reset"], { _ in .reset }),
      (["openapi.yaml"], { _ in .openapi }), (["metrics"], { _ in .metrics }),
      (["v1", "devices"], { _ in .devices }),
      (["v1", "devices", "*"], { .device($0[0]) }),
      (["v1", "devices", "*", "events"], { .deviceEvents($0[0]) }),
      (["v1", "devices", "*", "clock"], { .clock($0[0]) }),
      (["v1", "devices", "*", "clock", "advance"], { .clockAdvance($0[0]) }),
      (["v1", "devices", "*", "journal"], { .journal($0[0]) }),
      (["v1", "devices", "*", "jetsam"], { .jetsam($0[0]) }),
      (["v1", "devices", "*", "apps"], { .apps(device: $0[0]) }),
      (["v1", "devices", "*", "apps", "*"], { .app(device: $0[0], app: $0[1]) }),
      (["v1", "devices", "*", "apps", "*", "events"], { .appEvents(device: $0[0], app: $0[1]) }),
      (
        ["v1", "devices", "*", "apps", "*", "callbacks"], { .callbacks(device: $0[0], app: $0[1]) }
      ),
      (["v1", "apps"], { _ in .apps(device: defaultDevice) }),
      (["v1", "apps", "*"], { .app(device: defaultDevice, app: $0[0]) }),
      (["v1", "apps", "*", "events"], { .appEvents(device: defaultDevice, app: $0[0]) }),
      (["v1", "apps", "*", "callbacks"], { .callbacks(device: defaultDevice, app: $0[0]) }),
    ]
  }()

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
