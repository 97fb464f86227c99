import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// Long polls: `?waitFor=` on an app and `?wait=` on the journal, answered when their
/// condition holds, at their timeout, or when the server shuts down.
@Suite struct WaitTests {
  let api = APITests()

  init() {
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/apps", #"{"name":"notes"}"#)
  }

  @Test func aConditionThatHoldsIsAnsweredAtOnce() {
    let answer = api.call("GET", "/v1/apps/mail?waitFor=notRunning")
    #expect(answer.status == 200)
    #expect(answer.headers["Lifecycled-Wait"] == "met")
    #expect(answer.json?["state"] == .string("notRunning"))
  }

  @Test func aWaitIsAnsweredWhenAnotherRequestMeetsIt() {
    api.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    #expect(api.call("GET", "/v1/apps/mail?waitFor=suspended", exchange: 7).status == 0)
    #expect(api.lateAnswers().isEmpty)
    #expect(api.api.nextDeadline == .seconds(30))
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":1}"#)
    #expect(api.lateAnswers().isEmpty)
    api.call("POST", "/v1/devices/default/clock/advance", #"{"seconds":1}"#)
    let answers = api.lateAnswers()
    #expect(answers.keys.sorted() == [7])
    #expect(answers[7]?.status == 200)
    #expect(answers[7]?.json?["state"] == .string("suspended"))
    #expect(answers[7]?.headers["Lifecycled-Wait"] == "met")
    #expect(answers[7]?.headers["ETag"] == api.call("GET", "/v1/apps/mail").headers["ETag"])
    #expect(api.api.nextDeadline == nil)
    #expect(
      api.call("GET", "/metrics").body.contains(
        #"lifecycled_http_requests_total{route="/v1/devices/{device}/apps/{app}",status="200"} 2"#))
  }

  @Test func aWaitTimesOutWithTheCurrentView() {
    #expect(api.call("GET", "/v1/apps/mail?waitFor=active&timeout=1.5", exchange: 3).status == 0)
    #expect(api.api.nextDeadline == .milliseconds(1500))
    api.api.fireDeadlines(now: .milliseconds(1499))
    #expect(api.lateAnswers().isEmpty)
    api.api.fireDeadlines(now: .milliseconds(1500))
    let answer = api.lateAnswers()[3]
    #expect(answer?.status == 200)
    #expect(answer?.headers["Lifecycled-Wait"] == "timeout")
    #expect(answer?.json?["state"] == .string("notRunning"))
  }

  @Test func aRealtimeDeviceMeetsAWaitWhenItsDeadlineFires() {
    let realtime = APITests { $0.deviceDefaults.clock = .realtime }
    realtime.call("POST", "/v1/apps", #"{"name":"mail"}"#)
    realtime.call("POST", "/v1/apps/mail/events", #"[{"type":"launch"},{"type":"home"}]"#)
    #expect(realtime.call("GET", "/v1/apps/mail?waitFor=suspended", exchange: 1).status == 0)
    #expect(realtime.api.nextDeadline == .seconds(2))
    realtime.api.fireDeadlines(now: .seconds(2))
    #expect(realtime.lateAnswers()[1]?.json?["state"] == .string("suspended"))
  }

  @Test func aJournalWaitIsAnsweredByTheNextMatchingEntry() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    guard case .integer(let seq)? = api.call("GET", "/v1/devices/default/snapshot").json?["seq"]
    else {
      Issue.record("no seq")
      return
    }
    #expect(
      api.call(
        "GET", "/v1/devices/default/journal?since=\(seq)&wait=10&kind=transition", exchange: 4
      )
      .status == 0)
    #expect(
      api.call("GET", "/v1/devices/default/journal?since=\(seq)&wait=10", exchange: 5).status == 0)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"memoryWarning"}"#)
    let first = api.lateAnswers()
    #expect(first.keys.sorted() == [5])
    #expect(first[5]?.body.contains(#""kind":"event","seq":\#(seq + 1)"#) == true)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"home"}"#)
    let second = api.lateAnswers()
    #expect(second.keys.sorted() == [4])
    #expect(second[4]?.body.hasPrefix(#"{"entries":[{"kind":"transition""#) == true)
  }

  /// A device memory warning with no app running: one journal entry.
  private func warn() {
    api.call("POST", "/v1/devices/default/events", #"{"type":"memoryWarning"}"#)
  }

  /// A journal wait is matched against new entries only, each finding its waiters by the
  /// filters it matches: however long the journal and however many waits, an entry costs
  /// the same (`Waits.entriesMatched` counts the work).
  @Test func journalWaitsLookAtNewEntriesOnly() {
    for _ in 0..<100 { warn() }
    for exchange in 1...Waits.limit - 1 {
      let wait = api.call(
        "GET", "/v1/devices/default/journal?since=0&app=nosuch&wait=300",
        exchange: UInt64(exchange))
      #expect(wait.status == 0)
    }
    #expect(
      api.call("GET", "/v1/devices/default/journal?since=100&wait=300", exchange: 999).status == 0)
    let matched = api.api.waits.entriesMatched
    warn()
    warn()  // seq 101, 102
    #expect(api.api.waits.entriesMatched == matched + 2)
    let answers = api.lateAnswers()
    #expect(answers.keys.sorted() == [999])
    #expect(answers[999]?.headers["Lifecycled-Wait"] == "met")
  }

