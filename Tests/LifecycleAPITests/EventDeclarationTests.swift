import Foundation
import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The journal writes an app event from its declared parameters (`AppEvent.forEachParameter`)
/// exactly as a request body writes it: read back, every event is the one written. The
/// contract describes each event with exactly those members.
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
    .backgroundLaunch(.processing), .backgroundWorkCompleted, .beginBackgroundTask(),
    .beginBackgroundTask(name: "upload \u{e9}"), .endBackgroundTask(id: 7), .memoryWarning,
    .setMemory(memoryMB: 250), .startActivity(.audio), .stopActivity(.location),
    .setRestorationData(#"{"tab":[1,2]}"#, scene: "main"), .setRestorationData(nil),
  ]

  @Test func theSamplesCoverEveryAppEventType() {
    #expect(Set(Self.events.map(\.type)) == Set(AppEvent.types))
  }

  /// Each event type's schema in `openapi.yaml` (a member of `AppEvent`'s `oneOf`, titled by
  /// the type) lists as properties every member the samples of that type are written with,
  /// and requires those that a body of its `type` alone is refused for lacking.
  @Test func theContractListsEachEventsMembersAsTheDeclarationWritesAndReadsThem() throws {
    let contract = try Self.appEventSchemas()
    var written: [String: Set<String>] = [:]
    for event in Self.events {
      guard case .object(let members) = try JSON.parse(JSONWriter.encode { $0.event(.app(event)) })
      else { continue }
      written[event.type.rawValue, default: []].formUnion(members.map(\.0))
    }
    #expect(Set(contract.keys) == Set(written.keys))
    for (type, members) in written {
      #expect(contract[type]?.properties == members, "\(type): properties")
      var fields = Fields(try JSONDocument.parse(Array(#"{"type":"\#(type)"}"#.utf8)))
      _ = Decode.appEvent(&fields)
      let required = fields.issues.filter { $0.message == "is required" }.map(\.field)
      #expect(contract[type]?.required == Set(["type"] + required), "\(type): required")
    }
  }

  /// The properties and required members of each event's schema under `AppEvent`, read from
  /// the contract's text (its layout: `- title:` per event, `required: [...]`, one property per
  /// line under `properties:`).
  static func appEventSchemas() throws -> [String: (properties: Set<String>, required: Set<String>)]
  {
    let text = try String(
      contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/openapi.yaml",
      encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(of: "    AppEvent:") else { return [:] }
    var schemas: [String: (properties: Set<String>, required: Set<String>)] = [:]
    var title: String?
    var inProperties = false
    for line in lines[(start + 1)...] {
      if line.hasPrefix("    "), !line.hasPrefix("     ") { break }  // the next schema
      let trimmed = line.drop { $0 == " " }
      let indent = line.count - trimmed.count
      if trimmed.hasPrefix("- title: ") {
        title = String(trimmed.dropFirst("- title: ".count))
        schemas[title!] = ([], [])
        inProperties = false
      } else if let title, trimmed.hasPrefix("required: [") {
        let list = trimmed.dropFirst("required: [".count).prefix { $0 != "]" }
        schemas[title]!.required = Set(
          list.split(separator: ",").map { $0.trimmingPrefix(" ") }.map(String.init))
      } else if trimmed == "properties:" {
        inProperties = true
      } else if let title, inProperties, indent == 12, let colon = trimmed.firstIndex(of: ":") {
        schemas[title]!.properties.insert(String(trimmed[..<colon]))
      } else if indent <= 10 {
        inProperties = false
      }
    }
    return schemas
  }

  @Test(arguments: events)
  func anEventWrittenAsTheJournalWritesItReadsBackTheSame(event: AppEvent) throws {
    let written = JSONWriter.encode { $0.event(.app(event)) }
    let read = try Decode.events(try JSONDocument.parse(written), Decode.appEvent).events
    #expect(read == [event], "\(String(decoding: written, as: UTF8.self))")
  }
}
