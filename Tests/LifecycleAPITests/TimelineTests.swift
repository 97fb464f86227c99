import Foundation
import Testing

@testable import LifecycleAPI
@testable import LifecycleEngine

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The journal drawn (`GET /v1/devices/{device}/timeline.svg`): byte-exact pictures of a few
/// scenarios, well-formed XML, escaped text, and a bounded size for a full journal.
///
/// The expected pictures are the files in `Timelines/`; after a deliberate change to the
/// drawing, `LIFECYCLED_RECORD_TIMELINES=1 swift test --filter 'TimelineTests|WalkthroughTests'`
/// writes them again, the README walkthrough's too (then look at them before committing).
@Suite struct TimelineTests {
  let api = APITests()

  private func post(_ path: String, _ body: String) {
    let answer = api.call("POST", path, body)
    #expect((200...201).contains(answer.status), "\(path) \(body): \(answer.body)")
  }

  private func timeline(_ query: String = "") -> String {
    let answer = api.call("GET", "/v1/devices/demo/timeline.svg" + query)
    #expect(answer.status == 200, "\(answer.body)")
    #expect(
      answer.headers["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'")
    return answer.body
  }

  /// The picture is the expected one, byte for byte, and well-formed.
  private func expect(_ picture: String, matches name: String) throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Timelines/\(name).svg")
    if ProcessInfo.processInfo.environment["LIFECYCLED_RECORD_TIMELINES"] != nil {
      try picture.write(to: file, atomically: true, encoding: .utf8)
    }
    #expect(picture == (try String(contentsOf: file, encoding: .utf8)), "\(name).svg")
    #expect(Self.isWellFormed(picture))
  }

  static func isWellFormed(_ picture: String) -> Bool {
    XMLParser(data: Data(picture.utf8)).parse()
  }

  init() {
    post("/v1/devices", #"{"id":"demo","clock":"manual","memoryLimitMB":300,"passcode":false}"#)
  }

  @Test func aLaunchAndHome() throws {
    post("/v1/devices/demo/apps", #"{"name":"mail"}"#)
    post("/v1/devices/demo/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":3}"#)
    post("/v1/devices/demo/apps/mail/events", #"{"type":"launch"}"#)
    post("/v1/devices/demo/events", #"{"type":"lock"}"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":3}"#)
    try expect(timeline(), matches: "launch-and-home")
  }

  /// The last picture is kept, counted in the budget, and drawn again once the device, the
  /// query or the path changes.
  @Test func theLastPictureIsKeptUntilTheDeviceChanges() {
    post("/v1/devices/demo/apps", #"{"name":"mail"}"#)
    let engine = api.api.engine
    let before = engine.retainedBytes
    let first = timeline()
    #expect(engine.retainedBytes >= before + first.utf8.count)
    #expect(timeline() == first)
    post("/v1/devices/demo/apps/mail/events", #"{"type":"launch"}"#)
    let launched = timeline()
    #expect(launched != first && launched.contains("willFinishLaunching"))
    #expect(timeline("?kind=transition") != launched)
    post("/v1/devices/demo/events", #"{"type":"lock"}"#)
    let app = api.call("GET", "/v1/devices/demo/apps/mail/timeline.svg").body
    // The device's picture has the lock on the device's lane; the app's does not.
    #expect(app != timeline() && app.contains("willFinishLaunching"))
  }

  /// Costly reads are made off the loop: the request waits; others for the same answer wait
  /// for that one, and past `CostlyReads.limit` being made at once a new one is refused. The
  /// last one made is kept, and answers at once until its device changes.
  @Test func picturesAreDrawnOffTheLoopOncePerPicture() {
    post("/v1/devices/demo/apps", #"{"name":"mail"}"#)
    func ask(_ query: String, exchange: UInt64) -> Int {
      api.api.handle(
        APIRequest(
          method: "GET", path: "/v1/devices/demo/timeline.svg",
          query: query.isEmpty ? nil : query[...], exchange: exchange),
        now: .zero)?.status ?? 0
    }
    #expect(ask("", exchange: 1) == 0 && ask("", exchange: 2) == 0)
    for (index, kind) in ["event", "callback", "transition"].enumerated() {
      #expect(ask("kind=\(kind)", exchange: UInt64(3 + index)) == 0)
    }
    let refused = api.call("GET", "/v1/devices/demo/snapshot", exchange: 6)
    #expect(refused.status == 503 && refused.headers["Retry-After"] == "1")
    #expect(refused.body.contains("4 pictures and snapshots are being made already"))
    let reads = api.api.takeOffLoopWork()
    #expect(reads.count == 4)
    for read in reads {
      read.run()
      read.finish(.zero)
    }
    let answers = api.api.takeLateAnswers()
    #expect(answers.map(\.exchange).sorted() == [1, 2, 3, 4, 5])
    #expect(ask("kind=transition", exchange: 7) == 200)  // the last made is kept: at once
    #expect(ask("kind=event", exchange: 8) == 0)
    #expect(api.api.doDeferredWorkHere(now: .zero) && !api.api.doDeferredWorkHere(now: .zero))
  }

  @Test func aFetchThatTimesOut() throws {
    post("/v1/devices/demo/apps", #"{"name":"news","backgroundModes":["fetch"]}"#)
    post("/v1/devices/demo/apps/news/events", #"{"type":"backgroundLaunch","reason":"fetch"}"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":40}"#)
    try expect(timeline(), matches: "fetch-timeout")
  }

  @Test func jetsamUnderPressure() throws {
    post("/v1/devices/demo/apps", #"{"name":"mail","lifecycle":"appDelegate"}"#)
    post("/v1/devices/demo/apps", #"{"name":"game","memoryMB":250}"#)
    post("/v1/devices/demo/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":5}"#)
    post("/v1/devices/demo/apps/game/events", #"{"type":"launch"}"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":5}"#)
    try expect(timeline(), matches: "jetsam")
  }

  /// A suspension and a kill at the same instant: the kill shows, the title names both.
  @Test func aKillAtTheInstantOfASuspensionShows() throws {
    post("/v1/devices/demo/apps", #"{"name":"mail","lifecycle":"appDelegate"}"#)
    post("/v1/devices/demo/apps", #"{"name":"game","memoryMB":250}"#)
    post("/v1/devices/demo/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    post("/v1/devices/demo/apps/game/events", #"{"type":"launch"}"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":5}"#)  // suspended at 2 s, then jetsam
    let picture = timeline()
    let kill = ##"<path d="M481.1 205l8 8m0 -8l-8 8" stroke="#d0021b" stroke-width="2">"##
    #expect(picture.contains(kill + "<title>suspension, jetsam</title></path>"))
    #expect(picture.contains(##"fill="#d0021b">jetsam +1</text>"##))
    #expect(!picture.contains("suspension +1"))
  }

  /// An app with two scenes: a lane for each under the app's, with the scene's state (as the
  /// app's, suspended with it, unattached once it is killed) and its own callbacks.
  @Test func twoScenes() throws {
    post("/v1/devices/demo/apps", #"{"name":"docs","supportsMultipleScenes":true}"#)
    post(
      "/v1/devices/demo/apps/docs/events",
      #"[{"type":"launch"},{"type":"openScene","scene":"draft"}]"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":2}"#)
    post("/v1/devices/demo/apps/docs/events", #"{"type":"home"}"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":5}"#)
    post("/v1/devices/demo/apps/docs/events", #"{"type":"purge","reason":"highwater"}"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":1}"#)
    try expect(timeline(), matches: "two-scenes")
  }

  /// At most `maxSceneLanes` scenes of an app get a lane, the first to appear; the callbacks
  /// of later ones are drawn on the app's lane, named with their scene.
  @Test func sceneLanesAreBounded() {
    post("/v1/devices/demo/apps", #"{"name":"docs","supportsMultipleScenes":true}"#)
    post("/v1/devices/demo/apps/docs/events", #"{"type":"launch"}"#)
    for index in 1...20 {  // each scene's callbacks a second apart, so that marks stay apart
      post("/v1/devices/demo/apps/docs/events", #"{"type":"openScene","scene":"s\#(index)"}"#)
      post("/v1/devices/demo/clock/advance", #"{"seconds":1}"#)
      post("/v1/devices/demo/apps/docs/events", #"{"type":"closeScene","scene":"s\#(index)"}"#)
      post("/v1/devices/demo/clock/advance", #"{"seconds":1}"#)
    }
    let picture = timeline()
    let lanes = picture.split(separator: "\n").filter { $0.contains(##"fill="#555555">"##) }
      .map { $0.split(separator: ">")[1].split(separator: "<")[0] }
    #expect(lanes == ["main"] + (1...15).map { "s\($0)" })
    #expect(TimelineSVG.maxSceneLanes == 16)
    #expect(
      picture.contains(
        "<title>sceneWillResignActive@s20, sceneDidDisconnect@s20, didDiscardSceneSessions</title>"
      ))
    #expect(!picture.contains("@s15"))
  }

  /// The filters are the journal's, with a window of device time.
  @Test func filtersAndAWindowSelectWhatIsDrawn() {
    post("/v1/devices/demo/apps", #"{"name":"mail"}"#)
    post("/v1/devices/demo/apps", #"{"name":"notes"}"#)
    post("/v1/devices/demo/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    post("/v1/devices/demo/clock/advance", #"{"seconds":10}"#)
    post("/v1/devices/demo/apps/notes/events", #"{"type":"launch"}"#)
    let mail = timeline("?app=mail&to=5")
    #expect(mail.contains(">mail</text>") && !mail.contains(">notes</text>"))
    #expect(mail.contains(">suspension</text>"))
    #expect(mail.contains(">end 5 s</text>") && !mail.contains(">10 s</text>"))
    let refused = api.call("GET", "/v1/devices/demo/timeline.svg?from=-1")
    #expect(refused.status == 422)
    #expect(refused.body.contains(#"{"field":"from""#))
    #expect(api.call("GET", "/v1/devices/nowhere/timeline.svg").status == 404)
  }

  /// Ticks are whole steps (ten steps of 0.2 s are 2 s, not 1.9999…), the end's label takes
  /// the place of a tick's it would cover, and it says the end to the millisecond.
  @Test func theAxisLabelsDoNotOverlap() {
    let labels = { (seconds: Double) in
      String(
        decoding: TimelineSVG(title: "axis", entries: [], start: .zero, end: .seconds(seconds))
          .bytes, as: UTF8.self
      )
      .split(separator: "\n").filter { $0.contains(#"y="44""#) }
      .map { $0.split(separator: ">")[1].split(separator: "<")[0] }
    }
    #expect(
      labels(2) == [
        "0 s", "0.2 s", "0.4 s", "0.6 s", "0.8 s", "1 s", "1.2 s", "1.4 s", "1.6 s", "1.8 s",
        "end 2 s",
      ])
    #expect(
      labels(1.81) == [
        "0 s", "0.2 s", "0.4 s", "0.6 s", "0.8 s", "1 s", "1.2 s", "1.4 s", "1.6 s", "end 1.81 s",
      ])
  }

  @Test func textIsEscaped() {
    let picture = String(
      decoding: TimelineSVG(
        title: #"<script>alert("x & 'y'")</script>"#, entries: [], start: .zero, end: .seconds(1)
      ).bytes, as: UTF8.self)
    #expect(!picture.contains("<script>"))
    #expect(
      picture.contains(">&lt;script&gt;alert(&quot;x &amp; &apos;y&apos;&quot;)&lt;/script&gt;<"))
    #expect(Self.isWellFormed(picture))
  }

  /// A full journal (10,000 entries, 80 apps) draws 64 lanes and says how many more there
  /// were, in under 4 MB.
  @Test func aFullJournalStaysBounded() {
    for index in 0..<80 {
      post("/v1/devices/demo/apps", #"{"name":"app\#(index)","memoryMB":1}"#)
    }
    var posts = 0
    while api.call("GET", "/v1/devices/demo").json?["counters"]?["journalEntries"]
      != .integer(10_000)
    {
      let app = "app\(posts % 80)"
      post(
        "/v1/devices/demo/apps/\(app)/events",
        #"[{"type":"launch"},{"type":"home"},{"type":"beginBackgroundTask"}]"#)
      post("/v1/devices/demo/clock/advance", #"{"seconds":0.5}"#)
      posts += 1
    }
    let picture = timeline()
    #expect(picture.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg""#))
    #expect(picture.utf8.count < 4 << 20)
    #expect(picture.contains(">and 16 more apps, not drawn: filter with app=</text>"))
    #expect(Self.isWellFormed(picture))
  }
}
