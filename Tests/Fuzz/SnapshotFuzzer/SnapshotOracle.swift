// What a restored device must do, whatever document it came from: answer every request
// without trapping, and stay a device that restores as itself.

import JSONCore
import LifecycleAPI
import LifecycleEngine

/// One fuzz input: a script of requests, then the document to restore.
///
/// The bytes before the first newline are the script, one request a byte (`SnapshotAction`);
/// the rest is the body of `PUT /v1/devices/fuzz`.
struct SnapshotInput {
  var script: [UInt8]
  var document: [UInt8]

  init(script: [UInt8], document: [UInt8]) {
    self.script = script
    self.document = document
  }

  init(_ bytes: [UInt8]) {
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
    script = Array(bytes[..<newline])
    document = newline == bytes.endIndex ? [] : Array(bytes[(newline + 1)...])
  }

  var bytes: [UInt8] { script + [UInt8(ascii: "\n")] + document }
}

/// Why `input` breaks the restore contract, or nil if it keeps it: trapping is a failure too,
/// which the fuzzer and the tests see as a crash.
///
/// The contract: a document `PUT` accepts is a device that answers every request, and at each
/// step (after the restore and after each request) the device's snapshot restores, in another
/// server, to a device with that same snapshot: the events never make a device that restoring
/// would refuse, and restoring keeps everything it reads.
func checkSnapshot(_ input: SnapshotInput) -> String? {
  let api = SnapshotOracle.makeAPI()
  let put = SnapshotOracle.call(api, "PUT", "/v1/devices/fuzz", input.document)
  guard put.status == 201 else { return nil }
  if let failure = SnapshotOracle.checkRoundTrip(api, after: "the restore") { return failure }
  let apps = SnapshotOracle.appNames(api)
  for (step, byte) in input.script.enumerated() {
    let action = SnapshotAction(byte, apps: apps)
    let response = SnapshotOracle.call(api, action.method, action.target, action.body)
    if response.status >= 500, response.status != 503, response.status != 507 {
      return "step \(step), \(action): \(response.status) \(response.text)"
    }
    if let failure = SnapshotOracle.checkRoundTrip(api, after: "step \(step), \(action)") {
      return failure
    }
  }
  return nil
}

/// The servers and requests `checkSnapshot` uses.
enum SnapshotOracle {
  /// A server as the fuzzer and its tests use it: the default configuration, manual clocks.
  static func makeAPI() -> LifecycleAPI {
    var configuration = EngineConfiguration()
    configuration.deviceDefaults.clock = .manual
    return LifecycleAPI(
      engine: Engine(configuration: configuration, now: .zero), version: "0.0.0", now: .zero)
  }

  /// A response as the oracle reads it.
  struct Answer {
    var status: Int
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  static func call(
    _ api: LifecycleAPI, _ method: String, _ target: String, _ body: [UInt8]? = nil
  ) -> Answer {
    let parts = target.split(separator: "?", maxSplits: 1)
    var response = api.handle(
      APIRequest(
        method: method, path: parts[0], query: parts.count > 1 ? parts[1] : nil,
        mediaType: body == nil ? nil : "application/json", body: body ?? []),
      now: .zero)
    // A picture, a snapshot, a restore, a long scenario: answered once the work is done.
    if response == nil, api.doDeferredWorkHere(now: .zero) {
      for case .response(let made) in api.takeLateAnswers().map(\.part) { response = made }
    }
    return response.map { Answer(status: $0.status, body: $0.body) } ?? Answer(status: 0, body: [])
  }

  /// The names of the restored device's apps, in the snapshot's order.
  static func appNames(_ api: LifecycleAPI) -> [String] {
    let snapshot = call(api, "GET", "/v1/devices/fuzz/snapshot")
    guard case .array(let apps)? = (try? JSON.parse(snapshot.body))?["apps"] else { return [] }
    return apps.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }
  }

  /// Why the device's snapshot does not restore as itself in a new server, or nil.
  static func checkRoundTrip(_ api: LifecycleAPI, after step: String) -> String? {
    let saved = call(api, "GET", "/v1/devices/fuzz/snapshot")
    guard saved.status == 200 else {
      return saved.status == 404 ? nil : "\(step): snapshot \(saved.status) \(saved.text)"
    }
    let other = makeAPI()
    let put = call(other, "PUT", "/v1/devices/fuzz", saved.body)
    guard put.status == 201 else {
      return "\(step): the device's own snapshot is refused: \(put.text)\n\(saved.text)"
    }
    let again = call(other, "GET", "/v1/devices/fuzz/snapshot")
    guard again.body == saved.body else {
      return "\(step): restored as another device:\n\(saved.text)\n\(again.text)"
    }
    return nil
  }
}

/// A request of a fuzz script: the byte's low six bits choose what, its high two bits which
/// app (of those the document restored).
struct SnapshotAction: CustomStringConvertible {
  var method: String
  var target: String
  var body: [UInt8]?

