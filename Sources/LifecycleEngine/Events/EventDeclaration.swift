/// An event as the API declares it: its name, whom it is addressed to, what it does and the
/// members a request writes beside its `type`.
///
/// `EventDeclaration.app` and `EventDeclaration.device` are the one statement of the events a
/// client can post. Whether a type is an app's or a device's is read from them; the contract's
/// event schemas and the guide's table of events are generated from them
/// (`scripts/generate-contract`, checked by `scripts/test`); tests hold `AppEvent` and
/// `DeviceEvent`'s reading and writing, and the client's event values, to them.
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

  init(_ type: EventType, _ summary: String, scope: Scope = .app, members: [EventMember]) {
    self.type = type
    self.scope = scope
    self.summary = summary
    self.members = members
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
  private var position: Int { Int(unsafeBitCast(self, to: UInt8.self)) }
}
