/// An event as the API declares it: its name, whom it is addressed to, what it does and the
/// members a request writes beside its `type`.
///
/// `EventDeclaration.app` and `EventDeclaration.device` are the one statement of the events a
/// client can post, and the members of each are those its reader asks for
/// (`AppEvent.init(_:reading:)`, recorded by `MemberRecorder`). Whether a type is an app's or
/// a device's is read from them; the contract's event schemas and the guide's table of events
/// are generated from them (`scripts/generate-contract`, checked by `scripts/test`); tests hold
/// `AppEvent` and `DeviceEvent`'s writing, and the client's event values, to them.
public struct EventDeclaration: Sendable {
  /// Whom an event is addressed to.
  public enum Scope: String, Sendable {
    case app, device
  }

  public let type: EventType
  public let scope: Scope
  /// What the event does, and when it is refused.
  public let summary: String
  /// The members beside `type`, in the order a result writes them.
  public let members: [EventMember]

  init(_ type: EventType, _ summary: String, scope: Scope = .app) {
    self.type = type
    self.scope = scope
    self.summary = summary
    var recorder = MemberRecorder()
    switch scope {
    case .app: _ = AppEvent(type, reading: &recorder)
    case .device: _ = DeviceEvent.Kind(type).map { DeviceEvent($0, reading: &recorder) }
    }
    members = recorder.members
  }
}

/// One member of an event object: its JSON name, what it holds, and whether it must be there.
public struct EventMember: Sendable {
  /// What a member holds, with its limits.
  public enum Value: Sendable {
    /// A value of the contract's schema of that name (a name, an enumeration, an entry).
    case schema(String)
    /// One of these words.
    case oneOf([String])
    /// Text of this many UTF-8 bytes.
    case string(bytes: ClosedRange<Int>)
    case integer(ClosedRange<Int>)
    /// A time on the device's clock, in seconds.
    case seconds(ClosedRange<Int>)
    case boolean
    /// Any JSON value.
    case anyJSON

    /// One of `Choice`'s raw values: the words are the enumeration's, not spelled again.
    static func choice<Choice: RawRepresentable<String> & CaseIterable>(_: Choice.Type) -> Value {
      .oneOf(Choice.allCases.map(\.rawValue))
    }
  }

  public let name: String
  public let value: Value
  public let required: Bool
  /// What an absent member stands for, as JSON text.
  public let defaultValue: String?
  public let doc: String?

  init(
    _ name: String, _ value: Value, required: Bool = false, default defaultValue: String? = nil,
    doc: String? = nil
  ) {
    self.name = name
    self.value = value
    self.required = required
    self.defaultValue = defaultValue
    self.doc = doc
  }

  /// The ways into an app (`Entry`), whose members stand beside an event's own: a launch and
  /// an opened scene take at most one of them.
  static let entry: [EventMember] = [
    .init("url", .string(bytes: 1...Validation.maxURLBytes)),
    .init("notification", .schema("NotificationResponse")),
    .init("userActivity", .schema("UserActivity")),
    .init("shortcutItem", .schema("ShortcutItem")),
  ]
}

/// Records the members an event's reader asks for, with their kinds, limits, defaults and
/// words, as its declaration lists them. It answers each with a value that lets the reader go
/// on to the next member.
struct MemberRecorder: EventParameterReader {
  private(set) var members: [EventMember] = []
  /// The words `describe` gave for the next member.
  private var description: String?

  mutating func describe(_ text: String) { description = text }

  private mutating func record(
    _ name: StaticString, _ value: EventMember.Value, required: Bool = false,
    default defaultValue: String? = nil
  ) {
    members.append(
      EventMember(
        String(describing: name), value, required: required, default: defaultValue,
        doc: description))
    description = nil
  }

  mutating func sceneID(_ name: StaticString, required: Bool) -> String? {
    record(name, .schema("Name"), required: required)
    return ""
  }

