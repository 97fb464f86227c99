import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// A lifecycled server, as a Swift test suite drives it: devices and their apps, events posted
/// as typed values, waits, and the journal as it happens.
///
/// ```swift
/// let lifecycled = Lifecycled(serverURL: URL(string: "http://127.0.0.1:8080")!)
/// let device = try await lifecycled.createDevice()
/// let mail = try await device.createApp("mail")
/// let launch = try await mail.post(.launch(url: "mail://inbox"))
/// ```
///
/// A request the server refuses throws its problem, a ``LifecycledProblem``. What this layer
/// does not cover, `client` (the generated client) does, operation by operation.
public struct Lifecycled: Sendable {
  /// The client generated from the contract, `openapi.yaml`.
  public let client: Client

  /// A client of the server at `serverURL`, over AsyncHTTPClient unless given a transport (on
  /// Linux, only a transport that streams serves ``SimulatedDevice/journalStream(since:kind:app:)``).
  public init(serverURL: URL, transport: any ClientTransport = AsyncHTTPClientTransport()) {
    client = Client(serverURL: serverURL, transport: transport, middlewares: [ProblemMiddleware()])
  }

  /// Creates a device: with a manual clock unless told, so that a test steps time itself; with
  /// `id` nil, the server chooses one. Label the devices a test worker creates to remove them
  /// all at the end (``removeDevices(labeled:value:)``).
  public func createDevice(
    _ id: String? = nil, clock: Components.Schemas.ClockMode = .manual, passcode: Bool? = nil,
    labels: [String: String] = [:], idleTimeout: Duration? = nil
  ) async throws -> SimulatedDevice {
    let declaration = Components.Schemas.DeviceCreate(
      id: id, clock: clock, passcode: passcode,
      labels: labels.isEmpty ? nil : .init(additionalProperties: labels),
      idleTimeoutSeconds: idleTimeout.map(\.seconds))
    let created = try await send { try await $0.createDevice(body: .json(declaration)) }
    return device(try created.created.body.json.id)
  }

  /// The device `id`, without asking the server.
  public func device(_ id: String) -> SimulatedDevice {
    SimulatedDevice(id: id, lifecycled: self)
  }

  /// Removes every device that carries the label `key` with `value` (what a parallel worker
  /// cleans up with: the server's other devices stay); the ids removed.
  @discardableResult
  public func removeDevices(labeled key: String, value: String) async throws -> [String] {
    try await send {
      try await $0.removeDevicesByLabel(query: .init(label: "\(key)=\(value)"))
    }.ok.body.json.removed
  }

  /// Runs a request of the generated client: a refusal is thrown as the server's problem.
  func send<Output>(_ request: (Client) async throws -> Output) async throws -> Output {
    do {
      return try await request(client)
    } catch let error as ClientError {
      if let problem = error.underlyingError as? LifecycledProblem { throw problem }
      throw error
    }
  }
}

extension Duration {
  /// The duration in seconds, as the API takes it (to the millisecond).
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds / 1_000_000_000_000_000) / 1000
  }
}
