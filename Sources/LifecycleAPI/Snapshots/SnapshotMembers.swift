import JSONCore
import LifecycleEngine

/// One of the snapshot document's forms: a state (a device's configuration or status, an app's
/// record, a process, ...) as members, each a field with its name, its type and its rule,
/// visited in order by the writer (`JSONWriter`), the reader (`SnapshotReader`), or a test
/// that lists them. A field is one line of its form, which writing and reading both follow.
protocol SnapshotForm {
  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable)
}

/// What visits a form's members. Each call names a member and lends its field, which a writer
/// writes and a reader sets from the document: a member with no value (nil) is left out of
/// the document, and one the document leaves out keeps the value its field starts with (the
/// state's one declaration of defaults). A configuration's members (`ConfigurationForm`) are
/// visited the same way, each kind of member read and written as below.
protocol SnapshotMembers: ConfigurationMembers, ~Copyable {
  /// A member whose value `write` writes after its key and `read` reads (nil: absent or
  /// refused); `required` members must be in the document.
  mutating func value<Value>(
    _ name: StaticString, _ value: inout Value, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?)

  /// A member left out when it has no value; `required` ones must be in a snapshot all the
  /// same (a declaration may leave them out).
  mutating func optional<Value>(
    _ name: StaticString, _ value: inout Value?, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?)

  /// An object whose members are `value`'s form.
  mutating func object<Value: SnapshotForm>(
    _ name: StaticString, _ value: inout Value, required: Bool)
}

/// A configuration (`ConfigurationForm`) as a snapshot form: its members are the configuration's.
struct ConfigurationObject<Configuration: ConfigurationForm>: SnapshotForm {
  var configuration: Configuration

  init(_ configuration: Configuration) {
    self.configuration = configuration
  }

  mutating func visitMembers(_ members: inout some SnapshotMembers & ~Copyable) {
    configuration.visitConfiguration(&members)
  }
}

/// What reading a member may depend on besides its fields.
struct SnapshotReading {
  /// The document's format version.
  var version: Int
  /// The app whose state is read (a waiting callback names it).
  var app: AppName = "-"
  /// A declaration (a request's body, a fixture's device) rather than a snapshot: what a
  /// snapshot must have may be left out, to take the configured default.
  var isDeclaration = false
}

/// Reads a form's members from a document's fields: a snapshot's, or a declaration's.
struct SnapshotReader: SnapshotMembers {
  var fields: Fields
  let reading: SnapshotReading

  mutating func value<Value>(
    _ name: StaticString, _ value: inout Value, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?
  ) {
    if let read = read(&fields, name, required && !reading.isDeclaration, reading) {
      value = read
    }
  }

  mutating func optional<Value>(
    _ name: StaticString, _ value: inout Value?, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?
  ) {
    value = read(&fields, name, required && !reading.isDeclaration, reading)
  }

  mutating func object<Value: SnapshotForm>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {
    guard let details = fields.object(name, required: required && !reading.isDeclaration) else {
      return
    }
    var reader = SnapshotReader(fields: details, reading: reading)
    value.visitMembers(&reader)
    fields.merge(reader.fields)
  }
}

extension Fields {
  /// Reads `form`'s members from these fields into it.
  mutating func read(_ form: inout some SnapshotForm, _ reading: SnapshotReading) {
    var reader = SnapshotReader(fields: self, reading: reading)
    form.visitMembers(&reader)
    self = reader.fields
  }

  /// Reads `configuration`'s members from these fields into it.
  mutating func read(_ configuration: inout some ConfigurationForm, _ reading: SnapshotReading) {
    var form = ConfigurationObject(configuration)
    read(&form, reading)
    configuration = form.configuration
  }

  /// What `read` makes of the object `key`, its issues merged into these fields'; nil if
  /// there is no such member.
  mutating func nested<Value>(_ key: StaticString, _ read: (inout Fields) -> Value?) -> Value? {
    guard var details = object(key) else { return nil }
    let value = read(&details)
    merge(details)
    return value
  }
}

/// Writes a form's members into the object a `JSONWriter` is writing (`JSONWriter.members(of:)`).
/// The writer is lent to it for the visit: the members' protocols are the engine's too, whose
/// witnesses a public type such as `JSONWriter` would have to make public.
struct MemberWriter: SnapshotMembers, ~Copyable {
  var writer: JSONWriter

