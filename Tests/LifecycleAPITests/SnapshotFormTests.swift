import Foundation
import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The snapshot's forms (`SnapshotForms.swift`) and the views are what the contract's schemas
/// describe: the same members, the same required ones, and where a schema names a default, the
/// value a form's type starts with. A member added to a form, a view or a schema alone fails
/// here.
@Suite struct SnapshotFormTests {
  private static let device = MemberList(
    DeviceImage(
      DeviceConfiguration(
        id: "phone", clock: .manual, memoryLimitMB: 4096, perAppLimitMB: 2048, passcode: true)))
  private static let record = MemberList(AppRecord())
  private static let process = MemberList(
    ProcessImage(state: .active, memoryMB: 100, backgroundMemoryMB: 50))

  @Test func theDocumentIsItsForm() throws {
    let schema = try Schema("DeviceSnapshotDocument")
    let around = ["format", "version", "device", "journal"]
    #expect(schema.properties == Set(around + Self.device.names))
    #expect(schema.required == ["format", "version", "device"] + Self.device.required)
  }

  /// A device's configuration is one form for a snapshot's `device` and for the two ways a
  /// client declares a device: the snapshot must have what a declaration may leave out.
  @Test func aDevicesConfigurationIsItsForm() throws {
    let form = MemberList(
      ConfigurationObject(
        Engine(now: .zero).configuration.deviceDefaults.configuration(id: "phone")))
    let snapshot = try Schema("SnapshotDevice")
    #expect(snapshot.properties == Set(["id"] + form.names))
    #expect(snapshot.required == form.required)
    #expect(try Schema("DeviceCreate").properties == Set(["id"] + form.names))
    #expect(try Schema("DeviceDeclaration").properties == Set(["id", "apps"] + form.names))
    // A field added to the configuration (found by reflection) fails here until it has a member.
    let configuration = DeviceConfiguration(
      id: "phone", clock: .manual, memoryLimitMB: 1, perAppLimitMB: 1, passcode: false)
    #expect(Mirror(reflecting: configuration).children.count == form.names.count + 1)
  }

  @Test func anAppIsItsConfigurationAndItsForm() throws {
    let schema = try Schema("SnapshotApp")
    let configuration = ["name"] + MemberList(ConfigurationObject(AppSpec(name: "mail"))).names
    #expect(schema.properties == Set(configuration + Self.record.names + ["process"]))
    #expect(schema.required == ["name"] + Self.record.required)
    #expect(try Schema("AppCreate").properties == Set(configuration + ["given"]))
    #expect(try Schema("AppDeclaration").properties == Set(configuration))
    // A field added to the configuration (found by reflection) fails here until it has a member.
    #expect(Mirror(reflecting: AppSpec(name: "mail")).children.count == configuration.count)
    let behavior = MemberList(ConfigurationObject(AppBehavior())).names
    #expect(Mirror(reflecting: AppBehavior()).children.count == behavior.count)
  }

