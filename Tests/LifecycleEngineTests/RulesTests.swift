import Testing

@testable import LifecycleEngine

/// The transition table: allowedEvents per state, and refusals that name the state and
/// change nothing (the transition table of Device+Rules.swift).
@Suite struct RulesTests {
  let sim = Simulator()

  init() {
    sim.add("mail", modes: [.fetch])
    sim.add("notes")
  }

  @Test func allowedEventsInEveryState() throws {
    #expect(
      sim.app("notes").allowedEvents == [
        .launch, .prewarm, .backgroundLaunch, .updateApp, .reinstall,
      ])
    #expect(
      sim.app("mail").allowedEvents == [
        .launch, .prewarm, .backgroundLaunch, .updateApp, .reinstall,
      ])
    try sim.post(.launch(), to: "mail")
    #expect(
      sim.app("mail").allowedEvents == [
        .closeScene, .home, .openSwitcher, .interruptionBegan, .terminate, .crash, .purge,
        .thermalKill, .beginBackgroundTask, .memoryWarning, .setMemory, .startActivity,
        .setRestorationData, .submitTaskRequest, .cancelTaskRequest, .attachDebugger,
      ])
    try sim.post(.openSwitcher, to: "mail")
    #expect(
      sim.app("mail").allowedEvents == [
        .closeScene, .home, .closeSwitcher, .terminate, .crash, .purge, .thermalKill,
        .beginBackgroundTask, .memoryWarning, .setMemory, .startActivity, .setRestorationData,
        .submitTaskRequest, .cancelTaskRequest, .attachDebugger,
      ])
    try sim.post(.closeSwitcher, to: "mail")
    try sim.post(.interruptionBegan(.siri), to: "mail")
    #expect(sim.app("mail").allowedEvents.contains(.interruptionEnded))
    #expect(!sim.app("mail").allowedEvents.contains(.closeSwitcher))
    try sim.post(.interruptionEnded(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.home, to: "mail")
    #expect(
      sim.app("mail").allowedEvents == [
        .launch, .closeScene, .disconnectScene, .terminate, .crash, .purge, .thermalKill,
        .backgroundLaunch, .beginBackgroundTask, .endBackgroundTask, .memoryWarning, .setMemory,
        .startActivity, .setRestorationData, .submitTaskRequest, .cancelTaskRequest,
        .attachDebugger,
      ])
    try sim.post(.endBackgroundTask(id: 1), to: "mail")
    sim.advance(2)
    #expect(
      sim.app("mail").allowedEvents == [
        .launch, .closeScene, .disconnectScene, .terminate, .crash, .purge, .backgroundLaunch,
        .attachDebugger,
      ])
    try sim.post(.attachDebugger, to: "mail")
    #expect(
      sim.app("mail").allowedEvents == [
        .launch, .closeScene, .disconnectScene, .terminate, .crash, .purge, .backgroundLaunch,
        .detachDebugger,
      ])
  }

  /// The rules and the declarations agree: each event declared for an app is allowed in
  /// some state this script reaches, each declared for a device on some device, and no state
  /// allows an event not declared for its scope. An event the rules leave out (refused in
  /// every state) fails here, whatever the literal lists above say.
  @Test func everyDeclaredEventIsAllowedSomewhereAndNoOtherIs() throws {
    let sim = Simulator(passcode: false)
    sim.add(
      "mail", modes: [.fetch, .audio], multipleScenes: true,
      permittedTasks: ["refresh", "export"])
    var app: Set<EventType> = []
    var device: Set<EventType> = []
    func look() {
      app.formUnion(sim.app("mail").allowedEvents)
      device.formUnion(sim.deviceView.allowedEvents)
    }
    look()  // not running
    try sim.post(.setConditions(ConditionsChange(taskScheduling: .manual)))
    try sim.post(.launch(), to: "mail")
    look()  // active
    try sim.post(.openSwitcher, to: "mail")
    look()
    try sim.post(.closeSwitcher, to: "mail")
    try sim.post(.interruptionBegan(.call), to: "mail")
    look()
    try sim.post(.interruptionEnded(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.startActivity(.audio), to: "mail")
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: "refresh", kind: .appRefresh)), to: "mail")
    try sim.post(
      .submitTaskRequest(TaskRequest(identifier: "export", kind: .continuedProcessing)),
      to: "mail")
    look()  // a task, an activity, a request pending, a continued-processing task running
    try sim.post(.home, to: "mail")
    look()  // in the background
    try sim.post(.launchTask(identifier: "refresh"), to: "mail")
    look()  // a task request running
    try sim.post(.attachDebugger, to: "mail")
    look()  // a debugger attached
    try sim.post(.lock)
    look()
    try sim.post(.shutdown)
    look()  // off
    #expect(app == Set(AppEvent.types))
    #expect(device == Set(DeviceEvent.types))
  }

  @Test func refusedEventNamesTheStateAndTheEventsAllowedAndChangesNothing() throws {
    try sim.post(.launch(), to: "mail")
    let before = (sim.app("mail"), sim.deviceView, sim.journal)
    let refused = refusal { try sim.post(.closeSwitcher, to: "mail") }
    #expect(
      refused
        == Refusal(
          event: .closeSwitcher, app: "mail", currentState: "active",
          allowedEvents: sim.app("mail").allowedEvents, reason: .notAllowedInState))
    #expect(refused?.reason.detail == "the event is not possible in the current state")
    #expect((sim.app("mail"), sim.deviceView, sim.journal) == before)
  }

  @Test(arguments: [
    (AppEvent.home, "notRunning"), (.openSwitcher, "notRunning"), (.closeSwitcher, "notRunning"),
    (.interruptionBegan(.call), "notRunning"), (.interruptionEnded(), "notRunning"),
    (.terminate, "notRunning"), (.crash(), "notRunning"), (.purge(), "notRunning"),
    (.backgroundWorkCompleted(), "notRunning"), (.beginBackgroundTask(), "notRunning"),
    (.endBackgroundTask(id: 1), "notRunning"), (.memoryWarning, "notRunning"),
    (.setMemory(memoryMB: 1), "notRunning"),
  ])
  func eventsImpossibleForAnAppThatIsNotRunning(event: AppEvent, state: String) {
    let refused = refusal { try sim.post(event, to: "notes") }
    #expect(refused?.currentState == state)
    #expect(
      refused?.allowedEvents == [.launch, .prewarm, .backgroundLaunch, .updateApp, .reinstall])
    #expect(sim.journal.isEmpty)
  }

  @Test func launchingTheForegroundAppAgainIsRefused() throws {
    try sim.post(.launch(), to: "mail")
    #expect(refusal { try sim.post(.launch(), to: "mail") }?.reason == .notAllowedInState)
  }

  @Test func backgroundLaunchNeedsTheMatchingMode() throws {
    #expect(
      refusal { try sim.post(.backgroundLaunch(.location), to: "mail") }?.reason
        == .backgroundModeMissing(.location))
    #expect(
      refusal { try sim.post(.backgroundLaunch(.fetch), to: "notes") }?.reason
        == .backgroundModeMissing(.fetch))
    #expect(
      refusal { try sim.post(.backgroundLaunch(.appRefresh), to: "notes") }?.reason
        == .backgroundModeMissing(.fetch))
  }

  /// Background URL sessions need no background mode: any app can be woken for their events.
  @Test func urlSessionEventsWakeAnAppWithNoBackgroundMode() throws {
    #expect(sim.app("notes").allowedEvents.contains(.backgroundLaunch))
    try sim.post(.backgroundLaunch(.urlSession), to: "notes")
    #expect(sim.state("notes") == .background)
  }

  @Test func secondBackgroundLaunchWaitsForTheFirstWork() throws {
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(
      refusal { try sim.post(.backgroundLaunch(.fetch), to: "mail") }?.reason
        == .backgroundWorkInProgress(.fetch))
    try sim.post(.backgroundWorkCompleted(), to: "mail")
    #expect(
      refusal { try sim.post(.backgroundWorkCompleted(), to: "mail") }?.reason == .noBackgroundWork)
  }

  @Test func endingAnUnknownTaskIsRefused() throws {
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    #expect(
      refusal { try sim.post(.endBackgroundTask(id: 7), to: "mail") }?.reason
        == .unknownBackgroundTask(7))
  }

  @Test func deviceEventsFollowTheLockState_decision13() throws {
    #expect(
      sim.deviceView.allowedEvents == [
        .memoryWarning, .lock, .significantTimeChange, .shutdown, .setConditions,
        .setBackgroundAppRefresh, .push, .deliverMetrics,
      ])
    #expect(refusal { try sim.post(DeviceEvent.home) }?.reason == .noForegroundApp)
    let unlock = refusal { try sim.post(DeviceEvent.unlock) }
    #expect(unlock?.reason == .deviceNotLocked)
    #expect(unlock?.currentState == "unlocked")
    #expect(unlock?.app == nil)
    try sim.post(.launch(), to: "mail")
    #expect(
      sim.deviceView.allowedEvents == [
        .home, .memoryWarning, .lock, .significantTimeChange, .shutdown, .setConditions,
        .setBackgroundAppRefresh, .push, .deliverMetrics,
      ])
    try sim.post(DeviceEvent.lock)
    #expect(
      sim.deviceView.allowedEvents == [
        .memoryWarning, .unlock, .significantTimeChange, .shutdown, .setConditions,
        .setBackgroundAppRefresh, .push, .deliverMetrics,
      ])
    #expect(refusal { try sim.post(DeviceEvent.lock) }?.reason == .deviceLocked)
    #expect(refusal { try sim.post(DeviceEvent.home) }?.reason == .deviceLocked)
    #expect(refusal { try sim.post(.launch(), to: "notes") }?.reason == .deviceLocked)
    #expect(refusal { try sim.post(.terminate, to: "mail") }?.reason == .deviceLocked)
    #expect(sim.app("mail").allowedEvents.contains(.backgroundLaunch))
  }

  @Test func invalidParametersAreValidationErrorsNotRefusals() throws {
    try sim.post(.launch(), to: "mail")
    #expect(
      engineError { try sim.post(.setMemory(memoryMB: -1), to: "mail") }
        == .invalid([
          ValidationIssue(field: "memoryMB", message: "must be an integer from 0 to 1048576")
        ]))
    #expect(
      engineError { try sim.post(.launch(via: .url("")), to: "notes") }
        == .invalid([ValidationIssue(field: "url", message: "must be 1 to 2048 bytes long")]))
    let longName = String(repeating: "x", count: 257)
    #expect(
      engineError { try sim.post(.beginBackgroundTask(name: longName), to: "mail") }
        == .invalid([ValidationIssue(field: "name", message: "must be at most 256 bytes long")]))
    #expect(
      engineError { try sim.post(.setRestorationData(""), to: "mail") }
        == .invalid([ValidationIssue(field: "data", message: Validation.restorationDataRule)]))
    #expect(
      engineError { try sim.post(.closeScene(""), to: "mail") } == .invalid([.name("scene")]))
  }
}
