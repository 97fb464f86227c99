import Configuration
import LifecycleAPI
import LifecycleEngine
import SystemPackage

extension ServiceConfiguration {
  /// The environment variable that names a configuration file.
  public static let fileVariable = "LIFECYCLED_CONFIG"

  /// Reads the configuration; each source overrides the ones after it:
  /// command-line flags, then `LIFECYCLED_*` environment variables, then the JSON file (from
  /// `file`, else `LIFECYCLED_CONFIG`; see `ConfigurationFileSnapshot`), then the embedded
  /// defaults. A key the service does not know is refused wherever it appears.
  ///
  /// - Parameter arguments: flags such as `--port 9000` or `--max-connections=10`; every flag
  ///   must name a key.
  public static func load(
    arguments: [String] = [], environment: [String: String], file: String? = nil
  ) async throws(ConfigurationError) -> ServiceConfiguration {
    try checkFlags(arguments)
    try checkEnvironment(environment)
    var providers: [any ConfigProvider] = [
      CommandLineArgumentsProvider(arguments: ["lifecycled"] + arguments),
      EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(
        with: "lifecycled"),
    ]
    if let path = file ?? environment[fileVariable] {
      do {
        providers.append(
          try await FileProvider<ConfigurationFileSnapshot>(filePath: FilePath(path)))
      } catch let error as ConfigurationError {
        throw ConfigurationError(key: error.key, message: "\(error.message) (in \(path))")
      } catch {
        throw ConfigurationError(key: "config", message: "cannot read '\(path)': \(error)")
      }
    }
    let reader = ConfigReader(providers: providers)
    var configuration = ServiceConfiguration()
    for setting in Setting.all { try setting.apply(reader, &configuration) }
    if let path = configuration.profilesFile {
      do {
        configuration.engine.profiles = try DeviceProfiles.builtIn.adding(
          json: try bytes(at: path, key: "profiles"))
      } catch {
        throw ConfigurationError(key: "profiles", message: "'\(path)': \(error)")
      }
    }
    try checkDeviceProfile(of: configuration.engine)
    if let path = configuration.fixturesFile {
      configuration.fixtures = try fixtures(at: path, engine: configuration.engine)
    }
    return configuration
  }

  /// Refuses device defaults that name a model or a release the profiles do not know, or a
  /// release the model does not run.
  private static func checkDeviceProfile(of engine: EngineConfiguration)
    throws(ConfigurationError)
  {
    let defaults = engine.deviceDefaults
    guard
      let issue = engine.profiles.issues(model: defaults.model, osVersion: defaults.osVersion)
        .first
    else { return }
    throw ConfigurationError(
      key: issue.field == "model" ? "deviceModel" : "deviceOSVersion", message: issue.message)
  }

  /// The fixture file at `path`, checked against the engine's configuration: a file that
  /// cannot be read or holds a device that cannot be made stops the start (exit 2), naming the
  /// place in it.
  private static func fixtures(at path: String, engine: EngineConfiguration)
    throws(ConfigurationError) -> Fixtures
  {
    let bytes = try bytes(at: path, key: "fixtures")
    do {
      return try Fixtures(json: bytes, configuration: engine)
    } catch {
      throw ConfigurationError(key: "fixtures", message: "'\(path)': \(error)")
    }
  }

  /// The bytes of the file at `path`, which the configuration key `key` names.
  private static func bytes(at path: String, key: String) throws(ConfigurationError) -> [UInt8] {
    do {
      let file = try FileDescriptor.open(FilePath(path), .readOnly)
      return try file.closeAfter {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while case let count = try chunk.withUnsafeMutableBytes({ try file.read(into: $0) }),
          count > 0
        {
          bytes += chunk[..<count]
        }
        return bytes
      }
    } catch {
      throw ConfigurationError(key: key, message: "cannot read '\(path)': \(error)")
    }
  }

  /// The configuration as a JSON object, one key a line, in the order of `Setting.all`: the
  /// format of `config/lifecycled.json`.
  public var json: String {
    let lines = Setting.all.map { "  \"\($0.key)\": \($0.render(self))" }
    return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
  }

  private static func checkFlags(_ arguments: [String]) throws(ConfigurationError) {
    let known = Set(Setting.all.map(\.flag))
    for argument in arguments where argument.hasPrefix("-") {
      let flag = String(argument.prefix { $0 != "=" })
      guard known.contains(flag) else {
        throw ConfigurationError(key: flag, message: "is not an option; see --help")
      }
    }
  }

  private static func checkEnvironment(_ environment: [String: String]) throws(ConfigurationError) {
    let known = Set(Setting.all.map(\.environmentVariable) + [fileVariable])
    for name in environment.keys.sorted()
    where name.hasPrefix("LIFECYCLED_") && !known.contains(name) {
      throw ConfigurationError(key: name, message: "is not a configuration variable")
    }
  }
}
