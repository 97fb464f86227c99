import JSONCore
import LifecycleEngine

/// Counters for `GET /metrics`, kept by the API as requests and deadlines pass through it.
struct Metrics {
  /// Requests by route template and status, each series where it was first counted. A
  /// request is nearly always of the series counted last, so that one is tried first; the
  /// rest are searched (a few dozen at most). Hashing the key cost more than that.
  private(set) var requests: [(key: RequestKey, count: Int)] = []
  private var lastSeries = 0
  /// Events applied, by type's case index (an enumeration with raw values hashes its text).
  private(set) var events = [Int](repeating: 0, count: EventType.allCases.count)
  private(set) var transitions = 0
  /// Kills by cause (and jetsam reason).
  private(set) var kills: [KillKey: Int] = [:]

  struct RequestKey: Equatable {
    var route: RouteTemplate
    var status: Int

    /// The status first: a search passes mostly other routes' series, told apart at once.
    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.status == rhs.status && lhs.route == rhs.route
    }
  }

  struct KillKey: Hashable {
    var cause: String
    var reason: String
  }

  mutating func count(request route: RouteTemplate, status: Int) {
    let key = RequestKey(route: route, status: status)
    if lastSeries < requests.count, requests[lastSeries].key == key {
      requests[lastSeries].count += 1
    } else if let series = requests.firstIndex(where: { $0.key == key }) {
      requests[series].count += 1
      lastSeries = series
    } else {
      lastSeries = requests.count
      requests.append((key, 1))
    }
  }

  mutating func count(event: EventType) {
    events[event.caseIndex] += 1
  }

  mutating func count(transitions: [Transition]) {
    self.transitions += transitions.count
  }

  mutating func count(kill transition: Transition) {
    var reason = ""
    if case .jetsam(let jetsamReason) = transition.cause { reason = jetsamReason.rawValue }
    kills[KillKey(cause: transition.cause.name, reason: reason), default: 0] += 1
  }

  /// The Prometheus text exposition (format 0.0.4), every series in a stable order.
  func exposition(devices: [DeviceView], memory: (retained: Int, budget: Int)) -> String {
    var text = ""
    func family(_ name: String, _ type: String, _ help: String, _ samples: [(String, Int)]) {
      text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
      for (labels, value) in samples { text += "\(name)\(labels) \(value)\n" }
    }
    family(
      "lifecycled_http_requests_total", "counter", "Requests answered, by route and status.",
      requests.sorted {
        ($0.key.route.description, $0.key.status) < ($1.key.route.description, $1.key.status)
      }.map {
        (#"{route="\#($0.key.route)",status="\#($0.key.status)"}"#, $0.count)
      })
    family(
      "lifecycled_events_total", "counter", "Events applied, by type.",
      EventType.allCases.filter { events[$0.caseIndex] > 0 }.sorted { $0.rawValue < $1.rawValue }
        .map { (#"{type="\#($0.rawValue)"}"#, events[$0.caseIndex]) })
    family(
      "lifecycled_transitions_total", "counter", "App state transitions.", [("", transitions)])
    family(
      "lifecycled_kills_total", "counter", "Apps killed by the system, by cause and jetsam reason.",
      kills.sorted { ($0.key.cause, $0.key.reason) < ($1.key.cause, $1.key.reason) }.map {
        (#"{cause="\#($0.key.cause)",reason="\#($0.key.reason)"}"#, $0.value)
      })
    family("lifecycled_devices", "gauge", "Devices.", [("", devices.count)])
    family(
      "lifecycled_apps", "gauge", "Apps on all devices.", [("", devices.map(\.apps).reduce(0, +))])
    family(
      "lifecycled_journal_dropped_total", "counter",
      "Journal entries dropped by the bounded journals of the current devices.",
      [("", devices.map(\.journalDropped).reduce(0, +))])
    family(
      "lifecycled_state_bytes", "gauge",
      "Memory the simulator's state takes, as the engine counts it (maxMemoryMB bounds it).",
      [("", memory.retained)])
    family(
      "lifecycled_state_budget_bytes", "gauge", "maxMemoryMB, in bytes.", [("", memory.budget)])
    return text
  }
}
