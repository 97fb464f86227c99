import JSONCore
public import LifecycleEngine

/// The devices a server starts with, and returns to on `/__admin/reset` (the `fixtures`
/// configuration key): a JSON file `{"devices": [...]}` whose entries are device snapshots or
/// declarations (`DeviceDocument`), such as `{"id": "phone", "apps": [{"name": "mail"}]}`.
/// A declared `default` device replaces the built-in one.
public struct Fixtures: Hashable, Sendable {
  public let devices: [DeviceImage]
  /// The configuration the devices were checked against: the engine's they are loaded into.
  let configuration: EngineConfiguration

  /// The most devices a fixture file declares: bounded by `maxDevices` as well.
  static let maxDevices = 100_000

  /// Reads a fixture file's bytes and checks that every device can be created as the engine
  /// is configured; the error names the place of the first problem, such as
  /// `devices[1].apps[0].name`.
  public init(json: [UInt8], configuration: EngineConfiguration) throws(FileError) {
    let devices = try FileError.reading(json) { fields in
      fields.array("devices", maxCount: Self.maxDevices, required: true) { device in
        DeviceDocument.image(&device, defaults: configuration.deviceDefaults)
      } ?? []
    }
    let engine = Engine(configuration: configuration, now: .zero)
    var ids: Set<String> = []
    for (index, device) in devices.enumerated() {
      guard ids.insert(device.id).inserted else {
        throw FileError(
          place: "devices[\(index)].id", message: "names another device of the file")
      }
      do {
        _ = try engine.restore(device, now: .zero)
      } catch .invalid(let issues) where !issues.isEmpty {
        throw FileError(
          place: "devices[\(index)].\(issues[0].field)", message: issues[0].message)
      } catch {
        throw FileError(place: "devices[\(index)]", message: Problem(error).detail)
      }
    }
    self.devices = devices
    self.configuration = configuration
  }
}

/// What is wrong with a file the configuration names (fixtures, profiles), and where.
public struct FileError: Error, Hashable, CustomStringConvertible {
  /// Where in the file, such as `devices[1].apps[0].name`; empty for the whole file.
  public var place: String
  public var message: String

  init(place: String, message: String) {
    self.place = place
    self.message = message
  }

  public var description: String { place.isEmpty ? message : "\(place) \(message)" }

  /// What `read` makes of a file's JSON object, read as strictly as a request's body (no
  /// member it does not ask for): the first problem is thrown, named by its place.
  static func reading<Value>(_ json: [UInt8], _ read: (inout Fields) -> Value)
    throws(FileError) -> Value
  {
    let document: JSONDocument
    do {
      document = try JSONDocument.parse(json)
    } catch {
      throw FileError(place: "", message: "is not JSON: \(error.description)")
    }
    var fields = Fields(document)
    let value = read(&fields)
    fields.checkUnknownMembers()
    if let first = fields.issues.listed.first {
      throw FileError(place: first.field, message: first.message)
    }
    return value
  }
}
