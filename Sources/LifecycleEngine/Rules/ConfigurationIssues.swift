extension DeviceConfiguration {
  /// What no device may have, by its field names in the API: its members' rules, and those
  /// between them.
  func issues() -> ValidationIssues {
    var issues = ValidationIssues()
    if !Validation.isValidName(id) { issues.append(.name("id")) }
    issues.append(contentsOf: memberIssues())
    if idleTimeout != nil, id == Engine.defaultDeviceID {
      issues.append("idleTimeoutSeconds", "is not for the default device, which is permanent")
    }
    return issues
  }
}

extension AppSpec {
  /// What no app may have, by its field names in the API: its members' rules, and those
  /// between them.
  func issues() -> ValidationIssues {
    var issues = ValidationIssues()
    if !Validation.isValidName(name) { issues.append(.name("name")) }
    issues.append(contentsOf: memberIssues())
    if lifecycle != .scene, supportsMultipleScenes || sceneMemoryMB != 0 {
      issues.append(
        supportsMultipleScenes ? "supportsMultipleScenes" : "sceneMemoryMB",
        "is for scene apps (lifecycle scene) only")
    }
    if metricKit == .metricManager, sdkVersion < ReleaseFeature.metricManager.since {
      issues.append("metricKit", "metricManager is in the iOS 27 SDK: it needs sdkVersion 27")
    }
    return issues
  }
}

extension ValidationIssue {
  static func name(_ field: String) -> ValidationIssue {
    ValidationIssue(field: field, message: Validation.nameRule)
  }
}
