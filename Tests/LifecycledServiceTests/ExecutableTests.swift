import Foundation
import JSONCore
import Testing

@testable import LifecycleAPI

/// The `lifecycled` binary, started as a user (or a container) would: in a clean environment,
/// with a real HTTP client (curl) and real signals.
@Suite(.serialized) struct ExecutableTests {
  /// The built binary: beside the test bundle in the build directory.
  static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("lifecycled")

  @Test func versionAndPrintedDefaults() throws {
    #expect(try run(["--version"]).output == "0.1.0\n")
    let printed = try run(["--print-config"])
    #expect(printed.status == 0)
    #expect(printed.output.contains("\"host\": \"127.0.0.1\",\n  \"port\": 8080,"))
  }

  @Test func servesARealClientThenStopsCleanlyOnSIGTERM() throws {
    let service = try RunningService(["--port", "0"])
    let health = try curl("http://127.0.0.1:\(service.port)/health")
    #expect(health.hasPrefix("200 {\"status\":\"ok\",\"version\":\"0.1.0\","))
    #expect(try curl("http://127.0.0.1:\(service.port)/readyz") == "200 {\"status\":\"ready\"}")
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
    #expect(service.log.contains("shutdown.begin"))
    #expect(service.log.contains("shutdown.complete"))
    #expect(service.log.contains("method=GET path=/health status=200"))
  }

