import JSONCore
import LifecycleEngine

// An app's exits in MetricKit's JSON form (`MXAppExitMetric`): the payload a callback hands
// over, the counts an app's view and its snapshot keep.

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

  /// The two halves of `MXAppExitMetric`: their keys, categories, and which is the foreground's.
  static let phases: [(key: StaticString, categories: [ExitCategory], inForeground: Bool)] = [
    ("foregroundExitData", foreground, true), ("backgroundExitData", allCases, false),
  ]
}

extension JSONWriter {
  /// `{"foregroundExitData":{"cumulativeNormalAppExitCount":…,…},"backgroundExitData":{…}}`
  mutating func exitMetric(_ exits: ExitCounts) {
    object { w in
      for phase in ExitCategory.phases {
        w.key(phase.key)
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
      guard var data = metric.object(phase.key, required: true) else { continue }
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