  /// A wait for entries after a seq the journal has not reached yet is not met by the
  /// entries before it.
  @Test func aJournalWaitAheadOfTheJournalWaitsForItsSeq() {
    #expect(
      api.call("GET", "/v1/devices/default/journal?since=3&wait=300", exchange: 1).status == 0)
    warn()
    warn()
    warn()  // seq 1 to 3
    #expect(api.lateAnswers().isEmpty)
    warn()
    let answer = api.lateAnswers()[1]
    #expect(answer?.headers["Lifecycled-Wait"] == "met")
    #expect(
      answer?.json?["entries"]
        == json(
          #"[{"kind":"event","seq":4,"time":0.0,"app":null,"event":{"type":"memoryWarning"}}]"#))
  }

  /// A device reset or replaced answers its waits at once, as the request would be answered.
  @Test func resettingTheDeviceAnswersItsWaits() {
    #expect(
      api.call("GET", "/v1/devices/default/journal?since=0&app=mail&wait=300", exchange: 1).status
        == 0)
    #expect(api.call("GET", "/v1/apps/notes?waitFor=active", exchange: 2).status == 0)
    api.call("POST", "/v1/devices/default/reset")
    let answers = api.lateAnswers()
    #expect(answers[1]?.status == 200)
    #expect(answers[1]?.headers["Lifecycled-Wait"] == "met")
    #expect(answers[2]?.status == 404)
  }

  @Test func waitsMetTogetherAreAnsweredInTheOrderTheyWereMade() {
    for exchange: UInt64 in [9, 2, 5] {
      #expect(api.call("GET", "/v1/apps/mail?waitFor=active", exchange: exchange).status == 0)
    }
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(api.api.takeLateAnswers().map(\.exchange) == [9, 2, 5])
  }

  @Test func removingTheAppAnswersItsWaitWith404() {
    #expect(api.call("GET", "/v1/apps/mail?waitFor=active", exchange: 1).status == 0)
    api.call("DELETE", "/v1/apps/mail")
    let answer = api.lateAnswers()[1]
    #expect(answer?.status == 404)
    #expect(answer?.headers["Lifecycled-Wait"] == nil)
  }

  @Test func anAbandonedWaitIsForgotten() {
    #expect(api.call("GET", "/v1/apps/mail?waitFor=active", exchange: 1).status == 0)
    api.api.abandon(exchange: 1, now: .zero)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    #expect(api.lateAnswers().isEmpty)
    #expect(api.api.nextDeadline == nil)
  }

  @Test func anAnswerReadyForAClientThatLeftIsDropped() {
    #expect(api.call("GET", "/v1/apps/mail?waitFor=active", exchange: 1).status == 0)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    api.api.abandon(exchange: 1, now: .zero)
    #expect(api.lateAnswers().isEmpty)
  }

  @Test func shuttingDownAnswersEveryWait() {
    #expect(api.call("GET", "/v1/apps/mail?waitFor=active", exchange: 1).status == 0)
    #expect(
      api.call("GET", "/v1/devices/default/journal?since=99&wait=60", exchange: 2).status == 0)
    api.api.shutDown(now: .seconds(1))
    let answers = api.lateAnswers()
    #expect(answers.keys.sorted() == [1, 2])
    #expect(
      answers.values.allSatisfy { $0.status == 200 && $0.headers["Lifecycled-Wait"] == "shutdown" })
  }

  @Test func waitsAreBoundedAnd503Beyond() {
    for exchange in 1...256 {
      #expect(
        api.call("GET", "/v1/apps/mail?waitFor=active", exchange: UInt64(exchange)).status == 0)
    }
    let refused = api.call("GET", "/v1/apps/mail?waitFor=active", exchange: 257)
    #expect(refused.status == 503)
    #expect(refused.headers["Retry-After"] == "1")
    #expect(refused.json?["type"] == .string("urn:lifecycled:problem:too-many-waits"))
    #expect(api.call("GET", "/v1/apps/mail?waitFor=notRunning").status == 200)
  }

  @Test func waitParametersAreValidated() {
    for (target, field) in [
      ("/v1/apps/mail?timeout=500", "timeout"), ("/v1/apps/mail?waitFor=asleep", "waitFor"),
      ("/v1/apps/mail?waitFor=active&timeout=301", "timeout"),
      ("/v1/apps/mail?waitFor=active&timeout=-1", "timeout"),
      ("/v1/apps/mail?waitFor=active&timeout=nan", "timeout"),
      ("/v1/devices/default/journal?wait=soon", "wait"),
    ] {
      let answer = api.call("GET", target, exchange: 1)
      #expect(answer.status == 422, "\(target)")
      #expect(answer.body.contains(#"{"field":"\#(field)""#), "\(target): \(answer.body)")
    }
    #expect(api.api.nextDeadline == nil)
    #expect(api.call("GET", "/v1/apps/mail?timeout=5").headers["Lifecycled-Wait"] == nil)
    let zero = api.call("GET", "/v1/apps/mail?waitFor=active&timeout=0")
    #expect(zero.status == 200)
    #expect(zero.headers["Lifecycled-Wait"] == "timeout")
  }
}
