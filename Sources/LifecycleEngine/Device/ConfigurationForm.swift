/// A configuration a client gives the engine (a device's, an app's, an app's behaviour) as its
/// members, each with its name in the API, its kind and its limit: the one declaration of
/// them. The API reads and writes a configuration by visiting its members, and the engine
/// checks one the same way (`issues()`), so a member or a limit is written once. A member a
/// document leaves out keeps the value its field starts with: the type's declared default.
public protocol ConfigurationForm {
  mutating func visitConfiguration(_ members: inout some ConfigurationMembers & ~Copyable)
}

/// What visits a configuration's members: each call names a member, states its rule, and lends
/// its field to be read, written or checked. A `required` member must be in a snapshot; a
/// client's declaration may always leave a member out.
public protocol ConfigurationMembers: ~Copyable {
  /// A whole number in `range`.
  mutating func integer(
    _ name: StaticString, _ value: inout Int, in range: ClosedRange<Int>, required: Bool)

  /// A whole number in `range`, or none.
  mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>)

  mutating func bool(_ name: StaticString, _ value: inout Bool, required: Bool)

  /// A name the device profiles resolve (`DeviceProfiles`): a model's, or a release's version.
  /// The engine checks it against its profiles, which only it knows.
  mutating func profileName(_ name: StaticString, _ value: inout String, required: Bool)

  /// One of an enumeration's cases, by its raw value.
  mutating func choice<Value: RawRepresentable<String> & CaseIterable>(
    _ name: StaticString, _ value: inout Value, required: Bool)

  /// A set of an enumeration's cases, listed in the order the type declares them.
  mutating func choices<Value: RawRepresentable<String> & CaseIterable & Hashable>(
    _ name: StaticString, _ value: inout Set<Value>)

  /// A duration of whole milliseconds, a number of seconds in `range` in the API.
  mutating func seconds(_ name: StaticString, _ value: inout Duration, in range: ClosedRange<Int>)

  /// A duration as `seconds` takes one, or none.
  mutating func seconds(_ name: StaticString, _ value: inout Duration?, in range: ClosedRange<Int>)

  /// Distinct identifiers (`Validation.isIdentifier`), at most `maxCount` of them.
  mutating func identifiers(_ name: StaticString, _ value: inout [String], maxCount: Int)

  /// Labels: at most `Validation.maxLabels`, each key and value a name.
  mutating func labels(_ name: StaticString, _ value: inout [String: String])

  /// An object whose members are `value`'s.
  mutating func object<Value: ConfigurationForm>(_ name: StaticString, _ value: inout Value)

  /// What the next member means, in the contract's words: its schema's description.
  mutating func describe(_ text: String)
}

extension ConfigurationMembers where Self: ~Copyable {
  /// Words are for the contract: a reader, a writer and a check have no use for them.
  public mutating func describe(_ text: String) {}

  /// A whole number in `range` that a snapshot may leave out.
  public mutating func integer(
    _ name: StaticString, _ value: inout Int, in range: ClosedRange<Int>
  ) {
    integer(name, &value, in: range, required: false)
  }

  public mutating func bool(_ name: StaticString, _ value: inout Bool) {
    bool(name, &value, required: false)
  }

  public mutating func choice<Value: RawRepresentable<String> & CaseIterable>(
    _ name: StaticString, _ value: inout Value
  ) {
    choice(name, &value, required: false)
  }
}

extension ConfigurationForm {
  /// What in this configuration breaks its members' rules, each named by its member.
  public func memberIssues() -> ValidationIssues {
    var check = ConfigurationCheck()
    var form = self
    form.visitConfiguration(&check)
    return check.issues
  }
}

/// The engine's check of a configuration's members against their rules, whichever way the
/// configuration came (a request, a snapshot, a Swift caller): it names each member that
/// breaks its rule as the API's reader would.
struct ConfigurationCheck: ConfigurationMembers {
  var issues = ValidationIssues()

  mutating func integer(
    _ name: StaticString, _ value: inout Int, in range: ClosedRange<Int>, required: Bool
  ) {
    issues.check(range.contains(value), "\(name)", Validation.integerRule(range))
  }

  mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>) {
    guard var number = value else { return }
    integer(name, &number, in: range, required: false)
  }

  mutating func bool(_ name: StaticString, _ value: inout Bool, required: Bool) {}

  mutating func profileName(_ name: StaticString, _ value: inout String, required: Bool) {}

  mutating func choice<Value: RawRepresentable<String> & CaseIterable>(
    _ name: StaticString, _ value: inout Value, required: Bool
  ) {}

  mutating func choices<Value: RawRepresentable<String> & CaseIterable & Hashable>(
    _ name: StaticString, _ value: inout Set<Value>
  ) {}

  mutating func seconds(
    _ name: StaticString, _ value: inout Duration, in range: ClosedRange<Int>
  ) {
    let durations = Duration.seconds(range.lowerBound)...Duration.seconds(range.upperBound)
    issues.check(durations.contains(value), "\(name)", Validation.secondsRule(range))
  }

  mutating func seconds(
    _ name: StaticString, _ value: inout Duration?, in range: ClosedRange<Int>
  ) {
    guard var duration = value else { return }
    seconds(name, &duration, in: range)
  }

  mutating func identifiers(_ name: StaticString, _ value: inout [String], maxCount: Int) {
    issues.check(
      value.count <= maxCount && value.allSatisfy(Validation.isIdentifier)
        && Set(value).count == value.count, "\(name)",
      "must list at most \(maxCount) distinct identifiers of 1 to "
        + "\(Validation.maxIdentifierBytes) bytes")
  }

  mutating func labels(_ name: StaticString, _ value: inout [String: String]) {
    issues.check(
      value.count <= Validation.maxLabels, "\(name)",
      "must hold at most \(Validation.maxLabels) labels")
    for (key, label) in value.sorted(by: { $0.key < $1.key })
    where !Validation.isValidName(key) || !Validation.isValidName(label) {
      issues.append(
        "\(name).\(key.prefix(Validation.maxNameBytes))",
        "key and value must each match \(Validation.namePattern)")
    }
  }

  mutating func object<Value: ConfigurationForm>(_ name: StaticString, _ value: inout Value) {
    issues.at("\(name).") { issues in issues.append(contentsOf: value.memberIssues()) }
  }
}
