/// The kind of a `BGTaskRequest` an app submits to `BGTaskScheduler`.
public enum TaskKind: String, CaseIterable, Sendable, Codable {
  /// `BGAppRefreshTaskRequest`: a short refresh, run as a `BGAppRefreshTask`.
  case appRefresh
  /// `BGProcessingTaskRequest`: longer work, run as a `BGProcessingTask` while the device is
  /// idle.
  case processing
  /// `BGContinuedProcessingTaskRequest` (iOS 26): work a person starts in the app, run as a
  /// `BGContinuedProcessingTask` at once or, queued, as soon as the system has room; it goes on
  /// in the background until the app completes it ("Performing long-running tasks on iOS and
  /// iPadOS").
  case continuedProcessing

  /// The background launch that runs a request of this kind.
  public var launchReason: BackgroundLaunchReason {
    switch self {
    case .appRefresh: .appRefresh
    case .processing: .processing
    case .continuedProcessing: .continuedProcessing
    }
  }

  /// The `UIBackgroundModes` entry a request of this kind needs: its launch's (a
  /// continued-processing task runs because a person started it, and needs none).
  public var requiredMode: BackgroundMode? { launchReason.requiredMode }

  /// How many requests of this kind an app may have pending: `BGTaskScheduler.submit(_:)`,
  /// "There can be a total of 1 refresh task and 10 processing tasks scheduled at any time."
  /// Apple documents no number for queued continued-processing requests: lifecycled keeps
  /// at most 10, its own bound.
  public var pendingLimit: Int {
    switch self {
    case .appRefresh: 1
    case .processing, .continuedProcessing: 10
    }
  }
}

/// What the system does with a continued-processing request it has no room to run at once
/// (`BGContinuedProcessingTaskRequest.SubmissionStrategy`).
public enum SubmissionStrategy: String, CaseIterable, Sendable, Codable {
  /// The request joins the back of the queue and runs as soon as the system has room; the
  /// default.
  case queue
  /// `submit(_:)` throws `BGTaskScheduler.Error.Code.immediateRunIneligible`.
  case fail
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
  /// `BGContinuedProcessingTaskRequest.strategy`; nil for the other kinds.
  public var strategy: SubmissionStrategy?
  /// A queued continued-processing request's place in the system's one queue: the journal
  /// `seq` of the event that queued it. Set by the device, not by the event.
  public var queuedAtSeq: Int?

  public init(
    identifier: String, kind: TaskKind, earliestBeginDate: Instant? = nil,
    requiresNetworkConnectivity: Bool = false, requiresExternalPower: Bool = false,
    strategy: SubmissionStrategy? = nil, queuedAtSeq: Int? = nil
  ) {
    self.identifier = identifier
    self.kind = kind
    self.earliestBeginDate = earliestBeginDate
    self.requiresNetworkConnectivity = requiresNetworkConnectivity
    self.requiresExternalPower = requiresExternalPower
    self.strategy = kind == .continuedProcessing ? strategy ?? .queue : strategy
    self.queuedAtSeq = queuedAtSeq
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
  /// A continued-processing request with the `fail` strategy, and no room to run it now.
  case immediateRunIneligible
}

extension Device {
  /// Why `submit(_:)` of `request` throws for `app`, or nil if it is accepted: a resubmitted
  /// identifier replaces its pending request, so it does not count against the limit.
  func taskSchedulerRefusal(submitting request: TaskRequest, for app: App) -> RefusalReason? {
    if !app.spec.permittedTaskIdentifiers.contains(request.identifier) {
      return .taskRequestNotPermitted(identifier: request.identifier, missingMode: nil)
    }
    if let mode = request.kind.requiredMode, !app.spec.backgroundModes.contains(mode) {
      return .taskRequestNotPermitted(identifier: request.identifier, missingMode: mode)
    }
    // `BGTaskScheduler.Error.Code.unavailable`: "the user disabled Background App Refresh".
    if !status.conditions.backgroundAppRefresh { return .taskSchedulingUnavailable(forApp: false) }
    if !app.backgroundAppRefresh { return .taskSchedulingUnavailable(forApp: true) }
    let others = app.taskRequests.lazy.filter {
      $0.kind == request.kind && $0.identifier != request.identifier
    }
    if others.count >= request.kind.pendingLimit {
      return .tooManyPendingTaskRequests(request.kind, limit: request.kind.pendingLimit)
    }
    // "The system cancels a `fail` task right away if it can't begin processing the task
    // immediately" ("Performing long-running tasks on iOS and iPadOS").
    if request.kind == .continuedProcessing, request.strategy == .fail,
      !continuedHolds(for: request, of: app).isEmpty
    {
      return .immediateRunIneligible
    }
    return nil
  }
}
