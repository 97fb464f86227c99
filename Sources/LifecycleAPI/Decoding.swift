import LifecycleEngine

/// Reads the members of one request object: every member must be known and well-typed, and
/// every problem is collected, named by its field path (`behavior.didEnterBackgroundSeconds`,
/// `[2].type`), so that one 422 lists them all.
struct Fields {
  private let members: [(String, JSON)]
  private let location: Location
  /// The members a reader asked for, by index: a bit each for the first 64 (no allocation),
  /// a list beyond (only an object with unknown members has that many).
  private var asked: UInt64 = 0
  private var askedBeyond: [Int] = []
  private(set) var issues: [(field: String, message: String)] = []

  /// Where the object is in the body; its path is spelled only when a problem names it.
  enum Location {
    case body
    case element(Int)
    case member(path: String)

    var path: String {
      switch self {
      case .body: ""
      case .element(let index): "[\(index)]"
      case .member(let path): path
      }
    }
  }

  init(_ value: JSON, at location: Location = .body) {
    self.location = location
    if case .object(let members) = value {
      self.members = members
    } else {
      members = []
      issues.append((location.path.isEmpty ? "body" : location.path, "must be a JSON object"))
    }
  }

  private func name(_ key: String) -> String {
    let path = location.path
    return path.isEmpty ? key : "\(path).\(key)"
  }

  fileprivate mutating func member(_ key: String, required: Bool) -> JSON? {
    guard let index = members.firstIndex(where: { $0.0 == key }) else {
      if required { issues.append((name(key), "is required")) }
      return nil
    }
    if index < 64 { asked |= 1 << index } else { askedBeyond.append(index) }
    return members[index].1
  }

  mutating func string(_ key: String, required: Bool = false, maxBytes: Int = 256) -> String? {
    guard let value = member(key, required: required) else { return nil }
    guard case .string(let text) = value, text.utf8.count <= maxBytes else {
      issues.append((name(key), "must be a string of at most \(maxBytes) bytes"))
      return nil
    }
    return text
  }

  mutating func integer(_ key: String, in range: ClosedRange<Int>, required: Bool = false) -> Int? {
    guard let value = member(key, required: required) else { return nil }
    // JSON has one number type: 154.0 is the integer 154 (as JSON Schema's integer says).
    let integer: Int? =
      switch value {
      case .integer(let integer): integer
      case .double(let double) where double.rounded() == double && abs(double) < 9e15: Int(double)
      default: nil
      }
    guard let number = integer, range.contains(number) else {
      issues.append(
        (name(key), "must be an integer from \(range.lowerBound) to \(range.upperBound)"))
      return nil
    }
    return number
  }

  /// A number of seconds, kept to the millisecond.
  mutating func seconds(_ key: String, in range: ClosedRange<Double>, required: Bool = false)
    -> Duration?
  {
    guard let value = member(key, required: required) else { return nil }
    let number: Double? =
      switch value {
      case .integer(let integer): Double(integer)
      case .double(let double): double
      default: nil
      }
    guard let number, range.contains(number) else {
      issues.append((name(key), "must be a number from \(range.lowerBound) to \(range.upperBound)"))
      return nil
    }
    return .milliseconds(Int64((number * 1000).rounded()))
  }

  mutating func bool(_ key: String) -> Bool? {
    guard let value = member(key, required: false) else { return nil }
    guard case .bool(let flag) = value else {
      issues.append((name(key), "must be true or false"))
      return nil
    }
    return flag
  }

  /// One of the raw values of `T`.
  mutating func choice<T: NamedCases>(
    _ key: String, _: T.Type = T.self, required: Bool = false
  ) -> T? {
    guard let value = member(key, required: required) else { return nil }
    guard case .string(let text) = value, let choice = T(named: text) else {
      issues.append(
        (name(key), "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))"))
      return nil
    }
    return choice
  }

  mutating func object(_ key: String) -> Fields? {
    member(key, required: false).map { Fields($0, at: .member(path: name(key))) }
  }

  mutating func merge(_ other: Fields) {
    issues += other.issues
  }

  mutating func reject(_ key: String, _ message: String) {
    issues.append((name(key), message))
  }

  /// Records every member no reader asked for.
  mutating func checkUnknownMembers() {
    for (index, (key, _)) in members.enumerated()
    where index < 64 ? asked & 1 << index == 0 : !askedBeyond.contains(index) {
      issues.append((name(key), "is not a known field"))
    }
  }

  /// The problem to answer if any member was bad or unknown.
  mutating func problem() -> Problem? {
    checkUnknownMembers()
    return Fields.problem(issues)
  }

  static func problem(_ issues: [(field: String, message: String)]) -> Problem? {
    guard let first = issues.first else { return nil }
    return Problem(
      kind: .validation, detail: "\(first.field) \(first.message)",
      extensions: [
        (
          "validation",
          JSONText { w in
            w.array(issues) { w, issue in
              w.object { w in
                w.member("field", issue.field)
                w.member("message", issue.message)
              }
            }
          }
        )
      ])
  }
}

