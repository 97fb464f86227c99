import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The journal as Server-Sent Events: what each stream is sent, byte for byte, and when it
/// ends. Live sockets are in `LifecycledServiceTests` (`StreamLiveTests`).
@Suite struct StreamTests {
  let api = APITests { $0.limits.journalCapacity = 12 }

  init() {
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
  }

  /// What the streams were sent since the last call, by exchange: the text of their pieces,
  /// the head's response if one began, and whether each ended.
  struct Sent {
    var head: APITests.Answer?
    var heartbeatMilliseconds: Int64?
    var text = ""
    var ended = false
  }

  /// The parts the API has ready once the server's loop ends its turn.
  static func parts(_ api: APITests) -> [LateAnswer] {
    api.api.flushStreams(now: .zero)
    return api.api.takeLateAnswers()
  }

  func sent() -> [UInt64: Sent] {
    var sent: [UInt64: Sent] = [:]
    for late in Self.parts(api) {
      switch late.part {
      case .response: Issue.record("a whole response for \(late.exchange)")
      case .streamHead(let head, _, let interval, let farewell):
        #expect(
          String(decoding: farewell, as: UTF8.self)
            == "event: end\ndata: {\"reason\":\"behind\"}\n\n")
        sent[late.exchange, default: Sent()].head = APITests.answer(head)
        sent[late.exchange, default: Sent()].heartbeatMilliseconds = interval
        sent[late.exchange, default: Sent()].text += String(decoding: head.body, as: UTF8.self)
      case .streamPiece(let piece):
        sent[late.exchange, default: Sent()].text += String(decoding: piece, as: UTF8.self)
      case .streamEnd:
        sent[late.exchange, default: Sent()].ended = true
      }
    }
    return sent
  }

  /// The journal entries after `since` as `/journal` shows them, each with its seq.
  func entries(after since: Int) -> [Event] {
    guard
      case .array(let entries)? = api.call("GET", "/v1/devices/default/journal?since=\(since)")
        .json?["entries"]
    else { return [] }
    return entries.map { entry in
      let seq = entry["seq"] ?? entry["callback"]?["seq"] ?? entry["transition"]?["seq"]
      guard case .integer(let seq)? = seq else { return Event(name: "?") }
      return Event(id: "\(incarnation)-\(seq)", data: entry)
    }
  }

  /// The default device's incarnation, as its `ETag` names it: the first part of every id.
  var incarnation: String {
    let tag = api.call("GET", "/v1/devices/default").headers["ETag"] ?? ""
    return String(tag.dropFirst().prefix { $0 != "-" })
  }

  /// One event of a stream, its data read as JSON.
  struct Event: Equatable {
    var name: String?
    var id: String?
    var data: JSON?
  }

  /// The events of a stream's text, which must be whole events of `id`, `event` and `data`
  /// lines (the data one line of JSON).
  static func events(_ text: String) -> [Event] {
    guard text.hasSuffix("\n\n") || text.isEmpty else {
      Issue.record("a partial event: \(text)")
      return []
    }
    return text.components(separatedBy: "\n\n").dropLast().map { block in
      var event = Event()
      for line in block.split(separator: "\n") {
        if line.hasPrefix("event: ") {
          event.name = String(line.dropFirst(7))
        } else if line.hasPrefix("id: ") {
          event.id = String(line.dropFirst(4))
        } else if line.hasPrefix("data: ") {
          event.data = try? JSON.parse(Array(line.dropFirst(6).utf8))
        } else {
          Issue.record("an unexpected line: \(line)")
        }
      }
      return event
    }
  }

  @Test func aStreamReplaysTheJournalThenSendsEachNewEntry() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(api.call("GET", "/v1/devices/default/journal/stream", exchange: 3).status == 0)
    let opened = sent()[3]
    #expect(opened?.head?.status == 200)
    #expect(opened?.head?.headers["X-Accel-Buffering"] == "no")
    #expect(opened?.head?.headers["ETag"] != nil)
    #expect(opened?.heartbeatMilliseconds == 15_000)
    #expect(Self.events(opened?.text ?? "") == entries(after: 0))
    #expect(opened?.text.hasPrefix("id: 1-1\ndata: {\"kind\":\"event\",\"seq\":1,") == true)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    let next = sent()
    #expect(next.keys.sorted() == [3])
    #expect(Self.events(next[3]?.text ?? "") == entries(after: 10))
    #expect(next[3]?.ended == false)
    api.call("GET", "/v1/apps/mail")
    #expect(sent().isEmpty)  // nothing new, nothing sent
  }

  @Test func lastEventIDResumesWithoutGapOrRepeatAndOverridesSince() {
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    api.call(
      "GET", "/v1/devices/default/journal/stream?since=1", lastEventID: "1-4", exchange: 1)
    #expect(Self.events(sent()[1]?.text ?? "") == entries(after: 4))
  }

  /// `since=latest` starts after the device's last entry when the stream opens: nothing of
  /// the past, then each new entry.
  @Test func sinceLatestStreamsOnlyWhatHappensFromNow() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let seen = entries(after: 0).last?.id
    api.call("GET", "/v1/devices/default/journal/stream?since=latest", exchange: 1)
    let opened = sent()[1]
    #expect(opened?.head?.status == 200)
    #expect(Self.events(opened?.text ?? "") == [])
    api.call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    let next = entries(after: 0).drop { $0.id != seen }.dropFirst()
    #expect(!next.isEmpty)
    #expect(Self.events(sent()[1]?.text ?? "") == Array(next))
  }

  @Test func filtersSelectTheEntriesStreamed() {
    api.call(
      "GET", "/v1/devices/default/journal/stream?kind=transition&since=0", exchange: 1)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let text = sent()[1]?.text ?? ""
    #expect(text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.count == 3)
    #expect(
      text.components(separatedBy: "data: ").dropFirst().allSatisfy {
        $0.hasPrefix(#"{"kind":"transition""#)
      })
  }

  @Test func entriesGoneFromTheJournalAreReportedAsDropped() {
    for _ in 0..<3 { api.call("POST", "/v1/apps/mail/events", #"{"type":"memoryWarning"}"#) }
    // The journal keeps the newest 12 entries: the first ones are gone.
    api.call(
      "POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"},{"type":"launch"}]"#)
    guard let oldest = entries(after: 0).first?.id else {
      Issue.record("no journal")
      return
    }
    api.call("GET", "/v1/devices/default/journal/stream", lastEventID: "1-2", exchange: 1)
    let text = sent()[1]?.text ?? ""
    let resumesAfter = (oldest.split(separator: "-").last.flatMap { Int($0) } ?? 0) - 1
    #expect(
      text.hasPrefix(
        "event: dropped\nid: 1-\(resumesAfter)\ndata: {\"after\":2,\"resumesAfter\":\(resumesAfter)}\n\n"
      ))
    #expect(Self.events(text).dropFirst().elementsEqual(entries(after: 0)))
  }

  @Test func anIDFromAFormerDeviceIsReportedAsDroppedAndTheStreamStartsOver() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    api.call("GET", "/v1/devices/default/journal/stream", lastEventID: "1-900", exchange: 1)
    let text = sent()[1]?.text ?? ""
    #expect(text.hasPrefix("event: dropped\nid: 1-0\ndata: {\"after\":900,\"resumesAfter\":0}\n\n"))
    #expect(Self.events(text).dropFirst().elementsEqual(entries(after: 0)))
  }

  /// Seqs start over when a device is reset, replaced or re-created; stream ids carry the
  /// incarnation, so an id from before is told apart: the stream reports it as `dropped` and
  /// starts from the oldest entry kept, whatever the seq it named.
  @Test(
    arguments: [
      ("POST", "/v1/devices/ci/reset", nil),
      ("DELETE", "/v1/devices/ci", nil),
      ("PUT", "/v1/devices/ci", #"{"id":"ci"}"#),
    ] as [(String, String, String?)])
  func anIDFromAnEarlierIncarnationIsReportedAsDropped(method: String, path: String, body: String?)
  {
    api.call("POST", "/v1/devices", #"{"id":"ci"}"#)
    let warn = #"[{"type":"memoryWarning"},{"type":"memoryWarning"},{"type":"memoryWarning"}]"#
    api.call("POST", "/v1/devices/ci/events", warn)
    api.call("GET", "/v1/devices/ci/journal/stream", exchange: 1)
    let first = sent()[1]?.text ?? ""
    let lastID = first.split(separator: "\n").last { $0.hasPrefix("id: ") }.map {
      String($0.dropFirst(4))
    }
    api.call(method, path, body)
    if method == "DELETE" { api.call("POST", "/v1/devices", #"{"id":"ci"}"#) }
    for _ in 0..<2 { api.call("POST", "/v1/devices/ci/events", warn) }
    let incarnation =
      api.call("GET", "/v1/devices/ci").headers["ETag"]?.dropFirst().prefix { $0 != "-" } ?? ""
    api.call("GET", "/v1/devices/ci/journal/stream", lastEventID: lastID ?? "", exchange: 2)
    let resumed = Self.events(sent()[2]?.text ?? "")
    #expect(lastID == "2-3")
    #expect(
      resumed.first
        == Event(
          name: "dropped", id: "\(incarnation)-0", data: json(#"{"after":3,"resumesAfter":0}"#)))
    #expect(resumed.dropFirst().map(\.id) == (1...6).map { "\(incarnation)-\($0)" })
  }

  /// A device restored from a snapshot numbers its journal after the snapshot's seq: a
  /// stream from 0 gets what is there, with no `dropped`, as no entry was lost.
  @Test func aStreamFromTheStartOfARestoredDeviceMissesNothing() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let snapshot = api.call("GET", "/v1/devices/default/snapshot").body
    #expect(api.call("PUT", "/v1/devices/default", snapshot).status == 200)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    api.call("GET", "/v1/devices/default/journal/stream?since=0", exchange: 1)
    let events = Self.events(sent()[1]?.text ?? "")
    #expect(events == entries(after: 0))
    #expect(events.first?.id == "2-11")
  }

  @Test func aStreamEndsWhenItsDeviceIsResetOrRemoved() {
    api.call("POST", "/v1/devices", #"{"id":"ci"}"#)
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 1)
    api.call("GET", "/v1/devices/ci/journal/stream", exchange: 2)
    _ = sent()
    api.call("POST", "/v1/devices/default/reset")
    api.call("DELETE", "/v1/devices/ci")
    let ended = sent()
    #expect(ended[1]?.text == "event: end\ndata: {\"reason\":\"deviceReset\"}\n\n")
    #expect(ended[2]?.text == "event: end\ndata: {\"reason\":\"deviceRemoved\"}\n\n")
    #expect(ended[1]?.ended == true && ended[2]?.ended == true)
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(sent().isEmpty)  // forgotten
  }

  @Test func shuttingDownEndsEveryStream() {
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 1)
    _ = sent()
    api.api.shutDown(now: .zero)
    let ended = sent()[1]
    #expect(ended?.text == "event: end\ndata: {\"reason\":\"shutdown\"}\n\n")
    #expect(ended?.ended == true)
  }

  @Test func anAbandonedStreamIsForgottenWithWhatWasReadyForIt() {
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 1)
    api.api.abandon(exchange: 1, now: .zero)
    #expect(sent().isEmpty)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(sent().isEmpty)
  }

  @Test func streamsInTheSamePlaceShareTheirBytes() {
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 1)
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 2)
    api.call("GET", "/v1/devices/default/journal/stream?kind=event", exchange: 3)
    _ = sent()
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let pieces = Self.parts(api).compactMap { late -> [UInt8]? in
      guard case .streamPiece(let piece) = late.part else { return nil }
      return piece
    }
    #expect(pieces.count == 3)
    #expect(pieces[0] == pieces[1])
    #expect(pieces[2] != pieces[0])
    #expect(
      pieces[0].withUnsafeBufferPointer { $0.baseAddress }
        == pieces[1].withUnsafeBufferPointer { $0.baseAddress })
  }

  @Test func aLongJournalIsReplayedABatchAtATimeAsTheClientDrains() {
    let long = APITests()
    long.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    long.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    for _ in 0..<25 {
      long.call(
        "POST", "/v1/apps/mail/events",
        "[" + Array(repeating: #"{"type":"memoryWarning"}"#, count: 100).joined(separator: ",")
          + "]")
    }
    long.call("GET", "/v1/devices/default/journal/stream", exchange: 1)
    var text = ""
    var batches = 0
    while true {
      let parts = Self.parts(long)
      guard !parts.isEmpty else { break }
      for part in parts {
        switch part.part {
        case .streamHead(let head, _, _, _): text += String(decoding: head.body, as: UTF8.self)
        case .streamPiece(let piece): text += String(decoding: piece, as: UTF8.self)
        default: Issue.record("unexpected part")
        }
        batches += 1
      }
      if batches == 2 {  // recorded while the stream catches up: sent in its turn
        long.call("POST", "/v1/apps/mail/events", #"{"type":"memoryWarning"}"#)
        #expect(Self.parts(long).isEmpty)
      }
      long.api.streamDrained(exchange: 1, now: .zero)
    }
    let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map {
      Int($0.dropFirst(4).drop { $0 != "-" }.dropFirst())!
    }
    #expect(ids == Array((0..<ids.count).map { $0 + 1 }))
    #expect(ids.count > 4000)
    #expect(batches > 10)
  }

  @Test func headAnswersTheStreamsHeadAlone() {
    let answer = api.call("HEAD", "/v1/devices/default/journal/stream")
    #expect(answer.status == 200)
    #expect(answer.body == "")
    #expect(sent().isEmpty)
  }

  @Test func streamsAreBoundedAnd503Beyond() {
    for exchange in 1...UInt64(Streams.limit) {
      #expect(api.call("GET", "/v1/devices/default/journal/stream", exchange: exchange).status == 0)
    }
    let refused = api.call("GET", "/v1/devices/default/journal/stream", exchange: 999)
    #expect(refused.status == 503)
    #expect(refused.json?["type"] == .string("urn:lifecycled:problem:too-many-streams"))
    #expect(refused.headers["Retry-After"] == "1")
    api.api.abandon(exchange: 1, now: .zero)
    #expect(api.call("GET", "/v1/devices/default/journal/stream", exchange: 1000).status == 0)
  }

  @Test func badRequestsAreRefusedAndOpenNothing() {
    #expect(api.call("GET", "/v1/devices/nope/journal/stream", exchange: 1).status == 404)
    for id in [
      "x", "4", "+1-4", "1-+4", "1-4-5", "-4", "1-", " 1-4", "1-4 ", "1-0x4",
      "1-1234567890123456789",
    ] {
      let refused = api.call(
        "GET", "/v1/devices/default/journal/stream", lastEventID: id, exchange: 2)
      #expect(refused.status == 422, "\(id)")
      #expect(
        refused.json?["detail"]
          == .string(
            "Last-Event-ID must be the id of an event of the stream: its incarnation and seq, as 3-41"
          ))
    }
    #expect(
      api.call("GET", "/v1/devices/default/journal/stream?heartbeat=0.01", exchange: 3).status
        == 422)
    #expect(
      api.call("GET", "/v1/devices/default/journal/stream?kind=nope", exchange: 4).status == 422)
    #expect(
      api.call("GET", "/v1/devices/default/journal/stream?limit=3", exchange: 5).status == 422)
    // A Last-Event-ID overrides `since`, but does not make a malformed one acceptable.
    #expect(
      api.call(
        "GET", "/v1/devices/default/journal/stream?since=-5", lastEventID: "1-0", exchange: 7
      ).status == 422)
    #expect(sent().isEmpty)
    api.call("GET", "/v1/devices/default/journal/stream?heartbeat=0.5", exchange: 6)
    #expect(sent()[6]?.heartbeatMilliseconds == 500)
  }
}

extension StreamTests {
  @Test func aStreamWithATimeoutEndsWhenItIsUp() {
    api.call("GET", "/v1/devices/default/journal/stream?timeout=1.5", exchange: 1)
    api.call("GET", "/v1/devices/default/journal/stream", exchange: 2)
    _ = sent()
    #expect(api.api.nextDeadline == .milliseconds(1500))
    api.api.fireDeadlines(now: .milliseconds(1499))
    #expect(sent().isEmpty)
    api.api.fireDeadlines(now: .milliseconds(1500))
    let ended = sent()
    #expect(ended.keys.sorted() == [1])
    #expect(ended[1]?.text == "event: end\ndata: {\"reason\":\"timeout\"}\n\n")
    #expect(ended[1]?.ended == true)
    #expect(api.api.nextDeadline == nil)
  }
}
