import HTTPServer
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Builds and runs the service from its configuration: the one builder `main` and the tests
/// share.
public enum Service {
  /// A logger writing structured lines to `output` at the configured level, in the configured
  /// format.
  static func logger(for configuration: ServiceConfiguration, output: LogOutput) -> Logger {
    var logger = Logger(label: "lifecycled") { _ in
      LineLogHandler(format: configuration.logFormat, output: output)
    }
    logger.logLevel = configuration.logLevel
    return logger
  }

  /// The server, not yet started: the API on the HTTP server, with the log's flush, the
  /// simulator's deadlines (and the parent's watch, if it `exitsWithParent`) on its timers,
  /// and a line per request at `info`.
  static func makeServer(
    configuration: ServiceConfiguration, logger: Logger, output: LogOutput,
    exitsWithParent: Bool = false
  ) -> HTTPServer {
    let responder = APIResponder(
      configuration: configuration.engine, access: configuration.access,
      fixtures: configuration.fixtures,
      streamBacklogBytes: configuration.server.connection.maxStreamBacklog,
      now: monotonicMilliseconds(), logger: logger)
    let requestLog =
      configuration.logLevel <= .info
      ? RequestLog(format: configuration.logFormat, output: output) : nil
    let watch = exitsWithParent ? ParentWatch(now: monotonicMilliseconds()) : nil
    let server = HTTPServer(
      configuration: configuration.server, responder: responder,
      timerClients: [responder, output] + (watch.map { [$0] } ?? []), requestLog: requestLog,
      clientMemory: responder, logger: logger)
    responder.api.hostMetrics = { [weak server] in server?.loopTurns.exposition ?? "" }
    watch?.shutDown = { [weak server] in server?.requestShutdown() }
    return server
  }

  /// Starts listening, serves until a signal (or, if it `exitsWithParent`, the parent's exit)
  /// shuts it down, and returns the exit status: 0 after a graceful shutdown, 1 if it cannot
  /// listen, 128 + signal on a forced exit. Every log line is written before it returns.
  public static func run(configuration: ServiceConfiguration, exitsWithParent: Bool = false)
    -> Int32
  {
    let output = LogOutput()
    output.flushOnFatalSignals()
    defer { output.flush() }
    let logger = logger(for: configuration, output: output)
    let started = monotonicMilliseconds()
    let server = makeServer(
      configuration: configuration, logger: logger, output: output,
      exitsWithParent: exitsWithParent)
    do {
      let port = try server.start()
      logger.notice(
        "listening",
        metadata: [
          "address": "http://\(configuration.server.host):\(port)",
          "startup_ms": .stringConvertible(monotonicMilliseconds() - started),
        ])
    } catch {
      logger.critical("cannot listen", metadata: ["error": "\(error)"])
      return 1
    }
    return server.run()
  }
}
