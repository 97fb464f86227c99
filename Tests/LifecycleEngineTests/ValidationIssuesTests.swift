import Testing

@testable import LifecycleEngine

/// The one collector of invalid fields: named by place, listed up to its bound, all counted.
@Suite struct ValidationIssuesTests {
  @Test func fieldsAreNamedUnderThePlaceOfTheirChecks() {
    var issues = ValidationIssues()
    issues.at("apps[0].") { issues in
      issues.check(true, "name", "never listed")
      issues.check(false, "name", "names another app")
      issues.at("process.") { $0.append("state", "is unknown") }
      issues.rename("process.", to: "")
    }
    issues.append("id", "is required")
    #expect(
      Array(issues) == [
        ValidationIssue(field: "apps[0].name", message: "names another app"),
        ValidationIssue(field: "apps[0].state", message: "is unknown"),
        ValidationIssue(field: "id", message: "is required"),
      ])
    #expect(issues.total == 3)
  }

  @Test func pastItsBoundAnIssueIsCountedNotListed() {
    var inner = ValidationIssues()
    for index in 0..<25 { inner.append("k\(index)", "is not a known field") }
    #expect((inner.count, inner.total) == (ValidationIssues.maxListed, 25))
    var outer: ValidationIssues = [ValidationIssue(field: "type", message: "is required")]
    outer.at("[1].") { $0.append(contentsOf: inner) }
    #expect(outer.total == 26)
    #expect(outer.count == ValidationIssues.maxListed)
    #expect(outer.first?.field == "type")
    #expect(outer.last?.field == "[1].k18")
  }
}
