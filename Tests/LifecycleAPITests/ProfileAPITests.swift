import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// Devices made as a model running a release, over HTTP: the profiles listed with their
/// sources, a bad name refused with the known ones, the view and the jetsam report naming them.
@Suite struct ProfileAPITests {
  let api = APITests()

  @Test func theProfilesListEveryFigureWithItsSource() {
    let profiles = api.call("GET", "/v1/profiles")
    #expect(profiles.status == 200)
    #expect(profiles.json?["default"] == json(#"{"model":"iPhone 15 Pro","osVersion":"26.1"}"#))
    guard case .array(let models)? = profiles.json?["models"] else {
      return #expect(Bool(false), "\(profiles.body)")
    }
    #expect(models.count == DeviceProfiles.builtIn.models.count)
    #expect(
      models.first { $0["name"] == .string("iPhone 15 Pro") }
        == json(
          #"{"name":"iPhone 15 Pro","identifier":"iPhone16,1","#
            + #""simulatorDeviceType":"com.apple.CoreSimulator.SimDeviceType.iPhone-15-Pro","#
            + #""memory":{"megabytes":8192,"method":"specification","#
            + #""source":"9to5Mac, \"iPhone RAM list\" (2023-11-18)"},"#
            + #""appLimit":{"megabytes":3072,"method":"available-memory","#
            + #""source":"introlab/rtabmap, pull request 1446, 2025"},"#
            + #""increasedAppLimit":{"megabytes":6144,"method":"available-memory","#
            + #""source":"introlab/rtabmap, pull request 1446, 2025"},"#
            + #""osVersions":["17.0","18.0","26.0","26.1","26.4","27.0"]}"#))
    guard case .array(let releases)? = profiles.json?["releases"] else {
      return #expect(Bool(false), "\(profiles.body)")
    }
    #expect(
      releases.map { $0["version"] }
        == ["13.0", "15.0", "17.0", "18.0", "26.0", "26.1", "26.4", "27.0"].map(JSON.string))
    #expect(
      releases.first
        == json(
          #"{"version":"13.0","build":"17A577","#
            + #""source":"crash and jetsam reports' os_version, \"iPhone OS 13.0 (17A577)\""}"#))
  }

  /// A model that shipped with a build of its own names it wherever its device names its OS:
  /// the profiles, the view, a jetsam report and MetricKit's reports. Its other releases, and
  /// other models on that release, keep the release's build.
  @Test func aModelsOwnBuildIsTheOneItsReportsName() {
    let profiles = api.call("GET", "/v1/profiles").json
    guard case .array(let models)? = profiles?["models"] else {
      return #expect(Bool(false), "\(String(describing: profiles))")
    }
    let pro = models.first { $0["name"] == .string("iPhone 17 Pro") }
    #expect(
      pro?["builds"]
        == json(
          #"[{"version":"26.0","build":"23A345","source":"multiplayer.it, \"Apple rilascia una "#
            + #"patch last-minute di iOS 26 per iPhone 17 Pro e Pro Max\" (2025-09-19): the Pro "#
            + #"models' own build of 26.0"}]"#))
    #expect(models.filter { $0["builds"] != nil }.count == 1)
    let made = api.post("/v1/devices", #"{"id":"pro","model":"iPhone 17 Pro","osVersion":"26.0"}"#)
    #expect(made?["osBuild"] == .string("23A345"), "\(String(describing: made))")
    let other = api.post("/v1/devices", #"{"id":"other","model":"iPhone16,1","osVersion":"26.0"}"#)
    #expect(other?["osBuild"] == .string("23A341"))
    api.post("/v1/devices/pro/apps", #"{"name":"mail"}"#)
    api.post("/v1/devices/pro/apps/mail/events", #"[{"type":"launch"},{"type":"crash"}]"#)
    let crashes = api.call("GET", "/v1/devices/pro/apps/mail").body
    #expect(crashes.contains(#""osVersion":"iPhone OS 26.0 (23A345)""#), "\(crashes)")
    api.post(
      "/v1/devices/pro/apps/mail/events",
      #"[{"type":"launch"},{"type":"home"},{"type":"purge","reason":"highwater"}]"#)
    #expect(
      api.call("GET", "/v1/devices/pro/jetsam/1/report").json?["build"]
        == .string("iPhone OS 26.0 (23A345)"))
    api.call("POST", "/v1/devices/pro/events", #"{"type":"shutdown"}"#)
    let updated = api.post("/v1/devices/pro/events", #"{"type":"updateOS","version":"26.1"}"#)
    #expect(updated?["state"] == .string("off"), "\(String(describing: updated))")
    #expect(api.call("GET", "/v1/devices/pro").json?["osBuild"] == .string("23B85"))
  }

  @Test func aDeviceIsMadeAsAModelRunningARelease() {
    let made = api.post("/v1/devices", #"{"id":"old","model":"iPhone11,2","osVersion":"15.0"}"#)
    #expect(made?["model"] == .string("iPhone XS"))
    #expect(made?["modelIdentifier"] == .string("iPhone11,2"))
    #expect(made?["osVersion"] == .string("15.0") && made?["osBuild"] == .string("19A346"))
    #expect(
      made?["memory"]
        == json(
          #"{"usedMB":0,"limitMB":3754,"perAppLimitMB":2040,"backgroundAppLimitMB":null,"#
            + #""increasedAppLimitMB":2040,"pressure":false,"warningGraceEndsAt":null}"#))
    let snapshot = api.call("GET", "/v1/devices/old/snapshot").json
    #expect(
      snapshot?["device"]
        == json(
          #"{"id":"old","clock":"manual","model":"iPhone XS","osVersion":"15.0","#
            + #""passcode":true,"labels":{}}"#))
  }

  @Test func anUnknownModelOrReleaseIsRefusedWithTheKnownOnes() {
    let before = api.call("GET", "/v1/devices").body
    let unknown = api.call("POST", "/v1/devices", #"{"model":"Pixel 9"}"#)
    #expect(unknown.status == 422)
    #expect(
      unknown.json?["validation"]
        == json(
          #"[{"field":"model","message":"must be one of iPhone 6s, iPhone 8, iPhone X, "#
            + #"iPhone XR, iPhone XS, iPhone 11, iPhone 12 mini, iPhone 12, iPhone 13 Pro, "#
            + #"iPhone 15 Pro, iPhone 17 Pro, iPad Pro (11-inch)"}]"#))
    let unshipped = api.call(
      "POST", "/v1/devices", #"{"model":"iPhone 17 Pro","osVersion":"18.0"}"#)
    #expect(
      unshipped.json?["validation"]
        == json(
          #"[{"field":"osVersion","message":"must be a version iPhone 17 Pro runs: 26.0, 26.1, 26.4, 27.0"}]"#
        ))
    #expect(api.call("GET", "/v1/devices").body == before)
  }

  /// A snapshot from before the profiles is the default model, on the release it names, with
  /// the budgets it gives; one whose release that model does not run is refused.
  @Test func aVersion6SnapshotIsTheDefaultModelWithItsBudgets() {
    api.post("/v1/devices", #"{"id":"old","memoryLimitMB":4096,"perAppLimitMB":2048}"#)
    let current = api.call("GET", "/v1/devices/old/snapshot").body
    let version6 =
      current
      .replacingOccurrences(of: #""version":7"#, with: #""version":6"#)
      .replacingOccurrences(of: #""model":"iPhone 15 Pro","osVersion":"26.1","#, with: "")
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/old", version6).status == 201)
    #expect(other.call("GET", "/v1/devices/old/snapshot").body == current)
    let unknown = version6.replacingOccurrences(
      of: #""osVersion":"26.1","bootSession""#, with: #""osVersion":"26.2","bootSession""#)
    let refused = APITests().call("PUT", "/v1/devices/old", unknown)
    #expect(refused.status == 422)
    #expect(refused.body.contains(#""field":"osVersion""#), "\(refused.body)")
  }

  @Test func aDeviceOnIOS13RefusesPrewarming() {
    api.post("/v1/devices", #"{"id":"old","model":"iPhone XS","osVersion":"13.0"}"#)
    api.post("/v1/devices/old/apps", #"{"name":"mail"}"#)
    let refused = api.call("POST", "/v1/devices/old/apps/mail/events", #"{"type":"prewarm"}"#)
    #expect(refused.status == 409)
    #expect(
      refused.json?["detail"]
        == .string(
          "prewarm refused: iOS 13.0 has no prewarming: it arrived with iOS 15 (state notRunning)"))
  }

  /// On iOS 27 an app-delegate app built with its SDK does not launch: the answer shows the
  /// process start and end and no callback, and the crash report waits for the app.
  @Test func anAppDelegateAppBuiltWithTheIOS27SDKDoesNotLaunchOnIOS27() {
    api.post("/v1/devices", #"{"id":"new","osVersion":"27.0"}"#)
    let app = api.post(
      "/v1/devices/new/apps", #"{"name":"legacy","lifecycle":"appDelegate","sdkVersion":27}"#)
    #expect(app?["sdkVersion"] == .integer(27), "\(String(describing: app))")
    let running = api.call(
      "POST", "/v1/devices/new/apps",
      #"{"name":"given","lifecycle":"appDelegate","sdkVersion":27,"given":{"state":"active"}}"#)
    #expect(running.status == 422)
    #expect(
      running.json?["validation"]
        == json(
          #"[{"field":"given.state","message":"cannot be a running or suspended state: an "#
            + #"appDelegate app built with sdkVersion 27 or later does not launch on iOS 27 or "#
            + #"later (a prewarmed process excepted)"}]"#))
    let launch = api.call("POST", "/v1/devices/new/apps/legacy/events", #"{"type":"launch"}"#)
    #expect(launch.status == 200)
    #expect(launch.json?["state"] == .string("notRunning"))
    #expect(launch.json?["callbacks"] == .array([]))
    #expect(
      launch.json?["transitions"]
        == json(
          #"[{"seq":2,"time":0.0,"app":"legacy","from":"notRunning","to":"background","#
            + #""cause":"launch"},{"seq":3,"time":0.0,"app":"legacy","from":"background","#
            + #""to":"notRunning","cause":"sceneLifecycleRequired"}]"#))
    let crash = api.call("GET", "/v1/devices/new/apps/legacy").json?["diagnosticPayloads"]
    #expect(
      crash
        == json(
          #"[{"timeStampBegin":0.0,"timeStampEnd":0.0,"crashDiagnostics":[{"#
            + #""applicationVersion":"1.0","metaData":{"applicationBuildVersion":"1","#
            + #""osVersion":"iPhone OS 27.0 (24A437)","deviceType":"iPhone16,1","#
            + #""lowPowerModeEnabled":false},"exceptionType":6,"exceptionCode":1,"signal":5,"#
            + #""terminationReason":"Namespace SIGNAL, Code 0x5"}]}]"#))
    // The SDK and the trap's report are kept: the snapshot restores as it was written.
    let snapshot = api.call("GET", "/v1/devices/new/snapshot").body
    #expect(snapshot.contains(#""sdkVersion":27"#))
    let other = APITests()
    #expect(other.call("PUT", "/v1/devices/new", snapshot).status == 201)
    #expect(other.call("GET", "/v1/devices/new/snapshot").body == snapshot)
  }
}
