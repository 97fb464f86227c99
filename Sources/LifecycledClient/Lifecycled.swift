import Foundation
import HTTPTypes
import OpenAPIRuntime

#if canImport(OpenAPIURLSession)
  import OpenAPIURLSession
#else
  import AsyncHTTPClient
  import OpenAPIAsyncHTTPClient
#endif

/// A lifecycled server, as a Swift test suite drives it: devices and their apps, events posted
/// as typed values, waits, and the journal as it happens.
///
/// ```swift
/// import Foundation
/// import LifecycledClient
///
/// let lifecycled = Lifecycled(serverURL: URL(string: "http://127.0.0.1:8080")!)
/// let device = try await lifecycled.createDevice()
/// let mail = try await device.createApp("mail")
/// let launch = try await mail.post(.launch(url: "mail://inbox"))
/// ```
///
/// A request the server refuses throws its problem, a ``LifecycledProblem``; a server that
/// does not answer within `connectTimeout` throws ``LifecycledUnreachable``. What this layer
/// does not cover, `client` (the generated client) does, operation by operation.
public struct Lifecycled: Sendable {
  /// The client generated from the contract, `openapi.yaml`.
  public let client: Client

  /// A client of the server at `serverURL`: over URLSession on Apple platforms, over
  /// AsyncHTTPClient on Linux, unless given a transport (on Linux, only a transport that
  /// streams serves ``SimulatedDevice/journalStream(since:kind:app:)``). `token` is sent as
  /// `Authorization: Bearer` (for a server started with `authToken`). A call to a server that
  /// does not answer fails after `connectTimeout` with ``LifecycledUnreachable``.
  ///
  /// - Parameters:
  ///   - serverURL: Where the server answers, such as `http://127.0.0.1:8080`.
  ///   - token: The server's `authToken`, if it asks for one.
  ///   - connectTimeout: How long a call waits for a server that does not answer.
  ///   - transport: How requests travel; the platform's HTTP client unless given
  ///     (``InProcessTransport`` for the engine in this process).
  public init(
    serverURL: URL, token: String? = nil, connectTimeout: Duration = .seconds(3),
    transport: (any ClientTransport)? = nil
  ) {
    var middlewares: [any ClientMiddleware] = [
      ReachabilityMiddleware(timeout: connectTimeout), ProblemMiddleware(),
    ]
    if let token { middlewares.append(BearerTokenMiddleware(token: token)) }
    client = Client(
      serverURL: serverURL, transport: transport ?? Self.defaultTransport,
      middlewares: middlewares)
  }

  #if canImport(OpenAPIURLSession)
    /// URLSession with room for the longest wait (300 s) between bytes, and none for a
    /// stream's whole length.
    static let defaultTransport: any ClientTransport = {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.timeoutIntervalForRequest = 330
      configuration.timeoutIntervalForResource = .infinity
      return URLSessionTransport(
        configuration: .init(session: URLSession(configuration: configuration)))
    }()
  #else
    /// AsyncHTTPClient with room for the longest wait (300 s), failing a request whose
    /// connection is refused at once rather than retrying until its deadline. (One client for
    /// the process's life, as `HTTPClient.shared` is.)
    static let defaultTransport: any ClientTransport = {
      var configuration = HTTPClient.Configuration()
      configuration.connectionPool.retryConnectionEstablishment = false
      let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
      return AsyncHTTPClientTransport(configuration: .init(client: client, timeout: .seconds(330)))
    }()
  #endif

  /// Creates a device: with a manual clock unless told, so that a test steps time itself; with
  /// `id` nil, the server chooses one. Label the devices a test worker creates to remove them
  /// all at the end (``removeDevices(labeled:value:)``), or create one for a scope
  /// (``withDevice(_:clock:profile:memoryLimitMB:perAppLimitMB:passcode:labels:idleTimeout:_:)``).
  ///
  /// - Parameters:
  ///   - id: The device's id; the server names it (`device-7`) if nil.
  ///   - clock: `manual` (time moves only when advanced) or `realtime`.
  ///   - profile: The model and the iOS release it starts on (``profiles()`` lists them); the
  ///     server's default device unless given.
  ///   - memoryLimitMB: The apps' memory budget, in place of the model's RAM.
  ///   - perAppLimitMB: The most one app in the foreground may use, in place of the model's.
  ///   - passcode: Whether the device has a passcode (protected data locks with it).
  ///   - labels: Labels to find and remove it by.
  ///   - idleTimeout: Removes it after this long without a request.
  /// - Returns: The new device.
  /// - Throws: ``LifecycledProblem`` (a taken id is `conflict`; a bad field, an unknown model
  ///   or a release the model does not run, `validation`), ``LifecycledUnreachable`` if no
  ///   server answers.
  public func createDevice(
    _ id: String? = nil, clock: Components.Schemas.ClockMode = .manual,
    profile: DeviceProfile? = nil, memoryLimitMB: Int? = nil, perAppLimitMB: Int? = nil,
    passcode: Bool? = nil, labels: [String: String] = [:], idleTimeout: Duration? = nil
  ) async throws -> SimulatedDevice {
    let declaration = Components.Schemas.DeviceCreate(
      id: id, clock: clock, model: profile?.model, osVersion: profile?.osVersion,
      memoryLimitMB: memoryLimitMB, perAppLimitMB: perAppLimitMB, passcode: passcode,
      labels: labels.isEmpty ? nil : .init(additionalProperties: labels),
      idleTimeoutSeconds: idleTimeout.map(\.seconds))
    let created = try await send { try await $0.createDevice(body: .json(declaration)) }
    return device(try created.created.body.json.id)
  }

