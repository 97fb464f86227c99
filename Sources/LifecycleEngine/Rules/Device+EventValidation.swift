/// What is wrong with an event's parameters, checked before the event is applied.
extension Device {
  static func validate(_ event: AppEvent) throws(EngineError) {
    let issues = issues(of: event)
    if !issues.isEmpty { throw .invalid(issues) }
  }

  /// What is wrong with the parameters the event passes to `forEachParameter`, each named by
  /// its field.
  static func parameterIssues(of event: some ParameterizedEvent) -> ValidationIssues {
    var issues = ValidationIssues()
    event.forEachParameter { parameter in
      switch parameter.value {
      case .sceneID(let scene) where !Validation.isValidName(scene):
        issues.append(.name("scene"))
      case .taskName(let name) where name.utf8.count > Validation.maxTaskNameBytes:
        issues.append(
          ValidationIssue(
            field: "name", message: "must be at most \(Validation.maxTaskNameBytes) bytes long"))
      case .megabytes(let megabytes) where !Validation.footprints.contains(megabytes):
        issues.append("memoryMB", Validation.integerRule(Validation.footprints))
      case .restorationData(let data?) where !Validation.isRestorationData(data):
        issues.append(ValidationIssue(field: "data", message: Validation.restorationDataRule))
      case .payload(let payload) where !Validation.isPushPayload(payload):
        issues.append(
          ValidationIssue(
            field: "payload",
            message: "must be at most \(Validation.maxPushPayloadBytes) bytes written compactly, "
              + "nested at most \(Validation.maxDataNesting) deep"))
      case .sessionIdentifier(let identifier) where !Validation.isIdentifier(identifier),
        .taskIdentifier(let identifier) where !Validation.isIdentifier(identifier):
        issues.append(
          ValidationIssue(
            field: "identifier",
            message: Validation.identifierRule))
      case .instant(let time) where !(.zero...Validation.latestInstant).contains(time):
        issues.append(
          ValidationIssue(
            field: String(describing: parameter.name),
            message: "must be 0 to \(Validation.maxAdvanceSeconds) seconds of device time"))
      case .entry(let entry):
        issues.append(contentsOf: entry.issues())
      case .percent(let level) where !Validation.batteryLevels.contains(level):
        issues.append(
          ValidationIssue(
            field: String(describing: parameter.name), message: Validation.batteryLevelsIssue))
      case .count(let number, let range) where !range.contains(number):
        issues.append(String(describing: parameter.name), Validation.integerRule(range))
      case .appName(let name) where !Validation.isValidName(name):
        issues.append(.name(String(describing: parameter.name)))
      case .version(let version) where !Validation.isVersion(version):
        issues.append(
          ValidationIssue(
            field: String(describing: parameter.name),
            message: Validation.versionRule))
      case .sceneID, .taskName, .taskID, .megabytes, .restorationData, .flag, .choice, .payload,
        .sessionIdentifier, .taskIdentifier, .instant, .percent, .count, .appName, .version:
        break
      }
    }
    return issues
  }

  /// What is wrong with the app event's parameters, alone and together.
  private static func issues(of event: AppEvent) -> ValidationIssues {
    var issues = parameterIssues(of: event)
    if case .backgroundLaunch(let reason, let payload, let identifier) = event {
      if payload != nil, reason != .remoteNotification {
        issues.append(
          ValidationIssue(field: "payload", message: "only a remoteNotification launch has one"))
      }
      if identifier != nil, reason != .urlSession {
        issues.append(
          ValidationIssue(field: "identifier", message: "only a urlSession launch has one"))
      }
      if reason == .continuedProcessing {
        issues.append(
          ValidationIssue(
            field: "reason",
            message: "a continued-processing task starts in the foreground: submitTaskRequest"))
      }
    }
    if case .submitTaskRequest(let request) = event, request.kind != .processing {
      if request.requiresNetworkConnectivity {
        issues.append(
          ValidationIssue(
            field: "requiresNetworkConnectivity", message: "only a processing request has one"))
      }
      if request.requiresExternalPower {
        issues.append(
          ValidationIssue(
            field: "requiresExternalPower", message: "only a processing request has one"))
      }
    }
    if case .submitTaskRequest(let request) = event {
      if request.kind == .continuedProcessing, request.earliestBeginDate != nil {
        issues.append(
          ValidationIssue(
            field: "earliestBeginDate",
            message: "a continuedProcessing request starts when the system has room, not later"))
      }
      if request.kind != .continuedProcessing, request.strategy != nil {
        issues.append(
          ValidationIssue(field: "strategy", message: "only a continuedProcessing request has one"))
      }
    }
    if case .reportProgress(_, let progress) = event,
      progress.completedUnitCount > progress.totalUnitCount
    {
      issues.append(
        ValidationIssue(field: "completedUnitCount", message: "must be at most totalUnitCount"))
    }
    return issues
  }
}