  mutating func taskName(_ name: StaticString) -> String? {
    record(name, .string(bytes: 0...Validation.maxTaskNameBytes))
    return nil
  }

  mutating func taskID(_ name: StaticString, required: Bool) -> Int?? {
    record(name, .integer(1...Int.max), required: required)
    return .some(1)
  }

  mutating func megabytes(_ name: StaticString) -> Int? {
    record(name, .integer(Validation.footprints), required: true)
    return 0
  }

  mutating func restorationData(_ name: StaticString) -> String?? {
    record(name, .anyJSON, required: true)
    return .some(nil)
  }

  mutating func flag(_ name: StaticString) -> Bool? {
    record(name, .boolean)
    return nil
  }

  mutating func flag(_ name: StaticString, default defaultValue: Bool) -> Bool {
    record(name, .boolean, default: String(defaultValue))
    return defaultValue
  }

  mutating func requiredFlag(_ name: StaticString) -> Bool? {
    record(name, .boolean, required: true)
    return false
  }

  mutating func choice<T: EventChoice>(_ name: StaticString, _: T.Type, required: Bool) -> T? {
    record(name, Self.value(of: T.self), required: required)
    return T.allCases.first
  }

  mutating func choice<T: EventChoice>(_ name: StaticString, default defaultValue: T) -> T {
    record(name, Self.value(of: T.self), default: defaultValue.rawValue)
    return defaultValue
  }

  /// A choice's kind: a reference to its schema, or its words.
  private static func value<T: EventChoice>(of _: T.Type) -> EventMember.Value {
    T.isContractSchema ? .schema(String(describing: T.self)) : .choice(T.self)
  }

  mutating func entry() -> Entry?? {
    members += EventMember.entry
    return .some(nil)
  }

  mutating func payload(_ name: StaticString, wakesApp: Bool) -> String?? {
    record(name, .schema("PushPayload"))
    return .some(nil)
  }

  mutating func sessionIdentifier(_ name: StaticString) -> String?? {
    record(name, .string(bytes: 1...Validation.maxIdentifierBytes))
    return .some(nil)
  }

  mutating func taskIdentifier(_ name: StaticString) -> String? {
    record(name, .string(bytes: 1...Validation.maxIdentifierBytes), required: true)
    return ""
  }

  mutating func deviceTime(_ name: StaticString) -> Instant?? {
    record(name, .seconds(0...Validation.maxAdvanceSeconds))
    return .some(nil)
  }

  mutating func percent(_ name: StaticString) -> Int? {
    record(name, .integer(Validation.batteryLevels))
    return nil
  }

  mutating func count(_ name: StaticString, in range: ClosedRange<Int>, required: Bool) -> Int? {
    record(name, .integer(range), required: required)
    return required ? range.lowerBound : nil
  }

  mutating func appName(_ name: StaticString) -> String? {
    record(name, .schema("Name"), required: true)
    return ""
  }

  mutating func version(_ name: StaticString, required: Bool) -> String?? {
    record(name, .schema("Version"), required: required)
    return .some("")
  }
}

extension EventType {
  /// Whether events of this type are addressed to an app: `EventDeclaration.app` declares one.
  public var isAppEvent: Bool { Self.scopes[position].app }

  /// Whether events of this type are addressed to a whole device: `EventDeclaration.device`
  /// declares one (`home` and `memoryWarning` are both).
  public var isDeviceEvent: Bool { Self.scopes[position].device }

  /// Whom each type is addressed to, by position: read on every event, where a `Set` would
  /// hash the type's name each time.
  private static let scopes = allCases.map { type in
    (
      app: EventDeclaration.app.contains { $0.type == type },
      device: EventDeclaration.device.contains { $0.type == type }
    )
  }

  /// The case's position in `allCases`: a case-only enumeration of fewer than 256 cases is
  /// stored as that number in one byte (Swift's type layout, stable since the ABI).
  var position: Int { Int(unsafeBitCast(self, to: UInt8.self)) }
}