  mutating func value<Value>(
    _ name: StaticString, _ value: inout Value, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?
  ) {
    writer.key(name)
    write(&writer, value)
  }

  mutating func optional<Value>(
    _ name: StaticString, _ value: inout Value?, required: Bool,
    write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, Bool, SnapshotReading) -> Value?
  ) {
    guard let value else { return }
    writer.key(name)
    write(&writer, value)
  }

  mutating func object<Value: SnapshotForm>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {
    writer.key(name)
    writer.object { $0.members(of: value) }
  }
}

extension JSONWriter {
  /// `form`'s members, in the object being written.
  mutating func members(of form: some SnapshotForm) {
    var form = form
    var members = MemberWriter(writer: self)
    form.visitMembers(&members)
    self = members.writer
  }

  /// `configuration`'s members, in the object being written.
  mutating func members(of configuration: some ConfigurationForm) {
    members(of: ConfigurationObject(configuration))
  }

  /// The member `name`, an object of `form`'s members.
  mutating func object(_ name: StaticString, _ form: some SnapshotForm) {
    key(name)
    object { $0.members(of: form) }
  }
}

/// The members' types, each its JSON and its rule.
extension SnapshotMembers where Self: ~Copyable {
  /// An object whose members are `value`'s form, which a document may leave out.
  mutating func object<Value: SnapshotForm>(_ name: StaticString, _ value: inout Value) {
    object(name, &value, required: false)
  }

  /// A member left out when it has no value.
  mutating func optional<Value>(
    _ name: StaticString, _ value: inout Value?, write: (inout JSONWriter, Value) -> Void,
    read: (inout Fields, StaticString, SnapshotReading) -> Value?
  ) {
    optional(
      name, &value, required: false, write: write,
      read: { fields, name, _, reading in read(&fields, name, reading) })
  }

  mutating func integer(
    _ name: StaticString, _ value: inout Int, in range: ClosedRange<Int>, required: Bool
  ) {
    self.value(
      name, &value, required: required, write: { $0.integer($1) },
      read: { fields, name, required, _ in fields.integer(name, in: range, required: required) })
  }

  /// A version, an app's or the OS's (`Validation.isVersion`).
  mutating func version(_ name: StaticString, _ value: inout String, required: Bool = false) {
    self.value(
      name, &value, required: required, write: { $0.string($1) },
      read: { fields, name, required, _ in fields.checkedVersion(name, required: required) })
  }

  /// A name from the device profiles (a model's, a release's, or a report's for them), which
  /// snapshots before the profiles do not have: they read as the defaults'
  /// (`SnapshotFormat.lastVersionWithoutProfiles`).
  mutating func profileName(_ name: StaticString, _ value: inout String, required: Bool) {
    self.value(
      name, &value, required: required, write: { $0.string($1) },
      read: { fields, name, required, reading in
        fields.string(
          name, required: required && reading.version > SnapshotFormat.lastVersionWithoutProfiles,
          maxBytes: Validation.maxNameBytes)
      })
  }

  mutating func bool(_ name: StaticString, _ value: inout Bool, required: Bool) {
    self.value(
      name, &value, required: required, write: { $0.bool($1) },
      read: { fields, name, required, _ in fields.bool(name, required: required) })
  }

  /// A device time, in seconds.
  mutating func time(_ name: StaticString, _ value: inout Instant, required: Bool = false) {
    self.value(
      name, &value, required: required, write: { $0.seconds(milliseconds: $1.milliseconds) },
      read: { fields, name, required, _ in fields.instant(name, required: required) })
  }

  mutating func time(_ name: StaticString, _ value: inout Instant?) {
    optional(
      name, &value, write: { $0.seconds(milliseconds: $1.milliseconds) },
      read: { fields, name, _ in fields.instant(name) })
  }

  /// One of an enumeration's cases, by its prepared name.
  mutating func choice<Value: NamedCases>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {
    self.value(
      name, &value, required: required, write: { $0.enumCase($1) },
      read: { fields, name, required, _ in fields.choice(name, required: required) })
  }

  mutating func choice<Value: NamedCases>(_ name: StaticString, _ value: inout Value) {
    choice(name, &value, required: false)
  }

