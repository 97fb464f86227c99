import Foundation
import Testing

/// The journal stream from the real binary to curl (`-N`): resuming with `Last-Event-ID`, and
/// the final event when the service shuts down under an open stream.
@Suite(.serialized) struct StreamLiveTests {
  let tests = ExecutableTests()

  /// The `id` lines of a stream's text.
  static func ids(_ text: String) -> [String] {
    text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
  }

  @Test func curlResumesAfterItsLastEventIDWithoutGapOrRepeat() throws {
    let service = try RunningService(["--port", "0"])
    let base = "http://127.0.0.1:\(service.port)"
    #expect(try tests.curl("\(base)/v1/apps", post: #"{"name":"mail"}"#).hasPrefix("201 "))
    #expect(
      try tests.curl("\(base)/v1/apps/mail/events", post: #"{"type":"launch"}"#).hasPrefix("200 "))
    let stream = try tests.curl([
      "-N", "-H", "Last-Event-ID: 1-4", "\(base)/v1/devices/default/journal/stream?timeout=0.3",
    ])
    #expect(stream.status == 0)  // the chunked body ended properly
    #expect(Self.ids(stream.output) == (5...10).map { "1-\($0)" })
    #expect(stream.output.hasSuffix("event: end\ndata: {\"reason\":\"timeout\"}\n\n"))
    service.signal(SIGTERM)
    #expect(service.waitForExit() == 0)
  }

  @Test func aStreamOpenAtShutdownEndsWithItsFinalEventAndTheServiceExits() throws {
    let service = try RunningService(["--port", "0"])
    let curl = Process()
    curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    curl.arguments = [
      "-sN", "http://127.0.0.1:\(service.port)/v1/devices/default/journal/stream?heartbeat=0.1",
    ]
    let output = Pipe()
    curl.standardOutput = output
    try curl.run()
    // The heartbeat shows the stream is open.
    var text = ""
    while !text.contains(": heartbeat\n\n") {
      let data = output.fileHandleForReading.availableData
      guard !data.isEmpty else { break }
      text += String(decoding: data, as: UTF8.self)
    }
    service.signal(SIGTERM)
    text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    curl.waitUntilExit()
    #expect(text.hasSuffix(": heartbeat\n\nevent: end\ndata: {\"reason\":\"shutdown\"}\n\n"))
    #expect(curl.terminationStatus == 0)
    #expect(service.waitForExit() == 0)
  }
}
