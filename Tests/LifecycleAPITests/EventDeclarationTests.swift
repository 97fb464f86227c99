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
    .backgroundLaunch(.processing),
    .backgroundLaunch(.remoteNotification, payload: #"{"aps":{"content-available":1},"id":7}"#),
    .backgroundLaunch(.urlSession, sessionIdentifier: "upload"), .backgroundWorkCompleted(),
    .backgroundWorkCompleted(id: 2),
    .submitTaskRequest(TaskRequest(identifier: "com.example.refresh", kind: .appRefresh)),
    .submitTaskRequest(
      TaskRequest(
        identifier: "com.example.db-cleanup", kind: .processing, earliestBeginDate: .seconds(600),
        requiresNetworkConnectivity: true, requiresExternalPower: true)),
    .cancelTaskRequest(identifier: "com.example.refresh"),
    .launchTask(identifier: "com.example.refresh"), .expireTask(identifier: "com.example.refresh"),
    .beginBackgroundTask(),
    .beginBackgroundTask(name: "upload \u{e9}"), .endBackgroundTask(id: 7), .memoryWarning,
    .setMemory(memoryMB: 250), .startActivity(.audio), .stopActivity(.location),
    .setRestorationData(#"{"tab":[1,2]}"#, scene: "main"), .setRestorationData(nil),
  ]

  @Test func theSamplesCoverEveryAppEventType() {
    #expect(Set(Self.events.map(\.type)) == Set(AppEvent.types))
  }

  /// Each event type's schema in `openapi.yaml` (the one `AppEvent`'s discriminator maps the
  /// type to) lists as properties every member the samples of that type are written with,
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

  /// The properties and required members of each event's schema, by event type, read from
  /// the contract's text: `AppEvent`'s discriminator maps each type to a schema of its own
  /// (`type: "#/components/schemas/…"` under `mapping:`), whose `required: [...]` and
  /// `properties:`, one per line, follow its name.
  static func appEventSchemas() throws -> [String: (properties: Set<String>, required: Set<String>)]
  {
    let text = try String(
      contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/openapi.yaml",
      encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    /// The lines of the schema `name` (under `components/schemas`), after its name.
    func schema(_ name: Substring) -> ArraySlice<Substring> {
      guard let start = lines.firstIndex(of: "    \(name):") else { return [] }
      let end =
        lines[(start + 1)...].firstIndex { $0.hasPrefix("    ") && !$0.hasPrefix("     ") }
        ?? lines.endIndex
      return lines[(start + 1)..<end]
    }
    var schemas: [String: (properties: Set<String>, required: Set<String>)] = [:]
    let prefix = "#/components/schemas/"
    for line in schema("AppEvent") where line.contains(": \"\(prefix)") && !line.contains("$ref") {
      let trimmed = line.drop { $0 == " " }
      let type = String(trimmed.prefix { $0 != ":" })
      let name = trimmed.split(separator: "/").last!.dropLast()  // its closing quote
      var inProperties = false
      var found: (properties: Set<String>, required: Set<String>) = ([], [])
      for line in schema(name) {
        let trimmed = line.drop { $0 == " " }
        let indent = line.count - trimmed.count
        if indent == 6, trimmed.hasPrefix("required: [") {
          let list = trimmed.dropFirst("required: [".count).prefix { $0 != "]" }
          found.required = Set(
            list.split(separator: ",").map { $0.trimmingPrefix(" ") }.map(String.init))
        }
        if indent == 6 { inProperties = trimmed == "properties:" }
        if inProperties, indent == 8, let colon = trimmed.firstIndex(of: ":") {
          found.properties.insert(String(trimmed[..<colon]))
        }
      }
      schemas[type] = found
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
