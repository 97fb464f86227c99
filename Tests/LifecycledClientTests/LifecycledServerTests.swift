import Foundation
import Glibc
import Testing

@testable import LifecycledClient

/// A server each test starts itself, a client that fails fast when there is none, a token,
/// and a device that lives as long as its scope.
@Suite struct LifecycledServerTests {
  @Test func aServerStartedForATestServesItAndStops() async throws {
    let server = try await LifecycledServer.start(.binary(LiveServer.binary))
    let lifecycled = Lifecycled(serverURL: server.url, connectTimeout: .milliseconds(500))
    let device = try await lifecycled.createDevice("started")
    #expect(try await device.fetch().clock == .manual)
    server.stop()
    let error = await #expect(throws: LifecycledUnreachable.self) {
      try await lifecycled.createDevice()
    }
    let port = try #require(server.url.port)
    let failure = try #require(error?.failure)
    #expect(
      error?.description
        == "nothing answers at \(server.url.absoluteString) (\(failure)): start lifecycled there "
        + "(lifecycled serve --port \(port)), or use the engine in this process "
        + "(Lifecycled.inProcess())")
  }

  @Test func nothingListeningFailsWithinTheConnectTimeout() async throws {
    let url = try #require(URL(string: "http://127.0.0.1:9"))  // discard: nothing listens
    let lifecycled = Lifecycled(serverURL: url, connectTimeout: .milliseconds(200))
    let error = await #expect(throws: LifecycledUnreachable.self) {
      try await lifecycled.createDevice()
    }
    #expect(error?.url == url)
    #expect(error?.timeout == .milliseconds(200))
    #expect(error?.failure != nil)  // refused, not timed out
  }

  /// A port that accepts connections and never answers: the call ends at the timeout.
  @Test func aSilentServerFailsAtTheConnectTimeout() async throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    try withUnsafeMutablePointer(to: &address) { pointer in
      try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        guard bind(listener, address, length) == 0, listen(listener, 8) == 0,
          getsockname(listener, address, &length) == 0
        else { throw POSIXError(.EADDRINUSE) }
      }
    }
    let url = try #require(URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"))
    let lifecycled = Lifecycled(serverURL: url, connectTimeout: .milliseconds(300))
    let error = await #expect(throws: LifecycledUnreachable.self) {
      try await lifecycled.createDevice()
    }
    #expect(error?.failure == nil)
    #expect(
      error?.description
        == "lifecycled at \(url.absoluteString) did not answer within 0.3 seconds: something "
        + "else listens there, or the server is stuck")
  }

  @Test func aTokenIsSentWithEveryRequest() async throws {
    let server = try await LifecycledServer.start(
      .binary(LiveServer.binary), arguments: ["--auth-token", "s3cret"])
    defer { server.stop() }
    let refused = await #expect(throws: LifecycledProblem.self) {
      try await Lifecycled(serverURL: server.url).createDevice()
    }
    #expect(refused?.status == 401)
    let device = try await Lifecycled(serverURL: server.url, token: "s3cret").createDevice()
    #expect(try await device.fetch().id == device.id)
  }

  @Test func aDeviceScopeRemovesItsDevice() async throws {
    try await LifecycledServer.run(.binary(LiveServer.binary)) { lifecycled in
      let id = try await lifecycled.withDevice(memoryLimitMB: 900, perAppLimitMB: 300) {
        device throws -> String in
        let memory = try await device.fetch().memory
        #expect(memory.limitMB == 900)
        return device.id
      }
      let gone = await #expect(throws: LifecycledProblem.self) {
        try await lifecycled.device(id).fetch()
      }
      #expect(gone?.status == 404)
    }
  }

  /// `.automatic` is the server at `LIFECYCLED_URL`, else `lifecycled` on `PATH`, else the
  /// engine in process; a `LIFECYCLED_URL` that is no server's URL says so.
  @Test func automaticChoosesARunningServerThenABinaryThenTheEngine() throws {
    let url = try #require(URL(string: "http://127.0.0.1:8080"))
    #expect(
      try LifecycledServer.automaticChoice(in: ["LIFECYCLED_URL": url.absoluteString])
        == .running(url, token: nil))
    #expect(
      try LifecycledServer.automaticChoice(in: [
        "LIFECYCLED_URL": url.absoluteString, "LIFECYCLED_AUTH_TOKEN": "s3cret",
      ]) == .running(url, token: "s3cret"))
    let directory = URL(fileURLWithPath: LiveServer.binary).deletingLastPathComponent()
    #expect(
      try LifecycledServer.automaticChoice(in: ["PATH": "/nonexistent:\(directory.path)"])
        == .binary(directory.appendingPathComponent("lifecycled")))
    #expect(try LifecycledServer.automaticChoice(in: ["PATH": "/nonexistent"]) == .inProcess)
    let error = #expect(throws: LifecycledServerError.self) {
      try LifecycledServer.automaticChoice(in: ["LIFECYCLED_URL": "127.0.0.1:8080"])
    }
    #expect(
      error?.description
        == "LIFECYCLED_URL is 127.0.0.1:8080, not a server's URL such as http://127.0.0.1:8080")
  }

  /// A container the launcher started is stopped once the test process is gone, however it
  /// ended: its reaper waits for a pipe whose one writer is that process. Here a child holds
  /// the writer in its place and is killed with SIGKILL; a stand-in `docker` notes the stop.
  /// A reaper killed with its server's stop() stops nothing.
  @Test func aContainersReaperStopsItOnceItsHolderIsKilledAndNotIfStoppedFirst() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "reaper-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let docker = directory.appendingPathComponent("docker")
    let stops = directory.appendingPathComponent("stops")
    try "#!/bin/sh\necho \"$@\" >> '\(stops.path)'\n".write(
      to: docker, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: docker.path)

    let stoppedFirst = try Reaper(docker: docker, container: "stopped-first")
    kill(stoppedFirst.process.processIdentifier, SIGKILL)  // as its server's stop() does
    stoppedFirst.process.waitUntilExit()

    let reaper = try Reaper(docker: docker, container: "c0ffee")
    let holder = Process()  // the test process's stand-in, holding the pipe's writer
    holder.executableURL = URL(fileURLWithPath: "/bin/sleep")
    holder.arguments = ["100"]
    holder.standardOutput = reaper.writer
    try holder.run()
    try reaper.writer.close()
    usleep(200_000)
    #expect(reaper.process.isRunning)  // its writer lives on in the holder
    kill(holder.processIdentifier, SIGKILL)
    reaper.process.waitUntilExit()
    #expect(try String(contentsOf: stops, encoding: .utf8) == "stop c0ffee\n")
  }

  /// A command the launcher runs (`docker run`) that fails says why, in its own words.
  @Test func aFailedCommandSaysWhy() throws {
    let error = #expect(throws: LifecycledServerError.self) {
      try LifecycledServer.output(
        of: URL(fileURLWithPath: "/bin/sh"), ["-c", "echo 'no such image' >&2; exit 125"])
    }
    #expect(
      error?.description
        == "/bin/sh -c echo 'no such image' >&2; exit 125 failed: no such image")
  }
}
