import OpenAPIRuntime

/// One simulated app on a device: post it events, read its state, wait for a state. A handle:
/// it holds the app's name, and each call is a request.
public struct SimulatedApp: Sendable {
  public let device: SimulatedDevice
  public let name: String

  private var lifecycled: Lifecycled { device.lifecycled }

  /// Fetches the app as it is now (a request): its state, scenes, background work, counters.
  public func fetch() async throws -> Components.Schemas.App {
    try await lifecycled.send {
      try await $0.getApp(path: .init(device: device.id, app: name))
    }.ok.body.json
  }

  /// Posts an event: the app's state after it, and the callbacks and transitions it caused,
  /// in the order UIKit delivers them.
  @discardableResult
  public func post(_ event: Components.Schemas.AppEvent) async throws
    -> Components.Schemas.AppEventResponse
  {
    guard case .AppEventResponse(let response) = try await post(.AppEvent(event)) else {
      throw LifecycledClientError.unexpectedAnswer("a scenario's results for one event")
    }
    return response
  }

  /// Posts events in order, as one scenario: `atomic`, all of them or none (the first refused
  /// throws, and nothing changed); otherwise up to the first refused, which throws.
  @discardableResult
  public func post(_ events: [Components.Schemas.AppEvent], atomic: Bool = false) async throws
    -> [Components.Schemas.AppEventResponse]
  {
    let scenario = Components.Schemas.AppScenario(events: events, atomic: atomic)
    guard case .AppScenarioResponse(let answer) = try await post(.AppScenario(scenario)) else {
      throw LifecycledClientError.unexpectedAnswer("one event's result for a scenario")
    }
    return answer.results
  }

  private func post(_ body: Operations.PostAppEvent.Input.Body.JsonPayload) async throws
    -> Operations.PostAppEvent.Output.Ok.Body.JsonPayload
  {
    try await lifecycled.send {
      try await $0.postAppEvent(path: .init(device: device.id, app: name), body: .json(body))
    }.ok.body.json
  }

  /// Waits, up to `timeout` of the server's time, until the app is in `state` (a long poll:
  /// the answer comes as soon as it is), and returns it then; throws ``LifecycledWaitTimeout``
  /// if it is not by then. On a manual clock only events and advances change the state: wait
  /// while another task or process drives the device.
  @discardableResult
  public func wait(
    for state: Components.Schemas.AppState, timeout: Duration = .seconds(30)
  ) async throws -> Components.Schemas.App {
    let answer = try await lifecycled.send {
      try await $0.getApp(
        path: .init(device: device.id, app: name),
        query: .init(waitFor: state, timeout: timeout.seconds))
    }.ok
    let app = try answer.body.json
    guard answer.headers.lifecycledWait == .met else {
      throw LifecycledWaitTimeout(app: app, state: state)
    }
    return app
  }
}

/// A wait that ended before its app reached the state: the app as it was then.
public struct LifecycledWaitTimeout: Error, Sendable {
  public let app: Components.Schemas.App
  /// The state waited for.
  public let state: Components.Schemas.AppState
}
