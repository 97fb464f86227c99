import Foundation
import HTTPTypes
import LifecycleEngine
import OpenAPIRuntime
import Testing

@testable import LifecycledClient

/// The generated client against the real server: a scripted session calls every operation of
/// the contract, and each answer decodes as its schema says (a member the schema does not
/// allow, or a required one missing, fails the call).
@Suite(.liveServer) struct ContractSessionTests {
  @Test func everyOperationsAnswerDecodes() async throws {
    let answered = AnsweredOperations()
    let server = try #require(LifecycledServer.current)
    let client = Client(
      serverURL: server.url, transport: server.transport ?? Lifecycled.defaultTransport,
      middlewares: [answered])

    _ = try await client.liveness().ok.body.json
    _ = try await client.readiness().ok.body.json
    _ = try await client.health().ok.body.json
    _ = try await client.metrics().ok.body.plainText
    _ = try await client.reset().noContent
    _ = try await client.getPage().ok.body.html
    _ = try await client.getPageStyle().ok.body.textCss
    _ = try await client.getPageScript().ok.body.textJavascript
    _ = try await client.listProfiles().ok.body.json

    // A device, a declaration put beside it, and their apps.
    _ = try await client.createDevice(
      body: .json(.init(id: "s1", clock: .manual, labels: .init(additionalProperties: ["s": "1"])))
    ).created.body.json
    _ = try await client.putDevice(
      path: .init(device: "s2"),
      body: .json(.DeviceDeclaration(.init(clock: .manual, apps: [.init(name: "maps")])))
    ).created.body.json
    _ = try await client.listDevices().ok.body.json
    _ = try await client.getDevice(path: .init(device: "s1")).ok.body.json
    _ = try await client.createApp(
      path: .init(device: "s1"), body: .json(.init(name: "mail", backgroundModes: [.fetch]))
    ).created.body.json
    _ = try await client.createApp(path: .init(device: "s1"), body: .json(.init(name: "notes")))
      .created.body.json
    _ = try await client.listApps(path: .init(device: "s1")).ok.body.json

    // Events of every answer's shape: one event, a scenario, a device event.
    _ = try await client.postAppEvent(
      path: .init(device: "s1", app: "mail"), body: .json(.AppEvent(.launch()))
    ).ok.body.json
    _ = try await client.postAppEvent(
      path: .init(device: "s1", app: "mail"),
      body: .json(.AppEventList([.beginBackgroundTask(name: "upload"), .home]))
    ).ok.body.json
    _ = try await client.postAppEvent(
      path: .init(device: "s1", app: "notes"),
      body: .json(.AppScenario(.init(events: [.launch(), .home], atomic: true)))
    ).ok.body.json
    _ = try await client.postDeviceEvent(
      path: .init(device: "s1"), body: .json(.DeviceEvent(.lock))
    )
    .ok.body.json
    _ = try await client.advanceClock(
      path: .init(device: "s1"), body: .json(.AdvanceBySeconds(.init(seconds: 200)))
    ).ok.body.json
    _ = try await client.postAppEvent(
      path: .init(device: "s1", app: "notes"), body: .json(.AppEvent(.purge(reason: .highwater)))
    ).ok.body.json
    _ = try await client.getApp(
      path: .init(device: "s1", app: "mail"), query: .init(waitFor: .suspended, timeout: 1)
    )
    .ok.body.json
    _ = try await client.getCallbacks(path: .init(device: "s1", app: "mail")).ok.body.json
    _ = try await client.getClock(path: .init(device: "s1")).ok.body.json
    _ = try await client.getJournal(path: .init(device: "s1")).ok.body.json
    _ = try await client.streamJournal(path: .init(device: "s1"), query: .init(timeout: 0))
      .ok.body.textEventStream
    let kills = try await client.getJetsamLog(path: .init(device: "s1")).ok.body.json.kills
    _ = try await client.getJetsamReport(
      path: .init(device: "s1", jetsamEvent: try #require(kills.last).jetsamEvent)
    ).ok.body.json
    _ = try await client.getTimeline(path: .init(device: "s1")).ok.body.imageSvgXml
    _ = try await client.getAppTimeline(path: .init(device: "s1", app: "mail")).ok.body
      .imageSvgXml
    _ = try await client.getDeviceSnapshot(path: .init(device: "s1")).ok.body.json

    // A snapshot put back, the device reset, apps and devices removed.
    var snapshot = try await client.getDeviceSnapshot(path: .init(device: "s1")).ok.body.json
    snapshot.device.id = nil  // to be put under another id
    _ = try await client.putDevice(
      path: .init(device: "s3"), body: .json(.DeviceSnapshotDocument(snapshot))
    ).created.body.json
    _ = try await client.resetDevice(path: .init(device: "s3")).ok.body.json
    _ = try await client.deleteApp(path: .init(device: "s2", app: "maps")).noContent
    _ = try await client.deleteDevice(path: .init(device: "s3")).noContent
    _ = try await client.removeDevicesByLabel(query: .init(label: "s=1")).ok.body.json

    // The default device's shortcuts.
    _ = try await client.createAppOnDefaultDevice(body: .json(.init(name: "music")))
      .created.body.json
    _ = try await client.listAppsOnDefaultDevice().ok.body.json
    _ = try await client.postAppEventOnDefaultDevice(
      path: .init(app: "music"), body: .json(.AppEvent(.launch()))
    ).ok.body.json
    _ = try await client.getAppOnDefaultDevice(path: .init(app: "music")).ok.body.json
    _ = try await client.getCallbacksOnDefaultDevice(path: .init(app: "music")).ok.body.json
    _ = try await client.getAppTimelineOnDefaultDevice(path: .init(app: "music")).ok.body
      .imageSvgXml
    _ = try await client.deleteAppOnDefaultDevice(path: .init(app: "music")).noContent

    #expect(answered.operations == Set(try Self.contractOperations()))
  }

  /// Callback methods and termination codes are named in Swift as the engine names them (the
  /// contract's `x-enum-varnames`, the generator's `nameOverrides`), not after their wire values.
  @Test func methodsAndCodesHaveTheEnginesNames() {
    func names<Cases: CaseIterable & RawRepresentable<String>>(_: Cases.Type) -> [String] {
      Cases.allCases.map { "\($0)=\($0.rawValue)" }
    }
    #expect(names(Components.Schemas.CallbackMethod.self) == names(CallbackMethod.self))
    #expect(names(Components.Schemas.TerminationCode.self) == names(TerminationCode.self))
  }

  /// The `operationId` of every operation of the contract.
  private static func contractOperations() throws -> [String] {
    let root = #filePath.components(separatedBy: "/Tests/")[0]
    let contract = try String(contentsOfFile: root + "/openapi.yaml", encoding: .utf8)
    return contract.split(separator: "\n").compactMap { line in
      line.hasPrefix("      operationId: ") ? String(line.dropFirst(19)) : nil
    }
  }
}

/// Notes each operation the server answered with a 2xx.
final class AnsweredOperations: ClientMiddleware, @unchecked Sendable {  // `answered` under `lock`
  private let lock = NSLock()
  private var answered: Set<String> = []

  var operations: Set<String> { lock.withLock { answered } }

  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?) {
    let (response, responseBody) = try await next(request, body, baseURL)
    if response.status.kind == .successful {
      _ = lock.withLock { answered.insert(operationID) }
    }
    return (response, responseBody)
  }
}
