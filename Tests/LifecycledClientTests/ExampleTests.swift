import Foundation
import LifecycledClient
import Testing

/// What an iOS developer's first tests of an app's lifecycle look like with `LifecycledClient`:
/// each test has a device of its own (the server picks its id), its clock stepped by the test.
@Suite(.liveServer) struct ExampleTests {
  let device: SimulatedDevice

  init() async throws {
    device = try await LiveServer.lifecycled.createDevice(labels: ["suite": "examples"])
  }

  /// A cold launch through a universal link: UIKit hands the link to the new scene in its
  /// connection options, after the app's launch callbacks.
  @Test func aColdLaunchThroughAUniversalLink() async throws {
    let shop = try await device.createApp("shop")
    let launch = try await shop.post(.launch(universalLink: "https://shop.example/item/7"))
    #expect(launch.previousState == .notRunning)
    #expect(launch.state == .active)
    #expect(
      launch.callbacks.map(\.method) == [
        .willFinishLaunching, .didFinishLaunching, .configurationForConnecting,
        .sceneWillConnect, .sceneWillEnterForeground, .sceneDidBecomeActive,
      ])
    let connect = try #require(launch.callbacks.first { $0.method == .sceneWillConnect })
    #expect(connect.scene == "main")
    #expect(
      connect.arguments?.connectionOptions?.userActivities?.map(\.webpageURL)
        == ["https://shop.example/item/7"])
  }

  /// Home sends the app to the background, and the system suspends it two seconds later; a
  /// wait on another task sees it happen.
  @Test func homeThenSuspension() async throws {
    let mail = try await device.createApp("mail")
    try await mail.post(.launch())
    let home = try await mail.post(.home)
    #expect(home.state == .background)
    #expect(home.callbacks.map(\.method) == [.sceneWillResignActive, .sceneDidEnterBackground])

    async let suspended = mail.wait(for: .suspended, timeout: .seconds(10))
    let advance = try await device.advanceClock(by: .seconds(10))
    #expect(advance.transitions.map(\.to) == [.suspended])
    #expect(advance.transitions.map(\.cause) == [.suspension])
    #expect(advance.transitions.map(\.time) == [2])
    #expect(advance.transitions.first?.time.sinceStart == .seconds(2))  // a Duration both ways
    #expect(try await device.fetch().now == 10)
    #expect(try await suspended.state == .suspended)
  }

  /// A background fetch whose completion handler is never called: the system kills the app
  /// when its 30 seconds are up, with the code a crash report shows (0x2182bad4).
  @Test func aBackgroundFetchThatTimesOutEndsWithItsCode() async throws {
    let news = try await device.createApp("news", backgroundModes: [.fetch])
    let fetch = try await news.post(.backgroundLaunch(for: .fetch))
    #expect(fetch.state == .background)
    #expect(
      fetch.callbacks.map(\.method) == [.willFinishLaunching, .didFinishLaunching, .performFetch])

    let advance = try await device.advanceClock(by: .seconds(60))
    let kill = try #require(advance.transitions.first)
    #expect(kill.to == .notRunning)
    #expect(kill.cause == .backgroundWorkTimeout)
    #expect(kill.terminationCode == .backgroundFetch)
    #expect(kill.time == 30)
    let termination = try #require(try await news.fetch().lastTermination)
    #expect(termination.terminationCode == .backgroundFetch)
    #expect(termination.state == .background)
    // The picture to attach to the report: the kill marked with its code.
    let timeline = try await device.timeline()
    #expect(timeline.hasPrefix("<svg "))
    #expect(timeline.contains(">backgroundWorkTimeout 0x2182bad4</text>"))
  }

  /// An app whose expiration handler does not end its background task: the system kills it
  /// a second after the handler, at 31 s, with 0x2182bad2. (By default the handler ends it.)
  @Test func aTaskNotEndedAtExpirationKillsTheApp() async throws {
    let upload = try await device.createApp(
      "upload", behavior: .init(endsBackgroundTasksOnExpiration: false))
    try await upload.post([.launch(), .beginBackgroundTask(name: "upload"), .home])
    let advance = try await device.advanceClock(by: .seconds(60))
    let kill = try #require(advance.transitions.last)
    #expect(kill.to == .notRunning)
    #expect(kill.terminationCode == .backgroundTask)
    #expect(kill.time == 31)
  }

  /// What events return, read by what it is: the task `beginBackgroundTask` began (ended by
  /// its identifier), the work a fetch was handed, the scene `openScene` opened.
  @Test func eventResultsAreReadByWhatTheyAre() async throws {
    let mail = try await device.createApp(
      "mail", supportsMultipleScenes: true)
    try await mail.post(.launch())
    let begun = try await mail.post(.beginBackgroundTask(name: "upload"))
    let task = try #require(begun.result?.begunTask)
    #expect(begun.result?.handedOverWork == nil && begun.result?.openedScene == nil)
    #expect(try await mail.fetch().backgroundTasks.map(\.id) == [task.taskId])
    try await mail.post(.endBackgroundTask(id: task.taskId))
    #expect(try await mail.fetch().backgroundTasks.isEmpty)
    let opened = try await mail.post(.openScene(scene: "draft"))
    #expect(opened.result?.openedScene?.scene == "draft")
    let news = try await device.createApp("news", backgroundModes: [.fetch])
    let fetch = try await news.post(.backgroundLaunch(for: .fetch))
    let work = try #require(fetch.result?.handedOverWork)
    #expect(work.deadline == 30)
    try await news.post(.backgroundWorkCompleted(id: work.workId))
    #expect(try await news.fetch().backgroundWork.isEmpty)
  }

  /// What a crash-reporting SDK learns afterwards: the fetch that timed out leaves a crash
  /// report the next launch receives, and is a background task assertion timeout in the
  /// MetricKit payload that ends the period.
  @Test func theNextPayloadCountsTheKill() async throws {
    let news = try await device.createApp("news", backgroundModes: [.fetch])
    try await news.post(.backgroundLaunch(for: .fetch))
    try await device.advanceClock(by: .seconds(60))
    let pending = try await news.fetch().pendingExits
    #expect(pending.backgroundExitData.cumulativeBackgroundTaskAssertionTimeoutExitCount == 1)
    let launch = try await news.post(.launch())
    let report = try #require(launch.callbacks.last)
    #expect(report.method == .didReceiveDiagnosticPayloads)
    let crash = try #require(report.arguments?.diagnosticPayloads?.first?.crashDiagnostics.first)
    #expect(crash.terminationReason == "Namespace RUNNINGBOARD, Code 0x2182bad4")
    let delivery = try await device.post(.deliverMetrics)
    let payload = try #require(delivery.callbacks.first)
    #expect(payload.method == .didReceiveMetricPayloads)
    let exits = try #require(payload.arguments?.payloads?.first?.applicationExitMetrics)
    #expect(exits.backgroundExitData.cumulativeBackgroundTaskAssertionTimeoutExitCount == 1)
    #expect(exits.foregroundExitData.cumulativeNormalAppExitCount == 0)
    #expect(
      try await news.fetch().pendingExits.backgroundExitData
        == .init(
          cumulativeNormalAppExitCount: 0, cumulativeAbnormalExitCount: 0,
          cumulativeAppWatchdogExitCount: 0, cumulativeMemoryResourceLimitExitCount: 0,
          cumulativeMemoryPressureExitCount: 0, cumulativeCPUResourceLimitExitCount: 0,
          cumulativeBadAccessExitCount: 0, cumulativeIllegalInstructionExitCount: 0,
          cumulativeBackgroundTaskAssertionTimeoutExitCount: 0,
          cumulativeSuspendedWithLockedFileExitCount: 0))
  }

  /// Jetsam purges a suspended app; the jetsam log and the event's report show it, and the
  /// next launch hands the scene the state it saved when it entered the background.
  @Test func jetsamThenRestoration() async throws {
    let notes = try await device.createApp("notes")
    try await notes.post([
      .launch(), try .setRestorationData(to: SavedState(tab: 2), scene: "main"), .home,
    ])
    try await device.advanceClock(by: .seconds(5))
    let purge = try await notes.post(.purge(reason: .highwater))
    #expect(purge.state == .notRunning)
    #expect(purge.callbacks.isEmpty)  // a suspended app hears nothing of its end
    let kills = try await device.jetsamLog().kills
    #expect(kills.map(\.app) == ["notes"])
    #expect(kills.map(\.reason) == [.highwater])
    #expect(kills.map(\.state) == [.suspended])
    // The event's report, in the shape of Apple's jetsam event reports.
    let report = try await device.jetsamReport(try #require(kills.first).jetsamEvent)
    #expect(report.memoryStatus.pageSize == 16_384)
    #expect(report.largestProcess == "notes")
    #expect(report.processes.map(\.name) == ["notes"])
    #expect(report.processes.first?.reason == .highwater)
    #expect(report.processes.first?.states == [.suspended])

    let relaunch = try await notes.post(.launch())
    let connect = try #require(relaunch.callbacks.first { $0.method == .sceneWillConnect })
    let restored = try #require(connect.arguments?.session?.stateRestorationActivity)
    #expect(try restored.decoded(as: SavedState.self)?.tab == 2)
  }

  /// What the app saves to restore its user interface.
  struct SavedState: Codable {
    var tab: Int
  }

  /// The journal as it happens, each entry typed as it was recorded: from the launch's last
  /// entry on (`lastSeq`), so that nothing is missed while the stream connects.
  @Test func theJournalStreamsWhatHappensNext() async throws {
    let maps = try await device.createApp("maps")
    let launch = try await maps.post(.launch())
    let stream = try await device.journalStream(
      since: .after(seq: launch.lastSeq), kind: .transition)
    async let transitions: [Components.Schemas.Transition] = {
      var seen: [Components.Schemas.Transition] = []
      for try await event in stream {
        guard case .entry(.transition(let entry)) = event else { continue }
        seen.append(entry.transition)
        if entry.transition.to == .suspended { break }
      }
      return seen
    }()
    try await maps.post(.home)
    try await device.advanceClock(by: .seconds(5))
    #expect(try await transitions.map(\.to) == [.inactive, .background, .suspended])
  }

  /// A device saved and put back under another id goes on as the original; device events,
  /// stepping deadline by deadline, the journal by kind; and a worker's cleanup by label.
  @Test func aDeviceSavedAndRestoredGoesOnAsTheOriginal() async throws {
    let lifecycled = try LiveServer.lifecycled
    let mail = try await device.createApp("mail")
    try await mail.post([.launch(), .home])
    let copy = lifecycled.device("copy-\(device.id)")
    #expect(try await copy.restore(try await device.snapshot()).now == 0)
    for each in [device, copy] {
      let step = try await each.advanceToNextDeadline()
      #expect(step.transitions.map(\.to) == [.suspended])
      #expect(step.now == 2)
      try await each.post(.lock)
      // The journal's events: app events and, where `app` is null, device events.
      let appEvents = try await each.journal(kind: .event).entries.compactMap { entry in
        if case .event(let event) = entry { event.event.value1 } else { nil }
      }
      #expect(appEvents.count == (each.id == device.id ? 2 : 0))  // a restored journal starts anew
    }
    let worker = "w-\(device.id)"
    let leaked = try await lifecycled.createDevice(labels: ["worker": worker])
    #expect(try await lifecycled.removeDevices(labeled: "worker", value: worker) == [leaked.id])
    try await copy.remove()
    await #expect(throws: LifecycledProblem.self) { try await leaked.fetch() }
  }

  /// A refresh task as the app requests it: `BGTaskScheduler` keeps one refresh request
  /// pending, and the harness runs it as the debugger's `_simulateLaunchForTaskWithIdentifier:`
  /// does.
  @Test func aRequestedRefreshTaskRunsWhenLaunched() async throws {
    let news = try await device.createApp(
      .init(
        name: "news", backgroundModes: [.fetch],
        permittedTaskIdentifiers: ["com.example.news.refresh", "com.example.news.feed"]))
    try await news.post(.launch())
    try await news.post(
      .submitTaskRequest(
        identifier: "com.example.news.refresh", kind: .appRefresh, earliestBeginDate: 900))
    let second = await #expect(throws: LifecycledProblem.self) {
      try await news.post(
        .submitTaskRequest(identifier: "com.example.news.feed", kind: .appRefresh))
    }
    #expect(second?.kind == .tooManyPendingTaskRequests)
    #expect(try await news.fetch().taskRequests.map(\.identifier) == ["com.example.news.refresh"])

    try await news.post(.home)
    let run = try await news.post(.launchTask(identifier: "com.example.news.refresh"))
    #expect(run.callbacks.map(\.method) == [.taskLaunchHandler])
    #expect(run.callbacks.last?.arguments?.identifier == "com.example.news.refresh")
    #expect(try await news.fetch().taskRequests.isEmpty)
  }

  /// A continued-processing task (iOS 26) a person starts: it runs at once in the active app
  /// and on in the background with the progress it reports; with no room left, a `fail`
  /// request is refused with `BGTaskScheduler.Error.Code.immediateRunIneligible`.
  @Test func aContinuedProcessingTaskRunsOnInTheBackgroundWithItsProgress() async throws {
    try await device.post(.setConditions(continuedProcessingCapacity: 1))
    let editor = try await device.createApp(
      "editor", permittedTaskIdentifiers: ["com.example.editor.export"])
    try await editor.post(.launch())
    let started = try await editor.post(
      .submitTaskRequest(identifier: "com.example.editor.export", kind: .continuedProcessing))
    #expect(started.callbacks.map(\.method) == [.taskLaunchHandler])
    let handedOver = try #require(started.result?.handedOverWork)
    #expect(handedOver.workId == 1 && handedOver.deadline == nil)
    try await editor.post(
      .reportProgress(identifier: "com.example.editor.export", completed: 40, of: 100))
    try await editor.post(.home)
    let photos = try await device.createApp(
      "photos", permittedTaskIdentifiers: ["com.example.photos.thumbnails"])
    try await photos.post(.launch())
    let refused = await #expect(throws: LifecycledProblem.self) {
      try await photos.post(
        .submitTaskRequest(
          identifier: "com.example.photos.thumbnails", kind: .continuedProcessing,
          strategy: .fail))
    }
    #expect(refused?.kind == .immediateRunIneligible)
    let work = try #require(try await editor.fetch().backgroundWork.first)
    #expect(work.reason == .continuedProcessing && work.deadline == nil)
    #expect(work.progress == .init(completedUnitCount: 40, totalUnitCount: 100))
  }

  /// "Why hasn't my task run?": the app view says what holds each request back, and the
  /// `eager` policy runs it the instant nothing does.
  @Test func aHeldBackTaskSaysWhyAndRunsWhenNothingHoldsIt() async throws {
    let sync = try await device.createApp(
      "sync", backgroundModes: [.processing], permittedTaskIdentifiers: ["cleanup"])
    try await sync.post(.launch())
    try await sync.post(
      .submitTaskRequest(identifier: "cleanup", kind: .processing, requiresExternalPower: true))
    try await sync.post(.home)
    let held = try #require(try await sync.fetch().taskRequests.first)
    #expect(!held.eligible)
    #expect(held.heldBy.map(\.reason) == [.notCharging, .deviceInUse])
    try await device.post(.setConditions(charging: true))
    let lock = try await device.post(.lock)
    #expect(lock.callbacks.last?.method == .taskLaunchHandler)
    #expect(try await sync.fetch().taskRequests.isEmpty)
  }

  /// A cancelled call (a wait, here) throws `CancellationError`, as Swift's own do.
  @Test func aCancelledWaitThrowsCancellationError() async throws {
    let mail = try await device.createApp("mail")
    try await mail.post(.launch())
    let wait = Task { try await mail.wait(for: .suspended, timeout: .seconds(60)) }
    wait.cancel()  // before its request or during it: either way
    await #expect(throws: CancellationError.self) { try await wait.value }
  }

  /// A refused event throws the server's problem: the state, and what it allows instead.
  @Test func aRefusedEventThrowsItsProblem() async throws {
    let mail = try await device.createApp("mail")
    let problem = await #expect(throws: LifecycledProblem.self) { try await mail.post(.home) }
    #expect(problem?.status == 409)
    #expect(problem?.kind == .eventRefused)
    #expect(problem?.type == "urn:lifecycled:problem:event-refused")
    #expect(problem?.event == .home)
    #expect(problem?.currentState == .app(.notRunning))
    #expect(
      problem?.allowedEvents == [.launch, .prewarm, .backgroundLaunch, .updateApp, .reinstall])
  }

  /// A scenario stops at its first refused event: the problem says which, and what the events
  /// before it did (they stay applied).
  @Test func aRefusedScenarioSaysWhereItStopped() async throws {
    let mail = try await device.createApp("mail")
    let problem = await #expect(throws: LifecycledProblem.self) {
      try await mail.post([.launch(), .home, .launch(), .crash(), .home])
    }
    #expect(problem?.failedIndex == 4)
    #expect(
      problem?.appliedResults.map(\.state.value1) == [.active, .background, .active, .notRunning])
    #expect(problem?.currentState == .app(.notRunning))
    let locked = await #expect(throws: LifecycledProblem.self) {
      try await device.post(.unlock)
    }
    #expect(locked?.currentState == .device(.unlocked))
  }
}
