import Foundation
import LifecycleEngine
import Testing

/// The contract's event schemas and the guide's tables of events are made from the event
/// declarations (`EventDeclaration.app`, `.device`), and the schemas of an app's configuration
/// from its member tables (`SchemaProperties`): each lies between two marker lines of its
/// file. `scripts/generate-contract` writes them (this suite with `LIFECYCLED_GENERATE=1`);
/// otherwise the suite fails while a file differs from what the declarations make.
@Suite struct EventDocumentTests {
  @Test func theContractsGeneratedSchemasAreTheDeclarations() throws {
    try EventDocuments.check(
      "openapi.yaml",
      [(EventDocuments.startMarker, EventDocuments.endMarker, EventDocuments.schemas())]
        + SchemaProperties.appSchemas())
  }

  @Test func theGuidesTablesOfEventsAreTheDeclarations() throws {
    try EventDocuments.check(
      "Sources/lifecycled/lifecycled.docc/Events.md", EventDocuments.guideTables())
  }

  /// The guide's tables of models and releases are the built-in profiles, each figure with
  /// how it was found and its source (written here as the events' tables are).
  @Test func theGuidesTablesOfProfilesAreTheBuiltInProfiles() throws {
    try EventDocuments.check(
      "Sources/lifecycled/lifecycled.docc/DeviceProfiles.md",
      [
        (
          "Generated from DeviceProfiles.builtIn by scripts/generate-contract",
          "End of what DeviceProfiles.builtIn generates", ProfileTables.markdown(.builtIn)
        )
      ])
  }

  @Test func everyEventTypeIsDeclared() {
    let declared = Set((EventDeclaration.app + EventDeclaration.device).map(\.type))
    #expect(declared == Set(EventType.allCases))
    #expect(EventDeclaration.app.map(\.type) == AppEvent.types)
    #expect(EventDeclaration.device.map(\.type) == DeviceEvent.types)
    for type in EventType.allCases {
      #expect(type.isAppEvent == EventDeclaration.app.contains { $0.type == type }, "\(type)")
      #expect(
        type.isDeviceEvent == EventDeclaration.device.contains { $0.type == type }, "\(type)")
    }
  }
}

/// What the declarations make: YAML for the contract, Markdown for the guide.
enum EventDocuments {
  static let root = #filePath.components(separatedBy: "/Tests/")[0]

  /// Checks that the text between the event's marker lines of the file at `path` is
  /// `generated` (`check(_:_:)` with one section).
  static func check(_ path: String, _ generated: String) throws {
    try check(path, [(startMarker, endMarker, generated)])
  }

