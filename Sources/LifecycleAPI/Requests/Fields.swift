import JSONCore
import LifecycleEngine

/// Reads the members of one request object: every member must be known and well-typed, and
/// every problem is collected, named by its field path (`behavior.didEnterBackgroundSeconds`,
/// `[2].type`), so that one 422 lists them all.
struct Fields {
  private let document: JSONDocument
  /// The object's index in the document; nil if the value there is not an object.
  private var object: Int?
  private var location: Location
  /// The members a reader asked for: in an object of up to 64 members, a bit each by place
  /// (no allocation); in a larger one (only an object with unknown members is), their keys'
  /// indices in the document.
  private var asked: UInt64 = 0
  private var askedKeys: [Int] = []
  private(set) var issues = ValidationIssues()
  /// A member whose value is `null` reads as absent (documents such as snapshots write every
  /// member, null when it has no value); otherwise `null` is a wrong type.
  var nullIsAbsent = false

  /// Where the object is in the body; its path is spelled only when a problem names it.
  enum Location {
    case body
    case element(Int)
    case member(path: String)

    var path: String {
      switch self {
      case .body: ""
      case .element(let index): "[\(index)]"
      case .member(let path): path
      }
    }
  }

  /// The object at `index` of `document` (the body itself unless given).
  init(_ document: JSONDocument, at index: Int = JSONDocument.root, location: Location = .body) {
    self.init(objectsOf: document)
    read(index, location: location)
  }

  /// A reader of `document`'s objects one after another (`read(_:location:)`), on none yet:
  /// a list's objects are read in turn with no copy of the document for each.
  init(objectsOf document: JSONDocument) {
    self.document = document
    location = .body
  }

  /// Turns to the object at `index`, as a reader made for it would read it.
  mutating func read(_ index: Int, location: Location) {
    self.location = location
    (asked, nullIsAbsent) = (0, false)
    if !askedKeys.isEmpty { askedKeys.removeAll(keepingCapacity: true) }
    if !issues.isEmpty { issues = ValidationIssues() }
    if document[index].kind == .object {
      object = index
    } else {
      object = nil
      issues.append(location.path.isEmpty ? "body" : location.path, "must be a JSON object")
    }
  }

  private func name(_ key: some CustomStringConvertible) -> String {
    let path = location.path
    return path.isEmpty ? key.description : "\(path).\(key)"
  }

  /// Whether the object has too many members to keep `asked` as bits.
  private var isLarge: Bool { object.map { document[$0].count > 64 } ?? false }

  /// The index of the value of member `key`, found by comparing key bytes (by hash in a large
  /// object: `JSONDocument.key(_:of:)`).
  mutating func member(_ key: StaticString, required: Bool) -> Int? {
    if let keyIndex = self.key(key) {
      if nullIsAbsent, document[keyIndex + 1].kind == .null { return nil }
      return keyIndex + 1
    }
    if required { issues.append(name(key), "is required") }
    return nil
  }

  /// The index of member `key`'s key, noted as asked for.
  private mutating func key(_ key: StaticString) -> Int? {
    guard let object else { return nil }
    if isLarge {
      guard let keyIndex = document.key(key, of: object) else { return nil }
      if !askedKeys.contains(keyIndex) { askedKeys.append(keyIndex) }
      return keyIndex
    }
    guard let (ordinal, keyIndex) = document.member(key, of: object) else { return nil }
    asked |= 1 << ordinal
    return keyIndex
  }

  /// Whether the object has members no reader asked for yet: with none, a reader of optional
  /// members can stop before looking any up.
  var hasUnaskedMembers: Bool {
    guard let object else { return false }
    return Int(document[object].count) > asked.nonzeroBitCount + askedKeys.count
  }

  /// Whether the object has member `key` (not null, where null is absent).
  mutating func has(_ key: StaticString) -> Bool {
    member(key, required: false) != nil
  }

  mutating func string(_ key: StaticString, required: Bool = false, maxBytes: Int)
    -> String?
  {
    guard let index = member(key, required: required) else { return nil }
    let value = document[index]
    let text = value.kind == .string ? document.string(at: index) : nil
    guard let text, text.utf8.count <= maxBytes else {
      issues.append(name(key), "must be a string of at most \(maxBytes) bytes")
      return nil
    }
    return text
  }