/// Request bodies into engine values.
enum Decode {
  static func device(_ body: JSON) throws(Problem) -> DeviceSpec {
    var fields = Fields(body)
    let spec = DeviceSpec(
      id: fields.string("id", required: true, maxBytes: 64) ?? "",
      clock: fields.choice("clock"),
      memoryLimitMB: fields.integer("memoryLimitMB", in: 1...1_048_576),
      perAppLimitMB: fields.integer("perAppLimitMB", in: 1...1_048_576),
      passcode: fields.bool("passcode"))
    if let problem = fields.problem() { throw problem }
    return spec
  }

  static func app(_ body: JSON) throws(Problem) -> AppSpec {
    var fields = Fields(body)
    let name = fields.string("name", required: true, maxBytes: 64) ?? ""
    let lifecycle: LifecycleModel = fields.choice("lifecycle") ?? .scene
    let memory = fields.integer("memoryMB", in: 0...1_048_576) ?? 100
    let backgroundMemory = fields.integer("backgroundMemoryMB", in: 0...1_048_576)
    var modes: Set<BackgroundMode> = []
    if let list = fields.modes() { modes = list }
    var behavior = AppBehavior()
    if var details = fields.object("behavior") {
      behavior.didEnterBackgroundDuration =
        details.seconds("didEnterBackgroundSeconds", in: 0...86_400) ?? .zero
      behavior.endsBackgroundTasksOnExpiration =
        details.bool("endsBackgroundTasksOnExpiration") ?? true
      details.checkUnknownMembers()
      fields.merge(details)
    }
    if let problem = fields.problem() { throw problem }
    return AppSpec(
      name: name, lifecycle: lifecycle, memoryMB: memory, backgroundMemoryMB: backgroundMemory,
      backgroundModes: modes, behavior: behavior)
  }

  /// One app event object, such as `{"type": "backgroundLaunch", "reason": "fetch"}`.
  static func appEvent(_ fields: inout Fields) -> AppEvent? {
    guard let type = fields.choice("type", EventType.self, required: true) else { return nil }
    switch type {
    case .launch: return .launch(url: fields.string("url", maxBytes: 2048))
    case .home: return .home
    case .openSwitcher: return .openSwitcher
    case .closeSwitcher: return .closeSwitcher
    case .interruptionBegan:
      return fields.choice("source", InterruptionSource.self, required: true).map {
        .interruptionBegan($0)
      }
    case .interruptionEnded: return .interruptionEnded(fields.choice("outcome") ?? .resumed)
    case .terminate: return .terminate
    case .crash: return .crash
    case .purge: return .purge(fields.choice("reason") ?? .vmPageshortage)
    case .backgroundLaunch:
      return fields.choice("reason", BackgroundLaunchReason.self, required: true).map {
        .backgroundLaunch($0)
      }
    case .backgroundWorkCompleted: return .backgroundWorkCompleted
    case .beginBackgroundTask: return .beginBackgroundTask(name: fields.string("name"))
    case .endBackgroundTask:
      return fields.integer("id", in: 1...Int.max, required: true).map {
        .endBackgroundTask(id: $0)
      }
    case .memoryWarning: return .memoryWarning
    case .setMemory:
      return fields.integer("memoryMB", in: 0...1_048_576, required: true).map {
        .setMemory(memoryMB: $0)
      }
    case .lock, .unlock, .significantTimeChange:
      fields.reject("type", "is a device event: post it to /v1/devices/{device}/events")
      return nil
    }
  }

  /// One device event object, such as `{"type": "lock"}`.
  static func deviceEvent(_ fields: inout Fields) -> DeviceEvent? {
    fields.choice("type", DeviceEvent.self, required: true)
  }

  /// The events of a body: one object, or an array of them applied in order.
  static func events<Event>(
    _ body: JSON, _ decode: (inout Fields) -> Event?
  ) throws(Problem) -> (events: [Event], isArray: Bool) {
    var events: [Event] = []
    var issues: [(field: String, message: String)] = []
    func read(_ object: JSON, at location: Fields.Location) {
      var fields = Fields(object, at: location)
      let event = decode(&fields)
      if fields.problem() != nil {
        issues += fields.issues
      } else if let event {
        events.append(event)
      }
    }
    guard case .array(let elements) = body else {
      read(body, at: .body)
      if let problem = Fields.problem(issues) { throw problem }
      return (events, false)
    }
    guard !elements.isEmpty, elements.count <= 100 else {
      throw Problem.validation("body", "must hold 1 to 100 events")
    }
    events.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() { read(element, at: .element(index)) }
    if let problem = Fields.problem(issues) { throw problem }
    return (events, true)
  }
}

extension Fields {
  /// `backgroundModes`: an array of distinct mode names.
  mutating func modes() -> Set<BackgroundMode>? {
    guard let value = member("backgroundModes", required: false) else { return nil }
    guard case .array(let elements) = value else {
      reject("backgroundModes", "must be an array")
      return nil
    }
    var modes: Set<BackgroundMode> = []
    for element in elements {
      guard case .string(let text) = element, let mode = BackgroundMode(named: text) else {
        reject(
          "backgroundModes",
          "must list only \(BackgroundMode.allCases.map(\.rawValue).joined(separator: ", "))")
        return nil
      }
      modes.insert(mode)
    }
    return modes
  }
}
