extension DeviceConfiguration {
  /// What no device may have, by its field names in the API.
  func issues() -> ValidationIssues {
    var issues = ValidationIssues()
    if !Validation.isValidName(id) { issues.append(.name("id")) }
    if let timeout = idleTimeout {
      if id == Engine.defaultDeviceID {
        issues.append("idleTimeoutSeconds", "is not for the default device, which is permanent")
      } else if !(.seconds(1)...Duration.seconds(Validation.maxIdleTimeoutSeconds)).contains(
        timeout)
      {
        issues.append(
          "idleTimeoutSeconds", "must be a number from 1 to \(Validation.maxIdleTimeoutSeconds)")
      }
    }
    if labels.count > Validation.maxLabels {
      issues.append("labels", "must hold at most \(Validation.maxLabels) labels")
    }
    for (key, value) in labels.sorted(by: { $0.key < $1.key })
    where !Validation.isValidName(key) || !Validation.isValidName(value) {
      issues.append(
        "labels.\(key.prefix(Validation.maxNameBytes))",
        "key and value must each match \(Validation.namePattern)")
    }
    for (field, value) in [
      ("memoryLimitMB", memoryLimitMB),
      ("perAppLimitMB", perAppLimitMB),
    ] where !(1...Validation.maxMemoryMB).contains(value) {
      issues.append(.megabytes(field, minimum: 1))
    }
    return issues
  }
}

extension AppSpec {
  /// What is wrong with the spec, field by field.
  func issues() -> ValidationIssues {
    var issues = ValidationIssues()
    if !Validation.isValidName(name) { issues.append(.name("name")) }
    if !(0...Validation.maxMemoryMB).contains(memoryMB) {
      issues.append(.megabytes("memoryMB", minimum: 0))
    }
    if let backgroundMemoryMB, !(0...Validation.maxMemoryMB).contains(backgroundMemoryMB) {
      issues.append(.megabytes("backgroundMemoryMB", minimum: 0))
    }
    if !(0...Validation.maxMemoryMB).contains(sceneMemoryMB) {
      issues.append(.megabytes("sceneMemoryMB", minimum: 0))
    }
    if lifecycle != .scene, supportsMultipleScenes || sceneMemoryMB != 0 {
      issues.append(
        ValidationIssue(
          field: (supportsMultipleScenes ? "supportsMultipleScenes" : "sceneMemoryMB"),
          message: "is for scene apps (lifecycle scene) only"))
    }
    if permittedTaskIdentifiers.count > Validation.maxPermittedTaskIdentifiers
      || !permittedTaskIdentifiers.allSatisfy(Validation.isIdentifier)
      || Set(permittedTaskIdentifiers).count != permittedTaskIdentifiers.count
    {
      issues.append(
        ValidationIssue(
          field: "permittedTaskIdentifiers",
          message:
            "must list at most \(Validation.maxPermittedTaskIdentifiers) distinct identifiers "
            + "of 1 to \(Validation.maxIdentifierBytes) bytes"))
    }
    for (name, member) in AppBehavior.durations {
      let duration = behavior[keyPath: member]
      if duration < .zero || duration > .seconds(Validation.maxBehaviorSeconds) {
        issues.append(
          ValidationIssue(
            field: "behavior.\(name)", message: "must be 0 to \(Validation.maxBehaviorSeconds)"))
      }
    }
    return issues
  }
}

extension ValidationIssue {
  static func name(_ field: String) -> ValidationIssue {
    ValidationIssue(field: field, message: "must match \(Validation.namePattern)")
  }

  static func megabytes(_ field: String, minimum: Int) -> ValidationIssue {
    ValidationIssue(field: field, message: "must be \(minimum) to \(Validation.maxMemoryMB)")
  }
}