  /// Checks that the text between each section's marker lines in the file at `path` is what
  /// it generates, or, with `LIFECYCLED_GENERATE=1` in the environment, writes it there: all
  /// of a file's sections in one write.
  static func check(
    _ path: String, _ sections: [(start: String, end: String, generated: String)]
  ) throws {
    let file = "\(root)/\(path)"
    let text = try String(contentsOfFile: file, encoding: .utf8)
    var lines = text.components(separatedBy: "\n")
    for section in sections {
      let start = try #require(
        lines.firstIndex { $0.contains(section.start) }, "\(path): no \(section.start)")
      let end = try #require(
        lines.firstIndex { $0.contains(section.end) }, "\(path): no \(section.end)")
      let current = lines[(start + 1)..<end].joined(separator: "\n")
      if ProcessInfo.processInfo.environment["LIFECYCLED_GENERATE"] == "1" {
        lines.replaceSubrange((start + 1)..<end, with: [section.generated])
      } else {
        #expect(current == section.generated, "\(path) is stale: run scripts/generate-contract")
      }
    }
    if ProcessInfo.processInfo.environment["LIFECYCLED_GENERATE"] == "1" {
      try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
    }
  }

  static let startMarker = "Generated from EventDeclaration by scripts/generate-contract"
  static let endMarker = "End of what EventDeclaration generates"

  // MARK: The contract

  /// The names of events and of transitions' causes; `AppEvent` and `DeviceEvent`, each a
  /// choice by `type`, and a schema for each event.
  static func schemas() -> String {
    var yaml = [
      "    EventType:",
      "      description: \(quoted("An event's name: an app's, a device's, or both (home, memoryWarning)."))",
      "      type: string",
      "      enum: [\(EventType.allCases.map(\.rawValue).joined(separator: ", "))]",
      "    TransitionCause:",
      "      description: \(quoted("What caused a transition: an event type, or one of the system's own causes."))",
      "      type: string",
      "      enum: [\(TransitionCause.names.joined(separator: ", "))]",
    ]
    for (list, declarations, description) in [
      (
        "AppEvent", EventDeclaration.app,
        "One app event; each type takes only the members listed with it."
      ),
      (
        "DeviceEvent", EventDeclaration.device,
        "One device event: a whole device, every app on it, takes it."
      ),
    ] {
      yaml += ["    \(list):", "      description: \(quoted(description))", "      oneOf:"]
      yaml += declarations.map { "        - $ref: \"#/components/schemas/\(schemaName($0))\"" }
      yaml += ["      discriminator:", "        propertyName: type", "        mapping:"]
      yaml += declarations.map {
        "          \($0.type.rawValue): \"#/components/schemas/\(schemaName($0))\""
      }
      for declaration in declarations {
        let required = ["type"] + declaration.members.filter(\.required).map(\.name)
        yaml += [
          "    \(schemaName(declaration)):",
          "      description: \(quoted(declaration.summary))",
          "      type: object",
          "      required: [\(required.joined(separator: ", "))]",
          "      additionalProperties: false",
          "      properties:",
          "        type: { type: string, enum: [\(declaration.type.rawValue)] }",
        ]
        yaml += declaration.members.map { "        \($0.name): { \(schema($0)) }" }
      }
    }
    return yaml.joined(separator: "\n")
  }

  /// `LaunchEvent` for an app's `launch`, `DeviceLockEvent` for a device's `lock`.
  static func schemaName(_ declaration: EventDeclaration) -> String {
    let name = declaration.type.rawValue
    let capitalized = name.prefix(1).uppercased() + name.dropFirst()
    return (declaration.scope == .device ? "Device" : "") + capitalized + "Event"
  }

  /// A member's schema, as the flow mapping's content.
  static func schema(_ member: EventMember) -> String {
    var parts: [String] =
      switch member.value {
      case .schema(let name): ["$ref: \"#/components/schemas/\(name)\""]
      case .oneOf(let words): ["type: string", "enum: [\(words.joined(separator: ", "))]"]
      case .string(let bytes):
        ["type: string"] + (bytes.lowerBound > 0 ? ["minLength: \(bytes.lowerBound)"] : [])
          + ["maxLength: \(bytes.upperBound)"]
      case .integer(let range):
        ["type: integer", "minimum: \(range.lowerBound)"]
          + (range.upperBound < Int.max ? ["maximum: \(range.upperBound)"] : [])
      case .seconds(let range):
        ["type: number", "minimum: \(range.lowerBound)", "maximum: \(range.upperBound)"]
      case .boolean: ["type: boolean"]
      case .anyJSON: []
      }
    if let value = member.defaultValue { parts.append("default: \(value)") }
    if let doc = member.doc { parts.append("description: \(quoted(doc))") }
    return parts.joined(separator: ", ")
  }

  /// A double-quoted YAML scalar.
  static func quoted(_ text: String) -> String {
    "\""
      + text.replacingOccurrences(of: "\\", with: "\\\\")
      .replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }

  // MARK: The guide

  /// A table of app events and one of device events: each event's members and the first
  /// sentence of what it does (the contract has the rest).
  static func guideTables() -> String {
    var markdown: [String] = []
    for (title, declarations) in [
      ("App events", EventDeclaration.app), ("Device events", EventDeclaration.device),
    ] {
      markdown += [
        "", "### \(title)", "", "| event | members (`?`: optional) | what it does |",
        "|---|---|---|",
      ]
      markdown += declarations.map { declaration in
        let members = declaration.members.map(describe).joined(separator: ", ")
        let summary = firstSentence(declaration.summary)
        return
          "| `\(declaration.type.rawValue)` | \(members.isEmpty ? "none" : members) | \(summary) |"
      }
    }
    return markdown.dropFirst().joined(separator: "\n") + "\n"
  }

  /// `` `source` `` (with its words), `` `scene`? ``.
  static func describe(_ member: EventMember) -> String {
    var text = "`\(member.name)`" + (member.required ? "" : "?")
    if case .oneOf(let words) = member.value { text += " (\(words.joined(separator: ", ")))" }
    return text
  }

  /// The summary up to its first full stop or colon.
  static func firstSentence(_ summary: String) -> String {
    var sentence = Substring(summary)
    for stop in [". ", ": ", "; "] {
      if let range = sentence.range(of: stop) { sentence = sentence[..<range.lowerBound] }
    }
    return sentence.hasSuffix(".") ? String(sentence) : sentence + "."
  }
}
