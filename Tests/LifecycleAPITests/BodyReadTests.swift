import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// Bodies of more than 64 KiB are read off the loop: the request waits, and is handled once its
/// body is parsed (and, for `PUT /v1/devices/{device}`, its device recreated).
@Suite struct BodyReadTests {
  let api = APITests()
  /// A snapshot of `phone` with two apps, and the same document made large by whitespace.
  let saved: String
  let large: String
  /// Whitespace that makes a body read off the loop.
  static let padding = String(repeating: " ", count: BodyReads.offLoopBytes)

  init() {
    api.call("POST", "/v1/devices", #"{"id":"phone"}"#)
    api.call("POST", "/v1/devices/phone/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/devices/phone/apps", #"{"name":"maps"}"#)
    api.call("POST", "/v1/devices/phone/apps/mail/events", #"{"type":"launch"}"#)
    saved = api.call("GET", "/v1/devices/phone/snapshot").body
    large = saved + Self.padding
  }

  /// Sends `body` as the request `exchange` without doing the work off the loop: the answer,
  /// nil while it waits.
  private func send(
    _ body: String, _ method: String = "PUT", to path: String = "/v1/devices/phone",
    exchange: UInt64, ifMatch: String? = nil
  ) -> APIResponse? {
    api.api.handle(
      APIRequest(
        method: method, path: Substring(path), mediaType: "application/json",
        body: Array(body.utf8), occasionalFields: OccasionalFields(ifMatch: ifMatch),
        exchange: exchange),
      now: .zero)
  }

  private var apps: JSON? { api.call("GET", "/v1/devices/phone").json?["apps"] }

  /// The request waits while the document is read, counted in the budget at six times its
  /// size; the device answers as it was meanwhile, and is replaced when the answer comes.
  @Test func aLargeDocumentReplacesTheDeviceWhenItIsAnswered() throws {
    api.call("POST", "/v1/devices/phone/reset")
    let before = api.api.engine.retainedBytes
    #expect(send(large, exchange: 7) == nil)
    #expect(api.api.engine.retainedBytes - before == 256 + 6 * large.utf8.count)
    #expect(apps == .integer(0))
    let answer = try #require(api.madeHere(for: 7))
    #expect(answer.status == 200)
    #expect(answer.entityTag == api.call("GET", "/v1/devices/phone").headers["ETag"])
    #expect(apps == .integer(2))
    #expect(api.call("GET", "/v1/devices/phone/snapshot").body == saved)
    #expect(api.api.bodyReads.heldBytes == 0)
  }

  /// `If-Match` is weighed against the device as it is when the document has been read: an
  /// event in between makes it 412, and the device keeps the event.
  @Test func ifMatchIsWeighedWhenTheDocumentHasBeenRead() throws {
    let current = try #require(api.call("GET", "/v1/devices/phone").headers["ETag"])
    #expect(send(large, exchange: 8, ifMatch: current) == nil)
    api.call("POST", "/v1/devices/phone/apps/maps/events", #"{"type":"launch"}"#)
    let answer = try #require(api.madeHere(for: 8))
    #expect(answer.status == 412)
    #expect(api.call("GET", "/v1/devices/phone/apps/maps").json?["state"] == .string("active"))
  }

  /// Any route's large body is parsed off the loop: events are applied once it is, and answered
  /// as a small body's are.
  @Test func largeEventsAreAppliedOnceParsed() throws {
    let events = #"[{"type":"home"},{"type":"launch"}]"# + Self.padding
    #expect(send(events, "POST", to: "/v1/devices/phone/apps/mail/events", exchange: 3) == nil)
    #expect(api.call("GET", "/v1/devices/phone/apps/mail").json?["state"] == .string("active"))
    let answer = APITests.answer(try #require(api.madeHere(for: 3)))
    #expect(answer.status == 200)
    guard case .array(let results)? = answer.json?["results"] else {
      Issue.record("no results: \(answer.body)")
      return
    }
    #expect(results.map { $0["state"] } == [.string("background"), .string("active")])
  }

  /// A body that is not JSON is found out off the loop and answered 400, with nothing changed;
  /// one not declared JSON is refused at once (415), one whose reading would not fit the
  /// memory budget is 507 at once.
  @Test func aLargeBodyThatCannotBeReadChangesNothing() throws {
    #expect(send("[" + large, exchange: 9) == nil)
    let answer = APITests.answer(try #require(api.madeHere(for: 9)))
    #expect(answer.status == 400 && answer.body.contains("invalid-json"))
    #expect(apps == .integer(2))
    #expect(api.call("PUT", "/v1/devices/phone", large, mediaType: "text/plain").status == 415)

    let small = APITests { $0.limits.memoryBudgetBytes = 6 * BodyReads.offLoopBytes }
    let refused = small.call("PUT", "/v1/devices/phone", large)
    #expect(refused.status == 507)
    #expect(small.call("GET", "/v1/devices/phone").status == 404)
    #expect(!small.api.doDeferredWorkHere(now: .zero))
  }
}
