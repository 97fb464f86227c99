import Foundation
import HTTPCore
import HTTPServer
import JSONCore
import Testing

@testable import LifecycleAPI
@testable import LifecycleEngine

/// The user guide's "Limits and guarantees" against the code: its rows are exactly the bounds below,
/// each showing the defaults the code has, and every field of the engine's and the parser's
/// limits belongs to a row, so that a new bound cannot be added without its line.
@Suite struct LimitsTableTests {
  /// The rows of the table: the bound's name, and the defaults its second column shows.
  static var rows: [String: [String]] {
    let http = HTTPLimits()
    let connection = ConnectionConfiguration()
    let server = HTTPServerConfiguration()
    let engine = EngineLimits()
    return [
      "request line / header section": [
        size(http.maxRequestLineBytes), size(http.maxHeaderBytes), "\(http.maxHeaderCount) fields",
      ],
      "request body": [size(http.maxBodyBytes)],
      "a JSON body's nesting / a number's text": [
        "\(JSON.maxDepth) levels", "\(grouped(JSON.maxNumberLength)) characters",
      ],
      "empty lines before a request line": ["\(HTTPParser.maxEmptyLinesBeforeRequest)"],
      "request head / pause in a body / whole request": [
        seconds(connection.headerTimeout), seconds(connection.bodyTimeout),
        seconds(connection.requestTimeout),
      ],
      "idle keep-alive / response the client does not read": [
        seconds(connection.keepAliveTimeout), seconds(connection.sendTimeout),
      ],
      "answers a client has not read": ["one per connection", "`maxMemoryMB`"],
      "a scenario's answer": [
        "counted in `maxMemoryMB` as it is written",
        "\(size(ScenarioRuns.sliceBytes)) written a turn",
        "\(ScenarioRuns.handledPerTurn) a turn",
      ],
      "requests per connection": [grouped(connection.maxRequestsPerConnection)],
      "connections": [grouped(server.maxConnections)],
      "connections per client address": [grouped(server.maxConnectionsPerAddress)],
      "devices / apps per device / background tasks per app": [
        grouped(engine.maxDevices), grouped(engine.maxAppsPerDevice),
        grouped(engine.maxBackgroundTasksPerApp),
      ],
      "scene sessions per app": ["\(Validation.maxScenesPerApp)"],
      "background work per app (pushes and tasks not completed)": [
        "\(Validation.maxBackgroundWorkPerApp), counted in `maxMemoryMB`"
      ],
      "task requests per app / permitted identifiers": [
        "\(TaskKind.appRefresh.pendingLimit) refresh and \(TaskKind.processing.pendingLimit) processing",
        "\(Validation.maxPermittedTaskIdentifiers) of \(Validation.maxIdentifierBytes) bytes",
      ],
      "background pushes remembered per app": [
        "`backgroundPushesPerHour` (\(SchedulerSettings().backgroundPushesPerHour))"
      ],
      "callbacks waiting behind a busy main thread": [
        "\(grouped(engine.maxWaitingCallbacksPerApp)) per app", "`maxMemoryMB`",
      ],
      "events per scenario": ["\(Validation.maxScenarioEvents)"],
      "a device's counts (`seq`, counters, an app's launches, kills, task ids, exits)": [
        grouped(Validation.maxCount), "2^\(Validation.countHeadroom.trailingZeroBitCount) short",
      ],
      "restoration data / a push's payload": [
        "\(grouped(Validation.maxRestorationDataBytes)) bytes",
        "nested at most \(Validation.maxDataNesting) deep",
      ],
      "a device's clock": ["\(grouped(Validation.maxAdvanceSeconds)) s"],
      "waiting requests (`waitFor`, `wait`)": [
        "\(Waits.limit) at once", "\(Waits.maxSeconds) s", "\(Waits.defaultSeconds) s",
        "\(size(Waits.retainedBytesPerWait)) each",
      ],
      "pictures and snapshots being made (`timeline.svg`, `snapshot`)": [
        "\(CostlyReads.limit) at once", "`maxMemoryMB`",
      ],
      "request bodies being read off the loop": [
        size(BodyReads.offLoopBytes), "\(BodyReads.heldBytesPerBodyByte) times its size",
      ],
      "journal streams": [
        "\(Streams.limit) at once", "\(size(connection.maxStreamBacklog)) unsent",
        size(Streams.retainedBytesPerStream + connection.maxStreamBacklog),
      ],
      "a dry run's or an atomic scenario's copy of the device": [
        "`maxMemoryMB`", "more than \(ScenarioRuns.appsCopiedOnTheLoop) apps",
      ],
      "names / URLs / task names": [
        "\(Validation.maxNameBytes) / \(grouped(Validation.maxURLBytes)) / "
          + "\(Validation.maxTaskNameBytes) bytes"
      ],
      "journal per device": [
        "\(grouped(engine.journalCapacity)) entries", size(engine.journalCapacityBytes),
      ],
      "jetsam log per device": [
        "\(grouped(engine.jetsamLogCapacity)) events", size(engine.jetsamLogCapacityBytes),
      ],
      "the simulator's state, as the engine counts it, with what is held for clients (stored responses, waits, streams, requests being received, answers not yet read) and devices let go of but not yet freed":
        [size(engine.memoryBudgetBytes)],
      "a page of a list": [
        "\(grouped(Validation.defaultPageSize)) elements",
        "up to \(grouped(Validation.maxPageSize))", "\(size(Paging.maxBytes)) of JSON",
      ],
      "a 422": [
        "\(ValidationIssues.maxListed) issues", "\(Fields.maxFieldBytes) bytes",
      ],
      "`Idempotency-Key` responses": [
        "\(IdempotencyStore.lifetime.components.seconds / 3600) hours",
        "\(grouped(IdempotencyStore.maxKeysPerDevice)) keys per device",
        "\(size(IdempotencyStore.maxBytes)) in all", "`maxMemoryMB`",
      ],
    ]
  }

