import JSONCore
import LifecycleEngine

/// The response to posted events, shared by app and device events (`openapi.yaml`).
extension LifecycleAPI {
  /// An event the engine applied, with what its result reports.
  struct AppliedEvent {
    var event: RecordedEvent
    var outcome: EventOutcome
    var previousState: ReportedState
    var state: ReportedState
  }

  /// The response to posted events, which `apply` applies in `mode`, handing each to the
  /// function it is given, which writes its result as it comes: one event's result, or a
  /// scenario's as `{"results": [...]}`. A refused event ends the scenario with a problem that
  /// carries the results before it. Metrics and the kill log count what stays applied: every
  /// event in order, an atomic scenario's once it succeeds, never a dry run's.
  func results(
    isScenario: Bool, mode: ScenarioMode, device: String, app: String?,
    _ apply: ((AppliedEvent) -> Void) throws(EngineError) -> Void
  ) throws(Problem) -> APIResponse {
    var writer = JSONWriter(capacity: 4096)
    if isScenario {
      writer.beginObject()
      writer.key("results")
      writer.beginArray()
    }
    let resultsStart = writer.position
    var appliedCount = 0
    var pending: [AppliedEvent] = []
    do {
      try apply { applied in
        switch mode {
        case .inOrder: record(applied, on: device)
        case .atomic: pending.append(applied)
        case .dryRun: break
        }
        writer.eventResult(
          applied.outcome, device: device, app: app, event: applied.event,
          previousState: applied.previousState, state: applied.state)
        appliedCount += 1
      }
    } catch {
      var problem = Problem(error)
      // A missing device or app (found before the first event) is a 404 for the resource,
      // not a refused event of the scenario.
      let isMissing =
        switch error {
        case .unknownDevice, .unknownApp: true
        default: false
        }
      if isScenario, !isMissing {
        let results = JSONText(array: writer.text(from: resultsStart))
        problem.extensions += [
          ("failedIndex", JSONText(.integer(appliedCount))), ("results", results),
        ]
        if mode == .atomic {
          problem.detail += "; the scenario is atomic: none of its events was applied"
        }
      }
      throw problem
    }
    for applied in pending { record(applied, on: device) }
    if isScenario {
      writer.endArray()
      writer.endObject()
    }
    return APIResponse(status: 200, contentType: "application/json", body: writer.bytes)
  }

  /// Counts an event that stays applied, what it did, and reports its kills.
  private func record(_ applied: AppliedEvent, on device: String) {
    metrics.count(event: applied.event.type)
    record(applied.outcome, device: device)
  }
}
