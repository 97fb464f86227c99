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

  /// The response to posted events, applied in `mode` to the request's device (or to its app
  /// `app`), each result written as it comes: one event's result, or a scenario's as
  /// `{"results": [...]}`. A refused event ends the scenario with a problem that carries the
  /// results before it. The answer counts in the memory budget as it grows (`answerBytes`):
  /// once the budget is spent, the next event is refused (507), and the problem leaves the
  /// results out, which are what did not fit. Metrics and the kill log count what stays
  /// applied: every event in order, an atomic scenario's once it succeeds, never a dry run's.
  ///
  /// A scenario whose answer passes `ScenarioRuns.sliceBytes` is answered later: the rest of
  /// its events are applied over the next turns of the loop (`ScenarioRuns`), and `.deferred`
  /// is returned. So is an atomic scenario or a dry run on a device of more than
  /// `ScenarioRuns.appsCopiedOnTheLoop` apps, whose copy is made off the loop first.
  func results<Event: PostedEvent>(
    _ posted: PostedEvents<Event>, mode: ScenarioMode, to app: String?,
    of request: borrowing RouteRequest
  ) throws(Problem) -> APIResponse {
    let (device, now) = (request.device, request.now)
    // Made only for an answer given later: a request answered at once needs none.
    let (exchange, template, retry) = (request.request.exchange, request.template, request.retry)
    func address() -> LateAddress {
      LateAddress(device: device, exchange: exchange, template: template, retry: retry)
    }
    func answer(_ run: ScenarioRun) -> ScenarioAnswer<Event> {
      ScenarioAnswer(run: run, events: posted.events, isScenario: posted.isScenario, app: app)
    }
    func problem(_ error: EngineError) -> Problem {
      switch error {
      // A missing device or app is a 404 for the resource, not a refused event.
      case .unknownDevice, .unknownApp: Problem(error)
      default: scenarioProblem(error, isScenario: posted.isScenario, mode: mode)
      }
    }
    do throws(EngineError) {
      guard mode != .inOrder,
        (engine.appCount(on: device) ?? 0) > ScenarioRuns.appsCopiedOnTheLoop
      else {
        let run = try engine.beginScenario(on: device, app: app, mode: mode, now: now)
        return firstSlice(of: answer(run), address: address(), now: now)
      }
      let held = try engine.holdForScenario(on: device, now: now)
      scenarioRuns.copy(
        CopyingScenario(held: held, bytes: engine.retainedBytes(of: device), address: address()) {
          [self] copy, now in
          do throws(EngineError) {
            let run = try engine.beginScenario(on: copy, of: held, app: app, mode: mode, now: now)
            return firstSlice(of: answer(run), address: address(), now: now)
          } catch {
            return problem(error).response
          }
        })
      return .deferred
    } catch {
      throw problem(error)
    }
  }

  /// The first slice of `answer`'s events, written as the request is handled: the response, or
  /// `.deferred` once the answer is parked for the rest (its device held), to go to `address`.
  private func firstSlice<Event>(
    of answer: consuming ScenarioAnswer<Event>, address: @autoclosure () -> LateAddress,
    now: Instant
  ) -> APIResponse {
    var answer = answer
    defer {
      if answerBytes != 0 {
        answerBytes = 0
        countHeldBytes()
      }
      letGoOfALargeWriter()
    }
    return withWriter { writer in
      answer.begin(&writer)
      if let response = slice(&answer, into: &writer, now: now) { return response }
      engine.hold(answer.run)
      scenarioRuns.park(ParkedAnswer(answer, address: address(), after: writer))
      return .deferred
    }
  }

  /// Applies `answer`'s next events, writing their results into `writer`, until all are
  /// applied (the response: the results, or the problem of the one refused) or this turn's
  /// share of the answer is written (nil: the rest waits for another turn, and what `writer`
  /// holds is kept in the answer, `ScenarioAnswer.earlier`).
  func slice<Event>(
    _ answer: inout ScenarioAnswer<Event>, into writer: inout JSONWriter, now: Instant
  ) -> APIResponse? {
    let sliceStart = writer.position
    let (device, app, mode, isScenario) = (
      answer.device, answer.app, answer.run.mode, answer.isScenario
    )
    let earlierBytes = answer.earlier.capacity
    var pending = answer.pending
    defer { answer.pending = pending }
    do throws(EngineError) {
      while answer.run.appliedCount < answer.events.count {
        if writer.position - sliceStart >= ScenarioRuns.sliceBytes {
          let budget = engine.configuration.limits.memoryBudgetBytes
          answer.keep(&writer, room: budget - engine.retainedBytes)
          return nil
        }
        try answer.applyNext(engine: engine, now: now) { applied, outcome in
          switch mode {
          case .inOrder: record(applied.event.type, outcome.transitions, on: device)
          case .atomic: pending.append((applied.event.type, outcome.transitions))
          case .dryRun: break
          }
          writer.eventResult(
            outcome, device: device, app: app, event: applied.event,
            previousState: applied.previousState, state: applied.state)
          if isScenario, writer.reservedBytes + earlierBytes != answerBytes {
            answerBytes = writer.reservedBytes + earlierBytes
            countHeldBytes()
          }
        }
      }
    } catch {
      engine.abandon(answer.run, now: now)
      return scenarioProblem(
        error, isScenario: isScenario, mode: mode, appliedCount: answer.run.appliedCount,
        results: answer.results(after: writer)
      ).response
    }
    engine.end(answer.run, now: now)
    for (type, transitions) in pending { record(type, transitions, on: device) }
    answer.end(&writer)
    guard !answer.earlier.isEmpty else {
      return APIResponse(status: 200, contentType: "application/json", body: body(of: writer))
    }
    return APIResponse(
      status: 200, contentType: "application/json", body: answer.takeWhole(after: &writer))
  }

  /// The problem of a scenario refused at its event `appliedCount` (`failedIndex`), with the
  /// `results` of the events before it, and what became of them.
  private func scenarioProblem(
    _ error: EngineError, isScenario: Bool, mode: ScenarioMode, appliedCount: Int = 0,
    results: [UInt8] = []
  ) -> Problem {
    var problem = Problem(error)
    guard isScenario else { return problem }
    problem.extensions.append(("failedIndex", JSONText(.integer(appliedCount))))
    if case .memoryBudgetExhausted = error {
      // The results are what did not fit.
      problem.detail += "; the answer to the events before it counts among what it holds"
    } else {
      problem.extensions.append(("results", JSONText(array: results)))
    }
    if mode == .atomic {
      problem.detail += "; the scenario is atomic: none of its events was applied"
    }
    return problem
  }

  /// Counts an event that stays applied, what it did, and reports its kills.
  private func record(_ type: EventType, _ transitions: [Transition], on device: String) {
    metrics.count(event: type)
    record(transitions, device: device)
  }
}

