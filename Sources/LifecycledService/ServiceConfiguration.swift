import Configuration
public import HTTPServer
public import LifecycleAPI
public import LifecycleEngine
public import Logging

/// Everything the service is configured with. The defaults are the embedded configuration.
public struct ServiceConfiguration: Sendable, Equatable {
  public var server = HTTPServerConfiguration()
  /// The simulator's settings; their configuration keys come with the API's realtime scheduler.
  public var engine = EngineConfiguration()
  /// Who may use the API: hosts, origins, token.
  public var access = AccessPolicy()
  public var logLevel = Logger.Level.info
  public var logFormat = LogFormat.text
  /// The file the devices to start with come from (`Fixtures`).
  public var fixturesFile: String?
  /// The file of device models and releases added to the built-in ones
  /// (`DeviceProfiles.adding(json:)`), read into `engine.profiles` when the configuration is
  /// loaded.
  public var profilesFile: String?
  /// The devices read from `fixturesFile` when the configuration was loaded.
  public var fixtures: Fixtures?

  public init() {}
}

extension ServiceConfiguration {
  /// `engine.limits.memoryBudgetBytes` in the unit of its configuration key.
  var memoryBudgetMB: Int {
    get { engine.limits.memoryBudgetBytes >> 20 }
    set { engine.limits.memoryBudgetBytes = newValue << 20 }
  }

  /// `engine.limits.journalCapacityBytes` in the unit of its configuration key.
  var journalCapacityKB: Int {
    get { engine.limits.journalCapacityBytes >> 10 }
    set { engine.limits.journalCapacityBytes = newValue << 10 }
  }

  /// `engine.limits.jetsamLogCapacityBytes` in the unit of its configuration key.
  var jetsamLogCapacityKB: Int {
    get { engine.limits.jetsamLogCapacityBytes >> 10 }
    set { engine.limits.jetsamLogCapacityBytes = newValue << 10 }
  }
}

/// A configuration value that is present but unusable; the service exits with status 2.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
  public var key: String
  public var message: String

  public init(key: String, message: String) {
    self.key = key
    self.message = message
  }

  public var description: String {
    let setting = Setting.named(key)
    let names = setting.map { " (\($0.environmentVariable), \($0.flag))" } ?? ""
    return "configuration key '\(key)'\(names): \(message)"
  }
}

/// One configuration key: its name in files, how it reads and where it goes.
///
/// The table in `Setting.all` is the only list of keys: loading, unknown-key checks, the
/// environment and flag names, and the printed configuration all come from it.
struct Setting {
  let key: String
  let summary: String
  let apply: (ConfigReader, inout ServiceConfiguration) throws(ConfigurationError) -> Void
  let render: (ServiceConfiguration) -> String

  /// `LIFECYCLED_MAX_CONNECTIONS` for `maxConnections`.
  var environmentVariable: String { "LIFECYCLED_" + words.joined(separator: "_").uppercased() }

  /// `--max-connections` for `maxConnections`.
  var flag: String { "--" + words.joined(separator: "-").lowercased() }

  /// The key's words, split where a lowercase letter meets an uppercase one (`limitMB` is
  /// `limit`, `MB`), as swift-configuration splits keys for variables and flags.
  private var words: [String] {
    var words = [""]
    var previous: Character?
    for character in key {
      if character.isUppercase, previous?.isLowercase == true { words.append("") }
      words[words.count - 1].append(character)
      previous = character
    }
    return words
  }

  static func named(_ key: String) -> Setting? { all.first { $0.key == key } }