  /// Creates one device per profile, in their order, each as ``createDevice(_:clock:profile:memoryLimitMB:perAppLimitMB:passcode:labels:idleTimeout:)``
  /// makes it: a matrix for one test. Label them to remove them together.
  ///
  /// - Parameters:
  ///   - profiles: The models and releases, such as every one ``profiles()`` lists.
  ///   - clock: `manual` (time moves only when advanced) or `realtime`.
  ///   - labels: Labels to find and remove them by.
  /// - Returns: The devices, one per profile, in their order.
  /// - Throws: ``LifecycledProblem`` for the first profile the server refuses (the devices made
  ///   before it stay), ``LifecycledUnreachable`` if no server answers.
  public func createDevices(
    for profiles: [DeviceProfile], clock: Components.Schemas.ClockMode = .manual,
    labels: [String: String] = [:]
  ) async throws -> [SimulatedDevice] {
    var devices: [SimulatedDevice] = []
    for profile in profiles {
      devices.append(try await createDevice(clock: clock, profile: profile, labels: labels))
    }
    return devices
  }

  /// The models and iOS releases the server knows, each figure with its source.
  ///
  /// - Returns: Every model with the releases it runs, as profiles to create devices of; the
  ///   server's figures are in the generated client's `listProfiles()`.
  /// - Throws: ``LifecycledUnreachable`` if no server answers.
  public func profiles() async throws -> [DeviceProfile] {
    try await send { try await $0.listProfiles() }.ok.body.json.models.flatMap { model in
      model.osVersions.map { DeviceProfile(model: model.name, osVersion: $0) }
    }
  }

  /// Runs `body` with a device created for it (as ``createDevice(_:clock:profile:memoryLimitMB:perAppLimitMB:passcode:labels:idleTimeout:)``
  /// does), and removes the device however `body` ends.
  ///
  /// - Parameters:
  ///   - id: The device's id; the server names it if nil.
  ///   - clock: `manual` (time moves only when advanced) or `realtime`.
  ///   - profile: The model and the iOS release it starts on; the server's default unless given.
  ///   - memoryLimitMB: The apps' memory budget, in place of the model's RAM.
  ///   - perAppLimitMB: The most one app in the foreground may use, in place of the model's.
  ///   - passcode: Whether the device has a passcode.
  ///   - labels: Labels to find and remove it by.
  ///   - idleTimeout: Removes it after this long without a request.
  ///   - body: What to do with the device.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, or what creating or removing the device throws.
  public func withDevice<Result>(
    _ id: String? = nil, clock: Components.Schemas.ClockMode = .manual,
    profile: DeviceProfile? = nil, memoryLimitMB: Int? = nil, perAppLimitMB: Int? = nil,
    passcode: Bool? = nil, labels: [String: String] = [:], idleTimeout: Duration? = nil,
    _ body: (SimulatedDevice) async throws -> Result
  ) async throws -> Result {
    let device = try await createDevice(
      id, clock: clock, profile: profile, memoryLimitMB: memoryLimitMB,
      perAppLimitMB: perAppLimitMB, passcode: passcode, labels: labels, idleTimeout: idleTimeout)
    let result: Result
    do {
      result = try await body(device)
    } catch {
      try? await device.remove()
      throw error
    }
    try await device.remove()
    return result
  }

  /// The device `id`, without asking the server.
  ///
  /// - Parameter id: The device's id.
  /// - Returns: A handle whose calls ask about that device.
  public func device(_ id: String) -> SimulatedDevice {
    SimulatedDevice(id: id, lifecycled: self)
  }

  /// Removes every device that carries the label `key` with `value` (what a parallel worker
  /// cleans up with: the server's other devices stay); the ids removed.
  ///
  /// - Parameters:
  ///   - key: The label's key (`suite`).
  ///   - value: Its value (`checkout`).
  /// - Returns: The ids of the devices removed.
  /// - Throws: ``LifecycledUnreachable`` if no server answers.
  @discardableResult
  public func removeDevices(labeled key: String, value: String) async throws -> [String] {
    try await send {
      try await $0.removeDevicesByLabel(query: .init(label: "\(key)=\(value)"))
    }.ok.body.json.removed
  }

  /// Runs a request of the generated client: a refusal is thrown as the server's problem, an
  /// unreachable server as ``LifecycledUnreachable``, a cancelled task as `CancellationError`.
  func send<Output>(_ request: (Client) async throws -> Output) async throws -> Output {
    do {
      return try await request(client)
    } catch let error as ClientError {
      if let problem = error.underlyingError as? LifecycledProblem { throw problem }
      if let unreachable = error.underlyingError as? LifecycledUnreachable { throw unreachable }
      if Task.isCancelled || error.underlyingError is CancellationError {
        throw CancellationError()
      }
      throw error
    }
  }
}

