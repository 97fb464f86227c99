/// The parameters of a query string, strictly: only those the route takes, each once.
struct Query {
  private var values: [String: String] = [:]

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
      values[key] = parts.count > 1 ? String(parts[1]) : ""
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

  /// An app name parameter (1 to 64 bytes; a name no app has matches nothing).
  func name(_ key: String) throws(Problem) -> String? {
    guard let text = values[key] else { return nil }
    guard (1...64).contains(text.utf8.count) else {
      throw Problem.validation(key, "must be 1 to 64 bytes long")
    }
    return text
  }
}