  static var all: [Setting] {
    [
      text("host", "address to listen on (IPv4 or IPv6; localhost is 127.0.0.1)", \.server.host),
      integer("port", "port to listen on; 0 picks a free one", \.server.port, 0...65535),
      integer(
        "maxConnections", "open connections; at the limit an idle one makes room",
        \.server.maxConnections, 1...1_000_000),
      integer(
        "maxConnectionsPerAddress", "open connections from one client address (503 beyond)",
        \.server.maxConnectionsPerAddress, 1...1_000_000),
      integer(
        "maxRequestLineBytes", "longest request line (414 beyond)",
        \.server.connection.limits.maxRequestLineBytes, 64...1_048_576),
      integer(
        "maxHeaderBytes", "largest header section (431 beyond)",
        \.server.connection.limits.maxHeaderBytes, 256...1_048_576),
      integer(
        "maxHeaderCount", "most header fields (431 beyond)",
        \.server.connection.limits.maxHeaderCount, 1...10_000),
      integer(
        "maxBodyBytes", "largest request body (413 beyond)",
        \.server.connection.limits.maxBodyBytes, 0...1_073_741_824),
      integer(
        "maxRequestsPerConnection", "requests on one keep-alive connection",
        \.server.connection.maxRequestsPerConnection, 1...1_000_000),
      seconds(
        "headerTimeoutSeconds", "a request head must arrive within this of its first byte (408)",
        \.server.connection.headerTimeout),
      seconds(
        "bodyTimeoutSeconds", "longest pause while reading a body (408)",
        \.server.connection.bodyTimeout),
      seconds(
        "requestTimeoutSeconds", "a whole request must arrive within this (408)",
        \.server.connection.requestTimeout),
      seconds(
        "keepAliveTimeoutSeconds", "idle keep-alive connections close after this",
        \.server.connection.keepAliveTimeout),
      seconds(
        "sendTimeoutSeconds", "a response the client does not read within this is dropped",
        \.server.connection.sendTimeout),
      seconds(
        "shutdownGraceSeconds", "on SIGTERM, connections still open after this are closed",
        \.server.shutdownGrace),
      seconds(
        "lingerSeconds",
        "after a closing response, the client's remaining bytes are drained this long",
        \.server.connection.lingerTimeout),
      list(
        "allowedHosts",
        "host names answered besides IP addresses and localhost (name, .domain, or *)",
        \.access.allowedHosts),
      list(
        "allowedOrigins", "origins whose web pages may call the API (none by default)",
        \.access.allowedOrigins),
      secret(
        "authToken", "bearer token every /v1 and /__admin request must carry (none by default)",
        \.access.authToken),
      logLevel(),
      choice("logFormat", "log lines as text or json", \.logFormat),
      file(
        "fixtures",
        "JSON file of devices (snapshots or declarations) to start with and reset to",
        \.fixturesFile),
      file(
        "profiles", "JSON file of device models and iOS releases to add to the built-in ones",
        \.profilesFile),
      choice(
        "deviceClock", "clock of new devices and of the default device: manual or realtime",
        \.engine.deviceDefaults.clock),
      modelName(
        "deviceModel",
        "model of new devices and of the default device (GET /v1/profiles lists them)",
        \.engine.deviceDefaults.model),
      text(
        "deviceOSVersion", "iOS release new devices and the default device start on",
        \.engine.deviceDefaults.osVersion),
      optionalInteger(
        "deviceMemoryLimitMB", "memory budget of a new device (null: its model's RAM)",
        \.engine.deviceDefaults.memoryLimitMB, 1...Validation.maxMemoryMB),
      optionalInteger(
        "devicePerAppLimitMB",
        "foreground per-app memory limit of a new device (null: its model's)",
        \.engine.deviceDefaults.perAppLimitMB, 1...Validation.maxMemoryMB),
      flag(
        "devicePasscode", "whether a new device has a passcode (protected-data callbacks)",
        \.engine.deviceDefaults.passcode),
      integer("maxDevices", "devices at most", \.engine.limits.maxDevices, 1...100_000),
      integer(
        "maxAppsPerDevice", "apps on one device at most", \.engine.limits.maxAppsPerDevice,
        1...100_000),
      integer(
        "maxBackgroundTasksPerApp", "background tasks one app may hold at once",
        \.engine.limits.maxBackgroundTasksPerApp, 1...100_000),
      integer(
        "maxWaitingCallbacksPerApp",
        "callbacks one app may hold waiting behind its busy main thread (409 beyond)",
        \.engine.limits.maxWaitingCallbacksPerApp, 64...1_000_000),
      integer(
        "maxMemoryMB",
        "memory the simulator's state may take; past it, requests that would grow it get 507",
        \.memoryBudgetMB, 1...1_048_576),
      integer(
        "journalSize", "entries each device's journal keeps (older ones are dropped and counted)",
        \.engine.limits.journalCapacity, 1...10_000_000),
      integer(
        "journalSizeKB", "bytes each device's journal keeps, in KiB (older entries are dropped)",
        \.journalCapacityKB, 1...1_048_576),
      integer(
        "jetsamLogSize", "jetsam events each device's jetsam log keeps (older ones are dropped)",
        \.engine.limits.jetsamLogCapacity, 1...1_000_000),
      integer(
        "jetsamLogSizeKB",
        "bytes each device's jetsam log keeps, in KiB (older events are dropped)",
        \.jetsamLogCapacityKB, 1...1_048_576),
      duration(
        "suspendDelaySeconds",
        "an idle background app is suspended this long after didEnterBackground returns",
        \.engine.scheduler.suspendDelay),
      duration(
        "watchdogSeconds", "didEnterBackground running longer gets the app killed (0x8badf00d)",
        \.engine.scheduler.watchdog),
      duration(
        "launchWatchdogSeconds",
        "a launch the user sees, didFinishLaunching on, running longer gets the app killed",
        \.engine.scheduler.launchWatchdog),
      duration(
        "backgroundLaunchWatchdogSeconds",
        "a launch in the background running longer gets the app killed",
        \.engine.scheduler.backgroundLaunchWatchdog),
      duration(
        "enterForegroundWatchdogSeconds",
        "willEnterForeground running longer gets the app killed",
        \.engine.scheduler.enterForegroundWatchdog),
      duration(
        "backgroundTaskSeconds", "background tasks expire this long after entering the background",
        \.engine.scheduler.backgroundTask),
      duration(
        "expirationGraceSeconds",
        "an expired task not ended gets its app killed this long after (0x2182bad2)",
        \.engine.scheduler.expirationGrace),
      duration(
        "backgroundWorkSeconds", "time a background launch has to complete its work",
        \.engine.scheduler.backgroundWork),
      duration(
        "processingTaskSeconds", "time a BGProcessingTask runs before its expiration handler",
        \.engine.scheduler.processingTask),
      integer(
        "backgroundPushesPerHour",
        "background pushes delivered to one app in any hour; the system drops the rest",
        \.engine.scheduler.backgroundPushesPerHour, 1...1_000),
      duration(
        "protectedDataLockDelaySeconds",
        "with a passcode, protected data becomes unavailable this long after a lock",
        \.engine.scheduler.protectedDataLockDelay),
      duration(
        "memoryWarningGraceSeconds",
        "under memory pressure, background apps are killed this long after the warning",
        \.engine.scheduler.memoryWarningGrace),
    ]
  }

