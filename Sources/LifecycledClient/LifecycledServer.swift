import Foundation
import OpenAPIRuntime

/// The lifecycled a test runs against: a server process it started on a free loopback port (a
/// binary, or the Docker image), a server already running (`LIFECYCLED_URL`), or the engine in
/// the test's own process. Ready when `start` returns; stopped by ``stop()`` or at the end of
/// ``run(_:arguments:startupTimeout:_:)``. Devices get a manual clock unless told otherwise,
/// so that a test steps time itself.
///
/// ```swift
/// try await LifecycledServer.run { lifecycled in
///   let device = try await lifecycled.createDevice()
///   // ...
/// }
/// ```
///
/// A binary it starts shuts down once the test process is gone, however that ended (SIGKILL
/// included: `serve --exit-with-parent`); a Docker container it starts is removed when stopped,
/// or by a reaper once the test process is gone, however it ended.
/// Processes are started on macOS and Linux only: iOS runs no other process, and there
/// ``Executable/automatic`` is a server at `LIFECYCLED_URL` or the engine in process.
public final class LifecycledServer: Sendable {
  /// What runs the server.
  public enum Executable: Sendable, Hashable {
    /// A lifecycled binary at this path (macOS and Linux).
    case binary(String)
    /// `lifecycled` found on `PATH` (macOS and Linux).
    case onPath
    /// The Docker image (built with `docker build -t lifecycled .`), run with `docker run`
    /// (macOS and Linux).
    case docker(image: String)
    /// The engine in this process (``Lifecycled/inProcess(configuration:)``): no binary,
    /// on every platform. `arguments` are not read.
    case inProcess
    /// The server at `LIFECYCLED_URL` if the environment sets it (left running at the end,
    /// `arguments` not read; sent `LIFECYCLED_AUTH_TOKEN`, the server's own setting, if set);
    /// else `lifecycled` on `PATH` if it is there; else the engine in
    /// this process (`arguments` not read).
    case automatic
  }

  /// The server the current test runs against, under ``LifecycledServerTrait``.
  @TaskLocal public static var current: LifecycledServer?

  /// Where the server answers, such as `http://127.0.0.1:49152`
  /// (``InProcessTransport/serverURL`` for the engine in process).
  public let url: URL
  /// The transport its clients use: the engine's in process, or nil for the platform's HTTP
  /// client.
  public let transport: (any ClientTransport)?
  /// The bearer token its clients send, for a running server that asks for one.
  private let token: String?
  /// The process running the server (the binary, or `docker run`'s client), if it was started.
  private let process: ProcessBox
  /// The Docker container, when the server runs in one.
  private let container: String?

  private init(
    url: URL, transport: (any ClientTransport)? = nil, token: String? = nil,
    process: ProcessBox = ProcessBox(nil), container: String? = nil
  ) {
    self.url = url
    self.transport = transport
    self.token = token
    self.process = process
    self.container = container
  }

  /// A client of this server.
  public var lifecycled: Lifecycled {
    Lifecycled(serverURL: url, token: token, transport: transport)
  }

