import Foundation
import JSONCore
import Testing

/// What test harnesses reach for: journal queries and stepping the clock deadline by deadline.
@Suite struct HarnessAPITests {
  let api = APITests()

  init() {
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/apps", #"{"name":"notes","lifecycle":"appDelegate"}"#)
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    api.call("POST", "/v1/apps/notes/events", #"[{"type":"launch"},{"type":"home"}]"#)
  }

  /// The `seq`s of the entries of a journal query.
  private func seqs(_ query: String) -> [Int] {
    let response = api.call("GET", "/v1/devices/default/journal\(query)")
    #expect(response.status == 200, "\(query): \(response.body)")
    guard case .array(let entries)? = response.json?["entries"] else { return [] }
    return entries.compactMap { entry -> Int? in
      let seq = entry["seq"] ?? entry["callback"]?["seq"] ?? entry["transition"]?["seq"]
      guard case .integer(let value)? = seq else { return nil }
      return value
    }
  }

  /// What each entry of a journal query is, in order: an event's type, a callback's method or
  /// a transition's cause.
  private func entries(_ query: String) -> [String] {
    guard
      case .array(let entries)? = api.call("GET", "/v1/devices/default/journal\(query)").json?[
        "entries"]
    else { return [] }
    return entries.compactMap { entry -> String? in
      let value =
        entry["event"]?["type"] ?? entry["callback"]?["method"] ?? entry["transition"]?["cause"]
      guard case .string(let text)? = value else { return nil }
      return text
    }
  }

  @Test func journalFiltersSelectByKindAppSceneMethodAndCause() {
    #expect(entries("?kind=event") == ["launch", "home", "launch", "home"])
    #expect(entries("?kind=event&app=notes") == ["launch", "home"])
    #expect(
      entries("?kind=callback&app=notes") == [
        "application(_:willFinishLaunchingWithOptions:)",
        "application(_:didFinishLaunchingWithOptions:)", "applicationDidBecomeActive(_:)",
        "applicationWillResignActive(_:)", "applicationDidEnterBackground(_:)",
      ])
    #expect(
      entries("?scene=main") == [
        "scene(_:willConnectTo:options:)", "sceneWillEnterForeground(_:)",
        "sceneDidBecomeActive(_:)", "sceneWillResignActive(_:)", "sceneDidEnterBackground(_:)",
      ])
    #expect(entries("?method=sceneDidEnterBackground(_:)") == ["sceneDidEnterBackground(_:)"])
    #expect(entries("?method=sceneDidEnterBackground%28_%3A%29&kind=callback").count == 1)
    #expect(entries("?method=sceneDidEnterBackground(_:)&kind=transition") == [])
    #expect(entries("?cause=home&app=mail") == ["home", "home"])
    #expect(entries("?cause=launch&kind=event") == [])
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":2}"#)
    #expect(entries("?cause=suspension") == ["suspension", "suspension"])
    let all = seqs("")
    #expect(seqs("?cause=suspension&since=\(all[all.count - 2])") == [all.last!])
  }

  /// A "given" step: an app created already in a state, as events would have left it.
  @Test func anAppCanBeCreatedInAGivenState() {
    let journal = api.call("GET", "/v1/devices/default/journal").body
    let created = api.call(
      "POST", "/v1/apps",
      #"{"name":"maps","given":{"state":"background","backgroundTasks":[{"name":"upload"},{"name":null}],"#
        + #""restorationStateSaved":true}}"#)
    #expect(created.status == 201, "\(created.body)")
    #expect(created.json?["state"] == .string("background"))
    #expect(created.json?["sceneState"] == .string("background"))
    #expect(created.json?["restorationStateSaved"] == .bool(true))
    #expect(
      created.body.contains(
        #""backgroundTasks":[{"id":1,"name":"upload","expiresAt":30.0,"expired":false},"#
          + #"{"id":2,"name":null,"expiresAt":30.0,"expired":false}]"#))
    #expect(api.call("GET", "/v1/devices/default/journal").body == journal)
    let active = api.call("POST", "/v1/apps", #"{"name":"news","given":{"state":"active"}}"#)
    #expect(active.json?["state"] == .string("active"))
    #expect(api.call("GET", "/v1/devices/default").json?["foregroundApp"] == .string("news"))
  }

  @Test func aGivenStateIsValidatedAndRefusedWhenNoAppCouldBeInIt() {
    for (body, field) in [
      (#"{"name":"maps","given":{"state":"asleep"}}"#, "given.state"),
      (#"{"name":"maps","given":{}}"#, "given.state"),
      (#"{"name":"maps","given":{"state":"active","color":"red"}}"#, "given.color"),
      (
        #"{"name":"maps","given":{"state":"suspended","backgroundTasks":[{}]}}"#,
        "given.backgroundTasks"
      ),
      (
        #"{"name":"maps","given":{"state":"background","activities":["audio"]}}"#,
        "given.activities"
      ),
      (
        #"{"name":"maps","given":{"state":"background","backgroundTasks":[{"name":7}]}}"#,
        "given.backgroundTasks[0].name"
      ),
    ] {
      let response = api.call("POST", "/v1/apps", body)
      #expect(response.status == 422, "\(body): \(response.body)")
      #expect(response.body.contains(#"{"field":"\#(field)""#), "\(body): \(response.body)")
    }
    #expect(api.call("GET", "/v1/apps/maps").status == 404)
  }

  @Test func journalFiltersAreValidated() {
    for (query, field) in [
      ("kind=events", "kind"), ("method=didEnterBackground", "method"), ("cause=lunch", "cause"),
      ("scene=-x", "scene"), ("app=a&app=b", "app"), ("state=active", "state"),
    ] {
      let response = api.call("GET", "/v1/devices/default/journal?\(query)")
      #expect(response.status == 422, "\(query)")
      #expect(response.body.contains(#""field":"\#(field)""#), "\(query): \(response.body)")
    }
    let cause = api.call("GET", "/v1/devices/default/journal?cause=lunch")
    #expect(cause.body.contains("must be one of launch, prewarm, openScene, closeScene,"))
  }

  /// `since=latest` reads after the device's last entry as the request finds it: an empty
  /// page now, and what happens next from a `seq` the harness already holds.
  @Test func sinceLatestReadsNothingOfThePast() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    for path in ["/v1/devices/default/journal", "/v1/apps/mail/callbacks"] {
      let response = api.call("GET", "\(path)?since=latest")
      #expect(response.status == 200, "\(path)")
      let member = path.hasSuffix("journal") ? "entries" : "callbacks"
      #expect(response.json?[member] == .array([]), "\(path): \(response.body)")
    }
    for since in ["soon", "-1", "Latest"] {
      let response = api.call("GET", "/v1/devices/default/journal?since=\(since)")
      #expect(response.status == 422)
      #expect(
        response.body.contains(
          #""field":"since","message":"must be an integer from 0 to 9223372036854775807, or latest""#
        ), "\(since): \(response.body)")
    }
  }

  /// Every event response, every clock advance and the device's view give the journal's last
  /// `seq`: the journal after it holds exactly what happened since.
  @Test func lastSeqSaysWhereTheJournalEnds() {
    let launch = api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    guard case .integer(let afterLaunch)? = launch.json?["lastSeq"] else {
      Issue.record("no lastSeq in \(launch.body)")
      return
    }
    #expect(api.call("GET", "/v1/devices/default").json?["lastSeq"] == .integer(afterLaunch))
    #expect(
      api.call("GET", "/v1/devices/default/journal?since=\(afterLaunch)").json?["entries"]
        == .array([]))
    let home = api.call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    let advance = api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":5}"#)
    guard case .integer(let afterHome)? = home.json?["lastSeq"],
      case .integer(let afterAdvance)? = advance.json?["lastSeq"],
      case .array(let entries)? = api.call(
        "GET", "/v1/devices/default/journal?since=\(afterLaunch)"
      ).json?["entries"]
    else {
      Issue.record("no lastSeq in \(home.body) or \(advance.body)")
      return
    }
    // home: its event, two callbacks and two transitions; the advance: suspensions.
    #expect(afterHome == afterLaunch + 5)
    #expect(afterAdvance > afterHome)
    #expect(entries.count == afterAdvance - afterLaunch)
  }

  /// Why did my app die: the app's view keeps how its last process ended, whatever ended it,
  /// with jetsam's reason for a purge as for jetsam's own kills.
  @Test func anAppShowsHowItsLastProcessEnded() {
    #expect(api.call("GET", "/v1/apps/mail").json?["lastTermination"] == nil)
    // What each process ran with: the defaults, and the installation's vendor identifier.
    func ranWith(_ app: String) -> (String, JSON) {
      let vendor = api.call("GET", "/v1/\(app)").json?["identifierForVendor"]
      return (
        "ranWith",
        .object([
          ("appVersion", .string("1.0")), ("build", .string("1")), ("osVersion", .string("26.1")),
          ("bootSession", .integer(1)), ("installation", .integer(1)),
          ("debuggerAttached", .bool(false)), ("identifierForVendor", vendor ?? .null),
        ])
      )
    }
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"purge","reason":"highwater"}"#)
    #expect(
      api.call("GET", "/v1/apps/mail").json?["lastTermination"]
        == .object([
          ("cause", .string("purge")), ("endedBy", .string("system")),
          ("jetsamReason", .string("highwater")), ("time", .double(0)),
          ("state", .string("background")), ranWith("apps/mail"),
        ]))
    // A snapshot keeps it: the device replaced by its own snapshot shows the same.
    let before = api.call("GET", "/v1/apps/mail").json?["lastTermination"]
    let snapshot = api.call("GET", "/v1/devices/default/snapshot").body
    #expect(api.call("PUT", "/v1/devices/default", snapshot).status == 200)
    #expect(api.call("GET", "/v1/apps/mail").json?["lastTermination"] == before)
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"thermalKill"}]"#)
    #expect(
      api.call("GET", "/v1/apps/mail").json?["lastTermination"]
        == .object([
          ("cause", .string("thermalKill")), ("endedBy", .string("system")),
          ("terminationCode", .string("0xc00010ff")), ("time", .double(0)),
          ("state", .string("active")), ranWith("apps/mail"),
        ]))
    api.call("POST", "/v1/devices", #"{"id":"small","clock":"manual","perAppLimitMB":200}"#)
    api.call("POST", "/v1/devices/small/apps", #"{"name":"maps"}"#)
    api.call(
      "POST", "/v1/devices/small/apps/maps/events",
      #"[{"type":"launch"},{"type":"setMemory","memoryMB":300}]"#)
    #expect(
      api.call("GET", "/v1/devices/small/apps/maps").json?["lastTermination"]
        == .object([
          ("cause", .string("jetsam")), ("endedBy", .string("system")),
          ("jetsamReason", .string("per-process-limit")), ("time", .double(0)),
          ("state", .string("active")), ranWith("devices/small/apps/maps"),
        ]))
  }

  @Test func advancingToTheNextDeadlineStopsThere() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"beginBackgroundTask"}"#)
    #expect(api.call("GET", "/v1/devices/default").json?["nextDeadline"] == .double(2))
    let first = api.call(
      "POST", "/v1/devices/default/clock/advance", #"{"to":"nextDeadline"}"#)
    #expect(first.status == 200)
    #expect(first.json?["advanced"] == .double(2))
    #expect(first.json?["now"] == .double(2))
    guard case .array(let transitions)? = first.json?["transitions"] else {
      Issue.record("no transitions")
      return
    }
    #expect(transitions.map { $0["app"] } == [.string("notes")])
    let second = api.call(
      "POST", "/v1/devices/default/clock/advance", #"{"to":"nextDeadline"}"#)
    #expect(second.json?["advanced"] == .double(28))
    #expect(second.body.contains(#""method":"expirationHandler""#))
  }

  @Test func advancingToTheNextDeadlineWhenNoneIsPendingIs409() {
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":2}"#)
    let response = api.call(
      "POST", "/v1/devices/default/clock/advance", #"{"to":"nextDeadline"}"#)
    #expect(response.status == 409)
    #expect(
      response.body
        == #"{"type":"urn:lifecycled:problem:no-deadline","title":"No deadline is pending","status":409,"detail":"device 'default' has no pending deadline"}"#
    )
    #expect(api.call("GET", "/v1/devices/default/clock").json?["now"] == .double(2))
  }

  @Test func advanceTakesSecondsOrTheNextDeadlineNotBoth() {
    for body in [
      #"{"to":"nextDeadline","seconds":1}"#, #"{"to":"later"}"#, #"{}"#, #"{"to":5}"#,
    ] {
      let response = api.call("POST", "/v1/devices/default/clock/advance", body)
      #expect(response.status == 422, "\(body): \(response.body)")
    }
    #expect(api.call("GET", "/v1/devices/default/clock").json?["now"] == .double(0))
  }

  @Test func resettingADeviceKeepsOnlyItsConfiguration() {
    api.call("POST", "/v1/devices", #"{"id":"ci-1","memoryLimitMB":900,"passcode":false}"#)
    api.call("POST", "/v1/devices/ci-1/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/devices/ci-1/apps/mail/events", #"{"type":"launch"}"#)
    api.call("POST", "/v1/devices/ci-1/events", #"{"type":"lock"}"#)
    api.call("POST", "/v1/devices/ci-1/clock/advance", #"{"seconds":60}"#)
    let reset = api.call("POST", "/v1/devices/ci-1/reset")
    #expect(reset.status == 200)
    #expect(reset.json == api.call("GET", "/v1/devices/ci-1").json)
    #expect(reset.json?["now"] == .double(0))
    #expect(reset.json?["locked"] == .bool(false))
    #expect(reset.json?["passcode"] == .bool(false))
    #expect(reset.json?["memory"]?["limitMB"] == .integer(900))
    #expect(reset.json?["apps"] == .integer(0))
    #expect(reset.json?["counters"]?["journalEntries"] == .integer(0))
    #expect(api.call("GET", "/v1/devices/ci-1/apps/mail").status == 404)
    #expect(api.call("GET", "/v1/devices/ci-1/jetsam").json?["kills"] == .array([]))
    // The other devices are untouched; the default device can be reset too.
    #expect(api.call("GET", "/v1/apps/mail").json?["state"] == .string("background"))
    #expect(api.call("POST", "/v1/devices/default/reset").json?["apps"] == .integer(0))
    #expect(api.call("POST", "/v1/devices/nope/reset").status == 404)
    #expect(api.call("GET", "/v1/devices/ci-1/reset").status == 405)
  }

  @Test func deviceAndAppReadsCarryTheDevicesETag() {
    let device = api.call("GET", "/v1/devices/default")
    let etag = device.headers["ETag"]
    #expect(etag == "\"1-\(seqs("").last!)\"")  // the first device's last journal seq
    #expect(api.call("GET", "/v1/apps/mail").headers["ETag"] == etag)
    #expect(api.call("GET", "/v1/devices/default/journal").headers["ETag"] == etag)
    #expect(api.call("GET", "/v1/devices").headers["ETag"] == nil)
    #expect(api.call("GET", "/health").headers["ETag"] == nil)
    let event = api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(event.headers["ETag"] == api.call("GET", "/v1/devices/default").headers["ETag"])
    #expect(event.headers["ETag"] != etag)
    // A reset device never repeats a version of the one before it.
    #expect(api.call("POST", "/v1/devices/default/reset").headers["ETag"] == #""2-0""#)
  }

  @Test func ifMatchAppliesAnEventOnlyToTheVersionItNames() {
    let etag = api.call("GET", "/v1/devices/default").headers["ETag"]!
    let applied = api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, ifMatch: etag)
    #expect(applied.status == 200)
    let stale = api.call("POST", "/v1/apps/notes/events", #"{"type":"launch"}"#, ifMatch: etag)
    #expect(stale.status == 412)
    #expect(stale.headers["ETag"] == applied.headers["ETag"])
    let quoted = { (tag: String) in tag.replacingOccurrences(of: "\"", with: #"\""#) }
    #expect(
      stale.body
        == #"{"type":"urn:lifecycled:problem:precondition-failed","title":"The device is no longer in the version If-Match names","status":412,"detail":"If-Match \#(quoted(etag)) does not name device 'default' as it is now, \#(quoted(applied.headers["ETag"]!))"}"#
    )
    #expect(api.call("GET", "/v1/apps/notes").json?["state"] == .string("background"))
    let current = applied.headers["ETag"]!
    for (condition, status) in [
      ("*", 200), (#""0-0", \#(current)"#, 200), (#" ,\#t\#(current) , "#, 200),
      ("W/\(current)", 412), (#""0-0""#, 412), ("garbage", 412), (#""a b""#, 412), ("*, *", 412),
      (",", 412), (String(repeating: "\"x\",", count: 300), 412),
    ] {
      let now = api.call("GET", "/v1/devices/default").headers["ETag"]!
      let request = condition.replacingOccurrences(of: current, with: now)
      let response = api.call(
        "POST", "/v1/devices/default/clock/advance", #"{"seconds":1}"#, ifMatch: request)
      #expect(response.status == status, "\(request)")
    }
    #expect(
      api.call("GET", "/v1/devices/nope", ifMatch: "*").status == 404)
  }

  /// RFC 9110, 13.2.2: a request that would fail without its condition fails the same way with
  /// it; reads ignore `If-Match`.
  @Test func ifMatchIsCheckedAfterTheRequestItselfAndOnlyOnWrites() {
    let stale = #""0-0""#
    let malformed = api.call("POST", "/v1/apps/mail/events", #"{"type":"fly"}"#, ifMatch: stale)
    #expect(malformed.status == 422)
    #expect(
      api.call("POST", "/v1/apps/nope/events", #"{"type":"launch"}"#, ifMatch: stale).status == 404)
    #expect(api.call("DELETE", "/v1/apps/nope", ifMatch: stale).status == 404)
    #expect(api.call("POST", "/v1/devices/nope/reset", ifMatch: stale).status == 404)
    #expect(
      api.call("POST", "/v1/devices/default/clock/advance", #"{}"#, ifMatch: stale).status == 422)
    let read = api.call("GET", "/v1/apps/mail", ifMatch: stale)
    #expect(read.status == 200)
    let garbage = api.call("POST", "/v1/devices/default/reset", ifMatch: "garbage")
    #expect(garbage.status == 412)
    #expect(
      garbage.body.contains(#"If-Match garbage is not * or a list of entity tags such as \"1-"#))
    for (method, path, body) in [
      ("POST", "/v1/apps", #"{"name":"maps"}"#), ("DELETE", "/v1/apps/mail", nil),
      ("POST", "/v1/devices/default/events", #"{"type":"lock"}"#),
      ("POST", "/v1/devices/default/reset", nil),
    ] {
      #expect(api.call(method, path, body, ifMatch: stale).status == 412, "\(method) \(path)")
    }
    #expect(api.call("GET", "/v1/apps/mail").json?["state"] == .string("background"))
    #expect(api.call("GET", "/v1/apps/maps").status == 404)
  }
}