  // MARK: Kinds of setting

  /// A setting read as `Raw` from the providers, converted to `Value` (nil: out of range).
  private static func make<Raw, Value>(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, Value>,
    expected: String, read typed: @escaping (ConfigReader, ConfigKey) -> Raw?,
    convert: @escaping (Raw) -> Value?, render: @escaping (Value) -> String
  ) -> Setting {
    Setting(
      key: key, summary: summary,
      apply: { reader, configuration throws(ConfigurationError) in
        guard let raw = try read(key, from: reader, as: expected, { typed(reader, $0) }) else {
          return
        }
        guard let value = convert(raw) else {
          let shown = (raw as? String).map { "'\($0)'" } ?? "\(raw)"
          throw ConfigurationError(key: key, message: "must be \(expected), not \(shown)")
        }
        configuration[keyPath: path] = value
      },
      render: { render($0[keyPath: path]) })
  }

  private static func text(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, String>
  ) -> Setting {
    make(
      key, summary, path, expected: "a non-empty string", read: { $0.string(forKey: $1) },
      convert: { $0.isEmpty ? nil : $0 }, render: { "\"\($0)\"" })
  }

  /// A model's name, which may hold commas (`iPhone16,1`): a flag's or variable's provider
  /// reads such a value as a list, which is joined back.
  private static func modelName(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, String>
  ) -> Setting {
    func read(_ reader: ConfigReader, _ key: ConfigKey) -> String? {
      reader.string(forKey: key)
        ?? reader.stringArray(forKey: key).flatMap {
          $0.count > 1 ? $0.joined(separator: ",") : nil
        }
    }
    return make(
      key, summary, path, expected: "a non-empty string", read: read,
      convert: { $0.isEmpty ? nil : $0 }, render: { "\"\($0)\"" })
  }

