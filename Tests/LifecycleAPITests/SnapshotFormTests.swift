import Foundation
import JSONCore
import LifecycleEngine
import Testing

@testable import LifecycleAPI

/// The snapshot's forms (`SnapshotFormat.deviceMembers` and the rest) are what the contract's
/// schemas describe: the same members, the same required ones, and where a schema names a
/// default, the value a form's type starts with. A member added to a form or a schema alone
/// fails here.
@Suite struct SnapshotFormTests {
  @Test func theDocumentIsItsForm() throws {
    let schema = try Schema("DeviceSnapshotDocument")
    let around = ["format", "version", "device", "journal"]
    #expect(schema.properties == Set(around + Self.names(SnapshotFormat.deviceMembers)))
    #expect(
      schema.required
        == ["format", "version", "device"] + Self.required(SnapshotFormat.deviceMembers))
  }

  @Test func anAppIsItsConfigurationAndItsForm() throws {
    let schema = try Schema("SnapshotApp")
    let spec = AppSpec(name: "mail")
    let written = try Self.members(JSONWriter.encode { $0.appImage(AppImage(spec: spec)) })
    let configuration = written.subtracting(Self.names(SnapshotFormat.recordMembers))
    #expect(configuration.count == 9, "name, lifecycle, the footprints, modes, behavior, scenes")
    #expect(
      schema.properties
        == configuration.union(Self.names(SnapshotFormat.recordMembers)).union(["process"]))
    #expect(schema.required == ["name"] + Self.required(SnapshotFormat.recordMembers))
  }

  @Test func aProcessIsItsForm() throws {
    let schema = try Schema("SnapshotProcess")
    #expect(schema.properties == Set(Self.names(SnapshotFormat.processMembers)))
    #expect(schema.required == Self.required(SnapshotFormat.processMembers))
  }

  /// The device view shows the conditions and counters as the snapshot holds them; the
  /// conditions' schema gives each member's default, which a snapshot leaving it out reads.
  @Test func conditionsAndCountersAreTheirForms() throws {
    let conditions = try Schema("BackgroundConditions")
    #expect(conditions.properties == Set(Self.names(SnapshotFormat.conditionsMembers)))
    for member in SnapshotFormat.conditionsMembers {
      let written = JSONWriter.encode { $0.object([member], BackgroundConditions()) }
      let value = String(decoding: written, as: UTF8.self).split(separator: ":")[1].dropLast()
      #expect(
        conditions.defaults["\(member.name)"] == value.replacingOccurrences(of: "\"", with: ""),
        "\(member.name)")
    }
    let counters = try Schema("SnapshotCounters")
    #expect(counters.properties == Set(Self.names(SnapshotFormat.counterMembers)))
  }

  private static func names<Root>(_ form: [SnapshotMember<Root>]) -> [String] {
    form.map { "\($0.name)" }
  }

  private static func required<Root>(_ form: [SnapshotMember<Root>]) -> [String] {
    form.filter(\.isRequired).map { "\($0.name)" }
  }

  private static func members(_ bytes: [UInt8]) throws -> Set<String> {
    guard case .object(let members) = try JSON.parse(bytes) else { return [] }
    return Set(members.map(\.0))
  }
}

/// A schema of `openapi.yaml`'s components as written there: its `required` list on one line,
/// a property a line, each with its `default` if it names one.
private struct Schema {
  var properties: Set<String> = []
  var required: [String] = []
  var defaults: [String: String] = [:]

  init(_ name: String) throws {
    let contract = try String(
      contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/openapi.yaml",
      encoding: .utf8)
    let lines = contract.split(separator: "\n").drop { $0 != "    \(name):" }.dropFirst()
      .prefix { $0.hasPrefix("      ") }
    try #require(!lines.isEmpty, "no schema \(name)")
    for line in lines {
      if line.hasPrefix("      required: [") {
        required = line.drop { $0 != "[" }.dropFirst().dropLast().split(separator: ", ").map(
          String.init)
      }
      guard line.hasPrefix("        "), !line.hasPrefix("         "),
        let colon = line.firstIndex(of: ":")
      else { continue }
      let property = String(line[..<colon].trimmingCharacters(in: .whitespaces))
      properties.insert(property)
      if let range = line.range(of: "default: ") {
        defaults[property] = String(line[range.upperBound...].prefix { $0 != "," && $0 != " " })
      }
    }
  }
}
