import Configuration
import JSONCore

/// A configuration file read for swift-configuration's `FileProvider`: one flat JSON object of
/// keys to strings, numbers, booleans and lists of strings (`null`: not set).
///
/// It parses with the API's strict JSON reader (duplicate keys, bad UTF-8 and trailing bytes
/// are refused), so the service needs no full Foundation, and it converts only where nothing is
/// lost: an integer reads as a number of seconds, an integral number as an integer, and nothing
/// else crosses types (`"port": "80"` and `"devicePasscode": 1` are refused).
struct ConfigurationFileSnapshot: FileConfigSnapshot {
  /// Parsing has no options: the format is fixed.
  struct ParsingOptions: FileParsingOptions {
    static let `default` = ParsingOptions()
  }

  let providerName: String
  /// The file's members, by key.
  let values: [String: JSON]

  init(data: RawSpan, providerName: String, parsingOptions: ParsingOptions) throws {
    self.providerName = providerName
    let bytes = data.withUnsafeBytes { Array($0) }
    guard case .object(let members) = try JSON.parse(bytes) else {
      throw ConfigurationError(key: "config", message: "must hold one JSON object")
    }
    for (key, value) in members {
      guard Setting.named(key) != nil else {
        throw ConfigurationError(key: key, message: "is not a configuration key")
      }
      switch value {
      case .string, .integer, .double, .bool, .null: continue
      case .array(let elements) where elements.allSatisfy({ $0.stringValue != nil }): continue
      default:
        throw ConfigurationError(
          key: key, message: "must be a string, a number, a boolean, a list of strings or null")
      }
    }
    values = Dictionary(members) { first, _ in first }
  }

  func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
    let name = key.components.joined(separator: ".")
    guard let value = values[name], value != .null else {
      return LookupResult(encodedKey: name, value: nil)
    }
    let content: ConfigContent? =
      switch (type, value) {
      case (.string, .string(let text)): .string(text)
      case (.bool, .bool(let flag)): .bool(flag)
      case (.int, .integer(let number)): .int(number)
      case (.int, .double(let number)): Int(exactly: number).map { .int($0) }
      case (.double, .integer(let number)): .double(Double(number))
      case (.double, .double(let number)): .double(number)
      case (.stringArray, .array(let elements)): .stringArray(elements.compactMap(\.stringValue))
      default: nil
      }
    guard let content else {
      throw ConfigurationError(key: name, message: "is not \(type)")
    }
    return LookupResult(encodedKey: name, value: ConfigValue(content, isSecret: false))
  }

  var description: String { "\(providerName)[\(values.count) values]" }
  var debugDescription: String { description }
}

extension JSON {
  /// The text of a string value.
  fileprivate var stringValue: String? {
    if case .string(let text) = self { text } else { nil }
  }
}
