extension LifecycleAPI {
  /// Every route of the API (`openapi.yaml`), each declared once; the handlers
  /// live in `Handlers/`, one file per resource. Adding an endpoint is a line here and its
  /// handler.
  static var routes: [Route] {
    [
      // Operations
      // Health first: the request monitors and harnesses send most often.
      .get("/health") { api, request in api.health(request) },
      .get("/livez") { api, request in api.livez() },
      .get("/readyz") { api, request in api.readyz(request) },
      .get("/metrics") { api, request in api.metricsExposition(request) },
      .get("/openapi.yaml") { api, request in api.contract() },
      // The live page and its two files
      .get("/") { api, request in api.page() },
      .get("/page.css") { api, request in api.pageStyle() },
      .get("/page.js") { api, request in api.pageScript() },
      .post("/__admin/reset") { api, request in api.reset(request) },
      // Devices
      .get("/v1/profiles") { api, request in api.showProfiles() },
      .get("/v1/devices", query: ["after", "limit", "label"]) { api, request in
        try api.listDevices(request)
      },
      .post("/v1/devices") { api, request in try api.createDevice(request) },
      .delete("/v1/devices", query: ["label"]) { api, request in
        try api.removeLabeledDevices(request)
      },
      .get("/v1/devices/{device}") { api, request in try api.showDevice(request) },
      .put("/v1/devices/{device}") { api, request in try api.putDevice(request) },
      .delete("/v1/devices/{device}") { api, request in try api.removeDevice(request) },
      .get("/v1/devices/{device}/snapshot", query: ["journal"]) { api, request in
        try api.showSnapshot(request)
      },
      .post("/v1/devices/{device}/events", query: ["dryRun"]) { api, request in
        try api.postDeviceEvents(request)
      },
      .post("/v1/devices/{device}/reset") { api, request in try api.resetDevice(request) },
      .get("/v1/devices/{device}/clock") { api, request in try api.showClock(request) },
      .post("/v1/devices/{device}/clock/advance") { api, request in
        try api.advanceClock(request)
      },
      .get(
        "/v1/devices/{device}/journal",
        query: ["since", "limit", "kind", "app", "scene", "method", "cause", "wait"]
      ) { api, request in try api.showJournal(request) },
      .get(
        "/v1/devices/{device}/journal/stream",
        query: ["since", "kind", "app", "scene", "method", "cause", "heartbeat", "timeout"]
      ) { api, request in try api.streamJournal(request) },
      .get("/v1/devices/{device}/jetsam") { api, request in try api.showJetsamLog(request) },
      .get("/v1/devices/{device}/jetsam/{jetsamEvent}/report") { api, request in
        try api.showJetsamReport(request)
      },
      .get(
        "/v1/devices/{device}/timeline.svg",
        query: ["since", "kind", "app", "scene", "method", "cause", "from", "to"]
      ) { api, request in try api.showTimeline(request) },
      // Apps (also under /v1/apps for the default device)
      .get("/v1/devices/{device}/apps", query: ["after", "limit"]) { api, request in
        try api.listApps(request)
      },
      .post("/v1/devices/{device}/apps") { api, request in try api.createApp(request) },
      .get("/v1/devices/{device}/apps/{app}", query: ["waitFor", "timeout"]) { api, request in
        try api.showApp(request)
      },
      .delete("/v1/devices/{device}/apps/{app}") { api, request in try api.removeApp(request) },
      .post("/v1/devices/{device}/apps/{app}/events", query: ["dryRun"]) { api, request in
        try api.postAppEvents(request)
      },
      .get("/v1/devices/{device}/apps/{app}/callbacks", query: ["since", "limit"]) {
        api, request in try api.showCallbacks(request)
      },
      .get(
        "/v1/devices/{device}/apps/{app}/timeline.svg",
        query: ["since", "kind", "scene", "method", "cause", "from", "to"]
      ) { api, request in try api.showTimeline(request) },
    ]
  }
}
