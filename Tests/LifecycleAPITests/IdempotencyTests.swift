import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// `Idempotency-Key` (IETF httpapi draft): retries are answered, not applied again.
@Suite struct IdempotencyTests {
  let api = APITests()

  init() {
    api.call("POST", "/v1/apps", #"{"name":"mail"}"#)
  }

  private var events: Int {
    guard
      case .integer(let count)? = api.call("GET", "/v1/devices/default").json?["counters"]?[
        "events"]
    else { return -1 }
    return count
  }

  @Test func aRetryGetsTheFirstResponseAndIsNotAppliedAgain() {
    let first = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: #""k-1""#)
    #expect(first.status == 200)
    #expect(first.headers["Idempotent-Replayed"] == nil)
    let retry = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: "k-1")
    #expect(retry.status == 200)
    #expect(retry.body == first.body)
    #expect(retry.headers["ETag"] == first.headers["ETag"])
    #expect(retry.headers["Idempotent-Replayed"] == "true")
    #expect(events == 1)
    // Another device keeps its own keys.
    api.call("POST", "/v1/devices", #"{"id":"ci-1"}"#)
    api.call("POST", "/v1/devices/ci-1/apps", #"{"name":"mail"}"#)
    let other = api.call(
      "POST", "/v1/devices/ci-1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: "k-1")
    #expect(other.headers["Idempotent-Replayed"] == nil)
  }

  @Test func theSameKeyForAnotherRequestIs422AndChangesNothing() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: "k-1")
    for (path, body) in [
      ("/v1/apps/mail/events", #"{"type":"home"}"#),
      ("/v1/devices/default/apps/mail/events", #"{"type":"launch"}"#),
    ] {
      let reused = api.call("POST", path, body, idempotencyKey: "k-1")
      #expect(reused.status == 422)
      #expect(
        reused.body
          == #"{"type":"urn:lifecycled:problem:idempotency-key-reused","title":"The Idempotency-Key was first used for another request","status":422,"detail":"Idempotency-Key k-1 was first used on device 'default' for another request; a retry must repeat its method, path, query and body","validation":[{"field":"Idempotency-Key","message":"k-1 was first used on device 'default' for another request; a retry must repeat its method, path, query and body"}]}"#
      )
    }
    #expect(api.call("GET", "/v1/apps/mail").json?["state"] == .string("active"))
    #expect(events == 1)
  }

  /// A refusal is a decision, kept like a success; a request that was not valid is not kept.
  @Test func refusalsAreReplayedButInvalidRequestsAreNotKept() {
    let refused = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"home"}"#, idempotencyKey: "k-2")
    #expect(refused.status == 409)
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let retry = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"home"}"#, idempotencyKey: "k-2")
    #expect(retry.status == 409)
    #expect(retry.body == refused.body)
    #expect(retry.headers["Idempotent-Replayed"] == "true")
    let invalid = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"fly"}"#, idempotencyKey: "k-3")
    #expect(invalid.status == 422)
    let valid = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"home"}"#, idempotencyKey: "k-3")
    #expect(valid.status == 200)
    #expect(valid.headers["Idempotent-Replayed"] == nil)
  }

  /// A retry of a conditional request that succeeded is answered as it was, though the device
  /// has since moved on from the version it named.
  @Test func aRetryIsAnsweredBeforeItsConditionIsChecked() {
    let etag = api.call("GET", "/v1/apps/mail").headers["ETag"]!
    let first = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, ifMatch: etag, idempotencyKey: "k")
    let retry = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, ifMatch: etag, idempotencyKey: "k")
    #expect(first.status == 200)
    #expect(retry.status == 200)
    #expect(retry.body == first.body)
  }

  @Test func keysAreValidatedAndIgnoredOnReads() {
    for key in ["", #""""#, String(repeating: "k", count: 256), "a b", "é", #""a"b""#] {
      let response = api.call(
        "POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: key)
      #expect(response.status == 422, "\(key)")
      #expect(response.body.contains(#""field":"Idempotency-Key""#))
    }
    #expect(api.call("GET", "/v1/apps/mail", idempotencyKey: "").status == 200)
    #expect(
      api.call(
        "POST", "/v1/apps/mail/events", #"{"type":"launch"}"#,
        idempotencyKey: String(repeating: "k", count: 255)
      ).status == 200)
  }

  @Test func keysExpireAfterADay() {
    api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: "k")
    let day = Instant.zero + IdempotencyStore.lifetime
    let before = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"home"}"#, idempotencyKey: "k",
      now: day - .milliseconds(1))
    #expect(before.status == 422)
    let after = api.call(
      "POST", "/v1/apps/mail/events", #"{"type":"home"}"#, idempotencyKey: "k", now: day)
    #expect(after.status == 200)
  }

  /// A key belongs to one incarnation of its device: after a reset, a removal and re-creation,
  /// a `PUT` or the admin reset, a request with a key used before is applied, not replayed.
  @Test(
    arguments: [
      ("POST", "/v1/devices/ci/reset", nil),
      ("DELETE", "/v1/devices/ci", nil),
      ("PUT", "/v1/devices/ci", #"{"id":"ci"}"#),
      ("POST", "/__admin/reset", nil),
    ] as [(String, String, String?)])
  func keysAreForgottenWithTheirDevice(method: String, path: String, body: String?) {
    api.call("POST", "/v1/devices", #"{"id":"ci"}"#)
    let held = api.api.engine.retainedBytes
    let create = (#"/v1/devices/ci/apps"#, #"{"name":"mail"}"#)
    let first = api.call("POST", create.0, create.1, idempotencyKey: "k")
    #expect(first.status == 201)
    #expect(api.api.engine.retainedBytes > held)
    api.call(method, path, body)
    if method != "PUT" { api.call("POST", "/v1/devices", #"{"id":"ci"}"#) }
    let again = api.call("POST", create.0, create.1, idempotencyKey: "k")
    #expect(again.status == 201)
    #expect(again.headers["Idempotent-Replayed"] == nil)
    #expect(again.headers["ETag"] != first.headers["ETag"])
  }

  /// Stored responses count in the memory budget: what a key holds is added as it is stored
  /// and taken away as it is forgotten.
  @Test func storedResponsesCountInTheBudget() {
    let unkeyed = IdempotencyTests()
    unkeyed.api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#)
    let keyed = api.call("POST", "/v1/apps/mail/events", #"{"type":"launch"}"#, idempotencyKey: "k")
    let stored = APIResponse(
      status: 200, contentType: "application/json", body: Array(keyed.body.utf8))
    #expect(
      api.api.engine.retainedBytes - unkeyed.api.api.engine.retainedBytes
        == IdempotencyStore.retainedBytes(of: stored, key: "k", device: "default"))
    api.call("POST", "/v1/devices/default/reset")
    #expect(api.api.engine.retainedBytes == APITests().api.engine.retainedBytes)
  }
}

/// The store's bounds, each evicting the oldest first.
@Suite struct IdempotencyStoreTests {
  func response(bytes: Int) -> APIResponse {
    APIResponse(
      status: 200, contentType: "application/json", body: Array(repeating: 0, count: bytes))
  }

  @Test func aDeviceKeepsItsNewestKeys() {
    var store = IdempotencyStore()
    let limit = IdempotencyStore.maxKeysPerDevice
    for index in 0...limit {
      store.store(
        response(bytes: 1), for: "k\(index)", on: "a", incarnation: 1, fingerprint: index,
        now: .zero)
    }
    store.store(
      response(bytes: 1), for: "k0", on: "b", incarnation: 1, fingerprint: 0, now: .zero)
    #expect(store.entry(for: "k0", on: "a", now: .zero) == nil)
    #expect(store.entry(for: "k1", on: "a", now: .zero)?.fingerprint == 1)
    #expect(store.entry(for: "k\(limit)", on: "a", now: .zero)?.fingerprint == limit)
    #expect(store.entry(for: "k0", on: "b", now: .zero) != nil)
    let each = IdempotencyStore.retainedBytes(of: response(bytes: 1), key: "k0", device: "a")
    #expect(store.bytes == (limit + 1) * each)
  }

  @Test func allResponsesTogetherStayWithinTheByteBound() {
    var store = IdempotencyStore()
    let overhead = IdempotencyStore.retainedBytes(of: response(bytes: 0), key: "k", device: "d")
    let size = IdempotencyStore.maxBytes / 4 - overhead
    for index in 0..<6 {
      store.store(
        response(bytes: size), for: "k\(index)", on: "d\(index)", incarnation: 1,
        fingerprint: index, now: .zero)
    }
    #expect(store.bytes == IdempotencyStore.maxBytes)
    #expect(store.entry(for: "k1", on: "d1", now: .zero) == nil)
    #expect(store.entry(for: "k2", on: "d2", now: .zero) != nil)
  }

  /// Keys evicted by one bound and stored again are not evicted again by the other's queue.
  @Test func aKeyStoredAgainIsTheNewEntry() {
    var store = IdempotencyStore()
    store.store(response(bytes: 1), for: "k", on: "a", incarnation: 1, fingerprint: 1, now: .zero)
    let later = Instant.zero + IdempotencyStore.lifetime
    #expect(store.entry(for: "k", on: "a", now: later) == nil)
    store.store(response(bytes: 1), for: "k", on: "a", incarnation: 1, fingerprint: 2, now: later)
    for index in 0..<IdempotencyStore.maxKeysPerDevice - 1 {
      store.store(
        response(bytes: 1), for: "x\(index)", on: "a", incarnation: 1, fingerprint: 0, now: later)
    }
    #expect(store.entry(for: "k", on: "a", now: later)?.fingerprint == 2)
  }

  /// A device's keys go with its incarnation; other devices keep theirs.
  @Test func keysOfAnotherIncarnationAreForgotten() {
    var store = IdempotencyStore()
    for device in ["a", "b", "c"] {
      store.store(
        response(bytes: 9), for: "k", on: device, incarnation: 1, fingerprint: 1, now: .zero)
    }
    let each = store.bytes / 3
    store.forgetStale { ["a": 1, "b": 2][$0] }  // b replaced, c removed
    #expect(store.entry(for: "k", on: "a", now: .zero) != nil)
    #expect(store.entry(for: "k", on: "b", now: .zero) == nil)
    #expect(store.entry(for: "k", on: "c", now: .zero) == nil)
    #expect(store.bytes == each)
    store.store(response(bytes: 9), for: "j", on: "a", incarnation: 2, fingerprint: 2, now: .zero)
    #expect(store.entry(for: "k", on: "a", now: .zero) == nil)
    #expect(store.bytes == each)
  }
}
