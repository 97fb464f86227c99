public import HTTPServer
public import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// Builds and runs the service from its configuration: the one builder `main` and the tests
/// share.
public enum Service {
  /// A logger writing structured lines to stderr at the configured level, in the configured
  /// format.
  public static func logger(for configuration: ServiceConfiguration) -> Logger {
    var logger = Logger(label: "lifecycled") { _ in
      LineLogHandler(format: configuration.logFormat)
    }
    logger.logLevel = configuration.logLevel
    return logger
  }

  /// The server, not yet started.
  public static func makeServer(configuration: ServiceConfiguration, logger: Logger) -> HTTPServer {
    let responder = APIResponder(
      configuration: configuration.engine, now: monotonicMilliseconds(), logger: logger)
    return HTTPServer(
      configuration: configuration.server, responder: responder, timerClient: responder,
      logger: logger)
  }

  /// Starts listening, serves until a signal shuts it down, and returns the exit status:
  /// 0 after a graceful shutdown, 1 if it cannot listen, 128 + signal on a forced exit.
  public static func run(configuration: ServiceConfiguration) -> Int32 {
    let logger = logger(for: configuration)
    let started = monotonicMilliseconds()
    let server = makeServer(configuration: configuration, logger: logger)
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

  static func monotonicMilliseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
  }
}
