import Configuration
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
    return configuration
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
