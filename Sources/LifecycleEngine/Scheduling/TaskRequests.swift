/// The kind of a `BGTaskRequest` an app submits to `BGTaskScheduler`.
public enum TaskKind: String, CaseIterable, Sendable, Codable {
  /// `BGAppRefreshTaskRequest`: a short refresh, run as a `BGAppRefreshTask`.
  case appRefresh
  /// `BGProcessingTaskRequest`: longer work, run as a `BGProcessingTask` while the device is
  /// idle.
  case processing

  /// The background launch that runs a request of this kind.
  public var launchReason: BackgroundLaunchReason {
    switch self {
    case .appRefresh: .appRefresh
    case .processing: .processing
    }
  }

  /// The `UIBackgroundModes` entry a request of this kind needs.
  public var requiredMode: BackgroundMode {
    switch self {
    case .appRefresh: .fetch
    case .processing: .processing
    }
  }

  /// How many requests of this kind an app may have pending: `BGTaskScheduler.submit(_:)`,
  /// "There can be a total of 1 refresh task and 10 processing tasks scheduled at any time."
  public var pendingLimit: Int {
    switch self {
    case .appRefresh: 1
    case .processing: 10
    }
  }
}

/// A request an app submitted to `BGTaskScheduler` and the system has not run yet.
public struct TaskRequest: Hashable, Sendable {
  /// One of the app's `BGTaskSchedulerPermittedIdentifiers`.
  public var identifier: String
  public var kind: TaskKind
  /// `BGTaskRequest.earliestBeginDate`, in device time: the task does not start before it.
  public var earliestBeginDate: Instant?
  /// `BGProcessingTaskRequest.requiresNetworkConnectivity`.
  public var requiresNetworkConnectivity: Bool
  /// `BGProcessingTaskRequest.requiresExternalPower`.
  public var requiresExternalPower: Bool

  public init(
    identifier: String, kind: TaskKind, earliestBeginDate: Instant? = nil,
    requiresNetworkConnectivity: Bool = false, requiresExternalPower: Bool = false
  ) {
    self.identifier = identifier
    self.kind = kind
    self.earliestBeginDate = earliestBeginDate
    self.requiresNetworkConnectivity = requiresNetworkConnectivity
    self.requiresExternalPower = requiresExternalPower
  }
}

/// Why `BGTaskScheduler.submit(_:)` throws, as `BGTaskScheduler.Error.Code` names it.
public enum TaskSchedulerError: String, CaseIterable, Sendable, Codable {
  /// The identifier is not among the app's permitted ones, or the app lacks the background
  /// mode the kind needs (`fetch` for refresh, `processing` for processing).
  case notPermitted
  /// The app already has as many requests of the kind pending as it may (`TaskKind.pendingLimit`).
  case tooManyPendingTaskRequests
  /// The app cannot schedule background work: Background App Refresh is off.
  case unavailable
}

extension Device {
  /// Why `submit(_:)` of `request` throws for `app`, or nil if it is accepted: a resubmitted
  /// identifier replaces its pending request, so it does not count against the limit.
  func taskSchedulerRefusal(submitting request: TaskRequest, for app: App) -> RefusalReason? {
    if !app.spec.permittedTaskIdentifiers.contains(request.identifier) {
      return .taskRequestNotPermitted(identifier: request.identifier, missingMode: nil)
    }
    let mode = request.kind.requiredMode
    if !app.spec.backgroundModes.contains(mode) {
      return .taskRequestNotPermitted(identifier: request.identifier, missingMode: mode)
    }
    // `BGTaskScheduler.Error.Code.unavailable`: "the user disabled Background App Refresh".
    if !status.conditions.backgroundAppRefresh { return .taskSchedulingUnavailable(forApp: false) }
    if !app.backgroundAppRefresh { return .taskSchedulingUnavailable(forApp: true) }
    let others = app.taskRequests.lazy.filter {
      $0.kind == request.kind && $0.identifier != request.identifier
    }
    return others.count >= request.kind.pendingLimit
      ? .tooManyPendingTaskRequests(request.kind, limit: request.kind.pendingLimit) : nil
  }
}
