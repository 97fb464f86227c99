import JSONCore
import LifecycleEngine

/// `/v1/devices/{device}/apps` (and `/v1/apps` on the default device): apps, their events and
/// their callbacks.
extension LifecycleAPI {
  func listApps(_ request: borrowing RouteRequest) throws -> APIResponse {
    let limit = try request.query.pageLimit()
    let apps = try engine.apps(
      on: request.device, after: try request.query.appName("after"), limit: limit + 1,
      now: request.now)
    return json(200) { w in
      w.object { w in w.page("apps", apps, limit: limit) { $0.app($1) } }
    }
  }

  func createApp(_ request: borrowing RouteRequest) throws -> APIResponse {
    let (spec, given) = try Decode.app(try jsonBody(of: request))
    try checkPrecondition(request)
    let app = try engine.createApp(spec, given: given, on: request.device, now: request.now)
    return created(at: "/v1/devices/\(request.device)/apps/\(app.name)") { $0.app(app) }
  }

  /// The app; with `waitFor`, once it is in that state (`Waits`), or at the `timeout`.
  func showApp(_ request: borrowing RouteRequest) throws -> APIResponse {
    let app = try engine.app(request.app, on: request.device, now: request.now)
    let seconds = try request.query.waitSeconds("timeout")  // validated, even if nothing waits
    guard let state = try request.query.choice("waitFor", AppState.self) else {
      return json(200) { $0.app(app) }
    }
    let (name, device) = (request.app, request.device)
    return try wait(
      for: request, seconds: seconds,
      condition: .appState(app: name, state: state), isMet: app.state == state,
      answer: { api, now in
        let app = try api.engine.app(name, on: device, now: now)
        return api.json(200) { $0.app(app) }
      })
  }

  func removeApp(_ request: borrowing RouteRequest) throws -> APIResponse {
    try checkPrecondition(request)
    try engine.removeApp(request.app, on: request.device, now: request.now)
    return .noContent
  }

  func postAppEvents(_ request: borrowing RouteRequest) throws -> APIResponse {
    let posted = try Decode.events(try jsonBody(of: request), Decode.appEvent)
    let mode = try request.query.scenarioMode(posted)
    try checkPrecondition(request)
    return try results(posted, mode: mode, to: request.app, of: request)
  }

  func showCallbacks(_ request: borrowing RouteRequest) throws -> APIResponse {
    let query = request.query
    let limit = try query.pageLimit()
    let callbacks = try engine.callbacks(
      of: request.app, on: request.device, since: try journalStart(of: request),
      limit: limit + 1, now: request.now)
    return json(200) { w in
      w.object { w in w.page("callbacks", callbacks, limit: limit) { $0.callback($1) } }
    }
  }
}
