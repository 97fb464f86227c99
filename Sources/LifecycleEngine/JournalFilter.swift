/// Which journal entries a reader wants: every criterion given must match. `method` and `scene`
/// select callbacks, `cause` selects transitions.
public struct JournalFilter: Hashable, Sendable {
  /// The three kinds of journal entry.
  public enum Kind: String, CaseIterable, Sendable {
    case event, callback, transition
  }

  public var kind: Kind?
  public var app: AppName?
  public var scene: String?
  public var method: CallbackMethod?
  /// A `TransitionCause.name`.
  public var cause: String?

  public init(
    kind: Kind? = nil, app: AppName? = nil, scene: String? = nil, method: CallbackMethod? = nil,
    cause: String? = nil
  ) {
    self.kind = kind
    self.app = app
    self.scene = scene
    self.method = method
    self.cause = cause
  }

  public func matches(_ entry: JournalEntry) -> Bool {
    if let app, entry.app != app { return false }
    switch entry {
    case .event:
      return kind ?? .event == .event && scene == nil && method == nil && cause == nil
    case .callback(let callback):
      return kind ?? .callback == .callback && cause == nil
        && (scene == nil || callback.scene == scene)
        && (method == nil || callback.method == method)
    case .transition(let transition):
      return kind ?? .transition == .transition && scene == nil && method == nil
        && (cause == nil || transition.cause.name == cause)
    }
  }
}

extension TransitionCause {
  /// Every name a cause can have: each event type, then the system's own causes.
  public static let names: [String] =
    EventType.allCases.map(\.rawValue)
    + [
      TransitionCause.suspension, .watchdog, .backgroundTaskExpiration, .backgroundWorkTimeout,
      .jetsam(.vmPageshortage), .fileLockAtSuspension,
    ].map(\.name)

  /// The cause called `name` (one of `names`); a jetsam cause also needs its reason.
  public init?(name: String, jetsamReason: JetsamReason? = nil) {
    if let type = EventType(rawValue: name) {
      self = .event(type)
      return
    }
    switch (name, jetsamReason) {
    case ("suspension", _): self = .suspension
    case ("watchdog", _): self = .watchdog
    case ("backgroundTaskExpiration", _): self = .backgroundTaskExpiration
    case ("backgroundWorkTimeout", _): self = .backgroundWorkTimeout
    case ("jetsam", let reason?): self = .jetsam(reason)
    case ("fileLockAtSuspension", _): self = .fileLockAtSuspension
    default: return nil
    }
  }
}