/// An event a client posts: a scenario's next (`LifecycleAPI.results`).
protocol PostedEvent {
  /// Applies `event` as `run`'s next, handing its result to `write` with its outcome (lent,
  /// not copied: the engine reuses its storage for the next event).
  static func apply(
    _ event: Self, in run: inout ScenarioRun, engine: Engine, now: Instant,
    write: (LifecycleAPI.AppliedEvent, borrowing EventOutcome) -> Void
  ) throws(EngineError)
}

extension DeviceEvent: PostedEvent {
  static func apply(
    _ event: Self, in run: inout ScenarioRun, engine: Engine, now: Instant,
    write: (LifecycleAPI.AppliedEvent, borrowing EventOutcome) -> Void
  ) throws(EngineError) {
    try engine.apply(event, in: &run, now: now) { outcome, state in
      write(
        .init(
          event: .device(event), previousState: .device(state.before),
          state: .device(state.after)), outcome)
    }
  }
}

extension AppEvent: PostedEvent {
  static func apply(
    _ event: Self, in run: inout ScenarioRun, engine: Engine, now: Instant,
    write: (LifecycleAPI.AppliedEvent, borrowing EventOutcome) -> Void
  ) throws(EngineError) {
    try engine.apply(event, in: &run, now: now) { outcome in
      // An app event's outcome always has its app as subject (`Engine.apply(_:in:now:each:)`).
      guard let subject = outcome.subject else { preconditionFailure("an app event's outcome") }
      write(
        .init(
          event: .app(event), previousState: .app(subject.previousState),
          state: .app(subject.state)), outcome)
    }
  }
}

/// A scenario's answer as it is written, its events applied a slice at a time
/// (`LifecycleAPI.slice`).
struct ScenarioAnswer<Event: PostedEvent> {
  var run: ScenarioRun
  let events: [Event]
  let isScenario: Bool
  let app: String?
  /// Where the results begin in the text: a refusal's problem carries them.
  private(set) var resultsStart = 0
  /// What the slices before the one being written wrote (`keep`), with room reserved for the
  /// rest, so that neither it nor the writer grows by copying the whole answer again.
  private(set) var earlier: [UInt8] = []
  /// An atomic scenario's events, with their transitions, counted once it succeeds.
  var pending: [(type: EventType, transitions: [Transition])] = []

  init(run: ScenarioRun, events: [Event], isScenario: Bool, app: String?) {
    self.run = run
    self.events = events
    self.isScenario = isScenario
    self.app = app
  }

  var device: String { run.deviceID }

  /// Opens the answer: a scenario's results are a list in an object.
  mutating func begin(_ writer: inout JSONWriter) {
    if isScenario {
      writer.beginObject()
      writer.key("results")
      writer.beginArray()
    }
    resultsStart = writer.position
  }

  mutating func applyNext(
    engine: Engine, now: Instant,
    write: (LifecycleAPI.AppliedEvent, borrowing EventOutcome) -> Void
  ) throws(EngineError) {
    try Event.apply(events[run.appliedCount], in: &run, engine: engine, now: now, write: write)
  }

  /// Moves what `writer` wrote into `earlier` (all but its last byte: `JSONWriter.move`), the
  /// first time reserving room for the whole answer at the rate of the events so far (at most
  /// `room` bytes).
  mutating func keep(_ writer: inout JSONWriter, room: Int) {
    if earlier.isEmpty {
      let estimate = writer.position / max(run.appliedCount, 1) * (events.count + 1)
      earlier.reserveCapacity(max(writer.position, min(estimate, room)))
    }
    writer.move(into: &earlier)
  }

  /// The results written so far, `earlier`'s and then `writer`'s.
  func results(after writer: borrowing JSONWriter) -> [UInt8] {
    guard !earlier.isEmpty else { return writer.text(from: resultsStart) }
    return Array(earlier[resultsStart...]) + writer.text(from: 0)
  }

  /// The whole answer, `earlier` and then what `writer` wrote, handed over.
  mutating func takeWhole(after writer: inout JSONWriter) -> [UInt8] {
    writer.withBytes { earlier.append(contentsOf: $0) }
    writer.removeAll()
    var whole: [UInt8] = []
    swap(&whole, &earlier)
    return whole
  }

  /// Closes what `begin` opened.
  func end(_ writer: inout JSONWriter) {
    if isScenario {
      writer.endArray()
      writer.endObject()
    }
  }
}
