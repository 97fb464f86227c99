import Foundation
import LifecycleEngine
import LifecycledClient
import Testing

/// What the engine in process does in place of a server's loop: a realtime device's clock
/// and a wait's timeout driven by a task, the work a server hands its worker threads (a large
/// body, a long scenario) done in the call, each client a simulator of its own. The client's
/// other suites run in process too (`scripts/test`, `LIFECYCLED_CLIENT_TESTS=in-process`).
@Suite struct InProcessTests {
  /// A realtime device suspends an app on its own, as time passes: the wait is answered when
  /// the simulator's task fires the suspension.
  @Test func aRealtimeDeviceMovesOnItsOwn() async throws {
    var configuration = EngineConfiguration.inProcess
    configuration.scheduler.suspendDelay = .milliseconds(50)
    let lifecycled = Lifecycled.inProcess(configuration: configuration)
    let device = try await lifecycled.createDevice(clock: .realtime)
    let mail = try await device.createApp("mail")
    try await mail.post(.launch())
    try await mail.post(.home)
    let suspended = try await mail.wait(for: .suspended, timeout: .seconds(30))
    #expect(suspended.state == .suspended)
  }

  /// A wait that is never met ends at its timeout, with the app as it is.
  @Test func aWaitEndsAtItsTimeout() async throws {
    let device = try await Lifecycled.inProcess().createDevice()
    let mail = try await device.createApp("mail")
    let error = await #expect(throws: LifecycledWaitTimeout.self) {
      try await mail.wait(for: .active, timeout: .milliseconds(100))
    }
    #expect(error?.app.state == .notRunning)
  }

  /// A snapshot over 64 KiB (read on a worker thread by a server) restores, and a scenario
  /// whose answer passes 64 KiB (written a slice a turn by a server) is answered whole.
  @Test func largeBodiesAndLongAnswersAreAnsweredWhole() async throws {
    let lifecycled = Lifecycled.inProcess()
    let device = try await lifecycled.createDevice(memoryLimitMB: 100_000)
    for index in 0..<200 {
      let app = try await device.createApp("app\(index)", memoryMB: 1)
      try await app.post(.launch())
    }
    let snapshot = try await device.snapshot()
    #expect(try JSONEncoder().encode(snapshot).count > 65_536)
    let copy = try await lifecycled.createDevice()
    try await copy.restore(snapshot)
    #expect(try await copy.fetch().apps == 200)
    let warnings = try await lifecycled.client.postDeviceEvent(
      path: .init(device: copy.id),
      body: .json(.DeviceEventList(Array(repeating: .memoryWarning, count: 4)))
    ).ok.body.json
    guard case .DeviceScenarioResponse(let scenario) = warnings else {
      Issue.record("a scenario's answer: \(warnings)")
      return
    }
    for result in scenario.results {  // every app running: the foreground one, 199 behind it
      #expect(result.callbacks.count == 200)
      #expect(Set(result.callbacks.map { "\($0.method)" }) == ["didReceiveMemoryWarning"])
    }
    #expect(try JSONEncoder().encode(scenario).count > 65_536)  // more than one slice
  }

  /// A journal stream its reader leaves unread ends as a server's does: once what waits for
  /// the reader passes what a server holds unsent for a stream (256 KiB), it is sent `end`
  /// (`behind`) after what came before, and the simulator serves on.
  @Test func aStreamLeftUnreadEndsBehind() async throws {
    let lifecycled = Lifecycled.inProcess()
    let device = try await lifecycled.createDevice("watched")
    let stream = try await lifecycled.client.streamJournal(
      path: .init(device: "watched"), query: .init()
    ).ok.body.textEventStream
    let mail = try await device.createApp("mail")
    let round: [Components.Schemas.AppEvent] = [.launch(), .home]
    for _ in 0..<30 { try await mail.post(Array(repeatElement(round, count: 50).joined())) }
    // Unbounded, the stream would pass 1 MiB here.
    let text = try await String(collecting: stream, upTo: 1 << 20)
    let farewell = "event: end\ndata: {\"reason\":\"behind\"}\n\n"
    #expect(text.hasSuffix(farewell))
    #expect(text.utf8.count - farewell.utf8.count <= 262_144)
    #expect(text.components(separatedBy: "\n\n").count > 500)  // the entries before it
    #expect(try await mail.fetch().state == .background)
  }

  /// Two in-process clients are two simulators: a device of one is unknown to the other.
  @Test func eachClientIsASimulatorOfItsOwn() async throws {
    let first = Lifecycled.inProcess()
    let second = Lifecycled.inProcess()
    _ = try await first.createDevice("only-here")
    let problem = await #expect(throws: LifecycledProblem.self) {
      try await second.device("only-here").fetch()
    }
    #expect(problem?.status == 404)
  }
}