  /// Bodies of more than 64 KiB are read on the real server's worker threads: a snapshot put
  /// under another id makes the device it shows, and events are applied, each answered once
  /// its body is read.
  @Test func largeBodiesAreReadOnWorkerThreads() throws {
    let service = try RunningService(["--port", "0"])
    let base = "http://127.0.0.1:\(service.port)"
    #expect(try curl("\(base)/v1/apps", post: #"{"name":"mail"}"#).hasPrefix("201 "))
    let padding = String(repeating: " ", count: 70_000)
    let events = try curl("\(base)/v1/apps/mail/events", post: #"{"type":"launch"}"# + padding)
    #expect(events.hasPrefix("200 ") && events.contains(#""state":"active""#))
    let snapshot = try curl(["\(base)/v1/devices/default/snapshot"]).output
    let put = try curl([
      "-w", "%{stderr}%{http_code} ", "-X", "PUT", "-H", "Content-Type: application/json",
      "--data-binary", snapshot.replacingOccurrences(of: #""id":"default","#, with: "") + padding,
      "\(base)/v1/devices/copy",
    ])
    #expect(put.errors == "201 ", "\(put.output.prefix(300))")
    let copy = try curl("\(base)/v1/devices/copy/apps/mail")
    #expect(copy.hasPrefix("200 ") && copy.contains(#""state":"active""#))
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  /// Scenarios answered over several turns, and copies of large devices made on worker
  /// threads, on the real loop: two dry runs sent at once to a device of 65 running apps are
  /// each copied off the loop (the second waiting for the first, then handled in a turn of its
  /// own) and written a slice a turn, and both are answered in full.
  @Test func longScenariosOnLargeDevicesAreAnswered() throws {
    let service = try RunningService(["--port", "0"])
    let base = "http://127.0.0.1:\(service.port)"
    let json = [
      "-o", "/dev/null", "-w", "%{http_code} %{size_download}\n", "-H",
      "Content-Type: application/json",
    ]
    let app = { (number: Int) in
      #"{"name":"a\#(number)","memoryMB":1,"backgroundModes":["audio"],"#
        + #""given":{"state":"background","#
        + #""activities":["audio"]}}"#
    }
    let created = try curl(
      (0...ScenarioRuns.appsCopiedOnTheLoop).map { json + ["--data", app($0), "\(base)/v1/apps"] }
        .joined(separator: ["--next"]).map { $0 })
    #expect(created.output.split(separator: "\n").allSatisfy { $0.hasPrefix("201 ") })
    let warnings =
      "[" + Array(repeating: #"{"type":"memoryWarning"}"#, count: 40).joined(separator: ",") + "]"
    let dryRun = json + ["--data", warnings, "\(base)/v1/devices/default/events?dryRun=true"]
    let both = try curl(
      ["--max-time", "20", "--parallel", "--parallel-immediate"] + dryRun + ["--next"] + dryRun)
    let answers = both.output.split(separator: "\n").map { $0.split(separator: " ") }
    #expect(answers.count == 2, "\(both.output)")
    for answer in answers {
      #expect(
        answer.first == "200"
          && (answer.last.flatMap { Int($0) } ?? 0) > 4 * ScenarioRuns.sliceBytes)
    }
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  /// `/metrics` shows how long the loop's turns worked: every turn under the last bound it
  /// reached, the longest one beside them.
  @Test func metricsShowTheLoopsTurns() throws {
    let service = try RunningService(["--port", "0"])
    _ = try curl("http://127.0.0.1:\(service.port)/health")
    let metrics = try curl("http://127.0.0.1:\(service.port)/metrics")
    let lines = metrics.split(separator: "\n").map(String.init)
    #expect(lines.contains("# TYPE lifecycled_loop_turn_seconds histogram"))
    let turns = lines.first { $0.hasPrefix("lifecycled_loop_turn_seconds_count ") }
      .flatMap { Int($0.split(separator: " ")[1]) }
    #expect((turns ?? 0) > 0)
    #expect(lines.contains("lifecycled_loop_turn_seconds_bucket{le=\"+Inf\"} \(turns ?? -1)"))
    #expect(lines.contains { $0.hasPrefix("lifecycled_loop_turn_seconds_bucket{le=\"0.0005\"} ") })
    #expect(lines.contains { $0.hasPrefix("lifecycled_loop_longest_turn_seconds ") })
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  /// What a web page's requests get from the real binary over curl: a cross-origin `text/plain`
  /// reset (a "simple" request, sent without a preflight) and a rebound `Host` are refused with
  /// problem documents, and the simulator keeps its app.
  @Test func browserRequestsAreRefused() throws {
    let service = try RunningService(["--port", "0"])
    let base = "http://127.0.0.1:\(service.port)"
    #expect(try curl("\(base)/v1/apps", post: #"{"name":"kept"}"#).hasPrefix("201 "))
    let crossOrigin = try curl(
      [
        "-i", "-H", "Origin: https://attacker.example", "-H", "Content-Type: text/plain",
        "--data", "x", "\(base)/__admin/reset",
      ]
    ).output
    #expect(crossOrigin.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
    #expect(crossOrigin.contains("\r\nContent-Type: application/problem+json\r\n"))
    #expect(
      crossOrigin.contains(
        "\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"
          + "Cross-Origin-Resource-Policy: same-origin\r\n"))
    // Two Origin fields, the first the server's own: refused, whatever the first says.
    let own = "Origin: \(base)"
    let twice = try curl(
      [
        "-w", " %{http_code}", "-H", own, "-H", own, "-H", "Content-Type: application/json",
        "--data", #"{"name":"twice"}"#, "\(base)/v1/apps",
      ]
    ).output
    #expect(twice.hasSuffix(" 403"))
    #expect(twice.contains("this one has several"))
    #expect(
      try curl(["-w", " %{http_code}", "-H", own, "\(base)/v1/apps/twice"]).output.hasSuffix(" 404")
    )
    let rebound = try curl(
      ["-w", " %{http_code}", "-H", "Host: attacker.example", "\(base)/v1/apps"]
    ).output
    #expect(rebound.hasSuffix(" 421"))
    #expect(rebound.contains(#""type":"urn:lifecycled:problem:misdirected-request""#))
    // An absolute-form target names the host, whatever `Host` says (RFC 9112 §3.2.2).
    let absolute = try curl(
      [
        "-w", " %{http_code}", "--request-target",
        "http://attacker.example:\(service.port)/v1/apps", "\(base)/v1/apps",
      ]
    ).output
    #expect(absolute.hasSuffix(" 421"))
    let ownAbsolute = try curl(
      ["-w", " %{http_code}", "--request-target", "\(base)/v1/apps/kept", "\(base)/v1/apps"]
    ).output
    #expect(ownAbsolute.hasSuffix(" 200"))
    #expect(try curl("\(base)/v1/apps/kept").hasPrefix("200 "))
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  /// `ETag` and `If-Match` over the wire, with curl: a stale tag is 412 and changes nothing.
  @Test func ifMatchTravelsThroughTheServer() throws {
    let service = try RunningService(["--port", "0"])
    let base = "http://127.0.0.1:\(service.port)"
    #expect(try curl("\(base)/v1/apps", post: #"{"name":"mail"}"#).hasPrefix("201 "))
    let headers = try curl(["-D", "-", "-o", "/dev/null", "\(base)/v1/apps/mail"]).output
    guard let line = headers.split(separator: "\r\n").first(where: { $0.hasPrefix("ETag: ") })
    else {
      Issue.record("no ETag in \(headers)")
      return
    }
    let etag = String(line.dropFirst("ETag: ".count))
    func launch(ifMatch: String) throws -> String {
      try curl([
        "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-Match: \(ifMatch)", "-H",
        "Content-Type: application/json", "--data", #"{"type":"launch"}"#,
        "\(base)/v1/apps/mail/events",
      ]).output
    }
    #expect(try launch(ifMatch: #""0-0""#) == "412")
    #expect(try curl("\(base)/v1/apps/mail").contains(#""state":"notRunning""#))
    #expect(try launch(ifMatch: etag) == "200")
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  /// Request lines wait in the log's buffer; SIGTERM writes every one before the exit.
  @Test func sigtermLosesNoBufferedLogLine() throws {
    let service = try RunningService(["--port", "0"])
    do {
      let connection = try RawConnection(port: service.port)
      for _ in 0..<300 { connection.send("GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n") }
      #expect(connection.receiveOKs(300))
    }
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
    let lines = service.log.split(separator: "\n")
    #expect(lines.filter { $0.hasSuffix(" method=GET path=/livez status=200") }.count == 300)
    #expect(lines.last?.hasSuffix(" info shutdown.complete") == true)
  }

  @Test func jsonLogIsOneObjectPerLine() throws {
    let service = try RunningService(["--port", "0", "--log-format", "json"])
    _ = try curl("http://127.0.0.1:\(service.port)/health")
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
    let lines = try service.log.split(separator: "\n").map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(
      lines.map { $0["message"] as? String }
        == ["listening", "request", "shutdown.begin", "shutdown.complete"])
    #expect(lines[1]["status"] as? Int == 200)
    #expect(lines[1]["path"] as? String == "/health")
    #expect(lines[2]["signal"] as? String == "SIGTERM")
    #expect(lines.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
  }

  @Test func realtimeDeadlinesFireWithoutRequestsAndKillsAreLogged() throws {
    let service = try RunningService(
      ["--port", "0"], environment: ["LIFECYCLED_WATCHDOG_SECONDS": "0.2"])
    let base = "http://127.0.0.1:\(service.port)"
    #expect(
      try curl(
        "\(base)/v1/apps", post: #"{"name":"slow","behavior":{"didEnterBackgroundSeconds":1}}"#
      ).hasPrefix("201 "))
    #expect(
      try curl("\(base)/v1/apps/slow/events", post: #"[{"type":"launch"},{"type":"home"}]"#)
        .hasPrefix("200 "))
    usleep(600_000)  // the watchdog (0.2 s) fires on the server's timer, with no request
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
    #expect(
      service.log.contains(
        "app=slow cause=watchdog code=0x8badf00d device=default state=background"))
    #expect(service.log.contains("lifecycle.kill"))
  }

  /// Checklist E2: out of file descriptors, the server sheds connections instead of failing,
  /// and serves again once clients let go.
  @Test func outOfFileDescriptorsItShedsLoadAndRecovers() throws {
    let service = try RunningService(["--port", "0"], openFiles: 64)
    var clients: [RawConnection]? = try (0..<100).map { _ in
      try RawConnection.partialRequest(port: service.port)
    }
    usleep(300_000)
    #expect(service.process.isRunning)
    let descriptors = try FileManager.default.contentsOfDirectory(
      atPath: "/proc/\(service.process.processIdentifier)/fd")
    let targets = descriptors.map { descriptor in
      (try? FileManager.default.destinationOfSymbolicLink(
        atPath: "/proc/\(service.process.processIdentifier)/fd/\(descriptor)")) ?? "?"
    }
    // Out of descriptors means every number below the limit is taken. Foundation's `Process`
    // leaves the child its end of an exit-watch socket, numbered as it was in the test process,
    // which can lie above the limit: it is not counted.
    let taken = Set(descriptors.compactMap { Int($0) })
    #expect(
      taken.isSuperset(of: 0..<64),
      "the server should have run out of descriptors: \(zip(descriptors, targets).sorted { $0.0 < $1.0 })"
    )
    #expect(clients?.count == 100)
    clients = nil  // every client closes its socket
    usleep(300_000)
    #expect(try curl("http://127.0.0.1:\(service.port)/health").hasPrefix("200 "))
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  /// Checklist D6: ten thousand requests on one keep-alive connection leave memory where the
  /// first thousand put it.
  @Test func memoryStaysFlatOverTenThousandRequests() throws {
    let service = try RunningService(
      ["--port", "0", "--max-requests-per-connection", "100000", "--log-level", "notice"])
    let connection = try RawConnection(port: service.port)
    func requests(_ count: Int) -> Bool {
      (0..<(count / 100)).allSatisfy { _ in
        connection.send(
          String(repeating: "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", count: 100))
        return connection.receiveOKs(100)
      }
    }
    #expect(requests(1_000))
    let before = try residentKiB(service.process.processIdentifier)
    #expect(requests(10_000))
    let after = try residentKiB(service.process.processIdentifier)
    #expect(after - before < 256, "grew from \(before) KiB to \(after) KiB")
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  /// Checklist E3: a burst of a thousand requests creating and launching apps past the
  /// device's memory budget. Every request gets its 2xx, the API answers others in the middle
  /// of the burst, and jetsam purges by policy once the apps are suspended.
  @Test func burstPastTheMemoryBudgetPurgesAndKeepsServing() throws {
    let service = try RunningService(["--port", "0", "--log-level", "notice"])
    let base = "http://127.0.0.1:\(service.port)"
    let device = #"{"id":"burst","clock":"manual","memoryLimitMB":25000}"#
    #expect(try curl("\(base)/v1/devices", post: device).hasPrefix("201 "))
    // 500 apps of 100 MB in the foreground and the background: 250 fit.
    let burst = (0..<500).map { index in
      let app = #"{"name":"a\#(index)","memoryMB":100,"backgroundMemoryMB":100}"#
      let events = #"[{"type":"launch"},{"type":"home"}]"#
      return post("/v1/devices/burst/apps", app)
        + post("/v1/devices/burst/apps/a\(index)/events", events)
    }
    let connection = try RawConnection(port: service.port)
    var statuses: [Int] = []
    for start in stride(from: 0, to: 500, by: 50) {  // sent and read in turns: no buffer fills
      connection.send(burst[start..<(start + 50)].joined())
      if start == 250 {
        #expect(try curl("\(base)/health").hasPrefix("200 "))  // answered amid the burst
      }
      statuses += connection.receiveStatuses(100)
    }
    #expect(statuses == Array(repeating: [201, 200], count: 500).flatMap { $0 })
    // Suspended two seconds after going home, the oldest half is purged.
    let advance = #"{"seconds":2}"#
    #expect(try curl("\(base)/v1/devices/burst/clock/advance", post: advance).hasPrefix("200 "))
    let state = try curl("\(base)/v1/devices/burst")
    #expect(state.contains(#""memory":{"usedMB":25000,"limitMB":25000"#))
    #expect(state.contains(#""jetsamKills":250,"#))
    // The kills of that instant are one jetsam event, listing the 500 processes it found: the
    // 250 it killed, in the order they died, then the 250 it left.
    let jetsam = try curl("\(base)/v1/devices/burst/jetsam")
    #expect(jetsam.hasPrefix(#"200 {"kills":[{"jetsamEvent":1,"time":2.0,"app":"a0","#))
    #expect(
      jetsam.hasSuffix(
        #""app":"a322","reason":"vm-pageshortage","footprintMB":100,"state":"suspended"}],"dropped":0}"#
      ))
    let report = try curl("\(base)/v1/devices/burst/jetsam/1/report")
    #expect(
      report.hasPrefix(
        #"200 {"time":2.0,"product":"iPhone16,1","build":"iPhone OS 26.1 (23B85)","#
          + #""memoryStatus":{"pageSize":16384},"#))
    #expect(report.components(separatedBy: #""rpages":6400,"#).count - 1 == 500)
    #expect(try curl("\(base)/v1/devices/burst/jetsam/2/report").hasPrefix("404 "))
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
    #expect(service.log.components(separatedBy: "lifecycle.kill").count - 1 == 250)
  }

  /// A POST request with a JSON body, on the wire.
  /// Bodies being received count in the memory budget: with 64 MB, of 500 connections each
  /// sending a 1 MiB body but its last byte (fixed length, then chunked), those that fit are
  /// held and the others answered 503 and closed; resident memory stays under the budget and
  /// 64 MB more, other clients are served meanwhile, and the memory is given back within 5 s
  /// of the close.
  @Test(arguments: [false, true])
  func bodiesBeingReceivedCountInTheBudget(chunked: Bool) throws {
    let service = try RunningService(
      ["--port", "0", "--max-memory-mb", "64", "--log-level", "notice"])
    let pid = service.process.processIdentifier
    let before = try residentKiB(pid)
    let length = 1_048_576
    let body = String(repeating: "x", count: length - 1)
    let head =
      "POST /v1/devices HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      + (chunked
        ? "Transfer-Encoding: chunked\r\n\r\n\(String(length, radix: 16))\r\n"
        : "Content-Length: \(length)\r\n\r\n")
    var connections = try (0..<500).map { _ in
      let connection = try RawConnection(port: service.port)
      connection.send(head + body)
      return connection
    }
    // The refusals come as the server reads: counted once they stop coming.
    var refused: [RawConnection] = []
    let settled = Date().addingTimeInterval(5)
    repeat {
      let count = refused.count
      usleep(200_000)
      refused = connections.filter { $0.receivedSoFar().hasPrefix("HTTP/1.1 503 ") }
      if refused.count == count { break }
    } while Date() < settled
    let held = 500 - refused.count
    #expect((40...64).contains(held), "\(held) held, the others refused")
    #expect(
      refused.first?.receivedSoFar().contains("memory budget has no room for this request") == true)
    let peak = try residentKiB(pid)
    #expect(peak < (64 + 64) * 1024, "resident \(peak) KiB")
    let base = "http://127.0.0.1:\(service.port)"
    #expect(try curl("\(base)/health").hasPrefix("200 "))
    #expect(try curl("\(base)/v1/apps", post: #"{"name":"served"}"#).hasPrefix("201 "))
    connections = []
    let deadline = Date().addingTimeInterval(5)
    var after = try residentKiB(pid)
    while after > before + 16 * 1024, Date() < deadline {
      usleep(50_000)
      after = try residentKiB(pid)
    }
    #expect(after <= before + 16 * 1024, "from \(before) KiB to \(peak) KiB, then \(after) KiB")
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  func post(_ path: String, _ body: String) -> String {
    "POST \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
  }

  func residentKiB(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
    return try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
  }

  /// A server started with `--exit-with-parent` shuts down gracefully once the process that
  /// started it is killed outright (SIGKILL: it cannot stop its child itself).
  @Test func aServerWhoseParentIsKilledShutsDown() throws {
    let parent = Process()
    parent.executableURL = URL(fileURLWithPath: "/bin/sh")
    parent.arguments = [
      "-c", #""$0" serve --port 0 --exit-with-parent & echo $!; wait"#, Self.binary.path,
    ]
    parent.environment = ["PATH": "/usr/bin:/bin"]
    let (output, errors) = (Pipe(), Pipe())
    parent.standardOutput = output
    parent.standardError = errors  // the server's log comes through the shell's
    try parent.run()
    let pidLine = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    let server = try #require(Int32(pidLine.trimmingCharacters(in: .whitespacesAndNewlines)))
    var log = ""
    while !log.contains("listening") {
      let data = errors.fileHandleForReading.availableData
      guard !data.isEmpty else { throw RunningService.ServiceError.exited(log) }
      log += String(decoding: data, as: UTF8.self)
    }
    kill(parent.processIdentifier, SIGKILL)
    parent.waitUntilExit()
    // If it did not stop, the test stops it (and fails): the log's pipe must end.
    DispatchQueue.global().asyncAfter(deadline: .now() + 10) { kill(server, SIGKILL) }
    // The log's pipe ends once its last writer, the server, has exited.
    log += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(log.contains("shutdown.begin"))
    #expect(log.contains("shutdown.complete"))
  }

  @Test func sigintStopsCleanlyToo() throws {
    let service = try RunningService(["--port", "0"])
    service.signal(SIGINT)
    #expect(service.waitForExit() == 0)
  }

  @Test func secondSignalDuringShutdownExitsAtOnce() throws {
    let service = try RunningService(["--port", "0"])
    let client = try RawConnection.partialRequest(port: service.port)  // keeps the drain waiting
    service.signal(SIGTERM)
    usleep(200_000)
    service.signal(SIGTERM)
    #expect(service.waitForExit(seconds: 2) == 143)
    #expect(service.log.contains("shutdown.forced"))
    _ = client
  }

  @Test func healthcheckReportsReadiness() throws {
    let service = try RunningService(["--port", "0"])
    let ready = try run(["healthcheck", "--port", String(service.port)])
    #expect(ready.status == 0)
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
    let gone = try run(["healthcheck", "--port", String(service.port)])
    #expect(gone.status == 1)
    #expect(gone.errors.hasPrefix("lifecycled: not ready (cannot connect to 127.0.0.1:"))
  }

  @Test func badConfigurationExits2WithOneLine() throws {
    let result = try run([], environment: ["LIFECYCLED_MAX_CONNECTIONS": "lots"])
    #expect(result.status == 2)
    #expect(
      result.errors
        == "lifecycled: configuration key 'maxConnections' (LIFECYCLED_MAX_CONNECTIONS, --max-connections): must be an integer from 1 to 1000000\n"
    )
  }

  /// The binary starts with the fixtures' devices and returns to them on reset; a bad file
  /// stops it with one line naming the place.
  @Test func fixturesAreThereFromTheStartAndAfterAReset() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("fixtures-\(UUID().uuidString).json").path
    try #"{"devices":[{"id":"phone","apps":[{"name":"mail"}]}]}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    let service = try RunningService(["--port", "0", "--fixtures", path])
    let base = "http://127.0.0.1:\(service.port)"
    #expect(try curl("\(base)/readyz").hasPrefix("200 "))
    #expect(try curl("\(base)/v1/devices/phone/apps/mail").hasPrefix("200 "))
    #expect(try curl("\(base)/v1/devices/phone/apps", post: #"{"name":"notes"}"#).hasPrefix("201 "))
    #expect(try curl("\(base)/__admin/reset", post: "").hasPrefix("204 "))
    #expect(try curl("\(base)/v1/devices/phone/apps/notes").hasPrefix("404 "))
    #expect(try curl("\(base)/v1/devices/phone/apps/mail").hasPrefix("200 "))
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)

    try #"{"devices":[{"id":"phone","apps":[{"name":"mail"},{"name":"-x"}]}]}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    let bad = try run([], environment: ["LIFECYCLED_FIXTURES": path])
    #expect(bad.status == 2)
    #expect(
      bad.errors
        == "lifecycled: configuration key 'fixtures' (LIFECYCLED_FIXTURES, --fixtures): "
        + "'\(path)': devices[0].apps[1].name must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$\n")
  }

  @Test func portInUseExits1() throws {
    let service = try RunningService(["--port", "0"])
    let second = try run(["--port", String(service.port)])
    #expect(second.status == 1)
    #expect(second.errors.contains("cannot listen"))
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  // MARK: Helpers

  /// Runs the binary to completion.
  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Executed {
    try execute(Self.binary, arguments, environment: environment)
  }

  /// `curl -s`: the status code, a space, and the body; with `post`, a JSON POST. The body goes
  /// to stdout, which `execute` reads first, so a large one cannot fill a pipe nobody reads.
  func curl(_ url: String, post body: String? = nil) throws -> String {
    let printed = try curl(
      ["-w", "%{stderr}%{http_code} ", url]
        + (body.map { ["-H", "Content-Type: application/json", "--data", $0] } ?? []))
    return printed.errors + printed.output
  }

  /// `curl -s` with these arguments.
  func curl(_ arguments: [String]) throws -> Executed {
    try execute(URL(fileURLWithPath: "/usr/bin/curl"), ["-s"] + arguments)
  }
}

