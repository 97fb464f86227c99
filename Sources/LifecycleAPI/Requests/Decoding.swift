import CPacing
import JSONCore
import LifecycleEngine

/// Request bodies into engine values.
enum Decode {
  /// A new device's configuration; its id `id` if the body leaves it out, the members it
  /// leaves out from `defaults`.
  static func device(_ body: JSONDocument, id: String, defaults: DeviceDefaults)
    throws(Problem) -> DeviceConfiguration
  {
    var fields = Fields(body)
    let configuration = device(&fields, id: id, defaults: defaults)
    if let problem = fields.problem() { throw problem }
    return configuration
  }

  /// A device's configuration, read from its object's fields over `defaults`: a body's or a
  /// fixture's device (a member left out takes the default), or a snapshot's of format
  /// `version` (`complete`: the clock, model and release are required). Its id `id` if they
  /// leave it out, else the id is required.
  static func device(
    _ fields: inout Fields, id: String? = nil, defaults: DeviceDefaults, complete: Bool = false,
    version: Int = SnapshotFormat.version
  ) -> DeviceConfiguration {
    var configuration = defaults.configuration(
      id: fields.string("id", required: id == nil, maxBytes: Validation.maxNameBytes) ?? id ?? "")
    fields.read(&configuration, SnapshotReading(version: version, isDeclaration: !complete))
    return configuration
  }

  /// A new app's configuration, and the state it starts in if `given` names one.
  static func app(_ body: JSONDocument) throws(Problem) -> (AppSpec, AppGiven?) {
    var fields = Fields(body)
    let spec = app(&fields)
    var given: AppGiven?
    if var details = fields.object("given") {
      if let state = details.choice("state", AppState.self, required: true) {
        given = AppGiven(
          state: state,
          backgroundTasks: details.array(
            "backgroundTasks", maxCount: Validation.maxScenarioEvents
          ) { task -> String?? in
            task.nullIsAbsent = true  // a task with no name: "name" null or left out
            return .some(task.string("name", maxBytes: Validation.maxTaskNameBytes))
          } ?? [],
          activities: details.choices("activities", BackgroundActivity.self) ?? [],
          restorationStateSaved: details.bool("restorationStateSaved") ?? false)
      }
      fields.merge(details)
    }
    if let problem = fields.problem() { throw problem }
    return (spec, given)
  }

  /// An app's configuration, read from its object's fields (a body, or a snapshot's app):
  /// the members given, over `AppSpec`'s defaults (stated there, and only there). A pause
  /// point: a device document of a thousand apps is read off the loop.
  static func app(_ fields: inout Fields) -> AppSpec {
    pacing_pause()
    var spec = AppSpec(
      name: fields.string("name", required: true, maxBytes: Validation.maxNameBytes) ?? "")
    fields.read(&spec, SnapshotReading(version: SnapshotFormat.version, isDeclaration: true))
    return spec
  }

  /// One app event object, such as `{"type": "backgroundLaunch", "reason": "fetch"}`: its
  /// parameters are read as the engine declares them (`AppEvent.init(_:reading:)`).
  static func appEvent(_ fields: inout Fields) -> AppEvent? {
    guard let type = fields.choice("type", EventType.self, required: true) else { return nil }
    guard type.isAppEvent else {
      fields.reject("type", "is a device event: post it to /v1/devices/{device}/events")
      return nil
    }
    return AppEvent(type, reading: &fields)
  }

  /// One device event object, such as `{"type": "lock"}`: its parameters are read as the
  /// engine declares them (`DeviceEvent.init(_:reading:)`).
  static func deviceEvent(_ fields: inout Fields) -> DeviceEvent? {
    guard let type = fields.choice("type", EventType.self, required: true) else { return nil }
    guard let kind = DeviceEvent.Kind(type) else {
      fields.reject("type", "is an app event: post it to /v1/devices/{device}/apps/{app}/events")
      return nil
    }
    return DeviceEvent(kind, reading: &fields)
  }

  /// The events of a request body: one event, a scenario as an array of them, or a scenario
  /// as `{"events": [...], "atomic": true}` (`openapi.yaml`, `Scenario`).
  static func events<Event>(
    _ body: JSONDocument, _ decode: (inout Fields) -> Event?
  ) throws(Problem) -> PostedEvents<Event> {
    var posted = PostedEvents<Event>()
    var issues = ValidationIssues()
    var fields = Fields(objectsOf: body)
    func read(_ index: Int, at location: Fields.Location) {
      fields.read(index, location: location)
      let event = decode(&fields)
      if fields.problem() != nil {
        issues.append(contentsOf: fields.issues)
      } else if let event {
        posted.events.append(event)
      }
    }
    var list = JSONDocument.root
    var listName = ""
    if body[JSONDocument.root].kind != .array {
      var scenario = Fields(body)
      guard body[JSONDocument.root].kind == .object,
        let events = scenario.member("events", required: false)
      else {
        read(JSONDocument.root, at: .body)
        if let problem = Fields.problem(issues) { throw problem }
        return posted
      }
      posted.isAtomic = scenario.bool("atomic") ?? false
      if let problem = scenario.problem() { throw problem }
      list = events
      listName = "events"
    }
    posted.isScenario = true
    guard body[list].kind == .array,
      (1...Validation.maxScenarioEvents).contains(Int(body[list].count))
    else {
      throw Problem.validation(
        listName.isEmpty ? "body" : listName,
        "must be an array of 1 to \(Validation.maxScenarioEvents) events")
    }
    posted.events.reserveCapacity(Int(body[list].count))
    for (position, element) in body.children(of: list).enumerated() {
      read(
        element, at: listName.isEmpty ? .element(position) : .member(path: "events[\(position)]"))
    }
    if let problem = Fields.problem(issues) { throw problem }
    return posted
  }
}

/// What a request posts: its events, and how to apply them.
struct PostedEvents<Event> {
  var events: [Event] = []
  /// The body is a scenario: its response lists each event's result.
  var isScenario = false
  /// All events or none (`ScenarioMode.atomic`).
  var isAtomic = false
}
