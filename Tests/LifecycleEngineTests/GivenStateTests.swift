import Testing

@testable import LifecycleEngine

/// Apps created already in a state (`AppGiven`): they answer later events exactly as an app
/// brought there by events does, and a state no app could be in is refused.
@Suite struct GivenStateTests {
  /// An app given `given`, and the same app brought there by `events` (with clock advances),
  /// answer `then` with the same callbacks and transitions.
  @Test(arguments: [
    (AppGiven(state: .active), [Step.post(.launch())]),
    (AppGiven(state: .inactive), [.post(.launch()), .post(.openSwitcher)]),
    (AppGiven(state: .background), [.post(.launch()), .post(.home)]),
    (
      AppGiven(state: .background, backgroundTasks: ["upload"]),
      [.post(.launch()), .post(.beginBackgroundTask(name: "upload")), .post(.home)]
    ),
    (AppGiven(state: .suspended), [.post(.launch()), .post(.home), .advance(2)]),
  ])
  func aGivenAppGoesOnAsOneBroughtThereByEvents(given: AppGiven, events: [Step]) throws {
    for lifecycle in [LifecycleModel.scene, .appDelegate] {
      let byEvents = Simulator()
      byEvents.add("mail", lifecycle, memoryMB: 200, backgroundMemoryMB: 50)
      for step in events { try step.run(on: byEvents) }
      let byGiven = Simulator()
      _ = try byGiven.engine.createApp(
        AppSpec(name: "mail", lifecycle: lifecycle, memoryMB: 200, backgroundMemoryMB: 50),
        given: given, on: "d", now: .zero)
      let shown = byGiven.app("mail")
      #expect(shown.state == given.state)
      #expect(
        shown.suspendAt.map { $0 - byGiven.deviceView.now }
          == byEvents.app("mail").suspendAt.map { $0 - byEvents.deviceView.now })
      #expect(shown.footprintMB == byEvents.app("mail").footprintMB)
      #expect(byGiven.deviceView.foregroundApp == byEvents.deviceView.foregroundApp)
      #expect(byGiven.journal.isEmpty)
      for then in [Step.post(.launch()), .post(.home), .advance(40), .post(.memoryWarning)] {
        let expected = try? then.run(on: byEvents)
        let actual = try? then.run(on: byGiven)
        #expect(
          actual.map { trace($0) + transitions($0) }
            == expected.map { trace($0) + transitions($0) },
          "\(lifecycle) \(given.state) then \(then)")
      }
    }
  }

  @Test func aStateNoAppCouldBeInIsRefusedAndLeavesNoApp() throws {
    let sim = Simulator(memoryLimitMB: 300)
    sim.add("notes")
    try sim.post(.launch(), to: "notes")
    let before = (sim.deviceView, sim.engine.retainedBytes)
    for (given, field) in [
      (AppGiven(state: .active), "given.state"),
      (AppGiven(state: .suspended, backgroundTasks: [nil]), "given.backgroundTasks"),
      (AppGiven(state: .background, activities: [.audio]), "given.activities"),
      (AppGiven(state: .suspended, activities: [.location]), "given.activities"),
    ] {
      let error = engineError {
        try sim.engine.createApp(AppSpec(name: "mail"), given: given, on: "d", now: .zero)
      }
      guard case .invalid(let issues)? = error else {
        Issue.record("\(given): \(String(describing: error))")
        continue
      }
      #expect(issues.first?.field == field, "\(given): \(issues)")
    }
    #expect(
      engineError {
        _ = try sim.engine.createApp(
          AppSpec(name: "mail", memoryMB: 300), given: AppGiven(state: .background), on: "d",
          now: .zero)
      }
        == .invalid([
          ValidationIssue(
            field: "given.state",
            message:
              "the app's 300 MB would pass the device's memory limit (300 MB), 100 MB of it in use")
        ]))
    #expect((sim.deviceView, sim.engine.retainedBytes) == before)
    #expect(throws: EngineError.unknownApp(device: "d", app: "mail")) {
      try sim.engine.app("mail", on: "d", now: .zero)
    }
  }
}

/// One step of a test's history: an event, or time passing.
enum Step: CustomStringConvertible, Sendable {
  case post(AppEvent)
  case advance(Double)

  @discardableResult
  func run(on sim: Simulator) throws(EngineError) -> EventOutcome {
    switch self {
    case .post(let event): try sim.post(event, to: "mail")
    case .advance(let seconds): sim.advance(seconds)
    }
  }

  var description: String {
    switch self {
    case .post(let event): "\(event)"
    case .advance(let seconds): "advance \(seconds)"
    }
  }
}
