import Foundation
import LifecycledService
import Testing

/// The README's walkthrough and harness example, run verbatim against the binary: each command
/// must print exactly what the README shows after it.
@Suite(.serialized) struct WalkthroughTests {
  /// The `$ command` lines inside the code blocks of the README's section marked `name`, each
  /// with the output below it.
  static func steps(of name: String = "walkthrough") throws -> [(command: String, output: String)] {
    let readme = try String(
      contentsOf: ConfigurationTests.repository.appendingPathComponent("README.md"), encoding: .utf8
    )
    let section = readme.components(separatedBy: "<!-- \(name) -->")[1]
      .components(separatedBy: "<!-- /\(name) -->")[0]
    var steps: [(command: String, output: String)] = []
    var inCode = false
    for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inCode.toggle()
      } else if inCode, line.hasPrefix("$ ") {
        steps.append((String(line.dropFirst(2)), ""))
      } else if inCode, !steps.isEmpty {
        let last = steps.removeLast()
        steps.append((last.command, last.output.isEmpty ? String(line) : last.output + "\n" + line))
      }
    }
    return steps
  }

  @Test func readmeWalkthroughPrintsWhatItShows() throws {
    try run(try Self.steps(), expecting: 16)
  }

  /// A realtime device: the wait for suspension is answered by the server's own timer, and
  /// the journal streamed to curl ends at its timeout.
  @Test func readmeHarnessExamplePrintsWhatItShows() throws {
    try run(try Self.steps(of: "harness"), expecting: 5)
  }

  /// A processing task held back by its date, the charger and the device in use, then run by
  /// the `eager` policy when the clock reaches its date on a locked, charging device.
  @Test func readmeBackgroundExamplePrintsWhatItShows() throws {
    try run(try Self.steps(of: "background"), expecting: 6)
  }

  /// Each code block marked `<!-- excerpt: PATH -->` in the README and the client's landing
  /// page is an excerpt of that file, a test the suites run: its lines are lines of the file,
  /// in order (indentation aside).
  @Test(arguments: [
    ("README.md", 2), ("Sources/LifecycledClient/LifecycledClient.docc/LifecycledClient.md", 1),
  ])
  func excerptsAreLinesOfTheExampleSuites(document: String, count: Int) throws {
    let root = ConfigurationTests.repository
    let readme = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
    let marked = readme.components(separatedBy: "<!-- excerpt: ").dropFirst()
    #expect(marked.count == count)
    func lines(_ text: String) -> [Substring] {
      text.split(separator: "\n").map { $0.drop { $0 == " " } }
    }
    for excerpt in marked {
      let path = String(excerpt.prefix { $0 != " " })
      let block = String(excerpt.components(separatedBy: "```")[1].drop { $0 != "\n" })
      var source = lines(
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))[...]
      for line in lines(block) {
        guard let found = source.firstIndex(of: line) else {
          Issue.record("\(path) has no line '\(line)' where \(document) shows it")
          break
        }
        source = source[(found + 1)...]
      }
    }
  }

  /// The client guide's `Package.swift` is the consumer fixture's manifest, which `scripts/test`
  /// builds and runs, but for the dependency: the repository's URL at the service's version
  /// where the fixture names its path. (Comments in the fixture aside.)
  @Test func theGuidesManifestIsTheConsumerFixturesWithTheRealVersion() throws {
    let root = ConfigurationTests.repository
    let guide = try String(
      contentsOf: root.appendingPathComponent(
        "Sources/LifecycledClient/LifecycledClient.docc/LifecycledClient.md"),
      encoding: .utf8)
    let marked = try #require(
      guide.components(separatedBy: "<!-- manifest: Tests/ClientConsumer/Package.swift -->")
        .dropFirst().first)
    let shown = marked.components(separatedBy: "```")[1].split(separator: "\n").dropFirst()
    let fixture = try String(
      contentsOf: root.appendingPathComponent("Tests/ClientConsumer/Package.swift"),
      encoding: .utf8
    )
    .split(separator: "\n").filter { $0.hasPrefix("// swift-tools-version") || !$0.hasPrefix("//") }
    let dependency = #".package(name: "lifecycled", path: "../..")"#
    let published =
      #".package(url: "https://github.com/OWNER/lifecycled", from: "\#(Version.current)")"#
    #expect(fixture.contains { $0.contains(dependency) })
    #expect(
      shown.map(String.init)
        == fixture.map { $0.replacingOccurrences(of: dependency, with: published) })
  }

  /// Runs the steps against the binary. With `LIFECYCLED_RECORD_TIMELINES` set (as for
  /// `TimelineTests`), a step that compares a picture with its file (`| cmp - FILE`) writes
  /// the file instead.
  private func run(_ steps: [(command: String, output: String)], expecting count: Int) throws {
    #expect(steps.count == count)
    let records = ProcessInfo.processInfo.environment["LIFECYCLED_RECORD_TIMELINES"] != nil
    let service = try RunningService(["--port", "0"])
    for step in steps {
      var command = step.command.replacingOccurrences(
        of: "localhost:8080", with: "127.0.0.1:\(service.port)")
      if records { command = command.replacingOccurrences(of: "| cmp - ", with: "> ") }
      let printed = try execute(URL(fileURLWithPath: "/bin/sh"), ["-c", command]).output
      #expect(printed.trimmingCharacters(in: .newlines) == step.output, "\(step.command)")
    }
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }
}