/// What a finished program printed, and its exit status.
struct Executed {
  var status: Int32
  var output: String
  var errors: String
}

/// Runs `program` to completion in a clean environment (PATH only, plus `environment`).
func execute(_ program: URL, _ arguments: [String], environment: [String: String] = [:]) throws
  -> Executed
{
  let process = Process()
  process.executableURL = program
  process.arguments = arguments
  process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return Executed(
    status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
    errors: String(decoding: errorData, as: UTF8.self))
}

/// The binary serving in the background; its log is collected from stderr.
final class RunningService {
  let process = Process()
  private let errors = Pipe()
  private(set) var log = ""
  private(set) var port = 0

  /// - Parameter openFiles: a limit on the process's file descriptors (`ulimit -n`).
  init(_ arguments: [String], environment: [String: String] = [:], openFiles: Int? = nil) throws {
    if let openFiles {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
      process.arguments = ["--nofile=\(openFiles)", ExecutableTests.binary.path] + arguments
    } else {
      process.executableURL = ExecutableTests.binary
      process.arguments = arguments
    }
    process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
    process.standardError = errors
    try process.run()
    while !log.contains("listening") {
      let data = errors.fileHandleForReading.availableData
      guard !data.isEmpty else { throw ServiceError.exited(log) }
      log += String(decoding: data, as: UTF8.self)
    }
    let address = log.components(separatedBy: "http://127.0.0.1:")[1]
    port = Int(address.prefix { $0.isNumber })!
  }

