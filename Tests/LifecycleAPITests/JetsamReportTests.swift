import JSONCore
import Testing

/// A jetsam event read as the report "Identifying high-memory use with jetsam event reports"
/// describes: the header's `memoryStatus.pageSize` and `largestProcess`, then every process
/// with `name`, `rpages`, `states` and, for the killed ones, `reason`.
@Suite struct JetsamReportTests {
  let api = APITests()

  /// Two suspended apps die to make room for a 600 MB game, largest first; later a purge
  /// kills the background worker: two events, the first with two kills.
  init() {
    api.post("/v1/devices", #"{"id":"r","memoryLimitMB":1000,"perAppLimitMB":700}"#)
    for (name, megabytes) in [("small", 300), ("large", 400), ("worker", 200), ("game", 600)] {
      api.post("/v1/devices/r/apps", #"{"name":"\#(name)","memoryMB":\#(megabytes)}"#)
    }
    for name in ["small", "large"] {
      api.post("/v1/devices/r/apps/\(name)/events", #"[{"type":"launch"},{"type":"home"}]"#)
      api.post("/v1/devices/r/clock/advance", #"{"seconds":2}"#)
    }
    api.post(
      "/v1/devices/r/apps/worker/events",
      #"[{"type":"launch"},{"type":"beginBackgroundTask"},{"type":"home"}]"#)
    api.post("/v1/devices/r/apps/game/events", #"{"type":"launch"}"#)
    api.post("/v1/devices/r/clock/advance", #"{"seconds":1.5}"#)
    api.post("/v1/devices/r/apps/worker/events", #"{"type":"purge","reason":"highwater"}"#)
  }

  @Test func eachKillNamesItsEvent() {
    #expect(
      api.call("GET", "/v1/devices/r/jetsam").body
        == #"{"kills":["#
        + #"{"jetsamEvent":1,"time":4.0,"app":"large","reason":"vm-pageshortage","footprintMB":400,"state":"suspended"},"#
        + #"{"jetsamEvent":1,"time":4.0,"app":"small","reason":"vm-pageshortage","footprintMB":300,"state":"suspended"},"#
        + #"{"jetsamEvent":2,"time":5.5,"app":"worker","reason":"highwater","footprintMB":200,"state":"background"}"#
        + #"],"dropped":0}"#)
  }

  /// The report of the first event, field by field against the article's: the page size and
  /// largest process in the header; each process's resident pages (MB × 1 MiB / 16 KiB),
  /// `states` (`frontmost`, `suspended`), and the reason of the ones killed.
  @Test func theReportHasApplesShape() throws {
    let answer = api.call("GET", "/v1/devices/r/jetsam/1/report")
    #expect(answer.status == 200)
    let report = try #require(answer.json)
    #expect(report["memoryStatus"]?["pageSize"] == .integer(16_384))
    #expect(report["largestProcess"] == .string("game"))
    #expect(report["time"] == .double(4))
    guard case .array(let processes)? = report["processes"] else {
      return #expect(Bool(false), "\(answer.body)")
    }
    let expected: [(name: String, rpages: Int, states: [String], reason: String?, state: String)] =
      [
        ("large", 25_600, ["suspended"], "vm-pageshortage", "suspended"),
        ("small", 19_200, ["suspended"], "vm-pageshortage", "suspended"),
        ("game", 38_400, ["frontmost"], nil, "active"),
        ("worker", 12_800, [], nil, "background"),
      ]
    #expect(processes.count == expected.count)
    for (process, expected) in zip(processes, expected) {
      #expect(process["name"] == .string(expected.name))
      #expect(process["rpages"] == .integer(expected.rpages))
      #expect(process["states"] == .array(expected.states.map(JSON.string)))
      #expect(process["reason"] == expected.reason.map(JSON.string))
      #expect(process["state"] == .string(expected.state))
    }
    #expect(
      answer.body
        == #"{"time":4.0,"product":"iPhone16,1","build":"iPhone OS 26.1 (23B85)","memoryStatus":{"pageSize":16384},"largestProcess":"game","processes":["#
        + #"{"name":"large","rpages":25600,"states":["suspended"],"reason":"vm-pageshortage","state":"suspended"},"#
        + #"{"name":"small","rpages":19200,"states":["suspended"],"reason":"vm-pageshortage","state":"suspended"},"#
        + #"{"name":"game","rpages":38400,"states":["frontmost"],"state":"active"},"#
        + #"{"name":"worker","rpages":12800,"states":[],"state":"background"}]}"#)
  }

  /// A purge is an event of its own, with the processes it left.
  @Test func aPurgeMakesAnEventOfItsOwn() {
    #expect(
      api.call("GET", "/v1/devices/r/jetsam/2/report").body
        == #"{"time":5.5,"product":"iPhone16,1","build":"iPhone OS 26.1 (23B85)","memoryStatus":{"pageSize":16384},"largestProcess":"game","processes":["#
        + #"{"name":"worker","rpages":12800,"states":[],"reason":"highwater","state":"background"},"#
        + #"{"name":"game","rpages":38400,"states":["frontmost"],"state":"active"}]}"#)
  }

  @Test func anEventTheLogDoesNotKeepIs404() {
    let missing = api.call("GET", "/v1/devices/r/jetsam/3/report")
    #expect(missing.status == 404)
    #expect(
      missing.json?["detail"]
        == .string("no jetsam event 3 on device 'r': its log keeps events 1 to 2"))
    #expect(
      api.call("GET", "/v1/devices/default/jetsam/1/report").json?["detail"]
        == .string("no jetsam event 1 on device 'default': it has had none"))
    #expect(api.call("GET", "/v1/devices/nowhere/jetsam/1/report").status == 404)
    #expect(api.call("GET", "/v1/devices/r/jetsam/0/report").status == 404)
    #expect(api.call("DELETE", "/v1/devices/r/jetsam/1/report").status == 405)
  }

  @Test func aDroppedEventIs404AndItsKillsAreCounted() {
    let api = APITests { $0.limits.jetsamLogCapacity = 1 }
    api.post("/v1/apps", #"{"name":"mail"}"#)
    for _ in 0..<2 {
      api.post("/v1/apps/mail/events", #"[{"type":"launch"},{"type":"purge"}]"#)
    }
    #expect(
      api.call("GET", "/v1/devices/default/jetsam/1/report").json?["detail"]
        == .string(
          "no jetsam event 1 on device 'default': its log keeps events 2 to 2 "
            + "(older ones are dropped: jetsamLogSize)"))
    #expect(
      api.call("GET", "/v1/devices/default/jetsam").body
        == #"{"kills":[{"jetsamEvent":2,"time":0.0,"app":"mail","reason":"vm-pageshortage","#
        + #""footprintMB":100,"state":"active"}],"dropped":1}"#)
  }

  /// A restored device's jetsam log starts afresh, as its journal does.
  @Test func aRestoredDeviceStartsAfresh() {
    let snapshot = api.call("GET", "/v1/devices/r/snapshot").body
    #expect(api.call("PUT", "/v1/devices/r", snapshot).status == 200)
    #expect(api.call("GET", "/v1/devices/r/jetsam").body == #"{"kills":[],"dropped":0}"#)
    #expect(api.call("GET", "/v1/devices/r/jetsam/1/report").status == 404)
  }
}
