import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// `PUT /v1/devices/{device}` with a document of more than 64 KiB: read off the loop, the
/// device replaced when the request is answered.
@Suite struct DocumentReadTests {
  let api = APITests()
  /// A snapshot of `phone` with two apps, and the same document made large by whitespace.
  let saved: String
  let large: String

  init() {
    api.call("POST", "/v1/devices", #"{"id":"phone"}"#)
    api.call("POST", "/v1/devices/phone/apps", #"{"name":"mail"}"#)
    api.call("POST", "/v1/devices/phone/apps", #"{"name":"maps"}"#)
    api.call("POST", "/v1/devices/phone/apps/mail/events", #"{"type":"launch"}"#)
    saved = api.call("GET", "/v1/devices/phone/snapshot").body
    large = saved + String(repeating: " ", count: DocumentReads.offLoopBytes)
  }

  /// Puts `body` as the request `exchange` without doing the work off the loop: the answer,
  /// nil while it waits.
  private func put(_ body: String, exchange: UInt64, ifMatch: String? = nil) -> APIResponse? {
    api.api.handle(
      APIRequest(
        method: "PUT", path: "/v1/devices/phone", mediaType: "application/json",
        body: Array(body.utf8), ifMatch: ifMatch, exchange: exchange),
      now: .zero)
  }

  private var apps: JSON? { api.call("GET", "/v1/devices/phone").json?["apps"] }

  /// The request waits while the document is read, counted in the budget at six times its
  /// size; the device answers as it was meanwhile, and is replaced when the answer comes.
  @Test func theDeviceIsReplacedWhenTheRequestIsAnswered() throws {
    api.call("POST", "/v1/devices/phone/reset")
    let before = api.api.engine.retainedBytes
    #expect(put(large, exchange: 7) == nil)
    #expect(api.api.engine.retainedBytes - before == 256 + 6 * large.utf8.count)
    #expect(apps == .integer(0))
    let answer = try #require(api.madeHere(for: 7))
    #expect(answer.status == 200)
    #expect(answer.entityTag == api.call("GET", "/v1/devices/phone").headers["ETag"])
    #expect(apps == .integer(2))
    #expect(api.call("GET", "/v1/devices/phone/snapshot").body == saved)
    #expect(api.api.documentReads.heldBytes == 0)
  }

  /// `If-Match` is weighed against the device as it is when the document has been read: an
  /// event in between makes it 412, and the device keeps the event.
  @Test func ifMatchIsWeighedWhenTheDocumentHasBeenRead() throws {
    let current = try #require(api.call("GET", "/v1/devices/phone").headers["ETag"])
    #expect(put(large, exchange: 8, ifMatch: current) == nil)
    api.call("POST", "/v1/devices/phone/apps/maps/events", #"{"type":"launch"}"#)
    let answer = try #require(api.madeHere(for: 8))
    #expect(answer.status == 412)
    #expect(api.call("GET", "/v1/devices/phone/apps/maps").json?["state"] == .string("active"))
  }

  /// A document that is not JSON is found out off the loop and answered 400, with nothing
  /// changed; one not declared JSON is refused at once (415).
  @Test func aLargeBodyThatIsNotJSONChangesNothing() throws {
    #expect(put("[" + large, exchange: 9) == nil)
    let answer = try #require(api.madeHere(for: 9))
    #expect(answer.status == 400)
    #expect(APITests.answer(answer).body.contains("invalid-json"))
    #expect(apps == .integer(2))
    let undeclared = api.call("PUT", "/v1/devices/phone", large, mediaType: "text/plain")
    #expect(undeclared.status == 415)
  }

  /// At most four documents are read at once (503, `Retry-After: 1`); one whose reading would
  /// not fit the memory budget is 507; neither changes anything.
  @Test func readingsAreBoundedInNumberAndByTheBudget() throws {
    for exchange in UInt64(1)...4 { #expect(put(large, exchange: exchange) == nil) }
    let fifth = api.call("PUT", "/v1/devices/phone", large, exchange: 5)
    #expect(fifth.status == 503 && fifth.headers["Retry-After"] == "1")
    #expect(fifth.body.contains("4 large device documents are being read already"))
    #expect(api.api.doOffLoopWorkHere(now: .zero))
    #expect(Set(api.lateAnswers().map(\.value.status)) == [200])

    let small = APITests { $0.limits.memoryBudgetBytes = 6 * DocumentReads.offLoopBytes }
    let refused = small.call("PUT", "/v1/devices/phone", large)
    #expect(refused.status == 507)
    #expect(small.call("GET", "/v1/devices/phone").status == 404)
    #expect(!small.api.doOffLoopWorkHere(now: .zero))
  }
}
