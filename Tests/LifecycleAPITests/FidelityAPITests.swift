import JSONCore
import Testing

/// The fidelity corrections as a client sees them over the API (engine tests: `FidelityTests`).
@Suite struct FidelityAPITests {
  let api = APITests()

  /// The app's background work under way, as its view lists it.
  private func backgroundWork(of app: String) -> [JSON] {
    guard case .array(let work)? = api.call("GET", "/v1/apps/\(app)").json?["backgroundWork"]
    else { return [] }
    return work
  }

  private func methods(_ json: JSON?, _ key: String) -> [String] {
    guard case .array(let callbacks)? = json?[key] else { return [] }
    return callbacks.compactMap {
      guard case .string(let method)? = $0["method"] else { return nil }
      return method
    }
  }

  /// `BGProcessingTask`: processing tasks run only while the device is idle, and end when
  /// the user starts using it.
  @Test func aProcessingTaskWaitsForAnIdleDeviceAndEndsWhenItIsUnlocked() {
    api.post("/v1/apps", #"{"name":"sync","backgroundModes":["processing"]}"#)
    let processing = #"{"type":"backgroundLaunch","reason":"processing"}"#
    let refused = api.call("POST", "/v1/apps/sync/events", processing)
    #expect(refused.status == 409)
    #expect(
      refused.json?["detail"]
        == .string(
          "backgroundLaunch refused: processing tasks run only while the device is idle: it is "
            + "unlocked (lock it first) (state notRunning)"))
    api.post("/v1/devices/default/events", #"{"type":"lock"}"#)
    #expect(
      methods(api.post("/v1/apps/sync/events", processing), "callbacks").last
        == "BGTaskScheduler.launchHandler(_:)")
    let unlock = api.post("/v1/devices/default/events", #"{"type":"unlock"}"#)
    #expect(methods(unlock, "callbacks").contains("BGTask.expirationHandler"))
    #expect(backgroundWork(of: "sync").isEmpty)
  }

  /// Each push is its own work with its own completion: the result names it, its callback
  /// carries it, and `backgroundWorkCompleted` takes it.
  @Test func overlappingPushesAreEachCompletedByTheirId() {
    api.post("/v1/apps", #"{"name":"mail","backgroundModes":["remote-notification"]}"#)
    let push = #"{"type":"backgroundLaunch","reason":"remoteNotification"}"#
    #expect(
      api.post("/v1/apps/mail/events", push)?["result"]
        == .object([("workId", .integer(1)), ("deadline", .double(30))]))
    let second = api.post("/v1/apps/mail/events", push)
    #expect(second?["result"] == .object([("workId", .integer(2)), ("deadline", .double(30))]))
    guard case .array(let callbacks)? = second?["callbacks"] else {
      Issue.record("no callbacks")
      return
    }
    #expect(callbacks.last?["taskId"] == .integer(2))
    #expect(backgroundWork(of: "mail").map { $0["id"] } == [.integer(1), .integer(2)])
    let unknown = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"backgroundWorkCompleted","id":3}"#)
    #expect(unknown.status == 409)
    #expect(
      unknown.json?["detail"]
        == .string(
          "backgroundWorkCompleted refused: the app has no background work 3 (state background)"))
    api.post("/v1/apps/mail/events", #"{"type":"backgroundWorkCompleted","id":2}"#)
    #expect(backgroundWork(of: "mail").map { $0["id"] } == [.integer(1)])
  }

