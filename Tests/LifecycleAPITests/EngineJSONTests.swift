import JSONCore
import Testing

@testable import LifecycleAPI
@testable import LifecycleEngine

/// The engine's values in JSON: enumerations by their raw values, callbacks and transitions
/// from prepared text.
@Suite struct EngineJSONTests {
  func text(_ write: (inout JSONWriter) -> Void) -> String {
    String(decoding: JSONWriter.encode(write), as: UTF8.self)
  }

  /// Every enumeration the writer copies from prepared text writes each case as its raw value,
  /// and reads it back by name: this fails if a type's layout stops matching its case order.
  @Test func everyCaseOfEveryNamedEnumerationIsWrittenAndReadAsItsRawValue() {
    func check<Cases: NamedCases & Equatable>(_ type: Cases.Type) {
      for each in Cases.allCases {
        #expect(text { $0.enumCase(each) } == "\"\(each.rawValue)\"", "\(type).\(each)")
        #expect(Cases(named: each.rawValue) == each)
        #expect(Cases(named: each.rawValue + "x") == nil)
        #expect(Cases(named: String(each.rawValue.dropLast())) == nil)
      }
      #expect(Cases(named: "") == nil)
    }
    check(AppState.self)
    check(SceneState.self)
    check(LifecycleModel.self)
    check(BackgroundMode.self)
    check(ClockMode.self)
    check(EventType.self)
    check(TaskKind.self)
    check(NetworkStatus.self)
    check(TaskSchedulingPolicy.self)
    check(PushKind.self)
    check(InterruptionSource.self)
    check(InterruptionOutcome.self)
    check(BackgroundLaunchReason.self)
    check(JetsamReason.self)
    check(CallbackMethod.self)
    check(UIKitNotification.self)
    check(TerminationCode.self)
  }
  /// Callback methods and termination codes, whose names on the wire are not identifiers, have
  /// in the contract the engine's case names beside them (`x-enum-varnames`, which client
  /// generators name their cases by).
  @Test func theContractNamesEveryMethodAndCodeAsTheEngineDoes() throws {
    func check<Cases: NamedCases>(_: Cases.Type, schema: String) throws {
      let contract = try Self.enumeration(schema)
      #expect(contract.values == Cases.allCases.map(\.rawValue), "\(schema): enum")
      #expect(contract.names == Cases.allCases.map { "\($0)" }, "\(schema): x-enum-varnames")
    }
    try check(CallbackMethod.self, schema: "CallbackMethod")
    try check(TerminationCode.self, schema: "TerminationCode")
  }

  /// The `enum` and `x-enum-varnames` lists of schema `name` in `openapi.yaml`, each written
  /// on one line as a flow sequence.
  static func enumeration(_ name: String) throws -> (values: [String], names: [String]) {
    let contract = try String(
      contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/openapi.yaml",
      encoding: .utf8)
    let lines = contract.split(separator: "\n").drop { $0 != "    \(name):" }.prefix(6)
    func list(_ key: String) -> [String] {
      guard let line = lines.first(where: { $0.hasPrefix("      \(key): [") }) else { return [] }
      return line.drop { $0 != "[" }.dropFirst().dropLast().split(separator: ", ").map {
        $0.hasPrefix("\"") ? String($0.dropFirst().dropLast()) : String($0)
      }
    }
    return (list("enum"), list("x-enum-varnames"))
  }

