import JSONCore

/// Probes, health, metrics, the contract and the reset (`openapi.yaml`).
extension LifecycleAPI {
  func livez() -> APIResponse {
    json(200, "status", "ok")
  }

  /// 503 while the server drains, so that load balancers stop sending.
  func readyz(_ request: borrowing RouteRequest) -> APIResponse {
    request.isDraining ? json(503, "status", "draining") : json(200, "status", "ready")
  }

  func health(_ request: borrowing RouteRequest) -> APIResponse {
    json(200) { w in
      w.raw(request.isDraining ? healthOpenings.draining : healthOpenings.ok)
      w.seconds(milliseconds: request.now.milliseconds - startedAt.milliseconds)
      w.member("devices", engine.deviceCount)
      w.member("apps", engine.appCount)
      w.endObject()
    }
  }

  /// The health body up to its uptime, which is the same for every request but the status:
  /// `{"status":"ok","version":"…","uptimeSeconds":`, and the same `draining`.
  static func healthOpenings(version: String) -> (ok: [UInt8], draining: [UInt8]) {
    func opening(_ status: StaticString) -> [UInt8] {
      JSONWriter.encode { w in
        w.beginObject()
        w.member("status", unescaped: status.description)
        w.member("version", version)
        w.key("uptimeSeconds")
      }
    }
    return (opening("ok"), opening("draining"))
  }

  func metricsExposition(_ request: borrowing RouteRequest) -> APIResponse {
    APIResponse(
      status: 200, contentType: "text/plain; version=0.0.4",
      body: Array(
        metrics.exposition(
          devices: engine.devices(now: request.now),
          memory: (engine.retainedBytes, engine.configuration.limits.memoryBudgetBytes)
        ).utf8) + Array((hostMetrics?() ?? "").utf8))
  }

  /// `openapi.yaml` as the package embedded it at build time.
  func contract() -> APIResponse {
    APIResponse(status: 200, contentType: "application/yaml", body: PackageResources.openapi_yaml)
  }

  func reset(_ request: borrowing RouteRequest) -> APIResponse {
    engine.reset(now: request.now)
    loadFixtures(now: request.now)
    return .noContent
  }
}
