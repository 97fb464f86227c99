import OpenAPIRuntime

/// One simulated app on a device: post it events, read its state, wait for a state. A handle:
/// it holds the app's name, and each call is a request.
public struct SimulatedApp: Sendable {
  public let device: SimulatedDevice
  public let name: String

  private var lifecycled: Lifecycled { device.lifecycled }

  /// Fetches the app as it is now (a request): its state, scenes, background work, counters.
  ///
  /// - Returns: The app's view, with the events it allows now.
  /// - Throws: ``LifecycledProblem`` (`not-found` for an app or device that is not there),
  ///   ``LifecycledUnreachable`` if no server answers.
  public func fetch() async throws -> Components.Schemas.App {
    try await lifecycled.send {
      try await $0.getApp(path: .init(device: device.id, app: name))
    }.ok.body.json
  }

  /// Posts an event: the app's state after it, and the callbacks and transitions it caused,
  /// in the order UIKit delivers them.
  ///
  /// - Parameter event: The event (`.launch()`, `.home`, `.backgroundLaunch(for: .fetch)`, ...).
  /// - Returns: The app's state before and after it, its callbacks and transitions in order,
  ///   its effects on other apps, and what it returned (``Components/Schemas/EventResult``).
  /// - Throws: ``LifecycledProblem`` (`event-refused`, with the state and the events allowed,
  ///   for one impossible now: nothing changes), ``LifecycledUnreachable`` if no server answers.
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
  ///
  /// - Parameters:
  ///   - events: The scenario, at most 100 events.
  ///   - atomic: Whether a refusal undoes the events before it.
  /// - Returns: Each event's result, in order.
  /// - Throws: As ``post(_:)``, for the first event refused.
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
  ///
  /// - Parameters:
  ///   - state: The state to wait for.
  ///   - timeout: At most this long, up to 300 seconds.
  /// - Returns: The app once it is in `state`.
  /// - Throws: ``LifecycledWaitTimeout`` (with the app as it was) if it is not by then, and
  ///   what ``fetch()`` throws.
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
