/// The state an app is created in, for a test's "given" step: what the client names, the rest
/// as the events that lead there would leave it (a fresh process at its configured footprints,
/// a scene that mirrors the app, tasks numbered from 1, a suspension scheduled as the
/// scheduler would from now). Creating it makes no journal entry: nothing happened.
public struct AppGiven: Hashable, Sendable {
  public var state: AppState
  /// The names of the background tasks it holds, in the order they were begun.
  public var backgroundTasks: [String?]
  public var activities: Set<BackgroundActivity>
  /// Whether it saved state restoration data when it last went to the background.
  public var restorationStateSaved: Bool

  public init(
    state: AppState, backgroundTasks: [String?] = [], activities: Set<BackgroundActivity> = [],
    restorationStateSaved: Bool = false
  ) {
    self.state = state
    self.backgroundTasks = backgroundTasks
    self.activities = activities
    self.restorationStateSaved = restorationStateSaved
  }
}

extension Device {
  /// Adds the app `spec` configures, in the state `given` names; the issues that stop it, if
  /// any, named under `given.` (the device is then as it was).
  func add(_ spec: AppSpec, given: AppGiven) -> ValidationIssues {
    let state = given.state
    let app = add(spec)
    var issues = ValidationIssues()
    issues.at("given.") { issues in
      if state != .notRunning {
        issues.check(status.poweredOn, "state", "needs a device that is on")
        issues.check(
          !state.isForeground || !status.locked && status.foregroundApp == nil, "state",
          "\(state) needs an unlocked device with no app in the foreground")
        let footprint = app.footprint(in: state)
        issues.check(
          usedMB + footprint <= profile.memory.deviceMB, "state",
          "the app's \(footprint) MB would pass the device's memory limit "
            + "(\(profile.memory.deviceMB) MB), "
            + "\(usedMB) MB of it in use")
      }
      guard issues.isEmpty else { return }
      if state.isForeground { status.foregroundApp = app.name }
      var record = AppRecord()
      var process: ProcessImage?
      if state != .notRunning {
        record.launches = 1
        if app.isScene {
          record.sessions = [SceneSession(id: firstSceneName, state: SceneState(mirroring: state))]
          record.focusedScene = firstSceneName
        }
        var running = ProcessImage(notRunning: app.spec)
        running.state = state
        running.inactiveCause = state == .inactive ? .switcher : nil
        running.backgroundSince = state == .background ? status.now : nil
        running.tasks = given.backgroundTasks.enumerated().map {
          BackgroundTask(id: $0.offset + 1, name: $0.element)
        }
        running.activities = given.activities
        running.protectedDataAvailable = status.protectedDataAvailable
        process = running
      }
      record.lastUsed = status.now
      record.nextTaskID = given.backgroundTasks.count + 1
      record.restorationStateSaved = given.restorationStateSaved
      restore(
        AppImage(spec: app.spec, record: record, process: process),
        as: app, issues: &issues, derivingSuspension: true)
      issues.rename("process.", to: "")
    }
    if !issues.isEmpty { remove(app) }
    return issues
  }
}
