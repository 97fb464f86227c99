public import JSONCore
public import LifecycleEngine

// The engine's enumerations are written and read by their raw values, from prepared text.
extension AppState: NamedCases { public static let quotedNames = CaseTexts<Self>.quotedNames() }
extension SceneState: NamedCases { public static let quotedNames = CaseTexts<Self>.quotedNames() }
extension LifecycleModel: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension BackgroundMode: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension DeviceState: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension ClockMode: NamedCases { public static let quotedNames = CaseTexts<Self>.quotedNames() }
extension EventType: NamedCases { public static let quotedNames = CaseTexts<Self>.quotedNames() }
extension NetworkStatus: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension TaskSchedulingPolicy: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension PushKind: NamedCases { public static let quotedNames = CaseTexts<Self>.quotedNames() }
extension InterruptionSource: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension InterruptionOutcome: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension BackgroundLaunchReason: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension TaskKind: NamedCases { public static let quotedNames = CaseTexts<Self>.quotedNames() }
extension SubmissionStrategy: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension TaskSchedulerError: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension BackgroundActivity: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension JetsamReason: NamedCases { public static let quotedNames = CaseTexts<Self>.quotedNames() }
extension CallbackMethod: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension UIKitNotification: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension TerminationCode: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension WatchdogEvent: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension ProcessVisibility: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}
extension TerminationInitiator: NamedCases {
  public static let quotedNames = CaseTexts<Self>.quotedNames()
}

extension JSONWriter {
  /// An app's name, or null. Valid names need no escaping (`Validation.isValidName`).
  mutating func member(_ name: StaticString, _ app: AppName?) {
    key(name)
    guard let app else { return null() }
    app.withUTF8 { unescaped(utf8: $0) }
  }

  /// An instant in seconds, or null.
  /// A continued-processing task's progress, as its `Progress` counts it.
  mutating func member(_ name: StaticString, progress: TaskProgress) {
    key(name)
    object { w in
      w.member("completedUnitCount", progress.completedUnitCount)
      w.member("totalUnitCount", progress.totalUnitCount)
    }
  }

  mutating func member(_ name: StaticString, time instant: Instant?) {
    key(name)
    guard let instant else { return null() }
    seconds(milliseconds: instant.milliseconds)
  }

  /// A span of milliseconds, in seconds.
  mutating func member(_ name: StaticString, milliseconds: Int64) {
    key(name)
    seconds(milliseconds: milliseconds)
  }

  /// A duration in seconds.
  mutating func member(_ name: StaticString, seconds duration: Duration) {
    key(name)
    seconds(milliseconds: duration.wholeMilliseconds)
  }

  /// A duration in seconds, or `null`.
  mutating func member(_ name: StaticString, seconds duration: Duration?) {
    guard let duration else { return member(name, nil as String?) }
    member(name, seconds: duration)
  }
}
