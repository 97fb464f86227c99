import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// A profile file adds models a lab measured and releases the server does not know yet; a
/// malformed entry is named by its place, and nothing known is replaced.
@Suite struct ProfileFileTests {
  static let labPhone =
    #"{"name":"Lab iPhone","identifier":"iPhone17,3","memoryMB":8192,"appLimitMB":3300,"#
    + #""backgroundAppLimitMB":400,"method":"allocated-until-killed","#
    + #""source":"our lab, iOS 26.2","firstMajorVersion":18}"#
  static let release262 = #"{"version":"26.2","build":"23C55","source":"our devices' reports"}"#

  @Test func aFilesModelsAndReleasesComeAfterTheBuiltInOnes() throws {
    let profiles = try DeviceProfiles.builtIn.adding(
      json: Array(#"{"models":[\#(Self.labPhone)],"releases":[\#(Self.release262)]}"#.utf8))
    #expect(profiles.models.count == DeviceProfiles.builtIn.models.count + 1)
    let lab = try #require(profiles.model(named: "iPhone17,3"))
    #expect(lab.appLimit == ProfileFigure(3300, .allocatedUntilKilled, source: "our lab, iOS 26.2"))
    #expect(lab.backgroundAppLimit?.megabytes == 400 && lab.increasedAppLimit == nil)
    #expect(
      profiles.releases(of: lab).map(\.version) == ["18.0", "26.0", "26.1", "26.2", "26.4", "27.0"])
    #expect(profiles.issues(model: "Lab iPhone", osVersion: "26.2").isEmpty)
  }

  /// A lab model that runs a release in a build of its own says so; the file's own releases
  /// count among those it may name.
  @Test func aFilesModelCanRunAReleaseInABuildOfItsOwn() throws {
    let builds = #""builds":[{"version":"26.2","build":"23C56","source":"its reports"}]"#
    let phone = Self.labPhone.replacingOccurrences(of: "}", with: ",\(builds)}")
    let profiles = try DeviceProfiles.builtIn.adding(
      json: Array(#"{"models":[\#(phone)],"releases":[\#(Self.release262)]}"#.utf8))
    let lab = try #require(profiles.model(named: "Lab iPhone"))
    #expect(profiles.releases(of: lab).first { $0.version == "26.2" }?.build == "23C56")
    #expect(profiles.releases.first { $0.version == "26.2" }?.build == "23C55")
  }

  @Test(arguments: [
    (#"{"model":[]}"#, "model", "is not a known field"),
    (#"{"models":[{"name":"Lab iPhone"}]}"#, "models[0].identifier", "is required"),
    (
      #"{"models":[\#(labPhone.replacingOccurrences(of: "iPhone17,3", with: "iPhone16,1"))]}"#,
      "models[0]", "names a model known already: iPhone16,1"
    ),
    (
      #"{"models":[\#(labPhone.replacingOccurrences(of: #""firstMajorVersion":18"#, with: #""firstMajorVersion":18,"lastMajorVersion":17"#))]}"#,
      "models[0].lastMajorVersion", "must be firstMajorVersion (18) or later"
    ),
    (
      #"{"models":[\#(labPhone.replacingOccurrences(of: #""method":"allocated-until-killed""#, with: #""method":"guess""#))]}"#,
      "models[0].method", "must be one of specification, allocated-until-killed, available-memory"
    ),
    (
      #"{"releases":[{"version":"26.1","build":"x","source":"y"}]}"#, "releases[0].version",
      "is a release known already"
    ),
    (
      #"{"releases":[{"version":"26.x","build":"x","source":"y"}]}"#, "releases[0].version",
      Validation.versionRule
    ),
    ("[1]", "body", "must be a JSON object"),
    (
      #"{"models":[\#(labPhone.replacingOccurrences(of: "}", with: #","builds":[{"version":"15.0","build":"x","source":"y"}]}"#))]}"#,
      "models[0].builds[0].version",
      "must be a version Lab iPhone runs: 18.0, 26.0, 26.1, 26.4, 27.0"
    ),
    (
      #"{"models":[\#(labPhone.replacingOccurrences(of: "}", with: #","builds":[{"version":"26.1","build":"x","source":"y"},{"version":"26.1","build":"z","source":"y"}]}"#))]}"#,
      "models[0].builds[1].version", "names a release the model's builds name already"
    ),
  ])
  func aMalformedEntryIsNamedByItsPlace(json: String, place: String, message: String) {
    #expect(throws: FileError(place: place, message: message)) {
      try DeviceProfiles.builtIn.adding(json: Array(json.utf8))
    }
  }

  @Test func theServerListsAndMakesTheFilesModels() throws {
    let profiles = try DeviceProfiles.builtIn.adding(
      json: Array(#"{"models":[\#(Self.labPhone)]}"#.utf8))
    let api = APITests { $0.profiles = profiles }
    let listed = api.call("GET", "/v1/profiles").body
    #expect(listed.contains(#""name":"Lab iPhone","identifier":"iPhone17,3""#), "\(listed)")
    let made = api.post("/v1/devices", #"{"id":"lab","model":"Lab iPhone"}"#)
    #expect(
      made?["memory"]
        == json(
          #"{"usedMB":0,"limitMB":8192,"perAppLimitMB":3300,"backgroundAppLimitMB":400,"#
            + #""increasedAppLimitMB":3300,"pressure":false,"warningGraceEndsAt":null}"#))
  }
}