  /// A string the engine checks against `rule`, read only up to a byte longer than
  /// `maxBytes` (a longer one costs nothing more): the engine's check then names what is
  /// wrong with one that is too long, and one that is no string, or longer still, is told the
  /// same rule here.
  mutating func checkedString(
    _ key: StaticString, required: Bool = false, maxBytes: Int, rule: String
  ) -> String? {
    guard let index = member(key, required: required) else { return nil }
    let text = document[index].kind == .string ? document.string(at: index) : nil
    guard let text, text.utf8.count <= maxBytes + 1 else {
      issues.append(name(key), rule)
      return nil
    }
    return text
  }

  /// An identifier (a task's, a session's, an entry's), which the engine checks
  /// (`Validation.isIdentifier`).
  mutating func identifier(_ key: StaticString, required: Bool = false) -> String? {
    checkedString(
      key, required: required, maxBytes: Validation.maxIdentifierBytes,
      rule: Validation.identifierRule)
  }

  mutating func integer(_ key: StaticString, in range: ClosedRange<Int>, required: Bool = false)
    -> Int?
  {
    guard let index = member(key, required: required) else { return nil }
    let value = document[index]
    // JSON has one number type: 154.0 is the integer 154 (as JSON Schema's integer says).
    let integer: Int? =
      switch value.kind {
      case .integer: Int(truncatingIfNeeded: value.number)
      case .double:
        Double(bitPattern: value.number).rounded() == Double(bitPattern: value.number)
          && abs(Double(bitPattern: value.number)) < 9e15
          ? Int(Double(bitPattern: value.number)) : nil
      default: nil
      }
    guard let number = integer, range.contains(number) else {
      issues.append(name(key), Validation.integerRule(range))
      return nil
    }
    return number
  }

  /// A number of seconds from 0 to `max`, kept to the millisecond.
  mutating func seconds(_ key: StaticString, max: Int, required: Bool = false) -> Duration? {
    seconds(key, in: 0...max, required: required)
  }

  /// A number of seconds in `range`, kept to the millisecond.
  mutating func seconds(_ key: StaticString, in range: ClosedRange<Int>, required: Bool = false)
    -> Duration?
  {
    guard let index = member(key, required: required) else { return nil }
    guard let seconds = seconds(at: index, max: range.upperBound),
      seconds >= .seconds(range.lowerBound)
    else {
      issues.append(name(key), Validation.secondsRule(range))
      return nil
    }
    return seconds
  }

  /// An array of numbers of seconds from 0 to `max`, each as `seconds` reads one.
  mutating func secondsArray(_ key: StaticString, maxCount: Int, max: Int) -> [Duration]? {
    guard let index = member(key, required: false) else { return nil }
    let isArray = document[index].kind == .array
    let elements = isArray ? Array(document.children(of: index)) : []
    let values = elements.compactMap { seconds(at: $0, max: max) }
    guard isArray, values.count == elements.count, values.count <= maxCount else {
      issues.append(
        name(key), "must be an array of at most \(maxCount) numbers from 0.0 to \(Double(max))")
      return nil
    }
    return values
  }

  /// The number at `index` as seconds kept to the millisecond, if it is one from 0 to `max`.
  private func seconds(at index: Int, max: Int) -> Duration? {
    let value = document[index]
    let number: Double? =
      switch value.kind {
      case .integer: Double(Int(truncatingIfNeeded: value.number))
      case .double: Double(bitPattern: value.number)
      default: nil
      }
    guard let number, (0...Double(max)).contains(number) else { return nil }
    return .milliseconds(Int64((number * 1000).rounded()))
  }

  mutating func bool(_ key: StaticString, required: Bool = false) -> Bool? {
    guard let index = member(key, required: required) else { return nil }
    switch document[index].kind {
    case .true: return true
    case .false: return false
    default:
      issues.append(name(key), "must be true or false")
      return nil
    }
  }