  /// Starts a server and waits until it is ready (at most `startupTimeout`). `arguments`
  /// follow `serve` (for example `["--auth-token", "secret"]`).
  ///
  /// - Parameters:
  ///   - executable: What runs it: unless told, the server at `LIFECYCLED_URL`, else
  ///     `lifecycled` on `PATH`, else the engine in this process.
  ///   - arguments: The server's options; not read by a server already running or the
  ///     engine in process.
  ///   - startupTimeout: How long to wait for it to answer `/readyz`.
  /// - Returns: The server, ready.
  /// - Throws: ``LifecycledServerError``: no binary or Docker, a binary that exited, a bad
  ///   `LIFECYCLED_URL`, a server not ready in time, or a process asked for where none starts.
  public static func start(
    _ executable: Executable = .automatic, arguments: [String] = [],
    startupTimeout: Duration = .seconds(10)
  ) async throws -> LifecycledServer {
    let server: LifecycledServer
    switch executable {
    case .inProcess:
      return LifecycledServer(
        url: InProcessTransport.serverURL, transport: InProcessTransport())
    case .automatic:
      switch try automaticChoice(in: ProcessInfo.processInfo.environment) {
      case .running(let url, let token): server = LifecycledServer(url: url, token: token)
      case .binary(let binary): server = try await startProcess(binary, arguments, startupTimeout)
      case .inProcess: return try await start(.inProcess)
      }
    case .binary(let path):
      server = try await startProcess(URL(fileURLWithPath: path), arguments, startupTimeout)
    case .onPath:
      let binary = try found("lifecycled", in: ProcessInfo.processInfo.environment)
      server = try await startProcess(binary, arguments, startupTimeout)
    case .docker(let image):
      server = try startContainer(image, arguments)
    }
    do {
      try await server.waitUntilReady(within: startupTimeout)
    } catch {
      server.stop()
      throw error
    }
    return server
  }

  /// What ``Executable/automatic`` stands for.
  enum AutomaticChoice: Equatable {
    /// The server already running at this URL, and the token it asks for, if any.
    case running(URL, token: String?)
    /// This binary, started for the test.
    case binary(URL)
    case inProcess
  }

  /// What ``Executable/automatic`` stands for in `environment`: the server at `LIFECYCLED_URL`,
  /// else `lifecycled` in a directory of `PATH`, else the engine in this process.
  static func automaticChoice(in environment: [String: String]) throws -> AutomaticChoice {
    if let running = environment["LIFECYCLED_URL"] {
      guard let url = URL(string: running), ["http", "https"].contains(url.scheme ?? ""),
        url.host != nil
      else { throw LifecycledServerError.invalidURL(running) }
      return .running(url, token: environment["LIFECYCLED_AUTH_TOKEN"])
    }
    if let binary = try? found("lifecycled", in: environment) { return .binary(binary) }
    return .inProcess
  }

  /// Runs `body` with a client of a server started for it, and stops the server however
  /// `body` ends.
  ///
  /// - Parameters:
  ///   - executable: What runs it, as for ``start(_:arguments:startupTimeout:)``.
  ///   - arguments: The server's options.
  ///   - startupTimeout: How long to wait for it to be ready.
  ///   - body: What to do with a client of it.
  /// - Returns: What `body` returns.
  /// - Throws: What starting the server or `body` throws.
  public static func run<Result>(
    _ executable: Executable = .automatic, arguments: [String] = [],
    startupTimeout: Duration = .seconds(10),
    _ body: (Lifecycled) async throws -> Result
  ) async throws -> Result {
    let server = try await start(executable, arguments: arguments, startupTimeout: startupTimeout)
    defer { server.stop() }
    return try await body(server.lifecycled)
  }

  /// Stops the server it started (SIGTERM, as `docker stop` sends it) and waits for it to
  /// exit; a server it did not start runs on.
  public func stop() {
    if let container {
      _ = try? Self.output(
        of: try Self.found("docker", in: ProcessInfo.processInfo.environment), ["stop", container])
    }
    process.stop()
  }

  /// Asks `/readyz` until it answers 200, at most `timeout` in all.
  private func waitUntilReady(within timeout: Duration) async throws {
    let deadline = ContinuousClock.now + timeout
    let client = Lifecycled(serverURL: url, connectTimeout: .seconds(1))
    while true {
      if (try? await client.client.readiness().ok) != nil { return }
      guard ContinuousClock.now < deadline else {
        throw LifecycledServerError.notReady(url: url, within: timeout)
      }
      try await Task.sleep(for: .milliseconds(50))
    }
  }
}