  /// The row each field of the engine's and the parser's limits is in.
  static let rowOfField: [String: String] = [
    "maxDevices": "devices / apps per device / background tasks per app",
    "maxAppsPerDevice": "devices / apps per device / background tasks per app",
    "maxBackgroundTasksPerApp": "devices / apps per device / background tasks per app",
    "maxWaitingCallbacksPerApp": "callbacks waiting behind a busy main thread",
    "journalCapacity": "journal per device",
    "journalCapacityBytes": "journal per device",
    "memoryBudgetBytes":
      "the simulator's state, as the engine counts it, with what is held for clients (stored responses, waits, streams, requests being received, answers not yet read) and devices let go of but not yet freed",
    "jetsamLogCapacity": "jetsam log per device",
    "jetsamLogCapacityBytes": "jetsam log per device",
    "maxRequestLineBytes": "request line / header section",
    "maxHeaderBytes": "request line / header section",
    "maxHeaderCount": "request line / header section",
    "maxBodyBytes": "request body",
  ]

  /// The table's rows in the guide: the first column, and the second.
  static func readmeRows() throws -> [String: String] {
    let section = try String(
      contentsOf: ConfigurationTests.guide("LimitsAndGuarantees"), encoding: .utf8)
    var rows: [String: String] = [:]
    for line in section.split(separator: "\n").drop(while: { !$0.hasPrefix("|") })
      .prefix(while: { $0.hasPrefix("|") }).dropFirst(2)
    {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      rows[cells[1]] = cells[2]
    }
    return rows
  }

  @Test func theTableListsEveryBoundWithTheCodesDefaults() throws {
    let readme = try Self.readmeRows()
    #expect(Set(readme.keys) == Set(Self.rows.keys))
    for (bound, defaults) in Self.rows {
      for value in defaults {
        #expect(readme[bound]?.contains(value) == true, "\(bound): \(value) is not in the guide")
      }
    }
  }

  @Test func everyLimitOfTheEngineAndTheParserHasItsRow() {
    let fields =
      (Mirror(reflecting: EngineLimits()).children.map(\.label)
      + Mirror(reflecting: HTTPLimits()).children.map(\.label)).compactMap { $0 }
    #expect(Set(fields) == Set(Self.rowOfField.keys))
    for row in Self.rowOfField.values { #expect(Self.rows[row] != nil, "\(row)") }
  }

  /// 1,000 as the guide writes it.
  static func grouped(_ number: Int) -> String {
    number.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
  }

  /// A size in the largest binary unit it is a whole number of.
  static func size(_ bytes: Int) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes % (1 << shift) == 0 {
      return "\(bytes >> shift) \(unit)"
    }
    return "\(grouped(bytes)) bytes"
  }

  /// Milliseconds as whole seconds.
  static func seconds(_ milliseconds: UInt64) -> String { "\(milliseconds / 1000) s" }
}
