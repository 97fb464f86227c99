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

  /// The response to events that `apply` applies in order, handing each to the function it is
  /// given, which writes its result as it comes: one event's result, or a scenario's as
  /// `{"results": [...]}`. A refused event ends the scenario with a problem that carries the
  /// results already applied.
  func results(
    isArray: Bool, device: String, app: String?,
    _ apply: ((AppliedEvent) -> Void) throws(EngineError) -> Void
  ) throws(Problem) -> APIResponse {
    var writer = JSONWriter(capacity: 4096)
    if isArray {
      writer.beginObject()
      writer.key("results")
      writer.beginArray()
    }
    let resultsStart = writer.position
    var appliedCount = 0
    do {
      try apply { applied in
        record(applied.outcome, device: device)
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
      if isArray, !isMissing {
        let results = JSONText(array: writer.text(from: resultsStart))
        problem.extensions += [
          ("failedIndex", JSONText(.integer(appliedCount))), ("results", results),
        ]
      }
      throw problem
    }
    if isArray {
      writer.endArray()
      writer.endObject()
    }
    return APIResponse(status: 200, contentType: "application/json", body: writer.bytes)
  }
}