  /// One of an enumeration's cases, by its raw value.
  mutating func choice<Value: RawRepresentable<String> & CaseIterable>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {
    self.value(
      name, &value, required: required, write: { $0.string($1.rawValue) },
      read: { fields, name, required, _ in fields.choice(name, Value.self, required: required) })
  }

  /// A set of an enumeration's cases, in the order the type declares them.
  mutating func choices<Value: RawRepresentable<String> & CaseIterable & Hashable>(
    _ name: StaticString, _ value: inout Set<Value>
  ) {
    self.value(
      name, &value, required: false,
      write: { w, values in
        w.array(Value.allCases.filter(values.contains)) { $0.string($1.rawValue) }
      },
      read: { fields, name, _, _ in fields.choices(name, Value.self) })
  }

  /// A whole number in `range`, left out when it has none.
  mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>) {
    optional(
      name, &value, write: { $0.integer($1) },
      read: { fields, name, _ in fields.integer(name, in: range) })
  }

  /// A duration, as a number of seconds kept to the millisecond.
  mutating func seconds(
    _ name: StaticString, _ value: inout Duration, in range: ClosedRange<Int>
  ) {
    self.value(
      name, &value, required: false, write: { $0.seconds(milliseconds: $1.wholeMilliseconds) },
      read: { fields, name, _, _ in fields.seconds(name, in: range) })
  }

  mutating func seconds(
    _ name: StaticString, _ value: inout Duration?, in range: ClosedRange<Int>
  ) {
    optional(
      name, &value, write: { $0.seconds(milliseconds: $1.wholeMilliseconds) },
      read: { fields, name, _ in fields.seconds(name, in: range) })
  }

  /// Identifiers, each no longer than one may be; the engine's check (`ConfigurationCheck`)
  /// names an empty one.
  mutating func identifiers(_ name: StaticString, _ value: inout [String], maxCount: Int) {
    self.value(
      name, &value, required: false, write: { w, names in w.array(names) { $0.string($1) } },
      read: { fields, name, _, _ in
        fields.strings(name, maxCount: maxCount, maxBytes: Validation.maxIdentifierBytes)
      })
  }

  /// Labels, as an object of strings, always written (`{}` for none).
  mutating func labels(_ name: StaticString, _ value: inout [String: String]) {
    self.value(
      name, &value, required: false, write: { $0.labels($1) },
      read: { fields, name, _, _ in
        fields.stringMap(name, maxCount: Validation.maxLabels, maxBytes: Validation.maxNameBytes)
      })
  }

  /// An object whose members are a configuration's.
  mutating func object<Value: ConfigurationForm>(_ name: StaticString, _ value: inout Value) {
    var form = ConfigurationObject(value)
    object(name, &form, required: false)
    value = form.configuration
  }

  mutating func appName(_ name: StaticString, _ value: inout AppName?) {
    optional(
      name, &value, write: { w, app in app.withUTF8 { w.unescaped(utf8: $0) } },
      read: { fields, name, _ in fields.appName(name) })
  }

  /// A scene session's id, or another name.
  mutating func name(_ name: StaticString, _ value: inout String?) {
    optional(
      name, &value, write: { $0.string($1) },
      read: { fields, name, _ in fields.string(name, maxBytes: Validation.maxNameBytes) })
  }

  mutating func names(_ name: StaticString, _ value: inout [String], maxCount: Int) {
    self.value(
      name, &value, required: false, write: { w, names in w.array(names) { $0.string($1) } },
      read: { fields, name, _, _ in
        fields.strings(name, maxCount: maxCount, maxBytes: Validation.maxNameBytes)
      })
  }

  /// Restoration data: any JSON value, kept as its text.
  mutating func json(_ name: StaticString, _ value: inout String?) {
    optional(
      name, &value,
      write: { w, text in
        var text = text
        text.withUTF8 { w.encoded(utf8: $0) }
      }, read: { fields, name, _ in fields.encodedValue(name) })
  }

  /// An array of objects, each written by `write` and read by `read`.
  mutating func array<Element>(
    _ name: StaticString, _ value: inout [Element], maxCount: Int, required: Bool = false,
    write: (inout JSONWriter, Element) -> Void,
    read: (inout Fields, SnapshotReading) -> Element?
  ) {
    self.value(
      name, &value, required: required, write: { w, elements in w.array(elements, write) },
      read: { fields, name, required, reading in
        fields.array(name, maxCount: maxCount, required: required) { read(&$0, reading) }
      })
  }
}