#if os(macOS) || os(Linux)
  extension LifecycledServer {
    /// What a server started here is asked to do first: a manual clock for new devices.
    private static let serve = ["serve", "--device-clock", "manual"]

    /// The binary, on port 0: the address is in the `listening` line it logs.
    private static func startProcess(
      _ binary: URL, _ arguments: [String], _ timeout: Duration
    ) async throws -> LifecycledServer {
      let process = Process()
      process.executableURL = binary
      process.arguments = serve + ["--exit-with-parent"] + arguments + ["--port", "0"]
      process.environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
      let log = Pipe()
      process.standardError = log
      process.standardOutput = FileHandle.nullDevice
      let address = ListeningAddress()
      log.fileHandleForReading.readabilityHandler = { handle in
        let data = handle.availableData  // later lines are read and dropped: the pipe never fills
        if data.isEmpty { handle.readabilityHandler = nil }  // the end of the log
        address.read(data)
      }
      try process.run()
      let box = ProcessBox(process)
      do {
        let url = try await address.wait(within: timeout, binary: binary.path)
        return LifecycledServer(url: url, process: box)
      } catch {
        box.stop()
        throw error
      }
    }

    /// The image, detached, its port 8080 published on a free loopback port; a reaper
    /// stops it once this process is gone.
    private static func startContainer(_ image: String, _ arguments: [String]) throws
      -> LifecycledServer
    {
      let docker = try found("docker", in: ProcessInfo.processInfo.environment)
      let container = try output(
        of: docker, ["run", "-d", "--rm", "-p", "127.0.0.1::8080", image] + serve + arguments)
      let reaper: Reaper
      do {
        reaper = try Reaper(docker: docker, container: container)
      } catch {
        _ = try? output(of: docker, ["stop", container])
        throw error
      }
      // From here a failure lets go of the reaper, which then stops the container.
      let published = try output(of: docker, ["port", container, "8080/tcp"])
      guard let line = published.split(separator: "\n").first,
        let url = URL(string: "http://\(line)")
      else { throw LifecycledServerError.noAddress(published) }
      return LifecycledServer(
        url: url, process: ProcessBox(reaper.process, signal: SIGKILL, keepingOpen: reaper.writer),
        container: container)
    }

    /// The executable named `name` in a directory of `environment`'s `PATH`.
    private static func found(_ name: String, in environment: [String: String]) throws -> URL {
      let path = environment["PATH"] ?? ""
      for directory in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      }
      throw LifecycledServerError.notFound(name)
    }

    /// What a short command prints, trimmed; an error if it fails.
    static func output(of executable: URL, _ arguments: [String]) throws -> String {
      let process = Process()
      process.executableURL = executable
      process.arguments = arguments
      let (output, errors) = (Pipe(), Pipe())
      process.standardOutput = output
      process.standardError = errors  // a short command's few lines: read once it is done
      try process.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else {
        throw LifecycledServerError.commandFailed(
          command: ([executable.path] + arguments).joined(separator: " "),
          reason: trimmed(errors.fileHandleForReading.readDataToEndOfFile()))
      }
      return trimmed(data)
    }

    private static func trimmed(_ data: Data) -> String {
      String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
  }

  /// A shell that stops a container once this process is gone, however it ended (SIGKILL
  /// included), as Testcontainers' reaper does: it waits for its standard input to close, a
  /// pipe nothing writes to, whose one writer is this process, which the system closes when
  /// the process ends. Killed when the server is stopped, it does nothing (SIGKILL: a child
  /// of a thread that blocks SIGTERM, as the test's threads may, starts with it blocked).
  final class Reaper {
    let process: Process
    /// The pipe's end this process holds open.
    let writer: FileHandle

    init(docker: URL, container: String) throws {
      let pipe = Pipe()
      process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = [
        "-c", #"read -r _; exec "$0" stop "$1" >/dev/null 2>&1"#, docker.path, container,
      ]
      process.standardInput = pipe
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      try pipe.fileHandleForReading.close()  // the shell's, not ours
      writer = pipe.fileHandleForWriting
    }
  }

  /// A process to stop once, from any thread, with the signal it heeds, and a file it needs
  /// open until then.
  private final class ProcessBox: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process?
    private let signal: Int32
    private let keptOpen: FileHandle?

    init(_ process: Process?, signal: Int32 = SIGTERM, keepingOpen file: FileHandle? = nil) {
      self.process = process
      self.signal = signal
      keptOpen = file
    }

    func stop() {
      let process = lock.withLock { () -> Process? in
        defer { self.process = nil }
        return self.process
      }
      guard let process, process.isRunning else { return }
      kill(process.processIdentifier, signal)
      process.waitUntilExit()
    }
  }

  /// The address in a starting server's `listening` log line, as its log arrives.
  private final class ListeningAddress: @unchecked Sendable {
    private let lock = NSLock()
    private var log = ""
    private var url: URL?
    private var ended = false

    func read(_ data: Data) {
      lock.withLock {
        guard url == nil else { return }
        if data.isEmpty { ended = true }
        log += String(decoding: data, as: UTF8.self)
        if let start = log.range(of: "http://127.0.0.1:"),
          let end = log[start.upperBound...].firstIndex(where: { !$0.isNumber })
        {
          url = URL(string: String(log[start.lowerBound..<end]))
        }
      }
    }

    func wait(within timeout: Duration, binary: String) async throws -> URL {
      let deadline = ContinuousClock.now + timeout
      while true {
        let (url, ended, log) = lock.withLock { (self.url, self.ended, self.log) }
        if let url { return url }
        if ended || ContinuousClock.now >= deadline {
          throw LifecycledServerError.exited(binary: binary, log: log)
        }
        try await Task.sleep(for: .milliseconds(10))
      }
    }
  }