  /// A device's configuration rules are its contract's: a limit or a count changed in the
  /// member table (`ConfigurationForm`) fails here until `openapi.yaml` says the same. (The
  /// app's schemas are generated from its tables: `EventDocumentTests`.)
  @Test func theDevicesConfigurationRulesAreTheContracts() throws {
    let phone = Engine(now: .zero).configuration.deviceDefaults.configuration(id: "phone")
    let device = (RuleList(phone), MemberList(ConfigurationObject(phone)))
    let forms: [(String, RuleList, MemberList)] =
      ["DeviceCreate", "DeviceDeclaration", "SnapshotDevice"].map { ($0, device.0, device.1) }
    for (name, rules, members) in forms {
      let schema = try Schema(name)
      for (member, rule) in rules.rules {
        let text = schema.texts[member] ?? ""
        #expect(text.contains(rule), "\(name).\(member) says \(text), not \(rule)")
      }
      for (member, stated) in schema.defaults {
        let written = members.written[member]?.replacing("\"", with: "")
        #expect(
          written == stated || written.flatMap(Double.init) == Double(stated),
          "\(name).\(member): default \(stated), not \(written ?? "none")")
      }
    }
  }

  /// What a process ran with is one form for the snapshot's termination and the app view's;
  /// the view adds the installation's `identifierForVendor`, and both always write whether a
  /// debugger was attached, which a snapshot from before it may leave out.
  @Test func whatAProcessRanWithIsItsForm() throws {
    let schema = try Schema("RunContext")
    let form = MemberList(RunContext.unread)
    #expect(schema.properties == Set(form.names + ["identifierForVendor"]))
    #expect(schema.required == form.required + ["debuggerAttached"])
    #expect(Mirror(reflecting: RunContext.unread).children.count == form.names.count)
  }

  @Test func aProcessIsItsForm() throws {
    let schema = try Schema("SnapshotProcess")
    #expect(schema.properties == Set(Self.process.names))
    #expect(schema.required == Self.process.required)
  }

  /// MetricKit's reports have one form each, for the callbacks, the view and the snapshot: the
  /// contract's schemas have its members, every one required.
  @Test func metricKitsReportsAreTheirForms() throws {
    let forms = [
      ("MetricPayload", MemberList(MetricPayload())),
      ("DiagnosticPayload", MemberList(DiagnosticPayload())),
      ("CrashDiagnostic", MemberList(CrashDiagnostic())),
      ("ReportMetaData", MemberList(ReportMetaData())),
    ]
    for (name, form) in forms {
      let schema = try Schema(name)
      #expect(schema.properties == Set(form.names), "\(name)")
      #expect(schema.required == form.names && form.required == form.names, "\(name)")
    }
  }

  /// The device view shows the conditions and counters as the snapshot holds them; the
  /// conditions' schema gives each member's default, which a snapshot leaving it out reads.
  @Test func conditionsAndCountersAreTheirForms() throws {
    let conditions = try Schema("BackgroundConditions")
    let form = MemberList(BackgroundConditions())
    #expect(conditions.properties == Set(form.names))
    #expect(conditions.defaults == form.written.mapValues { $0.replacing("\"", with: "") })
    let counters = try Schema("SnapshotCounters")
    #expect(counters.properties == Set(MemberList(DeviceCounters()).names))
  }

  /// The device view shows every option of a device's configuration (the memory limits inside
  /// its `memory`), and the `Device` schema has every member the view writes, each required
  /// (the view writes `null` for what has no value): an option added to the configuration's
  /// form fails here until the view shows it and the contract has it.
  @Test func theDeviceViewShowsEveryOption() throws {
    let engine = Engine(now: .zero)
    let device = try engine.device(Engine.defaultDeviceID, now: .zero)
    let view = try JSON.parse(JSONWriter.encode { $0.device(device) })
    let memory = Self.members(of: view["memory"])
    let shown = Self.members(of: view).union(memory.map { "memory.\($0)" })
    let shownAs = [
      "memoryLimitMB": "memory.limitMB", "perAppLimitMB": "memory.perAppLimitMB",
      "backgroundAppLimitMB": "memory.backgroundAppLimitMB",
      "increasedAppLimitMB": "memory.increasedAppLimitMB",
    ]
    for option in MemberList(
      ConfigurationObject(
        Engine(now: .zero).configuration.deviceDefaults.configuration(id: "phone"))
    ).names {
      #expect(shown.contains(shownAs[option] ?? option), "the device view leaves out \(option)")
    }
    for object in [nil, "memory", "counters"] {
      let written = Self.members(of: object.map { view[$0] } ?? view)
      let schema = try Schema("Device", member: object)
      #expect(schema.properties == written, "\(object ?? "the device")")
      #expect(Set(schema.required) == written, "\(object ?? "the device")")
    }
  }

  /// The app view writes what the `App` schema describes, its configuration's members among
  /// them: every member, each required but two the view leaves out when they do not apply:
  /// the scene's state (an app-delegate app has none) and the last termination (a process that
  /// never ended has none). Which of an app's fields the view shows is `StateFormsTests`' to
  /// check.
  @Test func theAppViewIsItsSchema() throws {
    let engine = Engine(now: .zero)
    let device = Engine.defaultDeviceID
    func view(_ spec: AppSpec, after events: [AppEvent]) throws -> Set<String> {
      _ = try engine.createApp(spec, on: device, now: .zero)
      for event in events { _ = try engine.apply(event, to: spec.name, on: device, now: .zero) }
      let view = try engine.app(spec.name, on: device, now: .zero)
      return try Self.members(JSONWriter.encode { $0.app(view) })
    }
    let scene = try view(AppSpec(name: "maps"), after: [.launch(), .crash(), .launch()])
    let appDelegate = try view(AppSpec(name: "mail", lifecycle: .appDelegate), after: [.launch()])
    let schema = try Schema("App")
    #expect(schema.properties == scene)
    #expect(Set(schema.required) == appDelegate)
    #expect(scene.subtracting(appDelegate) == ["sceneState", "lastTermination"])
    // The view shows how the app was configured: every member of its configuration.
    let configuration = MemberList(ConfigurationObject(AppSpec(name: "maps"))).names
    #expect(appDelegate.isSuperset(of: configuration))
  }

  /// A field added to a device's state (found by reflection, not from a list) fails here
  /// until its form has a member for it; an app's fields are `StateFormsTests`' to check.
  @Test func everyFieldOfADevicesStateHasAMember() {
    func fields(of value: Any) -> Int { Mirror(reflecting: value).children.count }
    let image = ["seq", "apps"]  // beside the status, in the image itself
    #expect(Self.device.names.count == fields(of: DeviceStatus()) + image.count)
    #expect(MemberList(BackgroundConditions()).names.count == fields(of: BackgroundConditions()))
    #expect(MemberList(DeviceCounters()).names.count == fields(of: DeviceCounters()))
  }

  private static func members(_ bytes: [UInt8]) throws -> Set<String> {
    members(of: try JSON.parse(bytes))
  }

  private static func members(of value: JSON?) -> Set<String> {
    guard case .object(let members) = value else { return [] }
    return Set(members.map(\.0))
  }
}

