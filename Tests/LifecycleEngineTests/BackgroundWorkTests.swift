import Testing

@testable import LifecycleEngine

/// Background work that overlaps: each push and each task is handed over with its own
/// completion (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: "Your
/// app has up to 30 seconds of wall-clock time to process the notification and call the
/// specified completion handler block"), and the app stays awake until all are completed.
@Suite struct BackgroundWorkTests {
  let sim = Simulator()

  init() {
    sim.add("mail", modes: [.remoteNotification, .fetch])
  }

  @Test func eachPushHasItsOwnCompletionAndTheAppWaitsForAll() throws {
    let first = try sim.post(.backgroundLaunch(.remoteNotification), to: "mail")
    #expect(first.result == .backgroundWork(id: 1, deadline: .seconds(30)))
    sim.advance(10)
    let second = try sim.post(
      .backgroundLaunch(.remoteNotification, payload: #"{"aps":{"content-available":1},"n":2}"#),
      to: "mail")
    #expect(
      trace(second) == [
        #"application(_:didReceiveRemoteNotification:fetchCompletionHandler:) → background/unattached task 2 {userInfo: {"aps":{"content-available":1},"n":2}}"#
      ])
    #expect(second.result == .backgroundWork(id: 2, deadline: .seconds(40)))
    #expect(sim.app("mail").backgroundWork.map(\.id) == [1, 2])
    try sim.post(.backgroundWorkCompleted(id: 1), to: "mail")
    #expect(sim.app("mail").suspendAt == nil)
    #expect(sim.app("mail").killAt == .seconds(40))
    try sim.post(.backgroundWorkCompleted(), to: "mail")
    #expect(sim.app("mail").suspendAt == .seconds(12))
    #expect(transitions(sim.advance(2)) == ["mail: background → suspended (suspension)"])
  }

  /// The work not completed in time gets the app killed at its own deadline, with its own
  /// code, though later work is still under way.
  @Test func theFirstWorkLateKillsTheAppWithItsCode() throws {
    sim.add("notes", modes: [.remoteNotification])
    try sim.post(.backgroundLaunch(.urlSession, sessionIdentifier: "upload"), to: "notes")
    sim.advance(20)
    try sim.post(.backgroundLaunch(.remoteNotification), to: "notes")
    #expect(sim.advance(9.999).transitions.isEmpty)
    #expect(
      transitions(sim.advance(0.001)) == [
        "notes: background → notRunning (backgroundWorkTimeout) 0x2182bad3"
      ])
    #expect(sim.app("notes").backgroundWork.isEmpty)
  }

  /// A push while a `BGAppRefreshTask` runs: the task keeps its expiration handler, the push
  /// its completion handler; completing the push leaves the task running.
  @Test func aPushWhileATaskRunsLeavesTheTaskItsExpiration() throws {
    try sim.post(.backgroundLaunch(.appRefresh), to: "mail")
    sim.advance(5)
    try sim.post(.backgroundLaunch(.remoteNotification), to: "mail")
    try sim.post(.backgroundWorkCompleted(id: 2), to: "mail")
    #expect(sim.app("mail").backgroundWork.map(\.reason) == [.appRefresh])
    #expect(
      trace(sim.advance(25)) == ["BGTask.expirationHandler → background/unattached task 1"])
  }

  /// A task, a fetch or a URL session's events are not handed over again while the app still
  /// works on them; another session's events are.
  @Test func workOfTheSameKindWaitsForTheFirst() throws {
    try sim.post(.backgroundLaunch(.appRefresh), to: "mail")
    #expect(
      refusal { try sim.post(.backgroundLaunch(.appRefresh), to: "mail") }?.reason
        == .backgroundWorkInProgress(.appRefresh))
    try sim.post(.backgroundLaunch(.urlSession, sessionIdentifier: "upload"), to: "mail")
    try sim.post(.backgroundLaunch(.urlSession, sessionIdentifier: "download"), to: "mail")
    #expect(
      refusal {
        try sim.post(.backgroundLaunch(.urlSession, sessionIdentifier: "upload"), to: "mail")
      }?
      .reason == .backgroundWorkInProgress(.urlSession))
    #expect(sim.app("mail").backgroundWork.map(\.identifier) == [nil, "upload", "download"])
  }

  @Test func completingUnknownWorkIsRefusedAndChangesNothing() throws {
    try sim.post(.backgroundLaunch(.remoteNotification), to: "mail")
    let before = sim.app("mail")
    #expect(
      refusal { try sim.post(.backgroundWorkCompleted(id: 7), to: "mail") }?.reason
        == .unknownBackgroundWork(7))
    #expect(sim.app("mail") == before)
  }

  /// Ids come from the same sequence as background tasks': a task and a push never share one.
  @Test func workAndTasksAreNumberedTogether() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    let push = try sim.post(.backgroundLaunch(.remoteNotification), to: "mail")
    #expect(push.result == .backgroundWork(id: 2, deadline: .seconds(30)))
  }

  /// What an app holds is bounded: past `Validation.maxBackgroundWorkPerApp`, a push is
  /// refused until one is completed.
  @Test func backgroundWorkIsBounded() throws {
    let limit = Validation.maxBackgroundWorkPerApp
    for _ in 0..<limit { try sim.post(.backgroundLaunch(.remoteNotification), to: "mail") }
    let refused = refusal { try sim.post(.backgroundLaunch(.remoteNotification), to: "mail") }
    #expect(refused?.reason == .tooMuchBackgroundWork(limit: limit))
    #expect(refused?.allowedEvents.contains(.backgroundLaunch) == false)
    try sim.post(.backgroundWorkCompleted(), to: "mail")
    try sim.post(.backgroundLaunch(.remoteNotification), to: "mail")
    #expect(sim.app("mail").backgroundWork.count == limit)
  }
}
