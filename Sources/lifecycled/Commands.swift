import ArgumentParser
import FoundationEssentials
import LifecycledService
import SystemPackage

/// `lifecycled`: the command line. Parsing only; the service lives in `LifecycledService`.
@main
struct Lifecycled: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lifecycled",
    abstract: "Simulated iOS app lifecycles over HTTP.",
    version: Version.current,
    subcommands: [Serve.self, Healthcheck.self],
    defaultSubcommand: Serve.self)
}

/// Options shared by the commands that read the configuration.
struct ConfigurationOptions: ParsableArguments {
  @Option(help: "Address to listen on (default 127.0.0.1).")
  var host: String?

  @Option(help: "Port to listen on; 0 picks a free one (default 8080).")
  var port: Int?

  @Option(help: "A JSON configuration file (default: $LIFECYCLED_CONFIG, else built in).")
  var config: String?

  @Argument(
    parsing: .allUnrecognized,
    help: "Any other configuration key as a flag, such as --max-connections 100.")
  var settings: [String] = []

  /// The configuration, or exit status 2 with one line naming the bad key.
  func load() async throws -> ServiceConfiguration {
    var arguments = settings
    if let host { arguments += ["--host", host] }
    if let port { arguments += ["--port", String(port)] }
    do {
      return try await ServiceConfiguration.load(
        arguments: arguments, environment: ProcessInfo.processInfo.environment, file: config)
    } catch {
      printError("\(error)")
      throw ExitCode(2)
    }
  }
}

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the service (the default command).",
    discussion: """
      Configuration comes from flags, then LIFECYCLED_* environment variables, then the JSON \
      file, then the built-in defaults. SIGTERM or SIGINT shuts down gracefully (exit 0); a \
      second signal exits at once.
      """)

  @OptionGroup var options: ConfigurationOptions

  @Flag(help: "Print the effective configuration as JSON and exit.")
  var printConfig = false

  @Flag(
    help: """
      Shut down gracefully once the process that started this one has exited (what a test's \
      launcher asks, so that a test killed outright leaves no server running).
      """)
  var exitWithParent = false

  func run() async throws {
    let configuration = try await options.load()
    if printConfig { return print(configuration.json, terminator: "") }
    let status = Service.run(configuration: configuration, exitsWithParent: exitWithParent)
    if status != 0 { throw ExitCode(status) }
  }
}

struct Healthcheck: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Exit 0 if the service on the configured host and port is ready, 1 if not.")

  @OptionGroup var options: ConfigurationOptions

  func run() async throws {
    let server = try await options.load().server
    switch HealthProbe.readiness(host: server.host, port: server.port) {
    case .success(200):
      return
    case .success(let status):
      printError("not ready (HTTP \(status))")
    case .failure(let error):
      printError("not ready (\(error))")
    }
    throw ExitCode(1)
  }
}

/// Writes one `lifecycled: ` line to stderr.
func printError(_ message: String) {
  _ = try? FileDescriptor.standardError.writeAll("lifecycled: \(message)\n".utf8)
}
