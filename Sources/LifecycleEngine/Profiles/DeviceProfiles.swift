/// The devices the simulator knows: models as Apple ships them and the iOS releases they run,
/// each number with where it comes from (`GET /v1/profiles`). A device is made as one model
/// running one release (`DeviceConfiguration.model`, `osVersion`).
public struct DeviceProfiles: Hashable, Sendable {
  /// In the order listed.
  public var models: [DeviceModel]
  /// Oldest first.
  public var releases: [OSRelease]

  public init(models: [DeviceModel], releases: [OSRelease]) {
    self.models = models
    self.releases = releases
  }

  /// The model a client names by its marketing name (`iPhone 15 Pro`, as Xcode's destinations
  /// say it), its model identifier (`iPhone16,1`, as `UIDevice`'s `hw.machine` and crash
  /// reports say it) or its simulator device type (as `simctl` says it).
  public func model(named name: String) -> DeviceModel? {
    models.first { $0.name == name || $0.identifier == name || $0.simulatorDeviceType == name }
  }

  /// The release `version` names (`26.1`).
  public func release(_ version: String) -> OSRelease? {
    releases.first { $0.version == version }
  }

  /// Adds `models` after these and `releases` among these, oldest first; what names a model or
  /// a release known already, or a model's build of a release it does not run, is named by
  /// its place (`models[0]`, `releases[1].version`), and nothing is added then.
  public mutating func add(_ models: [DeviceModel], _ releases: [OSRelease]) -> ValidationIssues {
    var issues = ValidationIssues()
    var known = self
    for (index, model) in models.enumerated() {
      for name in [model.name, model.identifier] where known.model(named: name) != nil {
        issues.append("models[\(index)]", "names a model known already: \(name)")
      }
      known.models.append(model)
    }
    for (index, release) in releases.enumerated() where known.release(release.version) != nil {
      issues.append("releases[\(index)].version", "is a release known already")
    }
    known.releases = (known.releases + releases).sorted {
      $0.numbers.lexicographicallyPrecedes($1.numbers)
    }
    for (index, model) in models.enumerated() {
      for (place, build) in model.builds.enumerated() {
        let field = "models[\(index)].builds[\(place)].version"
        if !(known.release(build.version).map(model.runs) ?? false) {
          issues.append(field, Self.releaseRule(model.name, known.releases.filter(model.runs)))
        } else if model.builds[..<place].contains(where: { $0.version == build.version }) {
          issues.append(field, "names a release the model's builds name already")
        }
      }
    }
    guard issues.isEmpty else { return issues }
    self = known
    return issues
  }

  /// The releases `model` runs, oldest first, each with the build the model runs.
  public func releases(of model: DeviceModel) -> [OSRelease] {
    releases.filter(model.runs).map(model.build(of:))
  }

  /// What is wrong with making a device as `model` running `osVersion`, by the fields that
  /// name them: an unknown model or version is told the known ones.
  public func issues(model name: String, osVersion: String) -> ValidationIssues {
    var issues = ValidationIssues()
    guard let model = model(named: name) else {
      issues.append("model", "must be one of \(Self.listing(models.map(\.name)))")
      return issues
    }
    if let release = release(osVersion), model.runs(release) { return issues }
    issues.append("osVersion", Self.releaseRule(model.name, releases(of: model)))
    return issues
  }

  /// What a version `model` does not run is told.
  static func releaseRule(_ model: String, _ releases: [OSRelease]) -> String {
    "must be a version \(model) runs: \(listing(releases.map(\.version)))"
  }

  private static func listing(_ names: [String]) -> String {
    names.isEmpty ? "(none known)" : names.joined(separator: ", ")
  }
}

/// A device model as Apple ships it: its names, its memory and the limits jetsam holds its
/// apps to, each figure with its source.
public struct DeviceModel: Hashable, Sendable {
  /// The marketing name, as Xcode's destinations say it: `iPhone 15 Pro`.
  public var name: String
  /// The model identifier (`hw.machine`): what crash and jetsam reports call the product,
  /// `iPhone16,1`.
  public var identifier: String
  /// The simulator's device type, as `simctl` names it; nil where there is none.
  public var simulatorDeviceType: String?
  /// The device's RAM: the memory budget of its apps (the system's own share is not modelled).
  public var memory: ProfileFigure
  /// Jetsam's per-process limit for an app in the foreground (`memlimit_active`).
  public var appLimit: ProfileFigure
  /// The limit once the app leaves the foreground (`memlimit_inactive`); nil where no source
  /// measures one: the app keeps its foreground limit.
  public var backgroundAppLimit: ProfileFigure?
  /// The foreground limit of an app with the `com.apple.developer.kernel.increased-memory-limit`
  /// entitlement; nil where no source measures one: the entitlement changes nothing.
  public var increasedAppLimit: ProfileFigure?
  /// The first and the last major iOS version the model runs; `lastMajorVersion` nil: the
  /// latest release known still supports it.
  public var firstMajorVersion: Int
  public var lastMajorVersion: Int?
  /// The releases whose build is the model's own, as its reports name it: a model that
  /// shipped with a fix of its own (the iPhone 17 Pro's iOS 26.0 is 23A345, where other
  /// models' is 23A341). The model runs every other release in its build for all.
  public var builds: [OSRelease]

