import JSONCore
import LifecycleEngine

// MetricKit's reports in JSON, each member under the name of Apple's property: a day's exits
// (`MXAppExitMetric`), the payloads and diagnostics a callback hands over, which an app's view
// and its snapshot also show while they wait. Each form is declared once, for the writer and
// the reader alike (`SnapshotForm`).

extension MetricPayload: SnapshotForm {
  /// `MXMetricPayload`.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    members.time("timeStampBegin", &begin, required: true)
    members.time("timeStampEnd", &end, required: true)
    members.version("latestApplicationVersion", &latestApplicationVersion, required: true)
    members.bool(
      "includesMultipleApplicationVersions", &includesMultipleApplicationVersions, required: true)
    members.object("metaData", &metaData, required: true)
    members.value(
      "applicationExitMetrics", &exits, required: true, write: { $0.exitMetric($1) },
      read: { fields, name, _, _ in fields.exitCounts(name) })
  }
}

extension DiagnosticPayload: SnapshotForm {
  /// `MXDiagnosticPayload`, with its crash diagnostics only.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    members.time("timeStampBegin", &begin, required: true)
    members.time("timeStampEnd", &end, required: true)
    members.reports("crashDiagnostics", &crashDiagnostics, required: true)
  }
}

extension CrashDiagnostic: SnapshotForm {
  /// `MXCrashDiagnostic`, with its `MXDiagnostic` members.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    members.version("applicationVersion", &applicationVersion, required: true)
    members.object("metaData", &metaData, required: true)
    members.integer("exceptionType", &exceptionType, in: 0...Int(Int32.max), required: true)
    members.integer("exceptionCode", &exceptionCode, in: 0...Int(Int32.max), required: true)
    members.integer("signal", &signal, in: 0...31, required: true)
    members.value(
      "terminationReason", &terminationReason, required: true, write: { $0.string($1) },
      read: { fields, name, required, _ in fields.string(name, required: required, maxBytes: 64) })
  }
}

extension ReportMetaData: SnapshotForm {
  /// `MXMetaData`: what lifecycled knows of the device and the app.
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    members.version("applicationBuildVersion", &applicationBuildVersion, required: true)
    // Before the profiles (version 6), the OS was its version alone and the device had none.
    members.profileName("osVersion", &osVersion, required: true)
    members.profileName("deviceType", &deviceType, required: true)
    members.bool("lowPowerModeEnabled", &lowPowerModeEnabled, required: true)
  }
}

extension ExitCategory {
  /// The `MXForegroundExitData` / `MXBackgroundExitData` property that counts it.
  var key: StaticString {
    switch self {
    case .normalApp: "cumulativeNormalAppExitCount"
    case .abnormal: "cumulativeAbnormalExitCount"
    case .appWatchdog: "cumulativeAppWatchdogExitCount"
    case .memoryResourceLimit: "cumulativeMemoryResourceLimitExitCount"
    case .memoryPressure: "cumulativeMemoryPressureExitCount"
    case .cpuResourceLimit: "cumulativeCPUResourceLimitExitCount"
    case .badAccess: "cumulativeBadAccessExitCount"
    case .illegalInstruction: "cumulativeIllegalInstructionExitCount"
    case .backgroundTaskAssertionTimeout: "cumulativeBackgroundTaskAssertionTimeoutExitCount"
    case .suspendedWithLockedFile: "cumulativeSuspendedWithLockedFileExitCount"
    }
  }

  /// The foreground's exits and the background's, in Apple's order.
  static let phases = [
    ExitPhase(
      exitData: "foregroundExitData", termination: "foregroundTermination",
      categories: foreground, inForeground: true),
    ExitPhase(
      exitData: "backgroundExitData", termination: "backgroundTermination",
      categories: allCases, inForeground: false),
  ]
}

/// The exits of an app in the foreground, or out of it, as MetricKit reports them.
struct ExitPhase {
  /// The phase's key in `MXAppExitMetric` (`foregroundExitData`).
  let exitData: StaticString
  /// Its `MetricResult` case on iOS 27 (`foregroundTermination`: `ForegroundTerminationMetric`).
  let termination: StaticString
  /// The categories it counts, in Apple's order.
  let categories: [ExitCategory]
  let inForeground: Bool
}

extension JSONWriter {
  /// `{"foregroundExitData":{"cumulativeNormalAppExitCount":…,…},"backgroundExitData":{…}}`
  mutating func exitMetric(_ exits: ExitCounts) {
    object { w in
      for phase in ExitCategory.phases {
        w.key(phase.exitData)
        w.object { w in
          for category in phase.categories {
            w.member(category.key, exits.count(of: category, inForeground: phase.inForeground))
          }
        }
      }
    }
  }
}

extension Fields {
  /// The counts at `key`, in `exitMetric`'s form (none when absent); nil if malformed.
  mutating func exitCounts(_ key: StaticString) -> ExitCounts? {
    guard var metric = object(key) else { return ExitCounts() }
    var exits = ExitCounts()
    for phase in ExitCategory.phases {
      guard var data = metric.object(phase.exitData, required: true) else { continue }
      for category in phase.categories {
        let count = data.integer(category.key, in: 0...SnapshotFormat.maxCount, required: true)
        exits.set(count ?? 0, of: category, inForeground: phase.inForeground)
      }
      metric.merge(data)
    }
    let isValid = metric.issues.isEmpty
    merge(metric)
    return isValid ? exits : nil
  }
}

/// A MetricKit report's form, read into a new report.
protocol MetricKitReport: SnapshotForm {
  init()
}

extension MetricPayload: MetricKitReport {}
extension DiagnosticPayload: MetricKitReport {}
extension CrashDiagnostic: MetricKitReport {}

extension JSONWriter {
  /// `[{…},…]`: each report an object.
  mutating func reports(_ reports: [some MetricKitReport]) {
    array(reports) { w, report in w.object { $0.members(of: report) } }
  }
}

extension Fields {
  /// The reports at `key`, at most `Validation.maxWaitingReports` (and, `required`, at least
  /// one); nil if absent or malformed.
  mutating func reports<Report: MetricKitReport>(
    _ key: StaticString, required: Bool = false, _ reading: SnapshotReading
  ) -> [Report]? {
    let reports = array(key, maxCount: Validation.maxWaitingReports, required: required) {
      fields in
      var report = Report()
      fields.read(&report, reading)
      return report
    }
    if required, reports?.isEmpty == true {
      reject(key, "must hold at least one report")
      return nil
    }
    return reports
  }
}

extension Fields {
  /// The one report at `key`, which must be there; nil if absent or malformed.
  mutating func report<Report: MetricKitReport>(
    _ key: StaticString, _ reading: SnapshotReading
  ) -> Report? {
    guard var fields = object(key, required: true) else { return nil }
    var report = Report()
    fields.read(&report, reading)
    let isValid = fields.issues.isEmpty
    merge(fields)
    return isValid ? report : nil
  }
}

extension SnapshotMembers where Self: ~Copyable {
  /// MetricKit's reports of one kind, oldest first.
  mutating func reports<Report: MetricKitReport>(
    _ name: StaticString, _ value: inout [Report], required: Bool = false
  ) {
    self.value(
      name, &value, required: required,
      write: { $0.reports($1) },
      read: { fields, name, required, reading in
        fields.reports(name, required: required, reading)
      })
  }
}
