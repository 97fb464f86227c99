/// What an iOS release brought, where Apple says so: a device on an earlier release refuses it
/// (`RefusalReason.notInOSVersion`), and a snapshot that holds it there is not restored; or,
/// for what a release demands of apps, holds its apps to it from that release on.
enum ReleaseFeature {
  /// "In iOS 15 and later, the system may [...] prewarm your app" ("About the app launch
  /// sequence").
  case prewarming
  /// `BGContinuedProcessingTaskRequest` is "iOS 26.0+".
  case continuedProcessing
  /// "In the next major release following iOS 26, UIScene lifecycle will be required when
  /// building with the latest SDK; otherwise, your app won't launch" (TN3187: "Migrating to
  /// the UIKit scene-based life cycle"): the release, and the SDK, that bring the assertion.
  case sceneLifecycleRequirement
  /// "`MetricManager` replaces `MXMetricManager` and its subscriber protocol" ("MetricKit
  /// updates", June 2026): iOS 27.0 and its SDK.
  case metricManager

  /// The feature as a refusal names it.
  var name: String {
    switch self {
    case .prewarming: "prewarming"
    case .continuedProcessing: "BGContinuedProcessingTask"
    case .sceneLifecycleRequirement: "the scene life-cycle requirement"
    case .metricManager: "MetricManager"
    }
  }

  /// The major version that brought it.
  var since: Int {
    switch self {
    case .prewarming: 15
    case .continuedProcessing: 26
    case .sceneLifecycleRequirement, .metricManager: 27
    }
  }
}

extension Device {
  /// Whether the release the device runs has `feature`.
  func runs(_ feature: ReleaseFeature) -> Bool {
    OSRelease.majorVersion(of: status.osVersion) >= feature.since
  }

  /// Why the device refuses what needs `feature`, or nil if its release has it.
  func refusal(lacking feature: ReleaseFeature) -> RefusalReason? {
    runs(feature)
      ? nil : .notInOSVersion(status.osVersion, what: feature.name, since: feature.since)
  }
}
