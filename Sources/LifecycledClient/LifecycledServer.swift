#if os(macOS) || os(Linux)
  import Foundation

  /// A lifecycled server started by a test: a process on a free loopback port (a binary, or
  /// the Docker image), ready when `start` returns, stopped by ``stop()`` or at the end of
  /// ``run(_:arguments:startupTimeout:_:)``. Devices get a manual clock unless the arguments
  /// say otherwise, so that a test steps time itself.
  ///
  /// ```swift
  /// try await LifecycledServer.run { lifecycled in
  ///   let device = try await lifecycled.createDevice()
  ///   ...
  /// }
  /// ```
  ///
  /// macOS and Linux only: iOS runs no other process.
  public final class LifecycledServer: Sendable {
    /// What runs the server.
    public enum Executable: Sendable, Hashable {
      /// A lifecycled binary at this path.
      case binary(String)
      /// `lifecycled` found on `PATH`.
      case onPath
      /// The Docker image (built with `docker build -t lifecycled .`), run with `docker run`.
      case docker(image: String)
    }

    /// The server the current test runs against, under ``LifecycledServerTrait``.
    @TaskLocal public static var current: LifecycledServer?

    /// Where the server answers, such as `http://127.0.0.1:49152`.
    public let url: URL
    /// The process running the server (the binary, or `docker run`'s client).
    private let process: ProcessBox
    /// The Docker container, when the server runs in one.
    private let container: String?

    private init(url: URL, process: ProcessBox, container: String?) {
      self.url = url
      self.process = process
      self.container = container
    }

    /// A client of this server.
    public var lifecycled: Lifecycled { Lifecycled(serverURL: url) }

    /// Starts a server and waits until it is ready (at most `startupTimeout`). `arguments`
    /// follow `serve` (for example `["--auth-token", "secret"]`).
    public static func start(
      _ executable: Executable = .onPath, arguments: [String] = [],
      startupTimeout: Duration = .seconds(10)
    ) async throws -> LifecycledServer {
      let serve = ["serve", "--device-clock", "manual"] + arguments
      let server: LifecycledServer
      switch executable {
      case .binary(let path):
        server = try await startProcess(URL(fileURLWithPath: path), serve, startupTimeout)
      case .onPath:
        server = try await startProcess(try found("lifecycled"), serve, startupTimeout)
      case .docker(let image):
        server = try startContainer(image, serve)
      }
      do {
        try await server.waitUntilReady(within: startupTimeout)
      } catch {
        server.stop()
        throw error
      }
      return server
    }

    /// Runs `body` with a client of a server started for it, and stops the server however
    /// `body` ends.
    public static func run<Result>(
      _ executable: Executable = .onPath, arguments: [String] = [],
      startupTimeout: Duration = .seconds(10),
      _ body: (Lifecycled) async throws -> Result
    ) async throws -> Result {
      let server = try await start(executable, arguments: arguments, startupTimeout: startupTimeout)
      defer { server.stop() }
      return try await body(server.lifecycled)
    }

    /// Stops the server (SIGTERM, as `docker stop` sends it) and waits for it to exit.
    public func stop() {
      if let container {
        _ = try? Self.output(of: try Self.found("docker"), ["stop", container])
      }
      process.stop()
    }

    // MARK: Starting

    /// The binary, on port 0: the address is in the `listening` line it logs.
    private static func startProcess(
      _ binary: URL, _ arguments: [String], _ timeout: Duration
    ) async throws -> LifecycledServer {
      let process = Process()
      process.executableURL = binary
      process.arguments = arguments + ["--port", "0"]
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
        return LifecycledServer(url: url, process: box, container: nil)
      } catch {
        box.stop()
        throw error
      }
    }

    /// The image, detached, its port 8080 published on a free loopback port.
    private static func startContainer(_ image: String, _ arguments: [String]) throws
      -> LifecycledServer
    {
      let docker = try found("docker")
      let container = try output(
        of: docker, ["run", "-d", "--rm", "-p", "127.0.0.1::8080", image] + arguments)
      let published = try output(of: docker, ["port", container, "8080/tcp"])
      guard let line = published.split(separator: "\n").first,
        let url = URL(string: "http://\(line)")
      else { throw LifecycledServerError.noAddress(published) }
      return LifecycledServer(url: url, process: ProcessBox(nil), container: container)
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

    /// The executable named `name` in a directory of `PATH`.
    private static func found(_ name: String) throws -> URL {
      let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
      for directory in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      }
      throw LifecycledServerError.notFound(name)
    }

    /// What a short command prints, trimmed; an error if it fails.
    private static func output(of executable: URL, _ arguments: [String]) throws -> String {
      let process = Process()
      process.executableURL = executable
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      guard process.terminationStatus == 0 else {
        throw LifecycledServerError.commandFailed(
          ([executable.path] + arguments).joined(separator: " "))
      }
      return text
    }
  }

  /// Why a server could not be started.
  public enum LifecycledServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No executable of this name on `PATH`.
    case notFound(String)
    /// The binary exited, or logged no address in time; what it logged.
    case exited(binary: String, log: String)
    /// `docker port` printed no address.
    case noAddress(String)
    case commandFailed(String)
    /// The server did not answer `/readyz` in time.
    case notReady(url: URL, within: Duration)

    public var description: String {
      switch self {
      case .notFound(let name): "no \(name) on PATH"
      case .exited(let binary, let log): "\(binary) did not start: \(log)"
      case .noAddress(let output): "docker port printed no address: \(output)"
      case .commandFailed(let command): "failed: \(command)"
      case .notReady(let url, let timeout): "lifecycled at \(url) was not ready within \(timeout)"
      }
    }
  }

  /// A process to stop once, from any thread.
  private final class ProcessBox: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process?

    init(_ process: Process?) { self.process = process }

    func stop() {
      let process = lock.withLock { () -> Process? in
        defer { self.process = nil }
        return self.process
      }
      guard let process, process.isRunning else { return }
      process.terminate()
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
#endif
