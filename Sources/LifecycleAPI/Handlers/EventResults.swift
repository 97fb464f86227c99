import JSONCore
import LifecycleEngine

/// The response to posted events, shared by app and device events (`openapi.yaml`).
extension LifecycleAPI {
  /// What an applied event's result reports besides its outcome: the event and the state
  /// before and after it.
  struct AppliedEvent {
    var event: RecordedEvent
    var previousState: ReportedState
    var state: ReportedState
  }

  /// Hands each applied event, with its outcome (lent, not copied: the engine reuses its
  /// storage for the next event), to the function it is given.
  typealias EventApplier = ((AppliedEvent, borrowing EventOutcome) -> Void) throws(EngineError)
    -> Void

  /// The response to posted events, which `apply` applies in `mode`, handing each to the
  /// function it is given, which writes its result as it comes: one event's result, or a
  /// scenario's as `{"results": [...]}`. A refused event ends the scenario with a problem that
  /// carries the results before it. The answer counts in the memory budget as it grows
  /// (`answerBytes`): once the budget is spent, the next event is refused (507), and the
  /// problem leaves the results out, which are what did not fit. Metrics and the kill log count
  /// what stays applied: every event in order, an atomic scenario's once it succeeds, never a
  /// dry run's.
  func results(
    isScenario: Bool, mode: ScenarioMode, device: String, app: String?,
    _ apply: EventApplier
  ) throws(Problem) -> APIResponse {
    defer {
      if answerBytes != 0 {
        answerBytes = 0
        countHeldBytes()
        letGoOfALargeWriter()
      }
    }
    return try withWriter { (writer) throws(Problem) -> APIResponse in
      if isScenario {
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
      }
      let resultsStart = writer.position
      var appliedCount = 0
      /// An atomic scenario's events, with their transitions, counted once it succeeds.
      var pending: [(type: EventType, transitions: [Transition])] = []
      do throws(EngineError) {
        try apply { applied, outcome in
          switch mode {
          case .inOrder: record(applied.event.type, outcome.transitions, on: device)
          case .atomic: pending.append((applied.event.type, outcome.transitions))
          case .dryRun: break
          }
          writer.eventResult(
            outcome, device: device, app: app, event: applied.event,
            previousState: applied.previousState, state: applied.state)
          appliedCount += 1
          if isScenario, writer.reservedBytes != answerBytes {
            answerBytes = writer.reservedBytes
            countHeldBytes()
          }
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
          problem.extensions.append(("failedIndex", JSONText(.integer(appliedCount))))
          if case .memoryBudgetExhausted = error {
            problem.detail += "; the answer to the events before it counts among what it holds"
          } else {
            problem.extensions.append(("results", JSONText(array: writer.text(from: resultsStart))))
          }
          if mode == .atomic {
            problem.detail += "; the scenario is atomic: none of its events was applied"
          }
        }
        throw problem
      }
      for (type, transitions) in pending { record(type, transitions, on: device) }
      if isScenario {
        writer.endArray()
        writer.endObject()
      }
      return APIResponse(status: 200, contentType: "application/json", body: body(of: writer))
    }
  }

  /// Counts an event that stays applied, what it did, and reports its kills.
  private func record(_ type: EventType, _ transitions: [Transition], on device: String) {
    metrics.count(event: type)
    record(transitions, device: device)
  }
}
