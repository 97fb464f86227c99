public import LifecycleEngine

extension DeviceProfiles {
  /// The most models or releases a profile file holds.
  static let maxFileEntries = 1_000

  /// These profiles with those of a profile file (the `profiles` configuration key) added
  /// after them: a model a lab measured, a release the server does not know yet.
  ///
  /// ```json
  /// {"models": [{"name": "Lab iPhone", "identifier": "iPhone17,3", "memoryMB": 8192,
  ///              "appLimitMB": 3300, "backgroundAppLimitMB": 400, "increasedAppLimitMB": 6000,
  ///              "method": "allocated-until-killed", "source": "our lab, iOS 26.1",
  ///              "firstMajorVersion": 18,
  ///              "builds": [{"version": "26.1", "build": "23B86", "source": "its reports"}]}],
  ///  "releases": [{"version": "26.2", "build": "23C55", "source": "our devices' reports"}]}
  /// ```
  ///
  /// Every member but a model's `simulatorDeviceType`, `backgroundAppLimitMB`,
  /// `increasedAppLimitMB`, `lastMajorVersion` and `builds` is required; one figure method and
  /// source stand for all of a model's figures; `builds` are the releases the model runs in a
  /// build of its own. A name, identifier or version already known is refused, as is a build
  /// of a release the model does not run, or any member the file does not know.
  ///
  /// - Parameter json: The file's bytes.
  /// - Returns: The profiles, the file's models and releases after these ones.
  /// - Throws: ``FileError`` naming the place of the first problem, such as
  ///   `models[1].appLimitMB`.
  public func adding(json: [UInt8]) throws(FileError) -> DeviceProfiles {
    let (models, releases) = try FileError.reading(json) { fields in
      (
        fields.array("models", maxCount: Self.maxFileEntries) { Self.model(&$0) } ?? [],
        fields.array("releases", maxCount: Self.maxFileEntries) { Self.release(&$0) } ?? []
      )
    }
    var profiles = self
    if let first = profiles.add(models, releases).first {
      throw FileError(place: first.field, message: first.message)
    }
    return profiles
  }

  private static func model(_ fields: inout Fields) -> DeviceModel? {
    let megabytes = 1...Validation.maxMemoryMB
    let versions = 1...999
    let name = fields.string("name", required: true, maxBytes: Validation.maxNameBytes)
    let identifier = fields.string("identifier", required: true, maxBytes: Validation.maxNameBytes)
    let simulator = fields.string("simulatorDeviceType", maxBytes: Validation.maxNameBytes)
    let memory = fields.integer("memoryMB", in: megabytes, required: true)
    let appLimit = fields.integer("appLimitMB", in: megabytes, required: true)
    let background = fields.integer("backgroundAppLimitMB", in: megabytes)
    let increased = fields.integer("increasedAppLimitMB", in: megabytes)
    let method = fields.choice("method", FigureMethod.self, required: true)
    let source = fields.string("source", required: true, maxBytes: 1_024)
    let first = fields.integer("firstMajorVersion", in: versions, required: true)
    let last = fields.integer("lastMajorVersion", in: versions)
    let builds = fields.array("builds", maxCount: maxFileEntries) { release(&$0) } ?? []
    fields.checkUnknownMembers()
    let texts: [(StaticString, String?)] = [
      ("name", name), ("identifier", identifier), ("source", source),
    ]
    for (key, text) in texts where text?.isEmpty == true {
      fields.reject(key, "must not be empty")
    }
    if let first, let last, last < first {
      fields.reject("lastMajorVersion", "must be firstMajorVersion (\(first)) or later")
    }
    guard fields.issues.isEmpty, let name, let identifier, let memory, let appLimit, let method,
      let source, let first
    else { return nil }
    func figure(_ megabytes: Int) -> ProfileFigure {
      ProfileFigure(megabytes, method, source: source)
    }
    return DeviceModel(
      name: name, identifier: identifier, simulatorDeviceType: simulator, memory: figure(memory),
      appLimit: figure(appLimit), backgroundAppLimit: background.map(figure),
      increasedAppLimit: increased.map(figure), firstMajorVersion: first, lastMajorVersion: last,
      builds: builds)
  }

  private static func release(_ fields: inout Fields) -> OSRelease? {
    let version = fields.checkedVersion("version", required: true)
    let build = fields.string("build", required: true, maxBytes: 32)
    let source = fields.string("source", required: true, maxBytes: 1_024)
    fields.checkUnknownMembers()
    guard let version, let build, let source else { return nil }
    return OSRelease(version: version, build: build, source: source)
  }
}
