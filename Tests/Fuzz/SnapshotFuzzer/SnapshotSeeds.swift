// Real snapshots to start from: devices driven through scenes, background work, pushes, task
// requests, memory pressure, locks and shutdowns, saved after every step.

import LifecycleAPI

enum SnapshotSeeds {
  /// The apps of every seed device: each kind of app the engine knows.
  static let apps = [
    #"{"name":"mail","backgroundModes":["fetch","remote-notification"]}"#,
    #"{"name":"docs","supportsMultipleScenes":true,"memoryMB":40}"#,
    #"{"name":"notes","lifecycle":"appDelegate","behavior":{"didEnterBackgroundSeconds":3}}"#,
    #"{"name":"music","backgroundModes":["audio","location"],"memoryMB":300}"#,
    #"{"name":"sync","backgroundModes":["processing","fetch"],"#
      + #""permittedTaskIdentifiers":["t","cleanup"]}"#,
  ]

  /// Each scenario: the device's options, then requests (target under the device, body).
  static let scenarios: [(device: String, steps: [(String, String)])] = [
    (
      #"{"id":"fuzz","passcode":true,"memoryLimitMB":700}"#,
      [
        ("apps/docs/events", #"[{"type":"launch"},{"type":"openScene","scene":"draft"}]"#),
        ("apps/docs/events", #"{"type":"setRestorationData","data":"{\"d\":1}","scene":"draft"}"#),
        ("apps/notes/events", #"[{"type":"launch"},{"type":"beginBackgroundTask"}]"#),
        ("apps/notes/events", #"{"type":"home"}"#),
        ("apps/music/events", #"[{"type":"launch"},{"type":"startActivity","activity":"audio"}]"#),
        ("apps/music/events", #"{"type":"home"}"#),
        ("apps/docs/events", #"{"type":"disconnectScene","scene":"draft"}"#),
        ("events", #"{"type":"lock"}"#),
        ("clock/advance", #"{"seconds":15}"#),
        ("apps/mail/events", #"{"type":"backgroundLaunch","reason":"remoteNotification"}"#),
        ("events", #"{"type":"memoryWarning"}"#),
        ("clock/advance", #"{"seconds":40}"#),
      ]
    ),
    (
      #"{"id":"fuzz","passcode":false}"#,
      [
        (
          "apps/sync/events",
          #"[{"type":"launch"},{"type":"submitTaskRequest","identifier":"cleanup","#
            + #""kind":"processing","requiresExternalPower":true},"#
            + #"{"type":"submitTaskRequest","identifier":"t","kind":"appRefresh"}]"#
        ),
        ("apps/sync/events", #"{"type":"home"}"#),
        ("events", #"{"type":"setConditions","charging":true,"taskScheduling":"manual"}"#),
        ("events", #"{"type":"lock"}"#),
        ("apps/sync/events", #"{"type":"launchTask","identifier":"cleanup"}"#),
        ("events", #"{"type":"push","app":"mail"}"#),
        ("apps/mail/events", #"{"type":"backgroundLaunch","reason":"fetch"}"#),
        ("clock/advance", #"{"seconds":20}"#),
        ("apps/sync/events", #"{"type":"expireTask","identifier":"cleanup"}"#),
        ("events", #"{"type":"unlock"}"#),
        ("apps/mail/events", #"{"type":"prewarm"}"#),
        ("events", #"{"type":"shutdown"}"#),
      ]
    ),
  ]

  /// Every snapshot of the scenarios, each with a script of its own.
  static func make() -> [SnapshotInput] {
    var seeds: [SnapshotInput] = []
    for (device, steps) in scenarios {
      let api = SnapshotOracle.makeAPI()
      _ = SnapshotOracle.call(api, "POST", "/v1/devices", Array(device.utf8))
      for app in apps {
        _ = SnapshotOracle.call(api, "POST", "/v1/devices/fuzz/apps", Array(app.utf8))
      }
      for (target, body) in [("clock/advance", #"{"seconds":0}"#)] + steps {
        _ = SnapshotOracle.call(api, "POST", "/v1/devices/fuzz/" + target, Array(body.utf8))
        let document = SnapshotOracle.call(api, "GET", "/v1/devices/fuzz/snapshot").body
        let script = (0..<24).map { UInt8(truncatingIfNeeded: ($0 + seeds.count) * 37) }
          .filter { $0 != UInt8(ascii: "\n") }
        seeds.append(SnapshotInput(script: script, document: document))
      }
    }
    return seeds
  }
}
