import JSONCore
import LifecycleEngine

/// One member of a snapshot's form of `Root` (a device's image, an app's, a process, ...): its
/// name, how it is written from a value and how it is read back into one. A form is a list of
/// members, written and read in its order (`SnapshotFormat`), so that a field of the state is
/// one line of one list.
///
/// A member with no value (nil) is left out of the document; one a document leaves out keeps
/// the value `Root` starts with, its one declaration of defaults.
struct SnapshotMember<Root>: Sendable {
  let name: StaticString
  /// A document must have it.
  let isRequired: Bool
  let write: @Sendable (inout JSONWriter, Root) -> Void
  let read: @Sendable (inout Fields, inout Root, SnapshotReading) -> Void

  init(
    _ name: StaticString, required: Bool = false,
    write: @escaping @Sendable (inout JSONWriter, Root) -> Void,
    read: @escaping @Sendable (inout Fields, inout Root, SnapshotReading) -> Void
  ) {
    self.name = name
    isRequired = required
    self.write = write
    self.read = read
  }
}

/// What reading a member may depend on besides its fields.
struct SnapshotReading: Sendable {
  /// The document's format version.
  var version: Int
  /// The app whose state is read (a waiting callback names it).
  var app: AppName = "-"
}

extension SnapshotMember {
  /// A field of `Root` a member is written from and read into.
  typealias Field<Value> = WritableKeyPath<Root, Value> & Sendable

  /// A member whose value `read` reads from the fields (nil: absent or refused, and the field
  /// keeps its value) and `write` writes after its key.
  static func value<Value>(
    _ name: StaticString, _ field: Field<Value>, required: Bool = false,
    write: @escaping @Sendable (inout JSONWriter, Value) -> Void,
    read: @escaping @Sendable (inout Fields, StaticString, Bool) -> Value?
  ) -> Self {
    Self(
      name, required: required,
      write: { w, root in
        w.key(name)
        write(&w, root[keyPath: field])
      },
      read: { fields, root, _ in
        if let value = read(&fields, name, required) { root[keyPath: field] = value }
      })
  }

  /// An optional value, left out when it has none.
  static func optional<Value>(
    _ name: StaticString, _ field: Field<Value?>,
    write: @escaping @Sendable (inout JSONWriter, Value) -> Void,
    read: @escaping @Sendable (inout Fields, StaticString) -> Value?
  ) -> Self {
    Self(
      name,
      write: { w, root in
        guard let value = root[keyPath: field] else { return }
        w.key(name)
        write(&w, value)
      },
      read: { fields, root, _ in root[keyPath: field] = read(&fields, name) })
  }

  static func integer(
    _ name: StaticString, _ field: Field<Int>, in range: ClosedRange<Int>,
    required: Bool = false
  ) -> Self {
    value(
      name, field, required: required, write: { $0.integer($1) },
      read: { $0.integer($1, in: range, required: $2) })
  }

  static func bool(_ name: StaticString, _ field: Field<Bool>) -> Self {
    value(name, field, write: { $0.bool($1) }, read: { $0.bool($1, required: $2) })
  }

  /// A device time, in seconds.
  static func time(
    _ name: StaticString, _ field: Field<Instant>, required: Bool = false
  ) -> Self {
    value(
      name, field, required: required, write: { $0.seconds(milliseconds: $1.milliseconds) },
      read: { $0.instant($1, required: $2) })
  }

  static func time(_ name: StaticString, _ field: Field<Instant?>) -> Self {
    optional(
      name, field, write: { $0.seconds(milliseconds: $1.milliseconds) },
      read: { $0.instant($1) })
  }

  /// One of an enumeration's cases, by name.
  static func choice<Value: NamedCases>(
    _ name: StaticString, _ field: Field<Value>, required: Bool = false
  ) -> Self {
    value(
      name, field, required: required, write: { $0.enumCase($1) },
      read: { $0.choice($1, required: $2) })
  }

  /// A set of an enumeration's cases, in the order the type declares them.
  static func choices<Value: NamedCases & Hashable>(
    _ name: StaticString, _ field: Field<Set<Value>>
  ) -> Self {
    value(
      name, field,
      write: { w, values in w.array(Value.allCases.filter(values.contains)) { $0.enumCase($1) } },
      read: { fields, name, _ in fields.choices(name, Value.self) })
  }

  static func appName(_ name: StaticString, _ field: Field<AppName?>) -> Self {
    optional(
      name, field, write: { w, app in app.withUTF8 { w.unescaped(utf8: $0) } },
      read: { $0.appName($1) })
  }

  /// A scene session's id, or another name.
  static func name(_ name: StaticString, _ field: Field<String?>) -> Self {
    optional(
      name, field, write: { $0.string($1) },
      read: { $0.string($1, maxBytes: Validation.maxNameBytes) })
  }

  static func names(
    _ name: StaticString, _ field: Field<[String]>, maxCount: Int
  ) -> Self {
    value(
      name, field, write: { w, names in w.array(names) { $0.string($1) } },
      read: { fields, name, _ in
        fields.strings(name, maxCount: maxCount, maxBytes: Validation.maxNameBytes)
      })
  }

  /// Restoration data: any JSON value, kept as its text.
  static func json(_ name: StaticString, _ field: Field<String?>) -> Self {
    optional(
      name, field,
      write: { w, text in
        var text = text
        text.withUTF8 { w.encoded(utf8: $0) }
      }, read: { $0.encodedValue($1) })
  }

  /// An array of objects, each written by `write` and read by `read`.
  static func array<Element>(
    _ name: StaticString, _ field: Field<[Element]>, maxCount: Int,
    required: Bool = false, write: @escaping @Sendable (inout JSONWriter, Element) -> Void,
    read: @escaping @Sendable (inout Fields, SnapshotReading) -> Element?
  ) -> Self {
    Self(
      name, required: required,
      write: { w, root in
        w.key(name)
        w.array(root[keyPath: field], write)
      },
      read: { fields, root, reading in
        let elements = fields.array(name, maxCount: maxCount, required: required) {
          read(&$0, reading)
        }
        if let elements {
          root[keyPath: field] = elements
        }
      })
  }

  /// An object of the members `form` lists, read into the value the field has.
  static func object<Value>(
    _ name: StaticString, _ field: Field<Value>,
    _ form: [SnapshotMember<Value>]
  ) -> Self {
    Self(
      name,
      write: { w, root in
        w.key(name)
        w.object(form, root[keyPath: field])
      },
      read: { fields, root, reading in
        _ = fields.nested(name) { $0.read(form, into: &root[keyPath: field], reading) }
      })
  }
}

extension JSONWriter {
  /// The members `form` lists, of `root`, as an object.
  mutating func object<Root>(_ form: [SnapshotMember<Root>], _ root: Root) {
    object { w in w.members(form, root) }
  }

  /// The members `form` lists, of `root`, in the object being written.
  mutating func members<Root>(_ form: [SnapshotMember<Root>], _ root: Root) {
    for member in form { member.write(&self, root) }
  }
}

extension Fields {
  /// What `read` makes of the object `key`, its issues merged into these fields'; nil if
  /// there is no such member.
  mutating func nested<Value>(_ key: StaticString, _ read: (inout Fields) -> Value?) -> Value? {
    guard var details = object(key) else { return nil }
    let value = read(&details)
    merge(details)
    return value
  }

  /// Reads the members `form` lists into `root`.
  mutating func read<Root>(
    _ form: [SnapshotMember<Root>], into root: inout Root, _ reading: SnapshotReading
  ) {
    for member in form { member.read(&self, &root, reading) }
  }
}
