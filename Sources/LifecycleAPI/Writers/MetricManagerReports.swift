import JSONCore
import LifecycleEngine

// iOS 27's MetricKit reports in JSON, as `MetricManager` yields them: `MetricReport` and
// `DiagnosticReport`, each member under the name of Apple's property. Apple documents the
// types, not what `JSONEncoder` makes of them, so three choices are lifecycled's: an
// enumeration's case is an object whose one member is the case's name
// (`{"foregroundTermination":{…}}`, `{"crash":{…}}`), a `DateInterval` is written as
// Foundation's `Codable` writes one (`start`, `duration`), and a `Measurement<UnitDuration>`
// as its seconds. Members lifecycled does not model (`regionFormat`, `bundleIdentifier`,
// `callStackTree`, ...) are absent.

extension JSONWriter {
  /// `name` and the `MetricReport` of a day's `payload`: its `timeRange`, its `environment`,
  /// and one interval entry, the full day's, whose values are the exits counted
  /// (`foregroundTermination`, `backgroundTermination`). No `StateReporting` domain is
  /// enabled, so its `states` and the report's `stateEntries` are empty.
  mutating func member(_ name: StaticString, metricReport payload: MetricPayload) {
    let milliseconds = payload.end.milliseconds - payload.begin.milliseconds
    key(name)
    object { w in
      w.key("timeRange")
      w.object { w in
        w.key("start")
        w.seconds(milliseconds: payload.begin.milliseconds)
        w.key("duration")
        w.seconds(milliseconds: milliseconds)
      }
      w.key("environment")
      w.object { w in
        w.environment(payload.metaData)
        w.member("latestApplicationVersion", payload.latestApplicationVersion)
        w.member(
          "includesMultipleApplicationVersions", payload.includesMultipleApplicationVersions)
      }
      w.key("intervalEntries")
      w.array { w in
        w.object { w in
          w.key("duration")
          w.seconds(milliseconds: milliseconds)
          w.key("states")
          w.array { _ in }
          w.key("values")
          w.array { w in
            for phase in ExitCategory.phases {
              w.object { w in
                w.key(phase.termination)
                w.object { w in
                  for category in phase.categories {
                    let count = payload.exits.count(of: category, inForeground: phase.inForeground)
                    w.member(category.terminationCountKey, count)
                  }
                }
              }
            }
          }
        }
      }
      w.key("stateEntries")
      w.array { _ in }
    }
  }

  /// `name` and the `DiagnosticReport` of a crash: its `environment`, and its `result`, the
  /// crash (`CrashDiagnostic`) with the category Apple derives from its metadata.
  mutating func member(_ name: StaticString, diagnosticReport crash: CrashDiagnostic) {
    key(name)
    object { w in
      w.key("environment")
      w.object { w in
        w.environment(crash.metaData)
        w.member("applicationVersion", crash.applicationVersion)
      }
      w.key("result")
      w.object { w in
        w.key("crash")
        w.object { w in
          w.member("exceptionType", crash.exceptionType)
          w.member("exceptionCode", crash.exceptionCode)
          w.member("signal", crash.signal)
          w.member("terminationReason", crash.terminationReason)
          if let name = crash.terminationCategory?.terminationCategoryName {
            w.member("terminationCategory", unescaped: name.description)
          }
        }
      }
    }
  }

  /// The members both reports' environments share, from the `MXMetaData` kept.
  private mutating func environment(_ metaData: ReportMetaData) {
    let os = OSVersionParts(metaData.osVersion)
    key("osVersion")
    object { w in
      w.member("platform", os.platform)
      w.member("number", os.number)
      w.member("buildNumber", os.buildNumber)
    }
    member("deviceType", metaData.deviceType)
    member("applicationBuildVersion", metaData.applicationBuildVersion)
    member("lowPowerModeEnabled", metaData.lowPowerModeEnabled)
  }
}

/// iOS 27's `OSVersion` (`platform`, `number`, `buildNumber`) of the name `MXMetaData` gives
/// the OS, "the same as the one used in crash reports": `iPhone OS 27.0 (24A437)`. A name in
/// another form (a restored report's) is its `number` alone.
private struct OSVersionParts {
  var platform = ""
  var number: String
  var buildNumber = ""

  init(_ name: String) {
    number = name
    guard name.hasSuffix(")"), let open = name.lastIndex(of: "("),
      let space = name[..<open].dropLast().lastIndex(of: " ")
    else { return }
    platform = String(name[..<space])
    number = String(name[name.index(after: space)..<name.index(before: open)])
    buildNumber = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
  }
}

extension ExitCategory {
  /// The termination metrics' property that counts it.
  var terminationCountKey: StaticString {
    switch self {
    case .normalApp: "normalTerminationCount"
    case .abnormal: "abnormalTerminationCount"
    case .appWatchdog: "watchdogTerminationCount"
    case .memoryResourceLimit: "memoryLimitTerminationCount"
    case .memoryPressure: "systemPressureTerminationCount"
    case .cpuResourceLimit: "highCPUTerminationCount"
    case .badAccess: "badAccessTerminationCount"
    case .illegalInstruction: "illegalInstructionTerminationCount"
    case .backgroundTaskAssertionTimeout: "taskTimeoutTerminationCount"
    case .suspendedWithLockedFile: "fileLockTerminationCount"
    }
  }

  /// `CrashDiagnostic.TerminationCategory`'s name for it, where Apple's documentation names
  /// one (a crash report's categories); nil for the exits that make no crash report here.
  var terminationCategoryName: StaticString? {
    switch self {
    case .abnormal: "abnormal"
    case .appWatchdog: "watchdog"
    case .badAccess: "badAccess"
    case .illegalInstruction: "illegalInstruction"
    case .backgroundTaskAssertionTimeout: "taskTimeout"
    case .suspendedWithLockedFile: "fileLock"
    case .normalApp, .memoryResourceLimit, .memoryPressure, .cpuResourceLimit: nil
    }
  }
}
