import LifecycleEngine

/// A configuration's members as a schema's `properties` in the contract: each with its kind,
/// its limit, the default a fresh configuration has and its words (`describe`).
struct SchemaProperties: ConfigurationMembers {
  private(set) var lines: [String] = []
  private var description: String?

  /// The properties `configuration`'s members make, its values the defaults.
  static func of(_ configuration: some ConfigurationForm) -> String {
    var properties = SchemaProperties()
    var configuration = configuration
    configuration.visitConfiguration(&properties)
    return properties.lines.joined(separator: "\n")
  }

  /// The contract's copies of an app's configuration members, each between its marker lines:
  /// as a request, a declaration and a snapshot give them, and its behaviour's.
  static func appSchemas() -> [(start: String, end: String, generated: String)] {
    let app = of(AppSpec(name: "-"))
    let copies = [
      ("AppCreate", app), ("AppDeclaration", app), ("SnapshotApp", app),
      ("AppBehaviorSettings", of(AppBehavior())),
    ]
    return copies.map { schema, generated in
      (
        "# \(schema)'s members, generated from their member table by scripts/generate-contract",
        "# End of \(schema)'s generated members", generated
      )
    }
  }

  /// The contract's name of a type's schema, where it differs from the type's.
  private static func schema<Value>(_: Value.Type) -> String {
    let name = String(describing: Value.self)
    let reference = ["LifecycleModel": "Lifecycle", "AppBehavior": "AppBehaviorSettings"][name]
    return "$ref: \"#/components/schemas/\(reference ?? name)\""
  }

  mutating func describe(_ text: String) { description = text }

  /// One property on one line, its description last.
  private mutating func property(_ name: StaticString, _ parts: [String]) {
    let described =
      parts + (description.map { ["description: \(EventDocuments.quoted($0))"] } ?? [])
    description = nil
    lines.append("        \(name): { \(described.joined(separator: ", ")) }")
  }

  private static func range(_ range: ClosedRange<Int>) -> [String] {
    ["minimum: \(range.lowerBound)", "maximum: \(range.upperBound)"]
  }

  mutating func integer(
    _ name: StaticString, _ value: inout Int, in range: ClosedRange<Int>, required: Bool
  ) {
    property(name, ["type: integer"] + Self.range(range) + ["default: \(value)"])
  }

  mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>) {
    property(name, ["type: integer"] + Self.range(range))
  }

  mutating func bool(_ name: StaticString, _ value: inout Bool, required: Bool) {
    property(name, ["type: boolean", "default: \(value)"])
  }

  mutating func profileName(_ name: StaticString, _ value: inout String, required: Bool) {
    property(name, ["type: string", "minLength: 1", "maxLength: \(Validation.maxNameBytes)"])
  }

  mutating func choice<Value: RawRepresentable<String> & CaseIterable>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {
    property(name, [Self.schema(Value.self), "default: \(value.rawValue)"])
  }

  mutating func choices<Value: RawRepresentable<String> & CaseIterable & Hashable>(
    _ name: StaticString, _ value: inout Set<Value>
  ) {
    property(name, ["type: array", "items: { \(Self.schema(Value.self)) }"])
  }

  mutating func seconds(_ name: StaticString, _ value: inout Duration, in range: ClosedRange<Int>) {
    let milliseconds = value.wholeMilliseconds
    let seconds =
      milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    property(name, ["type: number"] + Self.range(range) + ["default: \(seconds)"])
  }

  mutating func seconds(
    _ name: StaticString, _ value: inout Duration?, in range: ClosedRange<Int>
  ) {
    property(name, ["type: number"] + Self.range(range))
  }

  mutating func identifiers(_ name: StaticString, _ value: inout [String], maxCount: Int) {
    lines.append("        \(name):")
    if let description {
      lines.append("          description: \(EventDocuments.quoted(description))")
    }
    description = nil
    lines += [
      "          type: array", "          maxItems: \(maxCount)", "          uniqueItems: true",
      "          items: { type: string, minLength: 1, maxLength: \(Validation.maxIdentifierBytes) }",
    ]
  }

  mutating func labels(_ name: StaticString, _ value: inout [String: String]) {
    property(name, ["$ref: \"#/components/schemas/Labels\""])
  }

  mutating func object<Value: ConfigurationForm>(_ name: StaticString, _ value: inout Value) {
    property(name, [Self.schema(Value.self)])
  }
}