  /// One of the raw values of `T`.
  mutating func choice<T: NamedCases>(
    _ key: StaticString, _: T.Type = T.self, required: Bool = false
  ) -> T? {
    guard let index = member(key, required: required) else { return nil }
    guard let choice = document.choice(at: index, T.self) else {
      issues.append(name(key), Self.mustBeOne(of: T.self))
      return nil
    }
    return choice
  }

  /// Any JSON value but `null`, as compact text; nil for `null`, which is no value (restoration
  /// data that is not there).
  mutating func encodedValue(_ key: StaticString, required: Bool = false) -> String? {
    member(key, required: required).flatMap(encodedValue(at:))
  }

  /// Member `name`, required: nil if it is not there, `.some(nil)` if it is `null`.
  mutating func restorationData(_ name: StaticString) -> String?? {
    member(name, required: true).map(encodedValue(at:))
  }

  /// A push's payload, a JSON object with an `aps` object, as compact text: `.some(nil)`
  /// without one, nil if it is malformed. One that `wakesApp` is a background notification,
  /// whose `aps` carries `content-available: 1` ("Pushing background updates to your App").
  mutating func payload(_ key: StaticString, wakesApp: Bool) -> String?? {
    guard let index = member(key, required: false) else { return .some(nil) }
    var payload = Fields(document, at: index, location: .member(path: name(key)))
    guard var aps = payload.object("aps", required: true), aps.issues.isEmpty,
      payload.issues.isEmpty
    else {
      issues.append(name(key), "must be a JSON object with an aps object, as APNs delivers it")
      return nil
    }
    if wakesApp, aps.integer("content-available", in: 0...1) != 1 {
      issues.append(
        name("\(key).aps.content-available"),
        "must be 1: only a background notification wakes the app")
      return nil
    }
    return .some(encodedValue(at: index))
  }

  /// A background `URLSession`'s identifier: `.some(nil)` without one, nil if it is not a
  /// string (the engine checks its length).
  mutating func sessionIdentifier(_ key: StaticString) -> String?? {
    guard has(key) else { return .some(nil) }
    return identifier(key).map { .some($0) }
  }

  /// A `BGTaskScheduler` task identifier; required (the engine checks its length).
  mutating func taskIdentifier(_ key: StaticString) -> String? {
    identifier(key, required: true)
  }

  /// A time on the device's clock: `.some(nil)` without one, nil if it is malformed.
  mutating func deviceTime(_ key: StaticString) -> Instant?? {
    guard has(key) else { return .some(nil) }
    return seconds(key, max: Validation.maxAdvanceSeconds).map { .some(.zero + $0) }
  }

  private func encodedValue(at index: Int) -> String? {
    guard document[index].kind != .null else { return nil }
    return String(decoding: JSONText(document.json(at: index)).bytes, as: UTF8.self)
  }

  mutating func object(_ key: StaticString, required: Bool = false) -> Fields? {
    member(key, required: required).map {
      var fields = Fields(document, at: $0, location: .member(path: name(key)))
      fields.nullIsAbsent = nullIsAbsent
      return fields
    }
  }

  /// An array of at most `maxCount` objects, each read by `read` from its fields.
  mutating func array<Element>(
    _ key: StaticString, maxCount: Int, required: Bool = false,
    _ read: (inout Fields) -> Element?
  ) -> [Element]? {
    guard let index = member(key, required: required) else { return nil }
    guard document[index].kind == .array, document[index].count <= maxCount else {
      issues.append(name(key), "must be an array of at most \(maxCount) objects")
      return nil
    }
    var elements: [Element] = []
    for (position, element) in document.children(of: index).enumerated() {
      var fields = Fields(
        document, at: element, location: .member(path: "\(name(key))[\(position)]"))
      fields.nullIsAbsent = nullIsAbsent
      if let value = read(&fields) { elements.append(value) }
      merge(fields)
    }
    return elements
  }

