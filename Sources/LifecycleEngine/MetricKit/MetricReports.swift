/// The reports MetricKit hands an app: a day's metrics (`MXMetricPayload`), and the
/// diagnostics of the crashes that made a crash report (`MXDiagnosticPayload`,
/// `MXCrashDiagnostic`). Each carries what the device and the app were when it was made
/// (`MXMetaData`).

/// One report of an app's exits over a period of at most 24 hours (`MXMetricPayload`: "data
/// that covers a 24 hour period of application usage").
public struct MetricPayload: Hashable, Sendable, RetainedSize {
  /// `timeStampBegin` and `timeStampEnd`, in device time.
  public var begin = Instant.zero
  public var end = Instant.zero
  /// `latestApplicationVersion`: the version installed when the payload was made.
  public var latestApplicationVersion = "1.0"
  /// `includesMultipleApplicationVersions`: the app was updated within the period.
  public var includesMultipleApplicationVersions = false
  public var metaData = ReportMetaData()
  /// `applicationExitMetrics`: the exits counted in the period.
  public var exits = ExitCounts()

  public init() {}

  /// The payload's bytes and its counts' storage (its versions fit inline in their strings).
  public var retainedBytes: Int { MemoryLayout<Self>.stride + exits.retainedBytes }
}

/// One report of crashes (`MXDiagnosticPayload`). Each crash here is reported on its own,
/// begin and end its instant: iOS 15 and later deliver diagnostics at once rather than daily.
public struct DiagnosticPayload: Hashable, Sendable, RetainedSize {
  /// `timeStampBegin` and `timeStampEnd`, in device time.
  public var begin = Instant.zero
  public var end = Instant.zero
  public var crashDiagnostics: [CrashDiagnostic] = []

  public init() {}

  /// The payload's bytes, its diagnostics' storage and their reasons' text.
  public var retainedBytes: Int {
    MemoryLayout<Self>.stride + 32 + crashDiagnostics.reduce(0) { $0 + $1.retainedBytes }
  }
}

/// A crash as its crash report shows it (`MXCrashDiagnostic`): the Mach exception, the
/// signal, and the termination reason with its namespace and code.
public struct CrashDiagnostic: Hashable, Sendable {
  /// `applicationVersion` (`MXDiagnostic`): the version that crashed.
  public var applicationVersion = "1.0"
  public var metaData = ReportMetaData()
  /// The Mach exception type: `EXC_CRASH` (10), or `EXC_BREAKPOINT` (6) for a trap.
  public var exceptionType = 10
  public var exceptionCode = 0
  public var signal = 0
  /// "Namespace RUNNINGBOARD, Code 0xdead10cc", as crash reports write it.
  public var terminationReason = ""

  public init() {}

  /// The diagnostic of a process that `ended` so: a kill is `EXC_CRASH (SIGKILL)` with its
  /// code in the termination reason ("EXC_CRASH (SIGKILL)": "Namespace RUNNINGBOARD, Code
  /// 0xdead10cc"; the watchdog's namespace FRONTBOARD, as in "Addressing watchdog
  /// terminations"), the app's own crash an abort, `SIGABRT`, and UIKit's assertion a trace
  /// trap, which "on ARM processors [...] appears as EXC_BREAKPOINT (SIGTRAP)" ("EXC_BREAKPOINT
  /// (SIGTRAP) and EXC_BAD_INSTRUCTION (SIGILL)"), code 1 as its crash reports show it.
  init(_ ended: CrashReportCause, version: String, metaData: ReportMetaData) {
    applicationVersion = version
    self.metaData = metaData
    switch ended {
    case .kill(let code):
      signal = 9
      let namespace = code == .watchdog ? "FRONTBOARD" : "RUNNINGBOARD"
      terminationReason = "Namespace \(namespace), Code \(code.rawValue)"
    case .abort:
      signal = 6
      terminationReason = "Namespace SIGNAL, Code 0x6"
    case .trap:
      exceptionType = 6
      exceptionCode = 1
      signal = 5
      terminationReason = "Namespace SIGNAL, Code 0x5"
    }
  }

  /// The category its crash metadata names (iOS 27's `terminationCategory`, which
  /// "corresponds to the termination categories reported by `ForegroundTerminationMetric` and
  /// `BackgroundTerminationMetric`"): an abort or a trap is abnormal, a kill its code's
  /// category. Nil, as Apple's is, "when the termination category cannot be determined from
  /// the available crash metadata" (a restored diagnostic's unknown code).
  public var terminationCategory: ExitCategory? {
    switch signal {
    case 5, 6: return .abnormal
    case 9:
      let code = terminationReason.split(separator: " ").last.map(String.init)
      return code.flatMap(TerminationCode.init(rawValue:)).map(ExitCategory.of)
    default: return nil
    }
  }

  /// The diagnostic's bytes and its reason's text.
  var retainedBytes: Int { MemoryLayout<Self>.stride + textBytes(terminationReason) }
}

/// How a process ended that leaves a crash report: killed with a code, by its own crash, an
/// abort (an uncaught exception: MetricKit's abnormal exit), or by a trap in UIKit. Jetsam's
/// kills leave a jetsam report instead, and normal exits none.
enum CrashReportCause {
  case kill(TerminationCode)
  case abort
  case trap

  static func of(
    cause: TransitionCause, terminationCode: TerminationCode?, jetsamReason: JetsamReason?
  ) -> Self? {
    guard jetsamReason == nil else { return nil }
    if let terminationCode { return .kill(terminationCode) }
    switch cause {
    case .event(.crash): return .abort
    case .sceneLifecycleRequired: return .trap
    default: return nil
    }
  }
}

/// What a report says of the device and the app when it was made (`MXMetaData`).
public struct ReportMetaData: Hashable, Sendable {
  /// `applicationBuildVersion`: the app's `CFBundleVersion`.
  public var applicationBuildVersion = "1"
  /// `osVersion`: the OS "including the type of OS, version number, and build number", as
  /// crash reports name it: `iPhone OS 26.1 (23B85)`.
  public var osVersion = "iPhone OS 26.1 (23B85)"
  /// `deviceType`: the device's hardware identifier, its model identifier (`iPhone16,1`).
  public var deviceType = "iPhone16,1"
  public var lowPowerModeEnabled = false

  public init() {}
}
