import Foundation
import LifecycleEngine
import LifecycledClient
import OpenAPIRuntime
import Testing

/// The client's event values (`.launch()`, `.lock`, ...) name every event the server declares
/// (`EventDeclaration`), each under its own type: a new event fails here until the client
/// has a value for it.
@Suite struct EventValueTests {
  static let appEvents: [Components.Schemas.AppEvent] = [
    .launch(), .prewarm, .openScene(), .closeScene(named: "main"),
    .disconnectScene(named: "main"), .home, .openSwitcher, .closeSwitcher,
    .interruptionBegan(by: .call), .interruptionEnded(), .terminate, .crash(), .purge(),
    .thermalKill, .backgroundLaunch(for: .fetch), .backgroundWorkCompleted,
    .beginBackgroundTask(), .endBackgroundTask(id: 1), .memoryWarning, .setMemory(megabytes: 1),
    .startActivity(of: .audio), .stopActivity(of: .audio),
    try! .setRestorationData(to: ["tab": 1]),
    .submitTaskRequest(identifier: "refresh", kind: .appRefresh),
    .cancelTaskRequest(identifier: "refresh"), .launchTask(identifier: "refresh"),
    .expireTask(identifier: "refresh"),
    .reportProgress(identifier: "export", completed: 1, of: 4), .attachDebugger, .detachDebugger,
    .updateApp(version: "2.0", build: "7"), .reinstall,
  ]

  static let deviceEvents: [Components.Schemas.DeviceEvent] = [
    .home, .memoryWarning, .lock, .unlock, .significantTimeChange, .shutdown, .boot,
    .setConditions(), .setBackgroundAppRefresh(of: "mail", enabled: true), .push(to: "mail"),
    .deliverMetrics, .updateOS(version: "26.2"),
  ]

  @Test func theClientHasAValueForEveryDeclaredEvent() throws {
    #expect(try Self.appEvents.map(Self.type) == EventDeclaration.app.map(\.type.rawValue))
    #expect(try Self.deviceEvents.map(Self.type) == EventDeclaration.device.map(\.type.rawValue))
  }

  /// The `type` an event value is written with.
  static func type(_ event: some Encodable) throws -> String {
    let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(event))
    return try #require((object as? [String: Any])?["type"] as? String)
  }

  /// Restoration data the contract always sends (an app's `restorationData`) is null when
  /// nothing was saved: it reads as nil, and a saved value as what was saved.
  @Test func restorationDataReadsAsNilWhenNothingWasSaved() throws {
    let nothing = try JSONDecoder().decode(OpenAPIValueContainer.self, from: Data("null".utf8))
    #expect(nothing.isNull)
    #expect(try nothing.decoded(as: [String: Int].self) == nil)
    let saved = try JSONDecoder().decode(
      OpenAPIValueContainer.self, from: Data(#"{"tab":2}"#.utf8))
    #expect(!saved.isNull)
    #expect(try saved.decoded(as: [String: Int].self) == ["tab": 2])
  }
}