  public init(
    name: String, identifier: String, simulatorDeviceType: String?, memory: ProfileFigure,
    appLimit: ProfileFigure, backgroundAppLimit: ProfileFigure? = nil,
    increasedAppLimit: ProfileFigure? = nil, firstMajorVersion: Int, lastMajorVersion: Int?,
    builds: [OSRelease] = []
  ) {
    self.name = name
    self.identifier = identifier
    self.simulatorDeviceType = simulatorDeviceType
    self.memory = memory
    self.appLimit = appLimit
    self.backgroundAppLimit = backgroundAppLimit
    self.increasedAppLimit = increasedAppLimit
    self.firstMajorVersion = firstMajorVersion
    self.lastMajorVersion = lastMajorVersion
    self.builds = builds
  }

  /// Whether Apple ships `release` for this model.
  public func runs(_ release: OSRelease) -> Bool {
    release.majorVersion >= firstMajorVersion
      && lastMajorVersion.map { release.majorVersion <= $0 } ?? true
  }

  /// `release` as the model runs it: in its own build, where it has one.
  public func build(of release: OSRelease) -> OSRelease {
    builds.first { $0.version == release.version } ?? release
  }
}

/// One memory figure of a model, in MB, with how it was found and where it was published.
public struct ProfileFigure: Hashable, Sendable {
  public var megabytes: Int
  public var method: FigureMethod
  /// Where the figure was published, and on which iOS version it was found.
  public var source: String

  public init(_ megabytes: Int, _ method: FigureMethod, source: String) {
    self.megabytes = megabytes
    self.method = method
    self.source = source
  }
}

/// How a figure was found: how far to trust it.
public enum FigureMethod: String, CaseIterable, Sendable {
  /// The maker's specification, or a teardown's.
  case specification
  /// An app allocated memory until jetsam killed it: the kill point, one run on one iOS
  /// version.
  case allocatedUntilKilled = "allocated-until-killed"
  /// An app read `os_proc_available_memory` (with what it used): a reading Apple calls
  /// advisory, rounded by whoever reported it.
  case availableMemory = "available-memory"
}

/// An iOS release: its version and build, as crash and jetsam reports name them.
public struct OSRelease: Hashable, Sendable {
  /// `26.1`.
  public var version: String
  /// `23B85`.
  public var build: String
  /// Where the build number was seen.
  public var source: String

  public init(version: String, build: String, source: String) {
    self.version = version
    self.build = build
    self.source = source
  }

  /// The first number of the version.
  public var majorVersion: Int { Self.majorVersion(of: version) }

  /// The first number of `version` (`26` of `26.1`), read without making anything.
  static func majorVersion(of version: String) -> Int {
    var major = 0
    for byte in version.utf8 {
      guard (48...57).contains(byte) else { break }
      major = major * 10 + Int(byte - 48)
    }
    return major
  }

  /// The version's numbers, `[26, 1]`: releases compare by them in turn.
  var numbers: [Int] { version.split(separator: ".").map { Int($0) ?? 0 } }

  /// The OS as reports write it: `iPhone OS 26.1 (23B85)` (iPads' reports say `iPhone OS`
  /// too).
  public var reportName: String { "iPhone OS \(version) (\(build))" }
}

/// What a device keeps of its model, as its configuration resolves it in the engine's
/// profiles: the model's name and identifier, the releases it runs, and the memory limits its
/// apps live under. (A few words: the figures' sources stay in the profiles.)
struct ResolvedProfile: Hashable, Sendable {
  let name: String
  let identifier: String
  let releases: [OSRelease]
  let memory: MemoryLimits

  /// The profile of a device made of `configuration`; nil, with the issues in `issues`, if
  /// `profiles` know no such model, or it runs no such release.
  init?(
    _ configuration: DeviceConfiguration, in profiles: DeviceProfiles,
    issues: inout ValidationIssues
  ) {
    let found = profiles.issues(
      model: configuration.model, osVersion: configuration.initialOSVersion)
    guard found.isEmpty, let model = profiles.model(named: configuration.model) else {
      issues.append(contentsOf: found)
      return nil
    }
    name = model.name
    identifier = model.identifier
    releases = profiles.releases(of: model)
    let appLimit = configuration.perAppLimitMB ?? model.appLimit.megabytes
    memory = MemoryLimits(
      deviceMB: configuration.memoryLimitMB ?? model.memory.megabytes,
      appMB: appLimit,
      backgroundAppMB: configuration.backgroundAppLimitMB ?? model.backgroundAppLimit?.megabytes,
      increasedAppMB: configuration.increasedAppLimitMB ?? model.increasedAppLimit?.megabytes
        ?? appLimit)
  }

  /// The release `version` names, if the model runs it.
  func release(_ version: String) -> OSRelease? {
    releases.first { $0.version == version }
  }

  /// What a version the model does not run is told.
  var releaseRule: String { DeviceProfiles.releaseRule(name, releases) }
}

/// The memory a device's apps live under: its budget, and jetsam's per-process limits.
public struct MemoryLimits: Hashable, Sendable {
  /// What the apps together may use before jetsam reclaims memory.
  public var deviceMB: Int
  /// The limit of an app in the foreground.
  public var appMB: Int
  /// The limit of an app out of the foreground; nil: each app keeps its foreground limit.
  public var backgroundAppMB: Int?
  /// The foreground limit of an app with the increased-memory-limit entitlement.
  public var increasedAppMB: Int

  /// The limit jetsam holds an app to: in the foreground, its own (raised by the
  /// entitlement); out of it, the background limit where there is one.
  public func appLimit(inForeground: Bool, increased: Bool) -> Int {
    let foreground = increased ? increasedAppMB : appMB
    return inForeground ? foreground : backgroundAppMB ?? foreground
  }
}