  func signal(_ number: Int32) { kill(process.processIdentifier, number) }

  /// The exit status, or nil if the process still runs after `seconds`.
  func waitForExit(seconds: Double = 5) -> Int32? {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    guard !process.isRunning else {
      process.terminate()
      return nil
    }
    log += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return process.terminationStatus
  }

  enum ServiceError: Error { case exited(String) }
}

/// A plain TCP connection to the service, for what curl cannot do: hold half a request, or
/// send thousands on one connection.
final class RawConnection {
  let fd: Int32

  init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// A connection holding half a request, so a graceful shutdown has to wait for it.
  static func partialRequest(port: Int) throws -> RawConnection {
    let connection = try RawConnection(port: port)
    connection.send("GET /health HTTP/1.1\r\n")
    return connection
  }

  func send(_ text: String) {
    let bytes = Array(text.utf8)
    _ = Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
  }

  /// Reads until `count` responses with status 200 have arrived; false if the peer closed first.
  func receiveOKs(_ count: Int) -> Bool {
    receiveStatuses(count) == Array(repeating: 200, count: count)
  }

  /// The statuses of the next `count` responses, in order; fewer if the peer closes first.
  /// (Found by their status lines: the bodies here never hold `HTTP/1.1 `.)
  func receiveStatuses(_ count: Int) -> [Int] {
    let marker = Array("HTTP/1.1 ".utf8)
    let lineLength = marker.count + 3
    var statuses: [Int] = []
    var pending: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while statuses.count < count {
      let received = recv(fd, &chunk, chunk.count, 0)
      guard received > 0 else { break }
      pending += chunk[..<received]
      var index = 0
      while index + lineLength <= pending.count {
        if pending[index..<(index + marker.count)].elementsEqual(marker) {
          let digits = pending[(index + marker.count)..<(index + lineLength)]
          statuses.append(Int(String(decoding: digits, as: UTF8.self)) ?? -1)
          index += lineLength
        } else {
          index += 1
        }
      }
      pending = Array(pending[index...])
    }
    return statuses
  }

  /// What has arrived so far, without waiting for more.
  func receivedSoFar() -> String {
    var chunk = [UInt8](repeating: 0, count: 4_096)
    let received = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT | MSG_PEEK))
    return String(decoding: chunk[..<max(received, 0)], as: UTF8.self)
  }

  deinit { close(fd) }
}
