import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// `GET /v1/devices/{device}/snapshot` and `PUT /v1/devices/{device}`: a device saved as one
/// document and recreated from it.
@Suite struct SnapshotTests {
  let api = APITests()

  init() {
    api.call("POST", "/v1/devices", #"{"id":"phone","passcode":true}"#)
    for body in [
      #"{"name":"mail"}"#,
      #"{"name":"notes","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":3}}"#,
      #"{"name":"music","backgroundModes":["audio","fetch"],"memoryMB":300}"#,
      #"{"name":"maps","backgroundModes":["location"]}"#,
    ] {
      api.call("POST", "/v1/devices/phone/apps", body)
    }
    let scenario: [(String, String)] = [
      (
        "mail",
        #"[{"type":"launch"},{"type":"beginBackgroundTask","name":"upload"},{"type":"home"}]"#
      ),
      (
        "music", #"[{"type":"launch"},{"type":"startActivity","activity":"audio"},{"type":"home"}]"#
      ),
      ("maps", #"[{"type":"launch"},{"type":"home"}]"#),
      ("notes", #"[{"type":"launch"},{"type":"home"},{"type":"launch"}]"#),
    ]
    for (app, events) in scenario {
      api.call("POST", "/v1/devices/phone/apps/\(app)/events", events)
    }
    api.call("POST", "/v1/devices/phone/clock/advance", #"{"seconds":2.5}"#)
  }

  private func snapshot(_ api: APITests, _ device: String = "phone") -> String {
    let response = api.call("GET", "/v1/devices/\(device)/snapshot")
    #expect(response.status == 200, "\(response.body)")
    return response.body
  }

  @Test func aSnapshotShowsTheWholeDevice() {
    let document = api.call("GET", "/v1/devices/phone/snapshot").json
    #expect(document?["format"] == .string("lifecycled-device-snapshot"))
    #expect(snapshot(api).contains("null") == false, "a member with no value is left out")
    #expect(document?["version"] == .integer(7))
    #expect(document?["now"] == .double(2.5))
    #expect(document?["foregroundApp"] == .string("notes"))
    guard case .array(let apps)? = document?["apps"] else {
      Issue.record("no apps")
      return
    }
    #expect(apps.map { $0["name"] } == ["mail", "maps", "music", "notes"].map(JSON.string))
    let notes = apps[3]["process"]
    #expect(notes?["state"] == .string("active"))
    #expect(notes?["busyUntil"] == .double(3))
    guard case .array(let waiting)? = notes?["waitingCallbacks"] else {
      Issue.record("no waiting callbacks")
      return
    }
    #expect(
      waiting.map { $0["method"] }
        == [
          "applicationWillEnterForeground(_:)", "applicationDidBecomeActive(_:)",
        ].map(JSON.string))
    #expect(
      api.call("GET", "/v1/devices/phone/snapshot").body.contains(
        #""backgroundTasks":[{"id":1,"name":"upload"}]"#))
    #expect(apps[1]["process"]?["state"] == .string("suspended"))
    #expect(apps[2]["process"]?["activities"] == .array([.string("audio")]))
  }

  @Test func aRestoredDeviceAnswersAsTheOriginal() {
    let saved = snapshot(api)
    let other = APITests()
    let put = other.call("PUT", "/v1/devices/phone", saved)
    #expect(put.status == 201, "\(put.body)")
    #expect(put.headers["Location"] == "/v1/devices/phone")
    #expect(snapshot(other) == saved)
    for (target, body) in [
      ("/v1/devices/phone/clock/advance", #"{"seconds":40}"#),
      ("/v1/devices/phone/apps/music/events", #"{"type":"stopActivity","activity":"audio"}"#),
      ("/v1/devices/phone/events", #"{"type":"lock"}"#),
      ("/v1/devices/phone/clock/advance", #"{"seconds":12}"#),
      ("/v1/devices/phone/events", #"{"type":"memoryWarning"}"#),
      ("/v1/devices/phone/apps/maps/events", #"{"type":"launch"}"#),
    ] {
      let original = api.call("POST", target, body)
      let restored = other.call("POST", target, body)
      #expect(restored.status == original.status, "\(target) \(body)")
      #expect(restored.body == original.body, "\(target) \(body)")
    }
    #expect(snapshot(other) == snapshot(api))
  }

  /// A continued-processing task running with its progress and no deadline, a request queued
  /// behind it with its strategy, and the room the device has: the snapshot holds each, a
  /// restored device goes on as the original (the queued request starts when the task ends),
  /// and a deadline on such a task, or progress on other work, is refused.
  @Test func continuedProcessingTasksAndTheirQueueRestore() {
    api.call("POST", "/v1/devices", #"{"id":"studio"}"#)
    for app in ["editor", "photos"] {
      api.call(
        "POST", "/v1/devices/studio/apps",
        #"{"name":"\#(app)","permittedTaskIdentifiers":["export"]}"#)
    }
    api.call(
      "POST", "/v1/devices/studio/events",
      #"{"type":"setConditions","continuedProcessingCapacity":1}"#)
    for app in ["editor", "photos"] {
      let submitted = api.call(
        "POST", "/v1/devices/studio/apps/\(app)/events",
        #"[{"type":"launch"},{"type":"submitTaskRequest","identifier":"export","kind":"continuedProcessing"}]"#
      )
      #expect(submitted.status == 200, "\(submitted.body)")
    }
    api.call(
      "POST", "/v1/devices/studio/apps/editor/events",
      #"{"type":"reportProgress","identifier":"export","completedUnitCount":2,"totalUnitCount":5}"#)
    let saved = snapshot(api, "studio")
    #expect(saved.contains(#""continuedProcessingCapacity":1"#))
    #expect(
      saved.contains(
        #""backgroundWork":[{"id":1,"reason":"continuedProcessing","identifier":"export","progress":{"completedUnitCount":2,"totalUnitCount":5}}]"#
      ))
    #expect(
      saved.contains(
        #""taskRequests":[{"identifier":"export","kind":"continuedProcessing","requiresNetworkConnectivity":false,"requiresExternalPower":false,"strategy":"queue","queuedAtSeq":28}]"#
      ))
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/studio", saved).status == 201)
    #expect(snapshot(other, "studio") == saved)
    let completion = #"{"type":"backgroundWorkCompleted","id":1}"#
    let original = api.call("POST", "/v1/devices/studio/apps/editor/events", completion)
    #expect(original.body.contains("BGTaskScheduler.launchHandler(_:)"))
    #expect(
      other.call("POST", "/v1/devices/studio/apps/editor/events", completion).body == original.body)
    let deadline = saved.replacingOccurrences(
      of: #""identifier":"export","progress""#,
      with: #""identifier":"export","deadline":9,"progress""#)
    let refused = APITests().call("PUT", "/v1/devices/studio", deadline)
    #expect(refused.status == 422)
    #expect(refused.body.contains("a continuedProcessing task has none"), "\(refused.body)")
  }

  /// What an event stores, its snapshot holds and `PUT` reads back: restoration data and a
  /// push's payload nested as deep as events accept (`Validation.maxDataNesting`), the data
  /// saved and live in a scene and the payload waiting behind a busy main thread, sit deepest
  /// in the document, and it restores to itself. One level deeper is refused by the event.
  @Test func dataNestedAsDeepAsEventsAcceptRestores() {
    /// `depth` arrays around a number.
    func nested(_ depth: Int) -> String {
      String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
    }
    let deepest = Validation.maxDataNesting
    api.call(
      "POST", "/v1/devices/phone/apps",
      #"{"name":"deep","backgroundModes":["remote-notification"],"#
        + #""behavior":{"didEnterBackgroundSeconds":3}}"#)
    let data = nested(deepest)
    let events = [
      #"{"type":"launch"}"#, #"{"type":"setRestorationData","data":\#(data)}"#,
      #"{"type":"home"}"#, #"{"type":"launch"}"#,
      #"{"type":"setRestorationData","data":\#(data)}"#, #"{"type":"home"}"#,
    ]
    let stored = api.call(
      "POST", "/v1/devices/phone/apps/deep/events", "[\(events.joined(separator: ","))]")
    #expect(stored.status == 200, "\(stored.body)")
    let payload = #"{"aps":{"content-available":1},"x":\#(nested(deepest - 1))}"#
    let push = api.call(
      "POST", "/v1/devices/phone/events",
      #"{"type":"push","app":"deep","payload":\#(payload)}"#)
    #expect(push.status == 200, "\(push.body)")
    let saved = snapshot(api)
    #expect(saved.contains(data))
    let other = APITests()
    let put = other.call("PUT", "/v1/devices/phone", saved)
    #expect(put.status == 201, "\(put.body)")
    #expect(snapshot(other) == saved)
    let deeper = api.call(
      "POST", "/v1/devices/phone/apps/mail/events",
      #"[{"type":"launch"},{"type":"setRestorationData","data":\#(nested(deepest + 1))}]"#)
    #expect(deeper.status == 422, "\(deeper.body)")
  }

  /// A device driven to the limits of what it holds restores to itself: its labels, an app
  /// named as long as names go, with every permitted identifier at its longest, every task
  /// request, every background task with its longest name, every scene, each scene's
  /// restoration data at its largest. (Nesting and counts at their limits: the tests beside.)
  @Test func aDeviceAtEveryLimitRestoresToItself() throws {
    func text(_ character: Character, _ bytes: Int) -> String {
      String(repeating: character, count: bytes)
    }
    let labels = (0..<Validation.maxLabels).map { #""k\#($0)":"\#(text("v", 60))""# }
    api.call(
      "POST", "/v1/devices",
      #"{"id":"full","clock":"manual","labels":{\#(labels.joined(separator: ","))}}"#)
    let app = text("a", Validation.maxNameBytes)
    let identifiers = (0..<Validation.maxPermittedTaskIdentifiers).map {
      "\($0)" + text("i", Validation.maxIdentifierBytes - "\($0)".utf8.count)
    }
    let created = api.call(
      "POST", "/v1/devices/full/apps",
      #"{"name":"\#(app)","supportsMultipleScenes":true,"#
        + #""backgroundModes":["fetch","processing"],"#
        + #""permittedTaskIdentifiers":["\#(identifiers.joined(separator: #"",""#))"]}"#)
    #expect(created.status == 201, "\(created.body)")
    let data = #""\#(text("d", Validation.maxRestorationDataBytes - 2))""#
    var events = [#"{"type":"launch"}"#, #"{"type":"setRestorationData","data":\#(data)}"#]
    for scene in 1..<Validation.maxScenesPerApp {
      events += [
        #"{"type":"openScene","scene":"s\#(scene)"}"#,
        #"{"type":"setRestorationData","scene":"s\#(scene)","data":\#(data)}"#,
      ]
    }
    events += identifiers.prefix(11).enumerated().map { index, identifier in
      let kind = index == 0 ? "appRefresh" : "processing"
      return #"{"type":"submitTaskRequest","identifier":"\#(identifier)","kind":"\#(kind)"}"#
    }
    let limit = EngineConfiguration().limits.maxBackgroundTasksPerApp
    events += (0..<limit).map { index in
      let name = "\(index)" + text("n", Validation.maxTaskNameBytes - "\(index)".utf8.count)
      return #"{"type":"beginBackgroundTask","name":"\#(name)"}"#
    }
    for batch in stride(from: 0, to: events.count, by: Validation.maxScenarioEvents) {
      let scenario = events[batch..<min(batch + Validation.maxScenarioEvents, events.count)]
      let applied = api.call(
        "POST", "/v1/devices/full/apps/\(app)/events", "[\(scenario.joined(separator: ","))]")
      #expect(applied.status == 200, "\(applied.body.prefix(300))")
    }
    let refused = api.call(
      "POST", "/v1/devices/full/apps/\(app)/events", #"{"type":"beginBackgroundTask"}"#)
    #expect(refused.status == 409)
    let saved = snapshot(api, "full")
    #expect(saved.components(separatedBy: data).count > Validation.maxScenesPerApp)
    #expect(saved.utf8.count > BodyReads.offLoopBytes)  // read off the loop, too
    let other = APITests()
    let put = other.call("PUT", "/v1/devices/full", saved, exchange: 1)
    #expect(put.status == 201, "\(put.body.prefix(300))")
    #expect(snapshot(other, "full") == saved)
  }

  /// Counts stop short of what a snapshot holds: a device whose counts came within
  /// `Validation.countHeadroom` of `Validation.maxCount` refuses events and clock advances
  /// (409), reads and snapshots as usual, and every snapshot it writes on the way restores to
  /// itself, whether its seq or another count is the one that came near.
  @Test func countsNearTheirBoundStopGrowingAndEverySnapshotRestores() throws {
    let saved = snapshot(api)
    let last = Validation.maxCount - Validation.countHeadroom
    for (count, near, growsOnce) in [
      (#""seq":[0-9]+"#, #""seq":\#(last - 1)"#, true),
      (#""counters":\{"events":[0-9]+"#, #""counters":{"events":\#(Validation.maxCount)"#, false),
    ] {
      let near = saved.replacing(try Regex(count), with: near, maxReplacements: 1)
      #expect(near != saved)
      let other = APITests()
      #expect(other.call("PUT", "/v1/devices/phone", near).status == 201)
      let lock = #"{"type":"lock"}"#
      let first = other.call("POST", "/v1/devices/phone/events", lock)
      if growsOnce {
        #expect(first.status == 200)  // at `last - 1`: it grows once more, past `last`
        let grown = snapshot(other)
        #expect(other.call("PUT", "/v1/devices/phone", grown).status == 200)
        #expect(snapshot(other) == grown)
      }
      let refused = other.call("POST", "/v1/devices/phone/events", lock)
      #expect(refused.status == 409, "\(refused.body)")
      #expect(refused.json?["type"] == .string("urn:lifecycled:problem:limit-reached"))
      let advance = other.call("POST", "/v1/devices/phone/clock/advance", #"{"seconds":1}"#)
      #expect(advance.status == 409)
      #expect(other.call("GET", "/v1/devices/phone").status == 200)
      let stopped = snapshot(other)
      #expect(other.call("PUT", "/v1/devices/phone", stopped).status == 200)
      #expect(snapshot(other) == stopped)
    }
  }

  /// A device that is off, with or without a passcode, restores from its own snapshot, over
  /// HTTP and as a fixture, and boots as the original does.
  @Test(arguments: [false, true])
  func aDeviceThatIsOffRestoresFromItsSnapshot(passcode: Bool) throws {
    api.call("POST", "/v1/devices", #"{"id":"off","passcode":\#(passcode)}"#)
    api.call("POST", "/v1/devices/off/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/devices/off/apps/mail/events", #"{"type":"launch"}"#)
    #expect(api.call("POST", "/v1/devices/off/events", #"{"type":"shutdown"}"#).status == 200)
    let snapshot = api.call("GET", "/v1/devices/off/snapshot").body
    #expect(snapshot.contains(#""poweredOn":false"#))
    #expect(api.call("PUT", "/v1/devices/off", snapshot).status == 200)
    #expect(api.call("GET", "/v1/devices/off/snapshot").body == snapshot)
    let fixture = APITests(fixtures: #"{"devices":[\#(snapshot)]}"#) { _ in }
    #expect(fixture.call("GET", "/v1/devices/off/snapshot").body == snapshot)
    let booted = api.call("POST", "/v1/devices/off/events", #"{"type":"boot"}"#)
    #expect(booted.status == 200)
    #expect(
      api.call("GET", "/v1/devices/off").json?["protectedDataAvailable"] == .bool(!passcode))
  }

  @Test func puttingASnapshotOverADeviceReplacesIt() {
    let saved = snapshot(api)
    api.call("POST", "/v1/devices/phone/reset")
    let put = api.call("PUT", "/v1/devices/phone", saved)
    #expect(put.status == 200)
    #expect(put.json?["apps"] == .integer(4))
    #expect(put.json?["counters"]?["journalEntries"] == .integer(0))
    #expect(snapshot(api) == saved)
    guard case .integer(let seq)? = api.call("GET", "/v1/devices/phone/snapshot").json?["seq"]
    else {
      Issue.record("no seq")
      return
    }
    api.call("POST", "/v1/devices/phone/apps/maps/events", #"{"type":"launch"}"#)
    #expect(
      api.call("GET", "/v1/devices/phone/journal?limit=1").body.hasPrefix(
        #"{"entries":[{"kind":"event","seq":\#(seq + 1),"#))
  }

  @Test func theJournalIsShownOnRequestAndNeverRestored() {
    let withJournal = api.call("GET", "/v1/devices/phone/snapshot?journal=true")
    #expect(withJournal.json?["journal"]?["dropped"] == .integer(0))
    #expect(snapshot(api).contains(#""journal""#) == false)
    let put = api.call("PUT", "/v1/devices/phone", withJournal.body)
    #expect(put.status == 422)
    #expect(put.body.contains(#""field":"journal""#))
    let bad = api.call("GET", "/v1/devices/phone/snapshot?journal=yes")
    #expect(bad.status == 422)
  }

  /// A snapshot edited into a state no device could be in is refused, each rule by its field,
  /// and the device stays as it was.
  @Test(arguments: [
    (#""foregroundApp":"notes""#, #""foregroundApp":"mail""#, "foregroundApp"),
    (#""foregroundApp":"notes""#, #""foregroundApp":null"#, "foregroundApp"),
    (#""format":"lifecycled-device-snapshot""#, #""format":"other""#, "format"),
    (#""version":7"#, #""version":8"#, "version"),
    (#""seq":"#, #""extra":1,"seq":"#, "extra"),
    (#""locked":false"#, #""locked":true"#, "foregroundApp"),
    (#""poweredOn":true"#, #""poweredOn":false"#, "poweredOn"),
    (
      #""process":{"state":"suspended","#, #""process":{"state":"suspended","suspendAt":99,"#,
      "apps[1].process.suspendAt"
    ),
    (
      #""process":{"state":"suspended""#, #""process":{"state":"notRunning""#,
      "apps[1].process.state"
    ),
    (#""name":"upload""#, #""name":7"#, "apps[0].process.backgroundTasks[0].name"),
    (
      #""backgroundTasks":[{"id":1,"name":"upload"}],"backgroundWork":[]"#,
      #""backgroundTasks":[{"id":1,"name":"upload"}],"#
        + #""backgroundWork":[{"id":1,"reason":"urlSession","deadline":30}]"#,
      "apps[0].process.backgroundWork"
    ),
    (#""activities":["audio"]"#, #""activities":["location"]"#, "apps[2].process.activities"),
    (#""name":"maps""#, #""name":"mail""#, "apps[1].name"),
  ])
  func anImpossibleSnapshotIsRefusedAndChangesNothing(
    original: String, edited: String, field: String
  ) {
    let saved = snapshot(api)
    #expect(saved.contains(original), "\(original)")
    let response = api.call(
      "PUT", "/v1/devices/phone", saved.replacingOccurrences(of: original, with: edited))
    #expect(response.status == 422, "\(edited): \(response.body)")
    #expect(response.body.contains(#"{"field":"\#(field)""#), "\(edited): \(response.body)")
    #expect(snapshot(api) == saved)
    #expect(api.call("GET", "/v1/devices").body.contains(#""id":"phone""#))
  }

  /// Version 2 wrote every member, null when it had no value: such a document is still read,
  /// its nulls as members left out.
  @Test func aVersion2DocumentReadsItsNullsAsAbsentMembers() {
    // Before profiles, a snapshot held the budgets: they override the default model's.
    api.call("POST", "/v1/devices", #"{"id":"old","memoryLimitMB":4096,"perAppLimitMB":2048}"#)
    api.call("POST", "/v1/devices/old/apps", #"{"name":"mail","backgroundModes":["fetch"]}"#)
    api.call("POST", "/v1/devices/old/apps", #"{"name":"notes"}"#)
    api.call(
      "POST", "/v1/devices/old/apps/mail/events",
      #"[{"type":"launch"},{"type":"beginBackgroundTask"},{"type":"home"}]"#)
    let behavior =
      #""behavior":{"didEnterBackgroundSeconds":0,"endsBackgroundTasksOnExpiration":true,"#
      + #""holdsFileLockAtSuspension":false},"supportsMultipleScenes":false,"sceneMemoryMB":0,"#
    let version2 =
      #"{"format":"lifecycled-device-snapshot","version":2,"device":{"id":"old","#
      + #""clock":"manual","memoryLimitMB":4096,"perAppLimitMB":2048,"passcode":true,"#
      + #""labels":{},"idleTimeoutSeconds":null},"now":0,"seq":16,"poweredOn":true,"#
      + #""locked":false,"protectedDataAvailable":true,"protectedDataLocksAt":null,"#
      + #""foregroundApp":null,"appBeforeLock":null,"memoryPressure":false,"#
      + #""warningGraceEndsAt":null,"counters":{"events":3,"callbacks":8,"transitions":5,"#
      + #""kills":0},"apps":[{"name":"mail","lifecycle":"scene","memoryMB":100,"#
      + #""backgroundMemoryMB":100,"backgroundModes":["fetch"],"# + behavior
      + #""launches":1,"kills":0,"lastUsed":0,"nextTaskId":2,"backgroundLaunchBlocked":false,"#
      + #""restorationStateSaved":true,"savedRestorationData":null,"scenes":[{"id":"main","#
      + #""state":"background","restorationData":null,"savedRestorationData":null}],"#
      + #""focusedScene":"main","discardedScenes":[],"process":{"state":"background","#
      + #""inactiveCause":null,"memoryMB":100,"backgroundMemoryMB":100,"backgroundSince":0,"#
      + #""busyUntil":null,"watchdogKillAt":null,"waitingCallbacks":[],"#
      + #""backgroundTasks":[{"id":1,"name":null,"expiredAt":null}],"backgroundWork":null,"#
      + #""activities":[],"significantTimeChangePending":false,"protectedDataAvailable":true,"#
      + #""suspendAt":null,"restorationData":null,"prewarmed":false}},{"name":"notes","#
      + #""lifecycle":"scene","memoryMB":100,"backgroundMemoryMB":100,"backgroundModes":[],"#
      + behavior + #""launches":0,"kills":0,"lastUsed":0,"nextTaskId":1,"#
      + #""backgroundLaunchBlocked":false,"restorationStateSaved":false,"#
      + #""savedRestorationData":null,"scenes":[],"focusedScene":null,"discardedScenes":[],"#
      + #""process":null}]}"#
    let other = APITests()
    let put = other.call("PUT", "/v1/devices/old", version2)
    #expect(put.status == 201, "\(put.body)")
    #expect(snapshot(other, "old") == snapshot(api, "old"))
  }

  /// Versions 1 to 3 held one piece of background work, without an id: it takes the app's next
  /// task id, as the work of a background launch does now.
  @Test func aVersion3SnapshotsBackgroundWorkTakesTheNextTaskId() {
    api.call("PUT", "/v1/devices/old", #"{"clock":"manual"}"#)
    api.call("POST", "/v1/devices/old/apps", #"{"name":"mail","backgroundModes":["fetch"]}"#)
    api.call(
      "POST", "/v1/devices/old/apps/mail/events",
      #"[{"type":"backgroundLaunch","reason":"fetch"}]"#)
    let current = snapshot(api, "old")
    let work = #""backgroundWork":[{"id":1,"reason":"fetch","deadline":30.0}]"#
    #expect(current.contains(work) && current.contains(#""nextTaskId":2"#), "\(current)")
    let version3 =
      current
      .replacingOccurrences(of: #""version":7"#, with: #""version":3"#)
      .replacingOccurrences(of: work, with: #""backgroundWork":{"reason":"fetch","deadline":30}"#)
      .replacingOccurrences(of: #""nextTaskId":2"#, with: #""nextTaskId":1"#)
    let other = APITests()
    let put = other.call("PUT", "/v1/devices/old", version3)
    #expect(put.status == 201, "\(put.body)")
    #expect(snapshot(other, "old") == current)
  }

  /// Versions 1 to 5 handed MetricKit's waiting delivery its exits alone: it reads as one
  /// payload of time 0, delivered when the busy main thread frees; version 6 refuses that form.
  @Test func aVersion5WaitingDeliveryReadsAsOnePayload() {
    api.call("PUT", "/v1/devices/old", #"{"clock":"manual"}"#)
    api.call(
      "POST", "/v1/devices/old/apps",
      #"{"name":"mail","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":3}}"#)
    api.call(
      "POST", "/v1/devices/old/apps/mail/events",
      #"[{"type":"launch"},{"type":"home"},{"type":"launch"}]"#)
    let current = snapshot(api, "old")
    let waiting = #"{"method":"applicationWillEnterForeground(_:)""#
    #expect(current.contains(#""waitingCallbacks":["#), "\(current)")
    let exits = MetricKitAPITests.crashedInTheForeground
    let delivery =
      #"{"method":"MXMetricManagerSubscriber.didReceive(_:)","state":"active","#
      + #""cause":"deliverMetrics","arguments":{"kind":"exitMetrics","exits":\#(exits)}},"#
    let version5 = current.replacingOccurrences(of: #""version":7"#, with: #""version":5"#)
      .replacingOccurrences(of: waiting, with: delivery + waiting)
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/old", version5).status == 201)
    let freed = other.call("POST", "/v1/devices/old/clock/advance", #"{"seconds":3}"#).json
    guard case .array(let callbacks)? = freed?["callbacks"], let first = callbacks.first else {
      return #expect(Bool(false), "\(String(describing: freed))")
    }
    #expect(first["method"] == .string("MXMetricManagerSubscriber.didReceive(_:)"))
    #expect(first["arguments"]?["payloads"] != nil)
    let version6 = version5.replacingOccurrences(of: #""version":5"#, with: #""version":6"#)
    #expect(APITests().call("PUT", "/v1/devices/old", version6).status == 422)
  }

  /// Fixtures of snapshots and declarations are there from the start, and a reset brings
  /// them back as they were.
  @Test func fixturesComeBackOnReset() {
    let saved = snapshot(api)
    let fixtures = #"{"devices":[\#(saved),{"id":"default","apps":[{"name":"notes"}]}]}"#
    let fresh = APITests(fixtures: fixtures) { _ in }
    #expect(snapshot(fresh) == saved)
    #expect(fresh.call("GET", "/v1/apps/notes").status == 200)
    fresh.call("POST", "/v1/devices/phone/events", #"{"type":"lock"}"#)
    fresh.call("DELETE", "/v1/apps/notes")
    #expect(fresh.call("POST", "/__admin/reset").status == 204)
    #expect(snapshot(fresh) == saved)
    #expect(fresh.call("GET", "/v1/apps/notes").status == 200)
  }

  @Test func aSnapshotIsRestoredOnlyUnderItsOwnId() {
    let saved = snapshot(api)
    let response = api.call("PUT", "/v1/devices/tablet", saved)
    #expect(response.status == 422)
    #expect(response.body.contains(#"{"field":"device.id""#))
    #expect(api.call("GET", "/v1/devices/tablet").status == 404)
  }

  /// The id is said once, in the path: a declaration or a snapshot may leave it out, so a
  /// snapshot of one device is put under another id without its own.
  @Test func aBodyWithoutAnIdTakesThePaths() throws {
    let declared = api.call("PUT", "/v1/devices/shard-7", #"{"clock":"manual"}"#)
    #expect(declared.status == 201)
    #expect(declared.json?["id"] == .string("shard-7"))
    let saved = snapshot(api)
    let anonymous = saved.replacingOccurrences(of: #""id":"phone","#, with: "")
    #expect(anonymous != saved)
    let put = api.call("PUT", "/v1/devices/copy", anonymous)
    #expect(put.status == 201, "\(put.body)")
    #expect(
      snapshot(api, "copy")
        == saved.replacingOccurrences(of: #""id":"phone""#, with: #""id":"copy""#))
  }

  /// A declaration creates the same device as `POST /v1/devices` and `POST .../apps` do, and
  /// replaces one as a new device, its apps not running.
  @Test func aDeclarationCreatesOrReplacesANewDevice() {
    let declared = #"{"id":"tablet","clock":"manual","apps":[{"name":"mail","memoryMB":300}]}"#
    let put = api.call("PUT", "/v1/devices/tablet", declared)
    #expect(put.status == 201)
    #expect(put.headers["Location"] == "/v1/devices/tablet")
    api.call("POST", "/v1/devices", #"{"id":"posted","clock":"manual"}"#)
    api.call("POST", "/v1/devices/posted/apps", #"{"name":"mail","memoryMB":300}"#)
    let posted = snapshot(api, "posted")
    #expect(snapshot(api, "tablet") == posted.replacingOccurrences(of: "posted", with: "tablet"))

    api.call("POST", "/v1/devices/tablet/apps/mail/events", #"{"type":"launch"}"#)
    let replaced = api.call("PUT", "/v1/devices/tablet", #"{"id":"tablet","passcode":false}"#)
    #expect(replaced.status == 200)
    #expect(replaced.json?["apps"] == .integer(0))
    #expect(replaced.json?["passcode"] == .bool(false))
    #expect(replaced.json?["clock"] == .string("manual"))  // the configured default, here
  }

  @Test(arguments: [
    (#"{"id":"other"}"#, "id"),
    (#"{"id":"tablet","apps":[{"name":"mail","given":{"state":"active"}}]}"#, "apps[0].given"),
    (#"{"id":"tablet","clock":"sometimes"}"#, "clock"),
    (#"{"id":"tablet","seq":3}"#, "seq"),
    (#"{"format":7,"id":"tablet"}"#, "format"),
  ])
  func aBadDeclarationIsRefusedByItsFieldAndChangesNothing(body: String, field: String) {
    let response = api.call("PUT", "/v1/devices/tablet", body)
    #expect(response.status == 422, "\(body): \(response.body)")
    #expect(response.body.contains(#"{"field":"\#(field)""#), "\(body): \(response.body)")
    #expect(api.call("GET", "/v1/devices/tablet").status == 404)
  }

  @Test func ifMatchGuardsTheDeviceAPutReplaces() {
    let saved = snapshot(api)
    let current = api.call("GET", "/v1/devices/phone").headers["ETag"]!
    #expect(api.call("PUT", "/v1/devices/phone", saved, ifMatch: #""1-1""#).status == 412)
    #expect(api.call("PUT", "/v1/devices/phone", saved, ifMatch: current).status == 200)
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/phone", saved, ifMatch: "*").status == 412)
    #expect(other.call("GET", "/v1/devices/phone").status == 404)
  }

  @Test func aRealtimeDeviceGoesOnFromItsSnapshotsClock() {
    let realtime = APITests { $0.deviceDefaults.clock = .realtime }
    realtime.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    realtime.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    let saved = realtime.call("GET", "/v1/devices/default/snapshot", now: .seconds(1)).body
    let put = realtime.call("PUT", "/v1/devices/default", saved, now: .seconds(100))
    #expect(put.status == 200)
    #expect(put.json?["now"] == .double(1))
    let app = realtime.call("GET", "/v1/apps/mail", now: .seconds(102))
    #expect(app.json?["state"] == .string("suspended"))
  }
}