#else
  /// No process is started on this platform.
  private final class ProcessBox: Sendable {
    init(_: Never?) {}
    func stop() {}
  }

  extension LifecycledServer {
    private static func startProcess(_: URL, _: [String], _: Duration) async throws
      -> LifecycledServer
    { throw LifecycledServerError.noProcesses }

    private static func startContainer(_: String, _: [String]) throws -> LifecycledServer {
      throw LifecycledServerError.noProcesses
    }

    private static func found(_: String, in _: [String: String]) throws -> URL {
      throw LifecycledServerError.noProcesses
    }

    static func output(of _: URL, _: [String]) throws -> String {
      throw LifecycledServerError.noProcesses
    }
  }
#endif

/// Why a server could not be started.
public enum LifecycledServerError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No executable of this name on `PATH`.
  case notFound(String)
  /// The binary exited, or logged no address in time; what it logged.
  case exited(binary: String, log: String)
  /// `docker port` printed no address.
  case noAddress(String)
  /// A command the launcher ran (`docker run`, say) failed: what it said on stderr.
  case commandFailed(command: String, reason: String)
  /// The server did not answer `/readyz` in time.
  case notReady(url: URL, within: Duration)
  /// `LIFECYCLED_URL` is not a URL with a host.
  case invalidURL(String)
  /// This platform starts no other process (iOS, tvOS, watchOS, visionOS).
  case noProcesses

  public var description: String {
    switch self {
    case .notFound(let name): "no \(name) on PATH"
    case .exited(let binary, let log): "\(binary) did not start: \(log)"
    case .noAddress(let output): "docker port printed no address: \(output)"
    case .commandFailed(let command, let reason): "\(command) failed: \(reason)"
    case .notReady(let url, let timeout): "lifecycled at \(url) was not ready within \(timeout)"
    case .invalidURL(let text):
      "LIFECYCLED_URL is \(text), not a server's URL such as http://127.0.0.1:8080"
    case .noProcesses:
      "this platform starts no server process: use .inProcess, or set LIFECYCLED_URL to a "
        + "server started elsewhere"
    }
  }
}
