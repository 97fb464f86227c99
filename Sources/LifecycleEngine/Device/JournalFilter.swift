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

  /// Every filter that matches `entry`: each criterion either not given or the entry's own
  /// value, at most 16 of them. Finding an entry's waiters by these filters costs the same
  /// however many there are (`f.matches(e)` exactly when `all(matching: e)` holds `f`).
  public static func all(matching entry: JournalEntry) -> [JournalFilter] {
    func eitherNilOr<T>(_ value: T?) -> [T?] { value.map { [nil, $0] } ?? [nil] }
    var filters: [JournalFilter] = []
    let apps = eitherNilOr(entry.app)
    switch entry {
    case .event:
      for kind in eitherNilOr(Kind.event) {
        for app in apps { filters.append(JournalFilter(kind: kind, app: app)) }
      }
    case .callback(let callback):
      for kind in eitherNilOr(Kind.callback) {
        for app in apps {
          for scene in eitherNilOr(callback.scene) {
            for method in eitherNilOr(callback.method) {
              filters.append(JournalFilter(kind: kind, app: app, scene: scene, method: method))
            }
          }
        }
      }
    case .transition(let transition):
      for kind in eitherNilOr(Kind.transition) {
        for app in apps {
          for cause in eitherNilOr(transition.cause.name) {
            filters.append(JournalFilter(kind: kind, app: app, cause: cause))
          }
        }
      }
    }
    return filters
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
  /// The system's own causes, each once (jetsam's with a stand-in reason): what `names` lists
  /// after the event types, and what `init(name:jetsamReason:)` finds by name.
  private static let systemCauses: [TransitionCause] = [
    .suspension, .watchdog, .backgroundTaskExpiration, .backgroundWorkTimeout,
    .jetsam(.vmPageshortage), .fileLockAtSuspension, .sceneLifecycleRequired,
  ]

  /// Every name a cause can have: each event type, then the system's own causes.
  public static let names: [String] =
    EventType.allCases.map(\.rawValue) + systemCauses.map(\.name)

  /// The cause called `name` (one of `names`); a jetsam cause also needs its reason.
  public init?(name: String, jetsamReason: JetsamReason? = nil) {
    if let type = EventType(rawValue: name) {
      self = .event(type)
      return
    }
    guard let cause = Self.systemCauses.first(where: { $0.name == name }) else { return nil }
    if case .jetsam = cause {
      guard let jetsamReason else { return nil }
      self = .jetsam(jetsamReason)
    } else {
      self = cause
    }
  }
}
