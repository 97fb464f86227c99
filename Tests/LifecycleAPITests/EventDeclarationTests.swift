import Foundation
import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The journal writes an event from its parameters (`forEachParameter`) exactly as a request
/// body writes it: read back, every event is the one written. Each is written and read with
/// the members its declaration (`EventDeclaration`) lists, from which the contract's schemas
/// are made.
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
    .openScene(id: "second", via: .url("mail://new")),
    .openScene(via: .notification(NotificationResponse(identifier: "n2"))),
    .openScene(via: .userActivity(UserActivity(activityType: "compose"))),
    .openScene(via: .shortcutItem(type: "new")), .closeScene("main"),
    .disconnectScene("second"), .home, .openSwitcher, .closeSwitcher,
    .interruptionBegan(.call), .interruptionEnded(.backgrounded), .terminate,
    .crash(), .crash(atLaunch: true), .purge(.highwater), .thermalKill,
    .backgroundLaunch(.processing),
    .backgroundLaunch(.remoteNotification, payload: #"{"aps":{"content-available":1},"id":7}"#),
    .backgroundLaunch(.urlSession, sessionIdentifier: "upload"), .backgroundWorkCompleted(),
    .backgroundWorkCompleted(id: 2),
    .submitTaskRequest(TaskRequest(identifier: "com.example.refresh", kind: .appRefresh)),
    .submitTaskRequest(
      TaskRequest(
        identifier: "com.example.db-cleanup", kind: .processing, earliestBeginDate: .seconds(600),
        requiresNetworkConnectivity: true, requiresExternalPower: true)),
    .submitTaskRequest(
      TaskRequest(identifier: "com.example.export", kind: .continuedProcessing, strategy: .fail)),
    .reportProgress(
      identifier: "com.example.export", TaskProgress(completedUnitCount: 3, totalUnitCount: 8)),
    .cancelTaskRequest(identifier: "com.example.refresh"),
    .launchTask(identifier: "com.example.refresh"), .expireTask(identifier: "com.example.refresh"),
    .attachDebugger, .detachDebugger, .updateApp(version: "2.0", build: "7"), .reinstall,
    .beginBackgroundTask(),
    .beginBackgroundTask(name: "upload \u{e9}"), .endBackgroundTask(id: 7), .memoryWarning,
    .setMemory(memoryMB: 250), .startActivity(.audio), .stopActivity(.location),
    .setRestorationData(#"{"tab":[1,2]}"#, scene: "main"), .setRestorationData(nil),
  ]

  @Test func theSamplesCoverEveryAppEventType() {
    #expect(Set(Self.events.map(\.type)) == Set(AppEvent.types))
  }

  /// Device events of every type, with every member they can carry, and with none.
  static let deviceEvents: [DeviceEvent] = [
    .home, .memoryWarning, .lock, .unlock, .significantTimeChange, .shutdown, .boot,
    .setConditions(ConditionsChange()),
    .setConditions(
      ConditionsChange(
        batteryLevel: 15, charging: true, lowPowerMode: true, network: .cellular,
        backgroundAppRefresh: false, taskScheduling: .manual, continuedProcessingCapacity: 0)),
    .setBackgroundAppRefresh(app: "mail", enabled: false), .push(app: "mail", .background),
    .push(app: "mail", .alert, payload: #"{"aps":{"alert":"Hi"}}"#), .deliverMetrics,
    .updateOS(version: "26.2"),
  ]

  @Test func theSamplesCoverEveryDeviceEventType() {
    #expect(Set(Self.deviceEvents.map(\.type)) == Set(DeviceEvent.types))
  }

  /// The kinds the device's rules and reader switch over are the types the declarations
  /// address to a device, each its own and in the types' order: an app's event has none.
  @Test func eachDeviceEventTypeHasItsKindAndNoOtherTypeHasOne() {
    for type in EventType.allCases {
      #expect(DeviceEvent.Kind(type)?.type == (type.isDeviceEvent ? type : nil), "\(type)")
    }
    #expect(DeviceEvent.types == EventType.allCases.filter(\.isDeviceEvent))
    #expect(Self.deviceEvents.allSatisfy { DeviceEvent.Kind($0.type) == $0.kind })
  }

  /// The members an event of each type is written with (the journal's writer, from
  /// `forEachParameter`) are the ones its declaration lists, and a body of its `type` alone is
  /// refused for lacking exactly the members the declaration requires.
  @Test func eachEventIsWrittenAndReadWithTheMembersItsDeclarationLists() throws {
    for (declarations, written) in [
      (EventDeclaration.app, try Self.members(Self.events.map(RecordedEvent.app))),
      (EventDeclaration.device, try Self.members(Self.deviceEvents.map(RecordedEvent.device))),
    ] {
      for declaration in declarations {
        let type = declaration.type.rawValue
        #expect(written[type] == Set(declaration.members.map(\.name)), "\(type): members")
        var fields = Fields(try JSONDocument.parse(Array(#"{"type":"\#(type)"}"#.utf8)))
        _ = declaration.scope == .app ? Decode.appEvent(&fields) : nil
        _ = declaration.scope == .device ? Decode.deviceEvent(&fields) : nil
        let required = fields.issues.filter { $0.message == "is required" }.map(\.field)
        #expect(
          Set(required) == Set(declaration.members.filter(\.required).map(\.name)),
          "\(type): required")
      }
    }
  }

  /// The members beside `type` that the journal writes `events` with, by type.
  static func members(_ events: [RecordedEvent]) throws -> [String: Set<String>] {
    var written: [String: Set<String>] = [:]
    for event in events {
      guard case .object(let members) = try JSON.parse(JSONWriter.encode { $0.event(event) }),
        case .string(let type) = members.first(where: { $0.0 == "type" })?.1
      else { continue }
      written[type, default: []].formUnion(members.map(\.0).filter { $0 != "type" })
    }
    return written
  }

  @Test(arguments: events)
  func anEventWrittenAsTheJournalWritesItReadsBackTheSame(event: AppEvent) throws {
    let written = JSONWriter.encode { $0.event(.app(event)) }
    let read = try Decode.events(try JSONDocument.parse(written), Decode.appEvent).events
    #expect(read == [event], "\(String(decoding: written, as: UTF8.self))")
  }

  @Test(arguments: deviceEvents)
  func aDeviceEventWrittenAsTheJournalWritesItReadsBackTheSame(event: DeviceEvent) throws {
    let written = JSONWriter.encode { $0.event(.device(event)) }
    let read = try Decode.events(try JSONDocument.parse(written), Decode.deviceEvent).events
    #expect(read == [event], "\(String(decoding: written, as: UTF8.self))")
  }
}
