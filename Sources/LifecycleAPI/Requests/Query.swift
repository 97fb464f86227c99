import JSONCore
import LifecycleEngine

/// The parameters of a query string, strictly: only those the route takes, each once, their
/// values percent-decoded.
struct Query {
  private var values: [String: String] = Dictionary()  // not `[:]`: a literal is built per query

  init(_ query: Substring?, allowed: [String]) throws(Problem) {
    guard let query, !query.isEmpty else { return }
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = String(parts[0])
      guard allowed.contains(key) else {
        throw Problem.validation(
          key,
          allowed.isEmpty
            ? "is not a query parameter of this resource"
            : "is not a query parameter; allowed: \(allowed.joined(separator: ", "))")
      }
      guard values[key] == nil else { throw Problem.validation(key, "is given more than once") }
      guard let value = Self.percentDecoded(parts.count > 1 ? parts[1] : "") else {
        throw Problem.validation(key, "is not valid percent-encoded UTF-8")
      }
      values[key] = value
    }
  }

  /// A non-negative integer parameter.
  func integer(_ key: String, max: Int = Int.max) throws(Problem) -> Int? {
    guard let text = values[key] else { return nil }
    guard let value = Int(text), (0...max).contains(value) else {
      throw Problem.validation(key, "must be an integer from 0 to \(max)")
    }
    return value
  }

  func has(_ key: String) -> Bool { values[key] != nil }

  /// Where in a device's journal a read starts (`since`): after a `seq`, 0 (the oldest kept)
  /// if not given, or with `latest`, after the device's last entry as the request finds it:
  /// only what happens from now on.
  func since(latest: () throws -> Int) throws -> Int {
    guard let text = values["since"] else { return 0 }
    if text == "latest" { return try latest() }
    guard let value = Int(text), value >= 0 else {
      throw Problem.validation("since", "must be an integer from 0 to \(Int.max), or latest")
    }
    return value
  }

  /// How long a request waits (`Waits`): seconds, to the millisecond, up to `Waits.maxSeconds`;
  /// `Waits.defaultSeconds` if the parameter is not given.
  func waitSeconds(_ key: String) throws(Problem) -> Duration {
    try seconds(key, in: 0...Double(Waits.maxSeconds), default: Waits.defaultSeconds)
  }

  /// A number of seconds in `range`, to the millisecond; `default` if not given.
  func seconds(_ key: String, in range: ClosedRange<Double>, default: Int) throws(Problem)
    -> Duration
  {
    guard let text = values[key] else { return .seconds(`default`) }
    guard let seconds = Double(text), seconds.isFinite, range.contains(seconds) else {
      throw Problem.validation(
        key,
        "must be a number of seconds from \(range.lowerBound.asWritten) to "
          + "\(range.upperBound.asWritten)")
    }
    return .milliseconds(Int64((seconds * 1000).rounded()))
  }

  /// The entries a journal reader asks for: `kind`, `app`, `scene`, `method`, `cause`.
  func journalFilter() throws(Problem) -> JournalFilter {
    JournalFilter(
      kind: try choice("kind", JournalFilter.Kind.self), app: try appName("app"),
      scene: try name("scene"), method: try choice("method", CallbackMethod.self),
      cause: try choice("cause", among: TransitionCause.names))
  }

  /// A parameter that is `true` or `false`.
  func boolean(_ key: String) throws(Problem) -> Bool? {
    guard let text = values[key] else { return nil }
    guard let value = Bool(text) else { throw Problem.validation(key, "must be true or false") }
    return value
  }

  /// How to apply posted events: `dryRun=true` changes nothing, whatever the body says.
  func scenarioMode<Event>(_ posted: PostedEvents<Event>) throws(Problem) -> ScenarioMode {
    if try boolean("dryRun") == true { return .dryRun }
    return posted.isAtomic ? .atomic : .inOrder
  }

  /// The `limit` of a page (`Paging`).
  func pageLimit() throws(Problem) -> Int {
    try integer("limit", max: Validation.maxPageSize) ?? Validation.defaultPageSize
  }

  /// A device or app name parameter, such as `after`.
  func name(_ key: String) throws(Problem) -> String? {
    try appName(key).map(String.init)
  }

  /// A device label to select by, `key=value` (`label=suite=checkout`), each a name.
  func label() throws(Problem) -> DeviceLabel? {
    guard let text = values["label"] else { return nil }
    let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2, parts.allSatisfy({ Validation.isValidName(String($0)) }) else {
      throw Problem.validation(
        "label", "must be key=value, each matching \(Validation.namePattern)")
    }
    return DeviceLabel(key: String(parts[0]), value: String(parts[1]))
  }

  /// An app name parameter.
  func appName(_ key: String) throws(Problem) -> AppName? {
    guard let text = values[key] else { return nil }
    guard Validation.isValidName(text), let name = AppName(text) else {
      throw Problem.validation(key, Validation.nameRule)
    }
    return name
  }

  /// A parameter that must be one of `names`.
  func choice(_ key: String, among names: [String]) throws(Problem) -> String? {
    guard let text = values[key] else { return nil }
    guard names.contains(text) else {
      throw Problem.validation(key, "must be one of \(names.joined(separator: ", "))")
    }
    return text
  }

  /// A parameter that must name a case of `T`.
  func choice<T: RawRepresentable<String> & CaseIterable>(_ key: String, _ type: T.Type)
    throws(Problem) -> T?
  {
    try choice(key, among: T.allCases.map(\.rawValue)).flatMap(T.init(rawValue:))
  }

  /// `%XX` sequences decoded; nil if one is malformed or the bytes are not UTF-8.
  static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var utf8 = text.utf8.makeIterator()
    while let byte = utf8.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = utf8.next(), let low = utf8.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      else { return nil }
      bytes.append(value)
    }
    // Valid UTF-8 decodes to the same bytes; invalid bytes would come back as U+FFFD.
    // (`String(validating:as:)` needs macOS and iOS 18.)
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.elementsEqual(bytes) ? text : nil
  }
}
