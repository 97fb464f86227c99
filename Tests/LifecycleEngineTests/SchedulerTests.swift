import Testing

@testable import LifecycleEngine

/// On the virtual clock: suspension, watchdog, background tasks, background work.
@Suite struct SchedulerTests {
  let sim = Simulator()

  @Test func idleBackgroundAppIsSuspendedAfterTheDelay() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(sim.app("mail").suspendAt == .seconds(2))
    #expect(sim.advance(1.999).transitions.isEmpty)
    let outcome = sim.advance(0.001)
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: background → suspended (suspension)"])
    #expect(outcome.transitions.map(\.time) == [.seconds(2)])
    #expect(sim.app("mail").sceneState == .suspended)
    #expect(sim.app("mail").suspendAt == nil)
  }

  @Test func suspensionCountsFromTheReturnOfDidEnterBackground() throws {
    sim.add("mail", behavior: AppBehavior(didEnterBackgroundDuration: .milliseconds(1500)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(sim.app("mail").busyUntil == .seconds(1.5))
    #expect(sim.app("mail").suspendAt == .seconds(3.5))
  }

  @Test func busyAppAcceptsALaunchAndItsCallbacksWaitForDidEnterBackground() throws {
    sim.add("mail", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(3)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(1)
    #expect(sim.app("mail").allowedEvents.contains(.launch))
    let launch = try sim.post(.launch(), to: "mail")
    #expect(launch.callbacks.isEmpty)
    #expect(
      trace(launch.waitingCallbacks) == [
        "sceneWillEnterForeground(_:)@main → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]",
        "sceneDidBecomeActive(_:)@main → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]",
      ])
    #expect(
      transitions(launch) == [
        "mail: background → inactive (launch)", "mail: inactive → active (launch)",
      ])
    #expect(sim.app("mail").busyUntil == .seconds(3))
    #expect(sim.advance(1.999).callbacks.isEmpty)
    let returned = sim.advance(0.001)
    #expect(returned.callbacks.map(\.method) == [.sceneWillEnterForeground, .sceneDidBecomeActive])
    #expect(returned.callbacks.map(\.time) == [.seconds(3), .seconds(3)])
    #expect(returned.transitions.isEmpty)
    #expect(sim.deviceView.nextDeadline == nil)
  }

  @Test func didEnterBackgroundOverrunningTheWatchdogKillsTheApp() throws {
    sim.add("mail", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(6)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(sim.app("mail").killAt == .seconds(5))
    #expect(sim.app("mail").suspendAt == nil)
    #expect(sim.advance(4.999).transitions.isEmpty)
    let outcome = sim.advance(0.001)
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: background → notRunning (watchdog) 0x8badf00d"])
    #expect(sim.app("mail").kills == 1)
    #expect(sim.app("mail").killAt == nil)
  }

  @Test func didEnterBackgroundExactlyAtTheWatchdogIsTolerated() throws {
    sim.add("mail", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(5)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(7)
    #expect(sim.state("mail") == .suspended)
  }

  @Test func busyAppForceQuitDiesWithoutCallbacks() throws {
    sim.add("mail", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(6)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    let outcome = try sim.post(.terminate, to: "mail")
    #expect(outcome.callbacks.isEmpty)
    #expect(transitions(outcome) == ["mail: background → notRunning (terminate)"])
    // Nothing is left but the end of MetricKit's day, whose payload waits for mail's next
    // process.
    #expect(sim.deviceView.nextDeadline == .seconds(86_400))
  }

  @Test func backgroundTaskBegunInForegroundExpiresThirtySecondsAfterEnteringBackground()
    throws
  {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    let begin = try sim.post(.beginBackgroundTask(name: "upload"), to: "mail")
    #expect(begin.result == .backgroundTask(id: 1, expiresAt: nil))
    sim.advance(10)
    try sim.post(.home, to: "mail")
    #expect(sim.app("mail").suspendAt == nil)
    #expect(
      sim.app("mail").backgroundTasks == [
        BackgroundTaskSnapshot(id: 1, name: "upload", expiresAt: .seconds(40), expired: false)
      ])
    let expiry = sim.advance(30)
    #expect(trace(expiry) == ["expirationHandler → background/background task 1"])
    #expect(expiry.callbacks.map(\.time) == [.seconds(40)])
    #expect(sim.app("mail").backgroundTasks.isEmpty)
    #expect(sim.app("mail").suspendAt == .seconds(42))
    #expect(transitions(sim.advance(2)) == ["mail: background → suspended (suspension)"])
  }

  @Test func taskBegunInBackgroundSharesTheAppsBackgroundTime() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(1)
    let begin = try sim.post(.beginBackgroundTask(), to: "mail")
    #expect(begin.result == .backgroundTask(id: 1, expiresAt: .seconds(30)))
    #expect(sim.app("mail").suspendAt == nil)
  }

  @Test func unendedTaskGetsTheAppKilledAfterTheGrace() throws {
    sim.add("mail", behavior: AppBehavior(endsBackgroundTasksOnExpiration: false))
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    let expiry = sim.advance(30)
    #expect(
      trace(expiry) == [
        "expirationHandler → background/background task 1",
        "expirationHandler → background/background task 2",
      ])
    #expect(sim.app("mail").killAt == .seconds(31))
    #expect(sim.app("mail").backgroundTasks.map(\.expired) == [true, true])
    let kill = sim.advance(1)
    #expect(
      transitions(kill) == ["mail: background → notRunning (backgroundTaskExpiration) 0x2182bad2"])
  }

  @Test func endingTheExpiredTasksDuringTheGraceSavesTheApp() throws {
    sim.add("mail", behavior: AppBehavior(endsBackgroundTasksOnExpiration: false))
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(30.5)
    try sim.post(.endBackgroundTask(id: 1), to: "mail")
    #expect(sim.app("mail").killAt == nil)
    #expect(sim.app("mail").suspendAt == .seconds(32.5))
  }

  @Test func endingTheLastTaskSchedulesSuspension() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(5)
    try sim.post(.endBackgroundTask(id: 1), to: "mail")
    #expect(sim.app("mail").suspendAt == nil)
    try sim.post(.endBackgroundTask(id: 2), to: "mail")
    #expect(sim.app("mail").suspendAt == .seconds(7))
  }

  @Test func backgroundTimeRunsOutForNewTasks() throws {
    sim.add("radio", modes: [.audio])
    try sim.post(.launch(), to: "radio")
    try sim.post(.startActivity(.audio), to: "radio")
    try sim.post(.home, to: "radio")
    sim.advance(60)
    #expect(sim.state("radio") == .background)
    #expect(!sim.app("radio").allowedEvents.contains(.beginBackgroundTask))
    #expect(
      refusal { try sim.post(.beginBackgroundTask(), to: "radio") }?.reason
        == .backgroundTimeExhausted)
  }

  @Test func backgroundWorkCompletedInTimeLetsTheAppSuspend() throws {
    sim.add("mail", modes: [.fetch])
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(sim.app("mail").killAt == .seconds(30))
    #expect(
      sim.app("mail").backgroundWork
        == [BackgroundWorkSnapshot(id: 1, reason: .fetch, deadline: .seconds(30))])
    sim.advance(5)
    try sim.post(.backgroundWorkCompleted(), to: "mail")
    #expect(sim.app("mail").killAt == nil)
    #expect(sim.app("mail").suspendAt == .seconds(7))
  }

  /// Apple's "EXC_CRASH (SIGKILL)": `0x2182bad4`, "a background fetch failing to complete in
  /// time"; a silent push holds the same fetch completion handler.
  @Test(arguments: [
    (BackgroundLaunchReason.fetch, BackgroundMode.fetch, "0x2182bad4"),
    (.remoteNotification, .remoteNotification, "0x2182bad4"),
  ])
  func backgroundWorkNotCompletedGetsTheAppKilled(
    reason: BackgroundLaunchReason, mode: BackgroundMode, code: String
  ) throws {
    sim.add("mail", modes: [mode])
    try sim.post(.backgroundLaunch(reason), to: "mail")
    #expect(sim.advance(29.999).transitions.isEmpty)
    let outcome = sim.advance(0.001)
    #expect(
      transitions(outcome) == ["mail: background → notRunning (backgroundWorkTimeout) \(code)"])
  }

  /// "a background URL session failing to complete in time": `0x2182bad3`.
  @Test func urlSessionEventsNotCompletedGetTheAppKilled() throws {
    sim.add("mail")
    let launch = try sim.post(.backgroundLaunch(.urlSession), to: "mail")
    #expect(
      launch.callbacks.last?.method == .handleEventsForBackgroundURLSession)
    #expect(
      transitions(sim.advance(30)) == [
        "mail: background → notRunning (backgroundWorkTimeout) 0x2182bad3"
      ])
  }

  /// A location update has no completion handler, so no work and no deadline to kill by.
  /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` receives the
  /// session's identifier, which the app recreates the session with.
  @Test func aURLSessionLaunchHandsOverTheSessionsIdentifier() throws {
    sim.add("mail")
    let launch = try sim.post(
      .backgroundLaunch(.urlSession, sessionIdentifier: "com.example.mail.upload"), to: "mail")
    #expect(
      trace(launch).last
        == "application(_:handleEventsForBackgroundURLSession:completionHandler:) → background/unattached task 1 {session: com.example.mail.upload}"
    )
  }

  /// A push or a session identifier belongs to its own reason; a payload is at most 4 KB.
  @Test func aLaunchsDetailsMustFitItsReason() throws {
    sim.add("mail", modes: [.fetch, .remoteNotification])
    for (event, field) in [
      (AppEvent.backgroundLaunch(.fetch, payload: "{}"), "payload"),
      (.backgroundLaunch(.remoteNotification, sessionIdentifier: "s"), "identifier"),
      (.backgroundLaunch(.urlSession, sessionIdentifier: ""), "identifier"),
      (
        .backgroundLaunch(
          .remoteNotification,
          payload: #"{"a":""# + String(repeating: "x", count: Validation.maxPushPayloadBytes)
            + #""}"#),
        "payload"
      ),
    ] {
      do {
        try sim.post(event, to: "mail")
      } catch .invalid(let issues) {
        #expect(issues.map(\.field) == [field], "\(event)")
      } catch {
        Issue.record("\(event): \(error)")
      }
    }
    #expect(sim.state("mail") == .notRunning)
  }

  @Test func aLocationLaunchHasNoWorkToComplete() throws {
    sim.add("maps", modes: [.location])
    let launch = try sim.post(.backgroundLaunch(.location), to: "maps")
    #expect(launch.callbacks.last?.method == .didUpdateLocations)
    #expect(sim.app("maps").backgroundWork.isEmpty)
    #expect(sim.app("maps").killAt == nil)
    #expect(!sim.app("maps").allowedEvents.contains(.backgroundWorkCompleted))
  }

  /// `BGTask`: the expiration handler runs when the task's time is up (30 s for app refresh,
  /// `processingTaskSeconds` for processing); an app that completes the task there lives on.
  @Test(arguments: [
    (BackgroundLaunchReason.appRefresh, BackgroundMode.fetch, 30.0),
    (.processing, .processing, 300.0),
  ])
  func aBGTaskExpiresWithItsHandler(
    reason: BackgroundLaunchReason, mode: BackgroundMode, seconds: Double
  ) throws {
    let sim = Simulator(passcode: false)  // locked, with no protected-data callbacks
    sim.add("mail", modes: [mode])
    try sim.post(.lock)  // processing tasks wait for an idle device
    let launch = try sim.post(.backgroundLaunch(reason), to: "mail")
    #expect(launch.callbacks.last?.method == .taskLaunchHandler)
    #expect(sim.app("mail").backgroundWork.first?.deadline == .seconds(seconds))
    #expect(sim.app("mail").killAt == nil)
    #expect(sim.advance(seconds - 0.001).callbacks.isEmpty)
    let expiry = sim.advance(0.001)
    #expect(trace(expiry) == ["BGTask.expirationHandler → background/unattached task 1"])
    #expect(sim.app("mail").backgroundWork.isEmpty)
    #expect(sim.app("mail").suspendAt == .seconds(seconds + 2))
  }

  /// `BGProcessingTask`: "Processing tasks run only when the device is idle": a processing
  /// launch is refused while the device is unlocked, and taken once it is locked.
  @Test func aProcessingTaskRunsOnlyWhileTheDeviceIsIdle() throws {
    sim.add("mail", modes: [.processing])
    let refused = refusal { try sim.post(.backgroundLaunch(.processing), to: "mail") }
    #expect(refused?.reason == .deviceInUse)
    try sim.post(.lock)
    try sim.post(.backgroundLaunch(.processing), to: "mail")
    #expect(sim.app("mail").backgroundWork.first?.reason == .processing)
  }

  /// `BGProcessingTask`: "The system terminates any background processing tasks running when
  /// the user starts using the device": unlocking runs the expiration handler at once; an app
  /// that completes the task there is suspended as any idle app, one that does not is killed
  /// `expirationGrace` later (0x2182bad2). Other work goes on.
  @Test(arguments: [true, false])
  func unlockingExpiresARunningProcessingTask(completesOnExpiration: Bool) throws {
    let sim = Simulator(passcode: false)  // locked, with no protected-data callbacks
    sim.add(
      "mail", modes: [.processing],
      behavior: AppBehavior(endsBackgroundTasksOnExpiration: completesOnExpiration))
    sim.add("news", modes: [.fetch])
    try sim.post(.lock)
    try sim.post(.backgroundLaunch(.processing), to: "mail")
    try sim.post(.backgroundLaunch(.fetch), to: "news")
    sim.advance(10)
    let unlock = try sim.post(.unlock)
    #expect(trace(unlock) == ["BGTask.expirationHandler → background/unattached task 1"])
    #expect(sim.app("news").backgroundWork.first?.reason == .fetch)
    if completesOnExpiration {
      #expect(sim.app("mail").backgroundWork.isEmpty)
      #expect(transitions(sim.advance(2)) == ["mail: background → suspended (suspension)"])
    } else {
      #expect(sim.app("mail").killAt == .seconds(11))
      #expect(
        transitions(sim.advance(1)) == [
          "mail: background → notRunning (backgroundWorkTimeout) 0x2182bad2"
        ])
    }
  }

  /// A `BGTask` not completed in its expiration handler gets the app killed `expirationGrace`
  /// later: "a background task failing to complete in time", `0x2182bad2`.
  @Test func aBGTaskNotCompletedOnExpirationGetsTheAppKilled() throws {
    sim.add(
      "mail", modes: [.fetch], behavior: AppBehavior(endsBackgroundTasksOnExpiration: false))
    try sim.post(.backgroundLaunch(.appRefresh), to: "mail")
    sim.advance(30)
    #expect(sim.app("mail").killAt == .seconds(31))
    #expect(
      transitions(sim.advance(1)) == [
        "mail: background → notRunning (backgroundWorkTimeout) 0x2182bad2"
      ])
  }

  /// Apple's "About the background execution sequence": "The system
  /// resumes the app. UIKit calls the app delegate's applicationDidEnterBackground(_:) method.
  /// UIKit delivers the event that caused the launch."
  @Test func wakingASuspendedAppDeliversDidEnterBackgroundThenTheWork() throws {
    sim.add("mail", .appDelegate, modes: [.fetch])
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    let wake = try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      trace(wake) == [
        "applicationDidEnterBackground(_:) → background [UIApplication.didEnterBackgroundNotification]",
        "application(_:performFetchWithCompletionHandler:) → background task 1",
      ])
    #expect(transitions(wake) == ["mail: suspended → background (backgroundLaunch)"])
    try sim.post(.backgroundWorkCompleted(), to: "mail")
    #expect(transitions(sim.advance(2)) == ["mail: background → suspended (suspension)"])
  }

  /// A scene app's scene stays in the background while the app is suspended: waking it
  /// delivers the event alone.
  @Test func wakingASuspendedSceneAppDeliversOnlyTheWork() throws {
    sim.add("mail", modes: [.fetch])
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    let wake = try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      trace(wake) == [
        "application(_:performFetchWithCompletionHandler:) → background/background task 1"
      ])
  }

  @Test func thousandAppsDueAtTheSameInstantFireInNameOrder() throws {
    let names = (0..<1000).map { "app\(String(1000 + $0 * 7919 % 1000).dropFirst())" }
    let first = Simulator(configuration: Self.manyApps)
    let second = Simulator(configuration: Self.manyApps)
    for sim in [first, second] {
      for name in names {
        sim.add(name, memoryMB: 1)
        try sim.post(.launch(), to: name)
      }
      try sim.post(.home)
    }
    let outcome = first.advance(2)
    #expect(outcome.transitions.count == 1000)
    #expect(outcome.transitions.map { String($0.app) } == names.sorted())
    #expect(outcome.transitions.allSatisfy { $0.time == .seconds(2) && $0.to == .suspended })
    #expect(second.advance(2) == outcome)
  }

  @Test func oneDayAdvanceEqualsStepping86400Seconds() throws {
    let leap = Self.busyDay()
    let steps = Self.busyDay()
    leap.advance(86_400)
    for _ in 0..<86_400 { steps.advance(1) }
    #expect(leap.journal == steps.journal)
    #expect(leap.now == 86_400)
    #expect(steps.now == 86_400)
    #expect(leap.journal.count > 20)
  }

  static let manyApps: EngineConfiguration = {
    var configuration = EngineConfiguration()
    configuration.limits.maxAppsPerDevice = 1000
    configuration.limits.journalCapacity = 100_000
    return configuration
  }()

  /// A device whose apps have deadlines of every kind spread over a day.
  static func busyDay() -> Simulator {
    let sim = Simulator()
    sim.add("slow", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(9)))
    sim.add("leaky", behavior: AppBehavior(endsBackgroundTasksOnExpiration: false))
    sim.add("tidy", .appDelegate)
    sim.add("fetcher", modes: [.fetch])
    for name in ["slow", "leaky", "tidy"] { try! sim.post(.launch(), to: name) }
    try! sim.post(.beginBackgroundTask(), to: "leaky")
    try! sim.post(.beginBackgroundTask(), to: "tidy")
    try! sim.post(.home)
    try! sim.post(.backgroundLaunch(.fetch), to: "fetcher")
    return sim
  }
}