/// A form's members as it visits them: their names, the required ones, and each one's value,
/// as written, of a member that has one.
private struct MemberList: SnapshotMembers {
  var names: [String] = []
  var required: [String] = []
  var written: [String: String] = [:]

  init(_ form: some SnapshotForm) {
    var form = form
    form.visitMembers(&self)
  }

  mutating func value<Value>(
    _ name: StaticString, _ value: inout Value, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?
  ) {
    names.append("\(name)")
    if required { self.required.append("\(name)") }
    written["\(name)"] = String(decoding: JSONWriter.encode { write(&$0, value) }, as: UTF8.self)
  }

  mutating func optional<Value>(
    _ name: StaticString, _ value: inout Value?, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?
  ) {
    names.append("\(name)")
    if required { self.required.append("\(name)") }
  }

  mutating func object<Value: SnapshotForm>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {
    names.append("\(name)")
    if required { self.required.append("\(name)") }
  }
}

/// The rules a configuration's members state, as the contract writes them: a range as its
/// `minimum` and `maximum`, a list's most items.
private struct RuleList: ConfigurationMembers {
  var rules: [(member: String, rule: String)] = []

  init(_ form: some ConfigurationForm) {
    var form = form
    form.visitConfiguration(&self)
  }

  private mutating func range(_ name: StaticString, _ range: ClosedRange<Int>) {
    rules.append(("\(name)", "minimum: \(range.lowerBound), maximum: \(range.upperBound)"))
  }

  mutating func integer(
    _ name: StaticString, _ value: inout Int, in range: ClosedRange<Int>, required: Bool
  ) { self.range(name, range) }

  mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>) {
    self.range(name, range)
  }

  mutating func bool(_ name: StaticString, _ value: inout Bool, required: Bool) {}

  mutating func profileName(_ name: StaticString, _ value: inout String, required: Bool) {
    rules.append(("\(name)", "minLength: 1, maxLength: \(Validation.maxNameBytes)"))
  }

  mutating func choice<Value: RawRepresentable<String> & CaseIterable>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {}

  mutating func choices<Value: RawRepresentable<String> & CaseIterable & Hashable>(
    _ name: StaticString, _ value: inout Set<Value>
  ) {}

  mutating func seconds(_ name: StaticString, _ value: inout Duration, in range: ClosedRange<Int>) {
    self.range(name, range)
  }

  mutating func seconds(
    _ name: StaticString, _ value: inout Duration?, in range: ClosedRange<Int>
  ) {}  // the idle timeout's schema is a shared one, `IdleTimeout`

  mutating func identifiers(_ name: StaticString, _ value: inout [String], maxCount: Int) {
    rules.append(("\(name)", "maxItems: \(maxCount) uniqueItems: true"))
  }

  mutating func labels(_ name: StaticString, _ value: inout [String: String]) {}

  mutating func object<Value: ConfigurationForm>(_ name: StaticString, _ value: inout Value) {}
}

/// A schema of `openapi.yaml`'s components as written there, or an object in one of its
/// properties: its `required` list (on one line, or an item a line), a property a line, each
/// with its `default` if it names one.
private struct Schema {
  var properties: Set<String> = []
  var required: [String] = []
  var defaults: [String: String] = [:]
  /// Each property's text after its name, its own lines below it joined to it.
  var texts: [String: String] = [:]

  init(_ name: String, member: String? = nil) throws {
    let contract = try String(
      contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/openapi.yaml",
      encoding: .utf8)
    var lines = contract.split(separator: "\n").drop { $0 != "  schemas:" }
      .drop { $0 != "    \(name):" }.dropFirst()
      .prefix { $0.hasPrefix("      ") }
    var indent = "      "
    if let member {
      lines = lines.drop { $0 != "        \(member):" }.dropFirst()
        .prefix { $0.hasPrefix("          ") }
      indent = "          "
    }
    try #require(!lines.isEmpty, "no schema \(name) \(member ?? "")")
    var isListingRequired = false
    var lastProperty: String?
    for line in lines {
      if line.hasPrefix(indent + "required: [") {
        required = line.drop { $0 != "[" }.dropFirst().dropLast().split(separator: ", ").map(
          String.init)
      }
      if isListingRequired, line.hasPrefix(indent + "  - ") {
        required.append(String(line.dropFirst(indent.count + 4)))
        continue
      }
      isListingRequired = line == indent + "required:"
      if line.hasPrefix(indent + "   "), let property = lastProperty {
        texts[property, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
        continue
      }
      guard line.hasPrefix(indent + "  "), let colon = line.firstIndex(of: ":") else {
        lastProperty = nil
        continue
      }
      let property = String(line[..<colon].trimmingCharacters(in: .whitespaces))
      properties.insert(property)
      lastProperty = property
      texts[property] = String(line[line.index(after: colon)...])
      if let range = line.range(of: "default: ") {
        defaults[property] = String(line[range.upperBound...].prefix { $0 != "," && $0 != " " })
      }
    }
  }
}