  /// `BGTaskScheduler`: requests as the app submits them, refusals typed by
  /// `BGTaskScheduler.Error.Code`, and the debugger's launch of a pending request.
  @Test func taskRequestsAreListedRefusedByTheirCodeAndLaunched() {
    api.post(
      "/v1/apps",
      #"{"name":"mail","backgroundModes":["fetch"],"permittedTaskIdentifiers":["refresh"]}"#)
    api.post("/v1/apps/mail/events", #"{"type":"launch"}"#)
    api.post(
      "/v1/apps/mail/events",
      #"{"type":"submitTaskRequest","identifier":"refresh","kind":"appRefresh","earliestBeginDate":600}"#
    )
    #expect(
      api.call("GET", "/v1/apps/mail").json?["taskRequests"]
        == json(
          #"[{"identifier":"refresh","kind":"appRefresh","earliestBeginDate":600.0,"requiresNetworkConnectivity":false,"requiresExternalPower":false,"eligible":false,"heldBy":[{"reason":"earliestBeginDate","detail":"earliestBeginDate is 600 s away"},{"reason":"appInForeground","detail":"the app is in the foreground: its tasks run in the background"}]}]"#
        ))
    let refused = api.call(
      "POST", "/v1/apps/mail/events",
      #"{"type":"submitTaskRequest","identifier":"feed","kind":"appRefresh"}"#)
    #expect(refused.status == 409)
    #expect(
      refused.body
        == #"{"type":"urn:lifecycled:problem:bgtaskscheduler-not-permitted","#
        + #""title":"BGTaskScheduler refused the request: notPermitted","status":409,"#
        + #""detail":"submitTaskRequest refused: 'feed' is not among the app's "#
        + #"permittedTaskIdentifiers (BGTaskSchedulerPermittedIdentifiers) (state active)","#
        + #""event":"submitTaskRequest","currentState":"active","allowedEvents":["closeScene","#
        + #""home","openSwitcher","interruptionBegan","terminate","crash","purge","thermalKill","#
        + #""beginBackgroundTask","memoryWarning","setMemory","startActivity","#
        + #""setRestorationData","submitTaskRequest","cancelTaskRequest","launchTask","#
        + #""attachDebugger"]}"#)
    api.post("/v1/apps/mail/events", #"{"type":"home"}"#)
    let launched = api.post(
      "/v1/apps/mail/events", #"{"type":"launchTask","identifier":"refresh"}"#)
    guard case .array(let callbacks)? = launched?["callbacks"] else {
      Issue.record("no callbacks")
      return
    }
    #expect(callbacks.last?["method"] == .string("BGTaskScheduler.launchHandler(_:)"))
    #expect(callbacks.last?["arguments"] == json(#"{"identifier":"refresh"}"#))
    #expect(
      launched?["result"]?["bypassed"]
        == json(#"[{"reason":"earliestBeginDate","detail":"earliestBeginDate is 600 s away"}]"#))
    #expect(api.call("GET", "/v1/apps/mail").json?["taskRequests"] == .array([]))
  }

  /// The conditions a harness sets, the "why hasn't it run?" that follows, and a push's fate,
  /// over HTTP.
  @Test func conditionsHoldARequestBackAndAPushSaysWhatBecameOfIt() {
    api.post(
      "/v1/apps",
      #"{"name":"mail","backgroundModes":["processing","remote-notification"],"permittedTaskIdentifiers":["cleanup"]}"#
    )
    api.post("/v1/apps/mail/events", #"{"type":"launch"}"#)
    api.post(
      "/v1/apps/mail/events",
      #"{"type":"submitTaskRequest","identifier":"cleanup","kind":"processing","requiresExternalPower":true}"#
    )
    api.post("/v1/apps/mail/events", #"{"type":"home"}"#)
    let conditions = api.post(
      "/v1/devices/default/events", #"{"type":"setConditions","batteryLevel":15,"network":"none"}"#)
    #expect(
      conditions?["event"] == json(#"{"type":"setConditions","batteryLevel":15,"network":"none"}"#))
    #expect(
      api.call("GET", "/v1/devices/default").json?["conditions"]
        == json(
          #"{"batteryLevel":15,"charging":false,"lowPowerMode":false,"network":"none","backgroundAppRefresh":true,"taskScheduling":"eager","continuedProcessingCapacity":2}"#
        ))
    guard case .array(let requests)? = api.call("GET", "/v1/apps/mail").json?["taskRequests"] else {
      Issue.record("no task requests")
      return
    }
    #expect(
      requests.first?["heldBy"]
        == json(
          #"[{"reason":"batteryCritical","detail":"the battery is at 15%, not charging: the system runs only essential work"},{"reason":"notCharging","detail":"requires external power: the device is not charging"},{"reason":"deviceInUse","detail":"processing tasks wait until the device is idle (locked)"}]"#
        ))
    let plugged = api.post(
      "/v1/devices/default/events", #"{"type":"setConditions","charging":true}"#)
    #expect(methods(plugged, "callbacks").isEmpty)  // still in use
    let lock = api.post("/v1/devices/default/events", #"{"type":"lock"}"#)
    #expect(methods(lock, "callbacks").last == "BGTaskScheduler.launchHandler(_:)")

    let push = api.post("/v1/devices/default/events", #"{"type":"push","app":"mail"}"#)
    #expect(push?["result"] == json(#"{"delivery":"delivered","workId":2}"#))
    api.post(
      "/v1/devices/default/events",
      #"{"type":"setBackgroundAppRefresh","app":"mail","enabled":false}"#)
    let dropped = api.post("/v1/devices/default/events", #"{"type":"push","app":"mail"}"#)
    #expect(
      dropped?["result"]
        == json(
          #"{"delivery":"dropped","reasons":[{"reason":"backgroundAppRefreshOffForApp","detail":"Background App Refresh is off for this app"}]}"#
        ))
    let unavailable = api.call(
      "POST", "/v1/apps/mail/events",
      #"{"type":"submitTaskRequest","identifier":"cleanup","kind":"processing"}"#)
    #expect(unavailable.status == 409)
    #expect(
      unavailable.json?["type"] == .string("urn:lifecycled:problem:bgtaskscheduler-unavailable"))
    #expect(
      unavailable.json?["detail"]
        == .string(
          "submitTaskRequest refused: Background App Refresh is off for this app (state background)"
        ))
    let unknown = api.call(
      "POST", "/v1/devices/default/events", #"{"type":"push","app":"maps"}"#)
    #expect(unknown.status == 422)
    #expect(
      unknown.body.contains(
        #"{"field":"app","message":"must name an app of the device: no 'maps'"}"#))
  }

  /// A push launches an app-delegate app with its payload in the launch options (a scene app
  /// gets none) and hands it over as the callback's `userInfo`; a URL session's identifier
  /// reaches its callback; each detail only with its own reason.
  @Test func backgroundLaunchesHandOverWhatIOSPasses() {
    api.post(
      "/v1/apps",
      #"{"name":"mail","lifecycle":"appDelegate","backgroundModes":["remote-notification","location"]}"#
    )
    let push = #"{"aps":{"content-available":1},"box":"inbox"}"#
    let launched = api.post(
      "/v1/apps/mail/events",
      #"{"type":"backgroundLaunch","reason":"remoteNotification","payload":\#(push)}"#)
    guard case .array(let callbacks)? = launched?["callbacks"], callbacks.count == 4 else {
      Issue.record("\(String(describing: launched))")
      return
    }
    #expect(
      callbacks[0]["arguments"] == json(#"{"launchOptions":{"remoteNotification":\#(push)}}"#))
    #expect(callbacks[3]["arguments"] == json(#"{"userInfo":\#(push)}"#))
    let session = api.post(
      "/v1/apps/mail/events",
      #"[{"type":"backgroundWorkCompleted"},{"type":"backgroundLaunch","reason":"urlSession","identifier":"upload-1"}]"#
    )
    guard case .array(let results)? = session?["results"],
      case .array(let sessionCallbacks)? = results.last?["callbacks"]
    else { return }
    #expect(sessionCallbacks.last?["arguments"] == json(#"{"identifier":"upload-1"}"#))
    for (body, field) in [
      (
        #"{"type":"backgroundLaunch","reason":"fetch","payload":{"aps":{"content-available":1}}}"#,
        "payload"
      ),
      (#"{"type":"backgroundLaunch","reason":"remoteNotification","payload":{"a":1}}"#, "payload"),
      (#"{"type":"backgroundLaunch","reason":"location","identifier":"x"}"#, "identifier"),
    ] {
      let refused = api.call("POST", "/v1/apps/mail/events", body)
      #expect(refused.status == 422, "\(body)")
      #expect(refused.body.contains(#"{"field":"\#(field)""#), "\(body): \(refused.body)")
    }
  }

  @Test func aLaunchOfABusyAppIsAcceptedAndItsCallbacksWait() {
    api.post(
      "/v1/apps",
      #"{"name":"mail","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":3}}"#)
    api.post("/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    let launch = api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(launch.status == 200)
    // Without seq and time until they are delivered, in the result and in the app's view.
    let waiting =
      #""waitingCallbacks":[{"app":"mail","scene":null,"method":"applicationWillEnterForeground(_:)","notifications":["UIApplication.willEnterForegroundNotification"],"state":"inactive"},"#
      + #"{"app":"mail","scene":null,"method":"applicationDidBecomeActive(_:)","notifications":["UIApplication.didBecomeActiveNotification"],"state":"active"}],"#
    #expect(launch.body.contains(#""state":"active","callbacks":[],"# + waiting))
    let viewed = api.call("GET", "/v1/apps/mail")
    #expect(viewed.body.contains(waiting), "\(viewed.body)")
    let view = viewed.json
    #expect(view?["busyUntil"] == .double(3))
    #expect(
      methods(view, "waitingCallbacks") == [
        "applicationWillEnterForeground(_:)", "applicationDidBecomeActive(_:)",
      ])
    let advance = api.post("/v1/devices/default/clock/advance", #"{"seconds":3}"#)
    #expect(
      methods(advance, "callbacks") == [
        "applicationWillEnterForeground(_:)", "applicationDidBecomeActive(_:)",
      ])
    #expect(methods(advance, "waitingCallbacks").isEmpty)
    #expect(methods(api.call("GET", "/v1/apps/mail").json, "waitingCallbacks").isEmpty)
  }

  @Test func openingAnAppEndsItsBackgroundWork() {
    api.post("/v1/apps", #"{"name":"mail","backgroundModes":["fetch"]}"#)
    api.post(
      "/v1/apps/mail/events", #"[{"type":"backgroundLaunch","reason":"fetch"},{"type":"launch"}]"#)
    let view = api.call("GET", "/v1/apps/mail").json
    #expect(view?["backgroundWork"] == .array([]))  // none under way
    #expect(view?["killAt"] == .null)
    let advance = api.post("/v1/devices/default/clock/advance", #"{"seconds":60}"#)
    #expect(advance?["transitions"] == .array([]))
    #expect(api.call("GET", "/v1/apps/mail").json?["state"] == .string("active"))
  }

  @Test func protectedDataStateIsShownForTheDeviceAndWhatEachAppWasTold() {
    api.post("/v1/apps", #"{"name":"mail"}"#)
    api.post("/v1/apps/mail/events", #"[{"type":"launch"},{"type":"beginBackgroundTask"}]"#)
    api.post("/v1/devices/default/events", #"{"type":"lock"}"#)
    #expect(api.call("GET", "/v1/devices/default").json?["protectedDataLocksAt"] == .double(10))
    let lockdown = api.post("/v1/devices/default/clock/advance", #"{"seconds":10}"#)
    #expect(methods(lockdown, "callbacks") == ["applicationProtectedDataWillBecomeUnavailable(_:)"])
    #expect(api.call("GET", "/v1/devices/default").json?["protectedDataAvailable"] == .bool(false))
    #expect(api.call("GET", "/v1/apps/mail").json?["protectedDataAvailable"] == .bool(false))
    let unlock = api.post("/v1/devices/default/events", #"{"type":"unlock"}"#)
    #expect(
      methods(unlock, "callbacks") == [
        "applicationProtectedDataDidBecomeAvailable(_:)", "sceneWillEnterForeground(_:)",
        "sceneDidBecomeActive(_:)",
      ])
    #expect(api.call("GET", "/v1/devices/default").json?["protectedDataAvailable"] == .bool(true))
    #expect(api.call("GET", "/v1/apps/mail").json?["protectedDataAvailable"] == .bool(true))
  }

  @Test func aRelaunchStartsFromTheConfiguredFootprint() {
    api.post("/v1/apps", #"{"name":"mail","memoryMB":200}"#)
    api.post("/v1/apps/mail/events", #"[{"type":"launch"},{"type":"setMemory","memoryMB":4000}]"#)
    #expect(api.call("GET", "/v1/apps/mail").json?["state"] == .string("notRunning"))  // > 3072
    api.post("/v1/apps/mail/events", #"{"type":"launch"}"#)
    let view = api.call("GET", "/v1/apps/mail").json
    #expect(view?["state"] == .string("active"))
    #expect(view?["memoryMB"] == .integer(200))
    #expect(view?["footprintMB"] == .integer(200))
  }

  @Test func urlSessionEventsWakeAnyAppAndAnUnfinishedOneIsKilledWithItsCode() {
    api.post("/v1/apps", #"{"name":"mail"}"#)
    let launch = api.post(
      "/v1/apps/mail/events", #"{"type":"backgroundLaunch","reason":"urlSession"}"#)
    #expect(
      methods(launch, "callbacks").last
        == "application(_:handleEventsForBackgroundURLSession:completionHandler:)")
    #expect(
      backgroundWork(of: "mail").first?["reason"] == .string("urlSession"))
    let advance = api.post("/v1/devices/default/clock/advance", #"{"seconds":30}"#)
    guard case .array(let transitions)? = advance?["transitions"] else {
      Issue.record("no transitions")
      return
    }
    #expect(transitions.last?["terminationCode"] == .string("0x2182bad3"))
  }

  @Test func aBGAppRefreshTaskExpiresWithItsHandler() {
    api.post("/v1/apps", #"{"name":"mail","backgroundModes":["fetch"]}"#)
    api.post("/v1/apps/mail/events", #"{"type":"backgroundLaunch","reason":"appRefresh"}"#)
    #expect(
      backgroundWork(of: "mail") == [
        .object([
          ("id", .integer(1)), ("reason", .string("appRefresh")), ("deadline", .double(30)),
          ("expired", .bool(false)),
        ])
      ])
    let advance = api.post("/v1/devices/default/clock/advance", #"{"seconds":30}"#)
    #expect(methods(advance, "callbacks") == ["BGTask.expirationHandler"])
    #expect(backgroundWork(of: "mail").isEmpty)
  }

  @Test func forceQuitOfARunningSceneAppDiscardsItsSessionAtOnce() {
    api.post("/v1/apps", #"{"name":"mail"}"#)
    api.post("/v1/apps/mail/events", #"{"type":"launch"}"#)
    let quit = api.post("/v1/apps/mail/events", #"{"type":"terminate"}"#)
    #expect(
      methods(quit, "callbacks") == [
        "sceneWillResignActive(_:)", "sceneDidDisconnect(_:)",
        "application(_:didDiscardSceneSessions:)", "applicationWillTerminate(_:)",
      ])
  }

  @Test func anActivityKeepsAnAppRunningInTheBackgroundUntilItStops() {
    api.post("/v1/apps", #"{"name":"radio","backgroundModes":["audio"]}"#)
    let start = api.post(
      "/v1/apps/radio/events", #"[{"type":"launch"},{"type":"startActivity","activity":"audio"}]"#)
    guard case .array(let results)? = start?["results"] else {
      Issue.record("no results")
      return
    }
    #expect(results[1]["callbacks"] == .array([]))
    api.post("/v1/apps/radio/events", #"{"type":"home"}"#)
    let view = api.call("GET", "/v1/apps/radio").json
    #expect(view?["activities"] == .array([.string("audio")]))
    #expect(view?["suspendAt"] == .null)
    let stop = api.post("/v1/apps/radio/events", #"{"type":"stopActivity","activity":"audio"}"#)
    #expect(stop?["state"] == .string("background"))
    #expect(api.call("GET", "/v1/apps/radio").json?["suspendAt"] == .double(2))
    let journal = api.call("GET", "/v1/devices/default/journal").body
    #expect(journal.contains(#""event":{"type":"stopActivity","activity":"audio"}"#))
  }

  @Test func activityEventsAreCheckedAndRefusedWithTheReason() {
    api.post("/v1/apps", #"{"name":"radio","backgroundModes":["audio"]}"#)
    api.post("/v1/apps/radio/events", #"{"type":"launch"}"#)
    let missing = api.call("POST", "/v1/apps/radio/events", #"{"type":"startActivity"}"#)
    #expect(missing.status == 422)
    #expect(missing.body.contains(#""field":"activity""#))
    let unknown = api.call(
      "POST", "/v1/apps/radio/events", #"{"type":"startActivity","activity":"voip"}"#)
    #expect(unknown.status == 422)
    let location = api.call(
      "POST", "/v1/apps/radio/events", #"{"type":"startActivity","activity":"location"}"#)
    #expect(location.status == 409)
    #expect(
      location.json?["detail"]
        == .string(
          "startActivity refused: the app does not declare the 'location' background mode (state active)"
        ))
    let stop = api.call(
      "POST", "/v1/apps/radio/events", #"{"type":"stopActivity","activity":"audio"}"#)
    #expect(stop.status == 409)
    #expect(api.call("GET", "/v1/apps/radio").json?["activities"] == .array([]))
  }

  @Test func shutdownTerminatesRunningAppsAndBootComesBackLocked() {
    api.post("/v1/apps", #"{"name":"mail","lifecycle":"appDelegate"}"#)
    api.post("/v1/apps/mail/events", #"{"type":"launch"}"#)
    let shutdown = api.post("/v1/devices/default/events", #"{"type":"shutdown"}"#)
    #expect(shutdown?["previousState"] == .string("unlocked"))
    #expect(shutdown?["state"] == .string("off"))
    #expect(methods(shutdown, "callbacks") == ["applicationWillTerminate(_:)"])
    let device = api.call("GET", "/v1/devices/default").json
    #expect(device?["poweredOn"] == .bool(false))
    #expect(device?["allowedEvents"] == .array([.string("boot"), .string("updateOS")]))
    let launch = api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(launch.status == 409)
    #expect(
      launch.json?["detail"]
        == .string("launch refused: the device is off: boot it first (state notRunning)"))
    let unlock = api.call("POST", "/v1/devices/default/events", #"{"type":"unlock"}"#)
    #expect(unlock.status == 409)
    #expect(unlock.json?["currentState"] == .string("off"))
    #expect(unlock.json?["allowedEvents"] == .array([.string("boot"), .string("updateOS")]))
    let boot = api.post("/v1/devices/default/events", #"{"type":"boot"}"#)
    #expect(boot?["previousState"] == .string("off"))
    #expect(boot?["state"] == .string("locked"))
    let booted = api.call("GET", "/v1/devices/default").json
    #expect(booted?["poweredOn"] == .bool(true))
    #expect(booted?["protectedDataAvailable"] == .bool(false))
    #expect(api.call("POST", "/v1/apps/mail/events", #"{"type":"shutdown"}"#).status == 422)
  }

  @Test func killsForAThermalEventAndAFileLockCarryTheirCodes() {
    api.post("/v1/apps", #"{"name":"notes","behavior":{"holdsFileLockAtSuspension":true}}"#)
    api.post("/v1/apps", #"{"name":"game"}"#)
    #expect(
      api.call("GET", "/v1/apps/notes").json?["behavior"]?["holdsFileLockAtSuspension"]
        == .bool(true))
    api.post("/v1/apps/notes/events", #"[{"type":"launch"},{"type":"home"}]"#)
    let advance = api.post("/v1/devices/default/clock/advance", #"{"seconds":2}"#)
    #expect(
      advance?["transitions"]
        == .array([
          .object([
            ("seq", .integer(16)), ("time", .double(2)), ("app", .string("notes")),
            ("from", .string("background")), ("to", .string("notRunning")),
            ("cause", .string("fileLockAtSuspension")), ("terminationCode", .string("0xdead10cc")),
          ])
        ]))
    api.post("/v1/apps/game/events", #"{"type":"launch"}"#)
    let thermal = api.post("/v1/apps/game/events", #"{"type":"thermalKill"}"#)
    #expect(thermal?["callbacks"] == .array([]))
    guard case .array(let transitions)? = thermal?["transitions"] else {
      Issue.record("no transitions")
      return
    }
    #expect(transitions.map { $0["terminationCode"] } == [.string("0xc00010ff")])
    #expect(
      api.call("POST", "/v1/apps/game/events", #"{"type":"thermalKill"}"#).status == 409)
  }

  @Test func wakingASuspendedAppDelegateAppRepeatsDidEnterBackground() {
    api.post("/v1/apps", #"{"name":"mail","lifecycle":"appDelegate","backgroundModes":["fetch"]}"#)
    api.post("/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    api.post("/v1/devices/default/clock/advance", #"{"seconds":2}"#)
    let wake = api.post("/v1/apps/mail/events", #"{"type":"backgroundLaunch","reason":"fetch"}"#)
    #expect(wake?["previousState"] == .string("suspended"))
    #expect(
      methods(wake, "callbacks") == [
        "applicationDidEnterBackground(_:)", "application(_:performFetchWithCompletionHandler:)",
      ])
  }
}
