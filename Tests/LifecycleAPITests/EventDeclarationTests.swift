import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The journal writes an app event from its declared parameters (`AppEvent.forEachParameter`)
/// exactly as a request body writes it: read back, every event is the one written.
@Suite struct EventDeclarationTests {
  /// An event of every type, with every parameter it can carry, and with none where it can.
  static let events: [AppEvent] = [
    .launch(), .launch(via: .url("mail://inbox/7"), scene: "main"),
    .launch(
      via: .notification(
        NotificationResponse(
          identifier: "n1", actionIdentifier: "reply",
          isRemote: true))),
    .launch(via: .userActivity(UserActivity(webpageURL: "https://example.com/a\"b"))),
    .launch(via: .shortcutItem(type: "compose")), .prewarm, .openScene(),
    .openScene(id: "second", via: .url("mail://new")), .closeScene("main"),
    .disconnectScene("second"), .home, .openSwitcher, .closeSwitcher,
    .interruptionBegan(.call), .interruptionEnded(.backgrounded), .terminate,
    .crash(), .crash(atLaunch: true), .purge(.highwater), .thermalKill,
    .backgroundLaunch(.processing), .backgroundWorkCompleted, .beginBackgroundTask(),
    .beginBackgroundTask(name: "upload \u{e9}"), .endBackgroundTask(id: 7), .memoryWarning,
    .setMemory(memoryMB: 250), .startActivity(.audio), .stopActivity(.location),
    .setRestorationData(#"{"tab":[1,2]}"#, scene: "main"), .setRestorationData(nil),
  ]

  @Test func theSamplesCoverEveryAppEventType() {
    #expect(Set(Self.events.map(\.type)) == Set(AppEvent.types))
  }

  @Test(arguments: events)
  func anEventWrittenAsTheJournalWritesItReadsBackTheSame(event: AppEvent) throws {
    let written = JSONWriter.encode { $0.event(.app(event)) }
    let read = try Decode.events(try JSONDocument.parse(written), Decode.appEvent).events
    #expect(read == [event], "\(String(decoding: written, as: UTF8.self))")
  }
}