  init(_ byte: UInt8, apps: [String]) {
    let app = apps.isEmpty ? "none" : apps[Int(byte >> 6) % apps.count]
    let (kind, text) = Self.table[Int(byte & 63) % Self.table.count]
    let filled = text.replacing("$app", with: app)
    switch kind {
    case .app: (method, target) = ("POST", "/v1/devices/fuzz/apps/\(app)/events")
    case .device: (method, target) = ("POST", "/v1/devices/fuzz/events")
    case .advance: (method, target) = ("POST", "/v1/devices/fuzz/clock/advance")
    case .read: (method, target) = ("GET", filled)
    }
    body = kind == .read ? nil : Array(filled.utf8)
  }

  var description: String {
    "\(method) \(target)" + (body.map { " " + String(decoding: $0, as: UTF8.self) } ?? "")
  }

  enum Kind { case app, device, advance, read }

  /// Every event with typical parameters, clock moves and the reads that walk the whole state.
  static let table: [(Kind, String)] = [
    (.app, #"{"type":"launch"}"#),
    (.app, #"{"type":"launch","url":"app://x"}"#),
    (.app, #"{"type":"launch","scene":"main"}"#),
    (.app, #"{"type":"prewarm"}"#),
    (.app, #"{"type":"openScene"}"#),
    (.app, #"{"type":"openScene","scene":"main"}"#),
    (.app, #"{"type":"closeScene","scene":"main"}"#),
    (.app, #"{"type":"disconnectScene","scene":"main"}"#),
    (.app, #"{"type":"disconnectScene","scene":"scene-2"}"#),
    (.app, #"{"type":"home"}"#),
    (.app, #"{"type":"openSwitcher"}"#),
    (.app, #"{"type":"closeSwitcher"}"#),
    (.app, #"{"type":"interruptionBegan","source":"call"}"#),
    (.app, #"{"type":"interruptionEnded","outcome":"backgrounded"}"#),
    (.app, #"{"type":"interruptionEnded"}"#),
    (.app, #"{"type":"terminate"}"#),
    (.app, #"{"type":"crash"}"#),
    (.app, #"{"type":"purge"}"#),
    (.app, #"{"type":"thermalKill"}"#),
    (.app, #"{"type":"backgroundLaunch","reason":"fetch"}"#),
    (.app, #"{"type":"backgroundLaunch","reason":"remoteNotification"}"#),
    (.app, #"{"type":"backgroundLaunch","reason":"urlSession"}"#),
    (.app, #"{"type":"backgroundLaunch","reason":"processing"}"#),
    (.app, #"{"type":"backgroundLaunch","reason":"location"}"#),
    (.app, #"{"type":"backgroundWorkCompleted"}"#),
    (.app, #"{"type":"beginBackgroundTask"}"#),
    (.app, #"{"type":"endBackgroundTask","id":1}"#),
    (.app, #"{"type":"memoryWarning"}"#),
    (.app, #"{"type":"setMemory","memoryMB":900}"#),
    (.app, #"{"type":"startActivity","activity":"audio"}"#),
    (.app, #"{"type":"stopActivity","activity":"audio"}"#),
    (.app, #"{"type":"setRestorationData","data":"{\"n\":1}"}"#),
    (.app, #"{"type":"submitTaskRequest","identifier":"t","kind":"appRefresh"}"#),
    (.app, #"{"type":"cancelTaskRequest","identifier":"t"}"#),
    (.app, #"{"type":"launchTask","identifier":"t"}"#),
    (.app, #"{"type":"expireTask","identifier":"t"}"#),
    (.app, #"{"type":"attachDebugger"}"#),
    (.app, #"{"type":"detachDebugger"}"#),
    (.app, #"{"type":"updateApp","version":"2.0","build":"7"}"#),
    (.app, #"{"type":"reinstall"}"#),
    (.device, #"{"type":"home"}"#),
    (.device, #"{"type":"lock"}"#),
    (.device, #"{"type":"unlock"}"#),
    (.device, #"{"type":"memoryWarning"}"#),
    (.device, #"{"type":"significantTimeChange"}"#),
    (.device, #"{"type":"shutdown"}"#),
    (.device, #"{"type":"boot"}"#),
    (.device, #"{"type":"updateOS","version":"26.4"}"#),
    (.device, #"{"type":"setConditions","charging":true,"batteryLevel":10}"#),
    (.device, #"{"type":"setConditions","taskScheduling":"manual","network":"none"}"#),
    (.device, #"{"type":"setBackgroundAppRefresh","app":"$app","enabled":false}"#),
    (.device, #"{"type":"push","app":"$app"}"#),
    (.device, #"{"type":"push","app":"$app","pushType":"alert"}"#),
    (.advance, #"{"seconds":1}"#),
    (.advance, #"{"seconds":40}"#),
    (.advance, #"{"to":"nextDeadline"}"#),
    (.read, "/v1/devices/fuzz"),
    (.read, "/v1/devices/fuzz/apps/$app"),
    (.read, "/v1/devices/fuzz/apps"),
    (.read, "/v1/devices/fuzz/journal"),
    (.read, "/v1/devices/fuzz/timeline.svg"),
    (.read, "/v1/devices/fuzz/jetsam"),
  ]
}