  /// An object whose members are strings, such as a device's `labels`: at most `maxCount`,
  /// each key and value of at most `maxBytes` bytes (the engine checks what they may be).
  mutating func stringMap(_ key: StaticString, maxCount: Int, maxBytes: Int) -> [String: String]? {
    guard let index = member(key, required: false) else { return nil }
    let rule =
      "must be an object of at most \(maxCount) members, each a string of at most \(maxBytes) bytes"
    guard document[index].kind == .object, document[index].count <= maxCount else {
      issues.append(name(key), rule)
      return nil
    }
    var map: [String: String] = [:]
    for keyIndex in document.children(of: index) {
      let name = document.string(at: keyIndex)
      let value = keyIndex + 1
      guard document[value].kind == .string, name.utf8.count <= maxBytes,
        case let text = document.string(at: value), text.utf8.count <= maxBytes
      else {
        issues.append(self.name(key), rule)
        return nil
      }
      map[name] = text
    }
    return map
  }

  /// An array of at most `maxCount` strings of at most `maxBytes` bytes each.
  mutating func strings(_ key: StaticString, maxCount: Int, maxBytes: Int) -> [String]? {
    guard let index = member(key, required: false) else { return nil }
    let isArray = document[index].kind == .array
    let elements = isArray ? Array(document.children(of: index)) : []
    let texts = elements.compactMap {
      document[$0].kind == .string ? document.string(at: $0) : nil
    }
    guard isArray, texts.count == elements.count, texts.count <= maxCount,
      texts.allSatisfy({ $0.utf8.count <= maxBytes })
    else {
      issues.append(
        name(key), "must be an array of at most \(maxCount) strings of at most \(maxBytes) bytes")
      return nil
    }
    return texts
  }

  /// Takes the issues of a nested object once it is read, its unknown members among them.
  mutating func merge(_ nested: consuming Fields) {
    nested.checkUnknownMembers()
    issues.append(contentsOf: nested.issues)
  }

  /// Rejects member `key` if it is there.
  mutating func refuse(_ key: StaticString, _ message: String) {
    if member(key, required: false) != nil { reject(key, message) }
  }

  mutating func reject(_ key: StaticString, _ message: String) {
    issues.append(name(key), message)
  }

  /// Records every member no reader asked for.
  mutating func checkUnknownMembers() {
    guard let object, hasUnaskedMembers else { return }  // nearly always: every one was asked
    // A large object's asked keys, sorted, are met in turn: keys come in document order.
    var askedKeys = askedKeys.sorted()[...]
    for (ordinal, key) in document.children(of: object).enumerated() {
      if askedKeys.first == key {
        askedKeys.removeFirst()
      } else if asked & 1 << ordinal == 0 {
        // Spelling 50,000 names that will not be listed would hold the loop for milliseconds.
        let field = issues.isFull ? "" : name(document.string(at: key))
        issues.append(field, "is not a known field")
      }
    }
  }

  /// The problem to answer if any member was bad or unknown.
  mutating func problem() -> Problem? {
    checkUnknownMembers()
    return Fields.problem(issues)
  }

  /// The longest field name a 422 repeats: one key of a megabyte still gets a short answer.
  static let maxFieldBytes = 128

  static func problem(_ issues: ValidationIssues) -> Problem? {
    guard let first = issues.listed.first else { return nil }
    let omitted = issues.total - issues.listed.count
    return Problem(
      kind: .validation,
      detail: "\(shortened(first.field)) \(first.message)"
        + (omitted > 0
          ? " (\(issues.total) issues; the first \(ValidationIssues.maxListed) are listed)" : ""),
      extensions: [
        (
          "validation",
          JSONText { w in
            w.array(issues.listed) { w, issue in
              w.object { w in
                w.member("field", shortened(issue.field))
                w.member("message", issue.message)
              }
            }
          }
        )
      ])
  }

  /// `field` cut to at most `maxFieldBytes` of UTF-8 (whole characters), marked with `…`.
  private static func shortened(_ field: String) -> String {
    guard field.utf8.count > maxFieldBytes else { return field }
    var kept = 0
    let prefix = field.unicodeScalars.prefix { scalar in
      kept += scalar.utf8.count
      return kept <= maxFieldBytes - 3
    }
    return String(String.UnicodeScalarView(prefix)) + "…"
  }
}