  /// Callbacks and transitions are written from text prepared per case: every combination of
  /// their enumerations comes out as the member-by-member shape `openapi.yaml` describes.
  @Test func callbacksAndTransitionsOfEveryShape() {
    func time(_ instant: Instant) -> JSON { .double(Double(instant.milliseconds) / 1000) }
    let instant = Instant(milliseconds: 12_345)
    for method in CallbackMethod.allCases {
      for state in AppState.allCases {
        for sceneState in [nil] + SceneState.allCases {
          for aggregate in [nil] + UIKitNotification.allCases {
            for taskId in [nil, 7] {
              let callback = Callback(
                seq: 42, time: instant, app: "mail", method: method,
                aggregateNotification: aggregate, state: state, sceneState: sceneState,
                scene: method.isSceneCallback && sceneState != nil ? "scene-2" : nil,
                arguments: nil, taskId: taskId)
              var members: [(String, JSON)] = [
                ("seq", .integer(42)), ("time", time(instant)), ("app", .string("mail")),
                ("scene", callback.scene.map(JSON.string) ?? .null),
                ("method", .string(method.rawValue)),
                ("notifications", .array(callback.notifications.map { .string($0.rawValue) })),
                ("state", .string(state.rawValue)),
              ]
              if let sceneState { members.append(("sceneState", .string(sceneState.rawValue))) }
              if let taskId { members.append(("taskId", .integer(taskId))) }
              #expect(text { $0.callback(callback) } == text { $0.value(.object(members)) })
            }
          }
        }
      }
    }
    let causes: [TransitionCause] =
      EventType.allCases.map(TransitionCause.event)
      + [.suspension, .watchdog, .backgroundTaskExpiration, .backgroundWorkTimeout]
      + JetsamReason.allCases.map(TransitionCause.jetsam)
    for from in AppState.allCases {
      for to in AppState.allCases {
        for cause in causes {
          for code in [nil] + TerminationCode.allCases {
            let transition = Transition(
              seq: 9, time: instant, app: "maps", from: from, to: to, cause: cause,
              terminationCode: code)
            var members: [(String, JSON)] = [
              ("seq", .integer(9)), ("time", time(instant)), ("app", .string("maps")),
              ("from", .string(from.rawValue)), ("to", .string(to.rawValue)),
              ("cause", .string(cause.name)),
            ]
            if let code { members.append(("terminationCode", .string(code.rawValue))) }
            if case .jetsam(let reason) = cause {
              members.append(("jetsamReason", .string(reason.rawValue)))
            }
            #expect(text { $0.transition(transition) } == text { $0.value(.object(members)) })
          }
        }
      }
    }
  }

  /// The room a callback, a transition or an event result reserves holds its longest: the
  /// largest numbers, the longest names and texts, every optional member (a debug build traps
  /// on writing past the room).
  @Test func theLongestCallbackTransitionAndEventResultFitTheirRoom() throws {
    func longest<Cases: NamedCases>(_: Cases.Type) -> Cases {
      Cases.allCases.max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }!
    }
    let longName = String(repeating: "n", count: AppName.capacity)
    let instant = Instant(milliseconds: -Int64.max)
    for method in CallbackMethod.allCases {
      let callback = Callback(
        seq: .max, time: instant, app: AppName(longName)!, method: method,
        aggregateNotification: longest(UIKitNotification.self), state: longest(AppState.self),
        sceneState: longest(SceneState.self), scene: longName, arguments: nil, taskId: .max)
      for waiting in [false, true] {
        let written = text { $0.callback(callback, waiting: waiting) }
        let parsed = try JSON.parse(Array(written.utf8))
        #expect(parsed["app"] == .string(longName))
        #expect(parsed["taskId"] == .integer(.max))
        #expect(parsed["seq"] == (waiting ? nil : .integer(.max)))
      }
    }
    let transition = Transition(
      seq: .max, time: instant, app: AppName(longName)!, from: longest(AppState.self),
      to: longest(AppState.self), cause: .jetsam(.perProcessLimit), terminationCode: .watchdog)
    let parsed = try JSON.parse(Array(text { $0.transition(transition) }.utf8))
    #expect(parsed["seq"] == .integer(.max))
    #expect(parsed["jetsamReason"] == .string("per-process-limit"))
    for app in [nil, longName] {
      let states: [ReportedState] = [
        .app(longest(AppState.self)), .device(longest(DeviceState.self)),
      ]
      for state in states {
        let result = try JSON.parse(
          Array(
            text {
              $0.eventResult(
                EventOutcome(), device: longName, app: app, event: .device(.memoryWarning),
                previousState: state, state: state)
            }.utf8))
        #expect(result["device"] == .string(longName))
        #expect(result["app"] == (app.map(JSON.string) ?? .null))
      }
    }
  }

  /// A device version's `ETag` is its incarnation and journal seq, quoted: the shortest, one
  /// of the 15 bytes a String holds in itself, one a byte longer, and the longest.
  @Test func entityTagsSpellTheVersionAtEveryWidth() {
    let tags = [(0, 0), (1, 2), (12_345, 5_678_901), (123_456, 5_678_901), (.max, .max)].map {
      LifecycleAPI.entityTag(DeviceVersion(incarnation: $0, seq: $1))
    }
    #expect(
      tags == [
        #""0-0""#, #""1-2""#, #""12345-5678901""#, #""123456-5678901""#,
        #""9223372036854775807-9223372036854775807""#,
      ])
    #expect(tags.map(\.utf8.count) == [5, 5, 15, 16, 41])
  }
}
