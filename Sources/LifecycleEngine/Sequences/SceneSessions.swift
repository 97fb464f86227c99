/// One scene session of a scene app (`UISceneSession`): a window the user opened and has not
/// closed. UIKit remembers it across process deaths; a scene is connected to it only while the
/// process runs and the system has not disconnected it.
public struct SceneSession: Hashable, Sendable, RetainedSize {
  /// Chosen by the client, or `main`, `scene-2`, ... in the order the sessions are opened.
  public let id: String
  /// `unattached` while no scene is connected (the process is gone, or the scene was
  /// disconnected).
  public var state: SceneState
  /// What the connected scene's code returns from `stateRestorationActivity(for:)` (JSON
  /// text), if anything; gone with the scene.
  public var restorationData: String?
  /// What the session keeps as its `stateRestorationActivity` since the scene last saved it:
  /// handed back in `scene(_:willConnectTo:options:)` when a scene connects to it again.
  public var savedRestorationData: String?

  public init(
    id: String, state: SceneState = .unattached, restorationData: String? = nil,
    savedRestorationData: String? = nil
  ) {
    self.id = id
    self.state = state
    self.restorationData = restorationData
    self.savedRestorationData = savedRestorationData
  }

  public var isConnected: Bool { state != .unattached }

  /// Connected and off screen (background or suspended): what the system may disconnect.
  public var isInBackground: Bool { state == .background || state == .suspended }

  public var retainedBytes: Int {
    MemoryLayout<Self>.stride + textBytes(id) + textBytes(restorationData)
      + textBytes(savedRestorationData)
  }
}

/// The name of the first scene session of every scene app.
let firstSceneName = "main"

extension App {
  /// Where the session `id` is in `sessions`.
  func sessionIndex(_ id: String) -> Int? {
    sessions.firstIndex { $0.id == id }
  }

  /// The session shown while the app is in the foreground, and brought back by a `launch` that
  /// names none.
  var focusedSessionIndex: Int? {
    record.focusedScene.flatMap(sessionIndex)
  }

  /// The state of the focused scene; `unattached` when there is none.
  var sceneState: SceneState {
    focusedSessionIndex.map { sessions[$0].state } ?? .unattached
  }

  /// How many scenes are connected: each holds `sceneMemoryMB`.
  var connectedScenes: Int {
    sessions.reduce(0) { $0 + ($1.isConnected ? 1 : 0) }
  }

  /// The id a new session takes when the client names none: `main` first, then `scene-N`, N
  /// the first number from the session count up that no session uses.
  func newSessionID() -> String {
    if sessions.isEmpty { return firstSceneName }
    var number = sessions.count + 1
    while sessionIndex("scene-\(number)") != nil { number += 1 }
    return "scene-\(number)"
  }
}

// MARK: Scene events

extension Device {
  /// Sets a scene's state, keeping memory accounting in step: a connected scene holds the
  /// app's `sceneMemoryMB` while the process lives.
  func setState(ofScene index: Int, of app: App, to state: SceneState) {
    let wasConnected = app.sessions[index].isConnected
    app.setState(ofScene: index, to: state)
    guard wasConnected != app.sessions[index].isConnected, app.state.isLive,
      app.spec.sceneMemoryMB > 0
    else { return }
    usedMB += wasConnected ? -app.spec.sceneMemoryMB : app.spec.sceneMemoryMB
    notePassingLimit(of: app, in: app.state)
    updateVictimOrder(of: app)
  }

  /// The system disconnects a background scene while the process lives (UIKit "can disconnect
  /// a background or suspended scene at any time to reclaim its resources"). A suspended app
  /// runs again in the background for it; a scene that has state to save is asked for it
  /// first (`UISceneSession.stateRestorationActivity`: "Before disconnecting a scene, the
  /// system asks your delegate for an NSUserActivity object containing state information for
  /// that scene"), then hears `sceneDidDisconnect` and is gone with what it held. The session,
  /// and what it saved, stay.
  func disconnectScene(_ index: Int, of app: App, cause: TransitionCause) {
    resume(app, cause: cause)
    if let data = app.sessions[index].restorationData {
      deliver(
        .stateRestorationActivity, to: app, cause: cause, scene: index,
        arguments: .restorationData(data))
      app.setRestorationData(nil, ofScene: index)
    }
    deliver(.sceneDidDisconnect, to: app, cause: cause, scene: index)
  }

  /// The user closes one window from the app switcher: its scene disconnects and the app hears
  /// that the session is discarded (`application(_:didDiscardSceneSessions:)`). Closing the
  /// last one quits the app, as a force-quit does (douglashill.co, "App termination": removing
  /// the last window terminates the process). An app whose code cannot run hears of it after its next
  /// didFinishLaunching; a suspended one runs again in the background for it.
  func closeScene(_ index: Int, of app: App) {
    let cause = TransitionCause.event(.closeScene)
    guard app.sessions.count > 1 else { return forceQuit(app) }
    let id = app.sessions[index].id
    let runs = app.state.isLive && !app.prewarmed
    if runs {
      resume(app, cause: cause)
      if app.focusedSessionIndex == index, app.state == .active {
        deliver(.sceneWillResignActive, to: app, then: .inactive, cause: cause)
      }
      if app.sessions[index].isConnected {
        let state: AppState? = app.focusedSessionIndex == index ? .background : nil
        deliver(.sceneDidDisconnect, to: app, then: state, cause: cause, scene: index)
      }
    }
    app.removeSession(at: index)
    if app.focusedScene == id { app.focusedScene = app.sessions.last?.id }
    if runs {
      deliver(.didDiscardSceneSessions, to: app, cause: cause, arguments: .sessions([id]))
    } else {
      app.discardedScenes.append(id)
    }
  }

  /// Under memory pressure, before jetsam kills a background-running app, UIKit reclaims
  /// scenes: the background scenes of running apps that hold scene memory disconnect, apps in
  /// jetsam's order, the foreground app's last (the user guide, "Behaviour decisions").
  func disconnectBackgroundScenes() {
    var holders = liveApps.filter {
      $0.state.isRunning && $0.spec.sceneMemoryMB > 0
        && $0.sessions.contains { $0.state == .background }
    }
    guard !holders.isEmpty else { return }
    holders.sort { VictimOrder(of: $0) < VictimOrder(of: $1) }
    let cause = TransitionCause.jetsam(.vmPageshortage)
    for app in holders where isOverLimit {
      for index in app.sessions.indices
      where isOverLimit && app.sessions[index].state == .background {
        disconnectScene(index, of: app, cause: cause)
      }
    }
  }
}
