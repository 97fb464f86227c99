import Foundation
import HTTPServer
import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycledService

/// Loading the configuration: precedence, bad values, names, and the shipped file.
@Suite struct ConfigurationTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The user guide's article `name` (`Sources/lifecycled/lifecycled.docc`).
  static func guide(_ name: String) -> URL {
    repository.appendingPathComponent("Sources/lifecycled/lifecycled.docc/\(name).md")
  }

  func file(_ json: String) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("lifecycled-\(UUID().uuidString).json").path
    try json.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func embeddedDefaults() async throws {
    let configuration = try await ServiceConfiguration.load(environment: [:])
    #expect(configuration == ServiceConfiguration())
    #expect(configuration.server.host == "127.0.0.1")
    #expect(configuration.server.port == 8080)
    #expect(configuration.server.connection.headerTimeout == 10_000)
    #expect(configuration.logLevel == .info)
  }

  @Test func shippedConfigFileIsExactlyTheEmbeddedDefaults() throws {
    let shipped = try String(
      contentsOf: Self.repository.appendingPathComponent("config/lifecycled.json"), encoding: .utf8)
    #expect(shipped == ServiceConfiguration().json)
  }

  @Test func shippedConfigFileLoadsToTheDefaults() async throws {
    let path = Self.repository.appendingPathComponent("config/lifecycled.json").path
    #expect(
      try await ServiceConfiguration.load(environment: [:], file: path) == ServiceConfiguration())
  }

  @Test func flagsOverrideEnvironmentOverridesFileOverridesDefaults() async throws {
    let path = try file(
      #"{"port": 1001, "maxConnections": 7, "headerTimeoutSeconds": 2.5, "logLevel": "debug"}"#)
    let environment = ["LIFECYCLED_PORT": "1002", "LIFECYCLED_MAX_CONNECTIONS": "8"]
    let configuration = try await ServiceConfiguration.load(
      arguments: ["--port", "1003"], environment: environment, file: path)
    #expect(configuration.server.port == 1003)
    #expect(configuration.server.maxConnections == 8)
    #expect(configuration.server.connection.headerTimeout == 2_500)
    #expect(configuration.logLevel == .debug)
    #expect(configuration.server.host == "127.0.0.1")
  }

  @Test func theDefaultDeviceIsAModelOnARelease() async throws {
    let configuration = try await ServiceConfiguration.load(
      arguments: ["--device-model", "iPhone12,1"],
      environment: [
        "LIFECYCLED_DEVICE_OSVERSION": "13.0", "LIFECYCLED_DEVICE_PER_APP_LIMIT_MB": "900",
      ])
    let defaults = configuration.engine.deviceDefaults
    #expect(defaults.model == "iPhone12,1" && defaults.osVersion == "13.0")
    #expect(defaults.memoryLimitMB == nil && defaults.perAppLimitMB == 900)
  }

  /// A profile file's models and releases join the built-in ones before the defaults are
  /// checked: the default device can be one of them.
  @Test func aProfileFileAddsModelsTheDefaultsMayName() async throws {
    let profiles = try file(
      #"{"models":[{"name":"Lab iPhone","identifier":"Lab1,1","memoryMB":4000,"#
        + #""appLimitMB":2000,"method":"specification","source":"lab","firstMajorVersion":26}]}"#)
    let configuration = try await ServiceConfiguration.load(
      arguments: ["--profiles", profiles, "--device-model", "Lab iPhone"], environment: [:])
    #expect(configuration.engine.profiles.model(named: "Lab1,1")?.appLimit.megabytes == 2000)
    #expect(configuration.engine.deviceDefaults.model == "Lab iPhone")
    let broken = try file(#"{"models":[{"name":""}]}"#)
    await #expect(
      throws: ConfigurationError(
        key: "profiles", message: "'\(broken)': models[0].identifier is required")
    ) {
      try await ServiceConfiguration.load(arguments: ["--profiles", broken], environment: [:])
    }
  }

  @Test func engineKeysReachTheEngine() async throws {
    let configuration = try await ServiceConfiguration.load(
      arguments: [
        "--suspend-delay-seconds", "0.25", "--device-clock", "manual",
        "--device-memory-limit-mb", "512",
      ],
      environment: ["LIFECYCLED_DEVICE_PASSCODE": "false", "LIFECYCLED_JOURNAL_SIZE": "50"])
    #expect(configuration.engine.scheduler.suspendDelay == .milliseconds(250))
    #expect(configuration.engine.deviceDefaults.clock == .manual)
    #expect(!configuration.engine.deviceDefaults.passcode)
    #expect(configuration.engine.limits.journalCapacity == 50)
    #expect(configuration.engine.deviceDefaults.memoryLimitMB == 512)
  }

  @Test func fileNamedByTheEnvironment() async throws {
    let path = try file(#"{"host": "0.0.0.0"}"#)
    let configuration = try await ServiceConfiguration.load(environment: ["LIFECYCLED_CONFIG": path]
    )
    #expect(configuration.server.host == "0.0.0.0")
  }

  @Test func flagsAcceptTheEqualsForm() async throws {
    let configuration = try await ServiceConfiguration.load(
      arguments: ["--max-body-bytes=2048", "--keep-alive-timeout-seconds", "0.5"], environment: [:])
    #expect(configuration.server.connection.limits.maxBodyBytes == 2048)
    #expect(configuration.server.connection.keepAliveTimeout == 500)
  }

  @Test(arguments: [
    (
      ["LIFECYCLED_PORT": "http"],
      "configuration key 'port' (LIFECYCLED_PORT, --port): must be an integer from 0 to 65535"
    ),
    (
      ["LIFECYCLED_PORT": "70000"],
      "configuration key 'port' (LIFECYCLED_PORT, --port): must be an integer from 0 to 65535, not 70000"
    ),
    (
      ["LIFECYCLED_SEND_TIMEOUT_SECONDS": "-1"],
      "configuration key 'sendTimeoutSeconds' (LIFECYCLED_SEND_TIMEOUT_SECONDS, --send-timeout-seconds): must be a number of seconds from 0.001 to 86400, not -1.0"
    ),
    (
      ["LIFECYCLED_LOG_LEVEL": "loud"],
      "configuration key 'logLevel' (LIFECYCLED_LOG_LEVEL, --log-level): must be one of trace, debug, info, notice, warning, error, critical, not 'loud'"
    ),
    (
      ["LIFECYCLED_HOST": ""],
      "configuration key 'host' (LIFECYCLED_HOST, --host): must be a non-empty string, not ''"
    ),
    (
      ["LIFECYCLED_MAX_CONECTIONS": "5"],
      "configuration key 'LIFECYCLED_MAX_CONECTIONS': is not a configuration variable"
    ),
  ])
  func badEnvironmentIsOneLineNamingTheKey(environment: [String: String], message: String) async {
    await #expect(throws: ConfigurationError.self) {
      try await ServiceConfiguration.load(environment: environment)
    }
    do {
      _ = try await ServiceConfiguration.load(environment: environment)
    } catch {
      #expect(error.description == message)
    }
  }

  @Test func unknownFlagIsRefused() async {
    do {
      _ = try await ServiceConfiguration.load(arguments: ["--prot", "1"], environment: [:])
      Issue.record("accepted --prot")
    } catch {
      #expect(error.description == "configuration key '--prot': is not an option; see --help")
    }
  }

  @Test func missingOrMalformedFileIsRefused() async throws {
    for path in ["/nonexistent/lifecycled.json", try file("{not json")] {
      do {
        _ = try await ServiceConfiguration.load(environment: [:], file: path)
        Issue.record("accepted \(path)")
      } catch {
        #expect(error.key == "config")
        #expect(error.description.hasPrefix("configuration key 'config': cannot read '\(path)'"))
      }
    }
  }

  @Test func fixturesAreReadWithTheConfiguration() async throws {
    let fixtures = try file(
      #"{"devices":[{"id":"phone","passcode":true,"apps":[{"name":"mail"}]},{"id":"default"}]}"#)
    let configuration = try await ServiceConfiguration.load(
      arguments: ["--fixtures", fixtures], environment: [:])
    #expect(configuration.fixturesFile == fixtures)
    #expect(configuration.fixtures?.devices.map(\.id) == ["phone", "default"])
    #expect(configuration.fixtures?.devices.first?.passcode == true)
    #expect(configuration.fixtures?.devices.first?.apps.map(\.spec.name) == ["mail"])
  }

  /// Each way a fixture file can be wrong, named by its place in the file.
  @Test(arguments: [
    (#"{"devices":[{"id":"a"},{"id":"a"}]}"#, "devices[1].id names another device of the file"),
    (#"{"devices":[{"id":"a","color":"red"}]}"#, "devices[0].color is not a known field"),
    (
      #"{"devices":[{"id":"a","apps":[{"name":"m","memoryMB":-1}]}]}"#,
      "devices[0].apps[0].memoryMB must be an integer from 0 to 1048576"
    ),
    (#"{"device":[]}"#, "devices is required"),
    (#"{"devices":["#, "is not JSON: the body ends where a value should be at byte 12"),
    (
      #"{"devices":[{"format":"lifecycled-device-snapshot","version":1,"device":{"id":"p","#
        + #""clock":"manual","memoryLimitMB":100,"perAppLimitMB":100},"now":0,"seq":0,"#
        + #""foregroundApp":"m","apps":[{"name":"m"}]}]}"#,
      "devices[0].foregroundApp must name the app in the foreground, the one there is or none"
    ),
  ])
  func aBadFixtureFileIsRefusedNamingThePlace(json: String, message: String) async throws {
    let path = try file(json)
    do {
      _ = try await ServiceConfiguration.load(arguments: ["--fixtures", path], environment: [:])
      Issue.record("accepted \(json)")
    } catch {
      #expect(error.key == "fixtures")
      #expect(error.message == "'\(path)': \(message)", "\(json)")
    }
  }

  @Test func wronglyTypedFileValueIsRefused() async throws {
    let path = try file(#"{"port": "eighty"}"#)
    do {
      _ = try await ServiceConfiguration.load(environment: [:], file: path)
      Issue.record("accepted a string port")
    } catch {
      #expect(error.key == "port")
    }
  }

  @Test func theGuideDocumentsEveryKeyWithItsDefault() throws {
    let readme = try String(contentsOf: Self.guide("Configuration"), encoding: .utf8)
    let defaults = ServiceConfiguration()
    for setting in Setting.all {
      let value = setting.render(defaults).trimmingCharacters(in: ["\""])
      let row =
        "| `\(setting.key)` | `\(setting.environmentVariable)` | `\(setting.flag)` | `\(value)` | "
      #expect(readme.contains(row), "the guide lacks the row of \(setting.key)")
    }
  }

  @Test func namesDeriveFromTheKey() {
    let setting = Setting.named("keepAliveTimeoutSeconds")
    #expect(setting?.environmentVariable == "LIFECYCLED_KEEP_ALIVE_TIMEOUT_SECONDS")
    #expect(setting?.flag == "--keep-alive-timeout-seconds")
    #expect(Set(Setting.all.map(\.key)).count == Setting.all.count)
  }
}

/// The configuration file: a flat JSON object read strictly.
struct ConfigurationFileTests {
  func load(_ json: String) async throws -> ServiceConfiguration {
    try await ServiceConfiguration.load(environment: [:], file: try ConfigurationTests().file(json))
  }

  func refusal(_ json: String) async throws -> ConfigurationError? {
    let path = try ConfigurationTests().file(json)
    do {
      _ = try await ServiceConfiguration.load(environment: [:], file: path)
      return nil
    } catch {
      return ConfigurationError(
        key: error.key, message: error.message.replacingOccurrences(of: path, with: "FILE"))
    }
  }

  @Test func numbersCrossBetweenIntegersAndSecondsWhenNothingIsLost() async throws {
    let configuration = try await load(#"{"port": 8081.0, "lingerSeconds": 3}"#)
    #expect(configuration.server.port == 8081)
    #expect(configuration.server.connection.lingerTimeout == 3000)
  }

  @Test(arguments: [
    (#"{"prot": 1}"#, "prot", "is not a configuration key (in FILE)"),
    (#"{"host": ["0.0.0.0"]}"#, "host", "must be a non-empty string"),
    (
      #"{"allowedHosts": [1]}"#, "allowedHosts",
      "must be a string, a number, a boolean, a list of strings or null (in FILE)"
    ),
    (
      #"{"allowedOrigins": "http://a, "}"#, "allowedOrigins",
      #"must be a list of non-empty strings, not ["http://a", " "]"#
    ),
    (#"[1]"#, "config", "must hold one JSON object (in FILE)"),
    (#"{"port": 8080.5}"#, "port", "must be an integer from 0 to 65535"),
    (#"{"port": true}"#, "port", "must be an integer from 0 to 65535"),
    (#"{"port": "8080"}"#, "port", "must be an integer from 0 to 65535"),
    (#"{"devicePasscode": 1}"#, "devicePasscode", "must be true or false"),
    (#"{"logFormat": "xml"}"#, "logFormat", "must be one of text, json, not 'xml'"),
    (
      #"{"deviceModel": "iPhone 9"}"#, "deviceModel",
      "must be one of "
        + DeviceProfiles.builtIn.models.map(\.name).joined(separator: ", ")
    ),
    (
      #"{"deviceModel": "iPhone 6s"}"#, "deviceOSVersion",
      "must be a version iPhone 6s runs: 13.0, 15.0"
    ),
    (
      #"{"devicePerAppLimitMB": 0}"#, "devicePerAppLimitMB",
      "must be an integer from 1 to 1048576, not 0"
    ),
  ])
  func badFileIsRefusedNamingTheKey(json: String, key: String, message: String) async throws {
    let error = try await refusal(json)
    #expect(error == ConfigurationError(key: key, message: message))
  }

  @Test func duplicateKeyMakesTheFileUnreadable() async throws {
    let error = try await refusal(#"{"port": 1, "port": 2}"#)
    #expect(error?.key == "config")
    #expect(error?.message.hasPrefix("cannot read 'FILE': duplicate") == true)
  }
}
