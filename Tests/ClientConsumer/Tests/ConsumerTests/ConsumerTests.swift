import LifecycledClient
import Testing

/// An app's lifecycle tested from another package, with the client's own API only: a server
/// for the suite (`lifecycled` on `PATH`, else the engine in this process), a device per test,
/// removed after it.
@Suite(.lifecycledServer()) struct ConsumerTests {
  /// A client of the suite's server.
  var lifecycled: Lifecycled { get throws { try #require(LifecycledServer.current).lifecycled } }

  @Test func aColdLaunchThroughAUniversalLink() async throws {
    try await lifecycled.withDevice { device in
      let shop = try await device.createApp("shop")
      let launch = try await shop.post(.launch(universalLink: "https://shop.example/item/7"))
      #expect(launch.state == .active)
      #expect(
        launch.callbacks.map(\.method) == [
          .willFinishLaunching, .didFinishLaunching, .configurationForConnecting,
          .sceneWillConnect, .sceneWillEnterForeground, .sceneDidBecomeActive,
        ])
    }
  }

  @Test func homeThenSuspension() async throws {
    try await lifecycled.withDevice { device in
      let mail = try await device.createApp("mail")
      try await mail.post([.launch(), .home])
      async let suspended = mail.wait(for: .suspended, timeout: .seconds(10))
      try await device.advanceClock(by: .seconds(3))
      #expect(try await suspended.state == .suspended)
    }
  }

  @Test func aFetchNeverCompletedIsKilledWithItsCode() async throws {
    try await lifecycled.withDevice { device in
      let news = try await device.createApp("news", backgroundModes: [.fetch])
      try await news.post(.backgroundLaunch(for: .fetch))
      let advance = try await device.advanceClock(by: .seconds(60))
      #expect(advance.transitions.first?.terminationCode == .backgroundFetch)
    }
  }

  @Test func jetsamThenRestoration() async throws {
    try await lifecycled.withDevice { device in
      let notes = try await device.createApp("notes")
      try await notes.post([
        .launch(), try .setRestorationData(to: ["tab": 2], scene: "main"), .home,
      ])
      try await device.advanceClock(by: .seconds(5))
      try await notes.post(.purge(reason: .highwater))
      let relaunch = try await notes.post(.launch())
      let connect = try #require(relaunch.callbacks.first { $0.method == .sceneWillConnect })
      let saved = try #require(connect.arguments?.session?.stateRestorationActivity)
      #expect(try saved.decoded(as: [String: Int].self) == ["tab": 2])
    }
  }

  @Test func theJournalStreamsWhatHappensNext() async throws {
    try await lifecycled.withDevice { device in
      let maps = try await device.createApp("maps")
      try await maps.post(.launch())
      let stream = try await device.journalStream(since: .latest, kind: .transition)
      try await maps.post(.home)
      var states: [Components.Schemas.AppState] = []
      for try await event in stream {
        guard case .entry(.transition(let entry)) = event else { continue }
        states.append(entry.transition.to)
        if states.count == 2 { break }
      }
      #expect(states == [.inactive, .background])
    }
  }

  @Test func aRefusalSaysWhatIsAllowed() async throws {
    try await lifecycled.withDevice { device in
      let mail = try await device.createApp("mail")
      let problem = await #expect(throws: LifecycledProblem.self) { try await mail.post(.home) }
      #expect(problem?.kind == .eventRefused)
      #expect(problem?.currentState == .app(.notRunning))
      #expect(
        problem?.allowedEvents == [.launch, .prewarm, .backgroundLaunch, .updateApp, .reinstall])
    }
  }

  /// A 750 MB game on a 1,000 MB device: both suspended apps go, largest first, and the
  /// jetsam event's report lists every process.
  @Test func memoryPressureKillsTheSuspendedLargestFirst() async throws {
    try await lifecycled.withDevice(memoryLimitMB: 1000, perAppLimitMB: 800) { device in
      for (name, megabytes) in [("small", 300), ("large", 400)] {
        try await device.createApp(name, memoryMB: megabytes).post([.launch(), .home])
        try await device.advanceClock(by: .seconds(3))
      }
      try await device.createApp("game", memoryMB: 750).post(.launch())
      let kills = try await device.jetsamLog().kills
      #expect(kills.map(\.app) == ["large", "small"])
      let report = try await device.jetsamReport(try #require(kills.first).jetsamEvent)
      #expect(report.largestProcess == "game")
      #expect(report.processes.map(\.name) == ["large", "small", "game"])
    }
  }
}