/// An app event's parameters, read from its object as the engine asks for them.
extension Fields: EventParameterReader {
  /// A name's text (a scene's, an app's), which `Validation.isValidName` checks.
  private mutating func nameText(_ key: StaticString, required: Bool) -> String? {
    checkedString(
      key, required: required, maxBytes: Validation.maxNameBytes, rule: Validation.nameRule)
  }

  /// A version's text, which `Validation.isVersion` checks.
  private mutating func versionText(_ key: StaticString, required: Bool) -> String? {
    checkedString(
      key, required: required, maxBytes: Validation.maxVersionBytes, rule: Validation.versionRule)
  }

  /// A version (`Validation.isVersion`), checked here: a snapshot's, which no event validates.
  mutating func checkedVersion(_ key: StaticString, required: Bool = false) -> String? {
    guard let text = versionText(key, required: required) else { return nil }
    guard Validation.isVersion(text) else {
      reject(key, Validation.versionRule)
      return nil
    }
    return text
  }

  mutating func version(_ name: StaticString, required: Bool) -> String?? {
    guard required || has(name) else { return .some(nil) }
    return versionText(name, required: true).map { .some($0) }
  }

  mutating func sceneID(_ name: StaticString, required: Bool) -> String? {
    nameText(name, required: required)
  }

  mutating func taskName(_ name: StaticString) -> String? {
    string(name, maxBytes: Validation.maxTaskNameBytes)
  }

  mutating func taskID(_ name: StaticString, required: Bool) -> Int?? {
    guard required || has(name) else { return .some(nil) }
    return integer(name, in: 1...Int.max, required: true).map { .some($0) }
  }

  mutating func megabytes(_ name: StaticString) -> Int? {
    integer(name, in: Validation.footprints, required: true)
  }

  mutating func flag(_ name: StaticString) -> Bool? {
    bool(name)
  }

  mutating func flag(_ name: StaticString, default defaultValue: Bool) -> Bool {
    bool(name) ?? defaultValue
  }

  mutating func requiredFlag(_ name: StaticString) -> Bool? {
    bool(name, required: true)
  }

  mutating func percent(_ name: StaticString) -> Int? {
    integer(name, in: Validation.batteryLevels)
  }

  mutating func count(_ name: StaticString, in range: ClosedRange<Int>, required: Bool) -> Int? {
    integer(name, in: range, required: required)
  }

  mutating func appName(_ name: StaticString) -> String? {
    nameText(name, required: true)
  }

  mutating func choice<T: EventChoice>(_ key: StaticString, default defaultValue: T) -> T {
    choice(key, T.self, required: false) ?? defaultValue
  }

  /// A choice an event or a configuration takes, by its type's raw values: each is read
  /// rarely, so its types need not be `NamedCases` (whose prepared names read the API's own
  /// choices faster), and no type they read can miss a conformance only a request would find.
  mutating func choice<T: RawRepresentable<String> & CaseIterable>(
    _ key: StaticString, _: T.Type, required: Bool
  ) -> T? {
    guard let index = member(key, required: required) else { return nil }
    guard document[index].kind == .string, let choice = T(rawValue: document.string(at: index))
    else {
      issues.append(name(key), Self.mustBeOne(of: T.self))
      return nil
    }
    return choice
  }

  /// What a choice that names no case of `T` is told.
  private static func mustBeOne<T: RawRepresentable<String> & CaseIterable>(of _: T.Type)
    -> String
  {
    "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))"
  }
}

extension Fields {
  /// An array of names of `T`'s cases, such as `backgroundModes`; repeats count once.
  mutating func choices<T: RawRepresentable<String> & CaseIterable & Hashable>(
    _ key: StaticString, _: T.Type
  ) -> Set<T>? {
    guard let index = member(key, required: false) else { return nil }
    guard document[index].kind == .array else {
      reject(key, "must be an array")
      return nil
    }
    var choices: Set<T> = []
    for element in document.children(of: index) {
      guard document[element].kind == .string,
        let choice = T(rawValue: document.string(at: element))
      else {
        reject(key, "must list only \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        return nil
      }
      choices.insert(choice)
    }
    return choices
  }
}