  /// A list of strings: an array in the file, comma-separated in a variable or flag.
  private static func list(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, [String]>
  ) -> Setting {
    func read(_ reader: ConfigReader, _ key: ConfigKey) -> [String]? {
      reader.stringArray(forKey: key)
        ?? reader.string(forKey: key).map { $0.split(separator: ",").map(String.init) }
    }
    func convert(_ values: [String]) -> [String]? {
      let trimmed = values.map {
        String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
      }
      return trimmed.contains(where: \.isEmpty) ? nil : trimmed
    }
    return make(
      key, summary, path, expected: "a list of non-empty strings", read: read, convert: convert,
      render: { "[" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" })
  }

  /// A string that is never printed back: the printed configuration says only whether it is
  /// set.
  private static func secret(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, String?>
  ) -> Setting {
    optionalText(key, summary, path, expected: "a non-empty string") { _ in "\"(set)\"" }
  }

  /// A file's path, or none.
  private static func file(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, String?>
  ) -> Setting {
    optionalText(key, summary, path, expected: "a file's path") { "\"\($0)\"" }
  }

  /// A non-empty string or none (`null`), printed by `render` when set.
  private static func optionalText(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, String?>,
    expected: String, render: @escaping (String) -> String
  ) -> Setting {
    func convert(_ value: String) -> String?? { value.isEmpty ? nil : .some(value) }
    return make(
      key, summary, path, expected: expected, read: { $0.string(forKey: $1) },
      convert: convert, render: { $0.map(render) ?? "null" })
  }

  private static func integer(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, Int>,
    _ range: ClosedRange<Int>
  ) -> Setting {
    make(
      key, summary, path, expected: "an integer from \(range.lowerBound) to \(range.upperBound)",
      read: { $0.int(forKey: $1) }, convert: { range.contains($0) ? $0 : nil },
      render: { "\($0)" })
  }

  /// A whole number in `range`, or none (`null`).
  private static func optionalInteger(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, Int?>,
    _ range: ClosedRange<Int>
  ) -> Setting {
    func convert(_ value: Int) -> Int?? { range.contains(value) ? .some(value) : nil }
    return make(
      key, summary, path, expected: "an integer from \(range.lowerBound) to \(range.upperBound)",
      read: { $0.int(forKey: $1) }, convert: convert, render: { $0.map { "\($0)" } ?? "null" })
  }

  private static func flag(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, Bool>
  ) -> Setting {
    make(
      key, summary, path, expected: "true or false", read: { $0.bool(forKey: $1) },
      convert: { $0 }, render: { "\($0)" })
  }

  /// One of the raw values of an enumeration.
  private static func choice<T: RawRepresentable<String> & CaseIterable>(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, T>
  ) -> Setting {
    make(
      key, summary, path,
      expected: "one of \(T.allCases.map(\.rawValue).joined(separator: ", "))",
      read: { $0.string(forKey: $1) }, convert: { T(rawValue: $0) },
      render: { "\"\($0.rawValue)\"" })
  }

  private static func logLevel() -> Setting {
    make(
      "logLevel",
      "least severe log level written: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))",
      \.logLevel,
      expected: "one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))",
      read: { $0.string(forKey: $1) }, convert: { Logger.Level(rawValue: $0.lowercased()) },
      render: { "\"\($0.rawValue)\"" })
  }

  /// A duration written in seconds (fractions allowed), kept in milliseconds.
  private static func seconds(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, UInt64>
  ) -> Setting {
    make(
      key, summary, path, expected: secondsRange, read: { $0.double(forKey: $1) },
      convert: milliseconds, render: renderSeconds)
  }

  /// A duration written in seconds (fractions allowed), kept as a `Duration`.
  private static func duration(
    _ key: String, _ summary: String, _ path: WritableKeyPath<ServiceConfiguration, Duration>
  ) -> Setting {
    make(
      key, summary, path, expected: secondsRange, read: { $0.double(forKey: $1) },
      convert: { milliseconds($0).map { .milliseconds(Int64($0)) } },
      render: { renderSeconds(UInt64($0.wholeMilliseconds)) })
  }

  private static let secondsRange = "a number of seconds from 0.001 to 86400"

  private static func milliseconds(_ seconds: Double) -> UInt64? {
    (0.001...86_400).contains(seconds) ? UInt64((seconds * 1000).rounded()) : nil
  }

  private static func renderSeconds(_ milliseconds: UInt64) -> String {
    milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
  }

  /// The value of `key` read by `typed`; nil if no provider has it, an error naming the key if
  /// one has it in a form `typed` cannot read.
  private static func read<Value>(
    _ key: String, from reader: ConfigReader, as expected: String,
    _ typed: (ConfigKey) -> Value?
  ) throws(ConfigurationError) -> Value? {
    if let value = typed(ConfigKey(key)) { return value }
    let present =
      reader.string(forKey: ConfigKey(key)) != nil || reader.double(forKey: ConfigKey(key)) != nil
      || reader.bool(forKey: ConfigKey(key)) != nil
      || reader.stringArray(forKey: ConfigKey(key)) != nil
    if present { throw ConfigurationError(key: key, message: "must be \(expected)") }
    return nil
  }
}
