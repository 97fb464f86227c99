/// What an event returned, by what it is. The contract's result is one of three forms with no
/// member naming which, so the generated cases carry the forms' type names; these read as the
/// rest of the client does.
///
/// ```swift
/// let begun = try await mail.post(.beginBackgroundTask(name: "upload"))
/// let task = try #require(begun.result?.begunTask)
/// try await mail.post(.endBackgroundTask(id: task.taskId))
/// ```
extension Components.Schemas.EventResult {
  /// The task `beginBackgroundTask` began: its identifier, and when its time ends.
  public var begunTask: Components.Schemas.BegunBackgroundTask? {
    guard case .BegunBackgroundTask(let task) = self else { return nil }
    return task
  }

  /// The work a `backgroundLaunch`, a `launchTask` or a continued-processing
  /// `submitTaskRequest` handed the app (for `expireTask`, the task's work), and when its time
  /// is up (never, for a continued-processing task).
  public var handedOverWork: Components.Schemas.HandedOverBackgroundWork? {
    guard case .HandedOverBackgroundWork(let work) = self else { return nil }
    return work
  }

  /// The scene session `openScene` opened.
  public var openedScene: Components.Schemas.OpenedScene? {
    guard case .OpenedScene(let scene) = self else { return nil }
    return scene
  }
}