/// The server did not answer: nothing listens at `url` (the connection failed: `failure`
/// says how), or nothing answered within `timeout`.
public struct LifecycledUnreachable: Error, Sendable, Hashable, CustomStringConvertible {
  /// The server's base URL.
  public let url: URL
  /// How long the client waited.
  public let timeout: Duration
  /// How the connection failed, when it did (refused, say); nil when nothing answered in time.
  public let failure: String?

  /// The error for a server at `url` that did not answer.
  ///
  /// - Parameters:
  ///   - url: The server's base URL, as the client was given it.
  ///   - timeout: How long the client waited for an answer.
  ///   - failure: How the connection failed; nil when nothing answered within `timeout`.
  public init(url: URL, timeout: Duration, failure: String? = nil) {
    self.url = url
    self.timeout = timeout
    self.failure = failure
  }

  public var description: String {
    if let failure {
      return "nothing answers at \(url.absoluteString) (\(failure)): start lifecycled there "
        + "(lifecycled serve --port \(url.port ?? 8080)), or use the engine in this process "
        + "(Lifecycled.inProcess())"
    }
    return "lifecycled at \(url.absoluteString) did not answer within \(timeout): something "
      + "else listens there, or the server is stuck"
  }
}

/// Fails a request fast when the server is not there: before the first request, and when the
/// transport fails one, `/livez` must answer within the timeout. (A transport's own timeouts
/// must allow the long polls and streams, minutes long.)
struct ReachabilityMiddleware: ClientMiddleware {
  let timeout: Duration
  private let reached = ReachedFlag()

  init(timeout: Duration) { self.timeout = timeout }

  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?) {
    if !reached.value { try await probe(baseURL, next) }
    do {
      return try await next(request, body, baseURL)
    } catch let problem as LifecycledProblem {
      throw problem  // the server answered
    } catch {
      // The transport failed: if the server is gone, say so in a line.
      reached.value = false
      if !Task.isCancelled { try await probe(baseURL, next) }
      throw error
    }
  }

  /// `GET /livez`, raced against the timeout.
  private func probe(
    _ baseURL: URL,
    _ next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws {
    let timeout = self.timeout
    // The group's tasks end before it returns: `next` does not outlive the call.
    let outcome = try await withoutActuallyEscaping(next) { next in
      try await withThrowingTaskGroup(of: ProbeOutcome.self) { group in
        group.addTask {
          let livez = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/livez")
          do {
            _ = try await next(livez, nil, baseURL)  // any answer will do: something listens
            return .answered
          } catch {
            return .failed(Self.reason(error))  // refused, say, or the timeout cancelled it
          }
        }
        group.addTask {
          try await Task.sleep(for: timeout)
          return .timedOut
        }
        defer { group.cancelAll() }
        return try await group.next() ?? .timedOut
      }
    }
    switch outcome {
    case .answered: reached.value = true
    case .failed(let failure):
      throw LifecycledUnreachable(url: baseURL, timeout: timeout, failure: failure)
    case .timedOut: throw LifecycledUnreachable(url: baseURL, timeout: timeout)
    }
  }
}

extension ReachabilityMiddleware {
  /// How a probe of `/livez` ended.
  enum ProbeOutcome: Sendable {
    case answered
    /// The transport failed (the connection refused, say), as it said.
    case failed(String)
    case timedOut
  }

  /// A transport's error in a few words: the innermost description a client error wraps.
  static func reason(_ error: any Error) -> String {
    if let client = error as? ClientError { return reason(client.underlyingError) }
    return String(describing: error)
  }
}

/// Whether the server answered since the last failure, shared by every copy of the client.
private final class ReachedFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var reached = false

  var value: Bool {
    get { lock.withLock { reached } }
    set { lock.withLock { reached = newValue } }
  }
}

/// Sends `Authorization: Bearer <token>` with every request.
struct BearerTokenMiddleware: ClientMiddleware {
  let token: String

  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?) {
    var request = request
    request.headerFields[.authorization] = "Bearer \(token)"
    return try await next(request, body, baseURL)
  }
}

extension Duration {
  /// The duration in seconds, as the API takes it (to the millisecond).
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds / 1_000_000_000_000_000) / 1000
  }
}

/// A device as Apple ships it: a model (`iPhone 15 Pro`, or its identifier `iPhone16,1`)
/// running an iOS release (`26.1`). Swift Testing takes a list of them as a test's
/// `arguments:`, each case with a device of its own.
public struct DeviceProfile: Hashable, Sendable {
  /// The model's marketing name or its identifier.
  public var model: String
  /// The iOS release the device runs, such as `26.1`.
  public var osVersion: String

  /// A model running an iOS release.
  ///
  /// - Parameters:
  ///   - model: The marketing name (`iPhone 15 Pro`) or the identifier (`iPhone16,1`).
  ///   - osVersion: The iOS release, such as `26.1`.
  public init(model: String, osVersion: String) {
    self.model = model
    self.osVersion = osVersion
  }
}
