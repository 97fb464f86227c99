import JSONCore
import LifecycleEngine

/// What happened, as JSON (described in `openapi.yaml`): callbacks, transitions, event results
/// and journal entries, written member by member.
extension JSONWriter {
  /// A callback: `{"seq":…,"time":…,"app":…,"scene":…,"method":…,"notifications":[…],
  /// "state":…,"sceneState":…,"taskId":…}`, the last two when they apply; one still waiting
  /// for its app's main thread has no `seq` and `time` yet.
  mutating func callback(
    _ callback: Callback, waiting: Bool = false, texts: borrowing CallbackTexts = .shared
  ) {
    withUnsafePointer(to: callback) { self.callback(at: $0, waiting: waiting, texts: texts) }
  }

  /// The callback at `stored`, read where it is: responses are mostly callbacks, and a copy of
  /// one (its strings retained, then released) costs more than writing most of it. All but
  /// the arguments are written into room reserved at once, everything after the scene copied
  /// from `texts`.
  @inline(__always)
  private mutating func callback(
    at stored: UnsafePointer<Callback>, waiting: Bool, texts: borrowing CallbackTexts
  ) {
    beginObject()
    let names = stored.pointee.app.withUTF8(\.count) + (stored.pointee.scene?.utf8.count ?? 0)
    withRoom(texts.room + names) { c in
      if waiting {
        c.raw(#""app":""#)
      } else {
        c.raw(#""seq":"#)
        c.decimal(UInt64(stored.pointee.seq))
        c.raw(#","time":"#)
        c.seconds(milliseconds: stored.pointee.time.milliseconds)
        c.raw(#","app":""#)
      }
      // Names need no escaping (`Validation.namePattern`).
      stored.pointee.app.withUTF8 { c.raw($0) }
      if var scene = stored.pointee.scene {
        c.raw(#"","scene":""#)
        scene.withUTF8 { c.raw($0) }
        c.raw(UInt8(ascii: "\""))
      } else {
        c.raw(#"","scene":null"#)
      }
      let method = stored.pointee.method
      texts.methodAndOwnNotification.withText(of: method) { c.raw($0) }
      if let aggregate = stored.pointee.aggregateNotification {
        if method.notification != nil { c.raw(UInt8(ascii: ",")) }
        texts.notification.withText(of: aggregate) { c.raw($0) }
      }
      texts.endOfNotificationsAndState.withText(of: stored.pointee.state) { c.raw($0) }
      if let sceneState = stored.pointee.sceneState {
        texts.sceneStateMember.withText(of: sceneState) { c.raw($0) }
      }
      if let taskId = stored.pointee.taskId {
        c.raw(#","taskId":"#)
        c.decimal(UInt64(taskId))
      }
    }
    if let arguments = stored.pointee.arguments {
      key("arguments")
      self.arguments(arguments, of: stored.pointee.method)
    }
    endObject()
  }

  /// `"cause":…`, and for jetsam `"jetsamReason":…`: a cause kept beside what it caused.
  mutating func members(of cause: TransitionCause) {
    member("cause", cause.name)
    if case .jetsam(let reason) = cause { member("jetsamReason", reason) }
  }

  /// A transition: `{"seq":…,"time":…,"app":…,"from":…,"to":…,"cause":…}`, then
  /// `terminationCode` and `jetsamReason` when they apply.
  mutating func transition(_ transition: Transition, texts: borrowing TransitionTexts = .shared) {
    beginObject()
    let name = transition.app.withUTF8(\.count)
    withRoom(texts.room + name) { c in  // as a callback is written
      c.raw(#""seq":"#)
      c.decimal(UInt64(transition.seq))
      c.raw(#","time":"#)
      c.seconds(milliseconds: transition.time.milliseconds)
      c.raw(#","app":""#)
      transition.app.withUTF8 { c.raw($0) }
      c.raw(UInt8(ascii: "\""))
      texts.fromMember.withText(of: transition.from) { c.raw($0) }
      texts.toMember.withText(of: transition.to) { c.raw($0) }
    }
    if case .event(let type) = transition.cause {
      verbatim(texts.eventCauseMember, type)
    } else {
      member("cause", unescaped: transition.cause.name)
    }
    if let code = transition.terminationCode {
      member("terminationCode", code)
    }
    if case .jetsam(let reason) = transition.cause {
      member("jetsamReason", reason)
    }
    endObject()
  }

  /// The result of one event (`openapi.yaml`).
  mutating func eventResult(
    _ outcome: EventOutcome, device: String, app: String?, event: RecordedEvent,
    previousState: ReportedState, state: ReportedState
  ) {
    // Keys written as the text around them, in room reserved at once (as a callback is):
    // the shape is the same for every event. Names need no escaping.
    beginObject()
    withRoom(Self.resultHeadRoom + device.utf8.count + (app?.utf8.count ?? 0)) { c in
      var device = device
      c.raw(#""device":""#)
      device.withUTF8 { c.raw($0) }
      if var app {
        c.raw(#"","app":""#)
        app.withUTF8 { c.raw($0) }
        c.raw(#"","event":"#)
      } else {
        c.raw(#"","app":null,"event":"#)
      }
    }
    self.event(event)
    withRoom(Self.resultStatesRoom) { c in
      c.raw(#","previousState":"#)
      previousState.withQuotedName { c.raw($0) }
      c.raw(#","state":"#)
      state.withQuotedName { c.raw($0) }
      c.raw(#","callbacks":"#)
    }
    callbacks(outcome.callbacks)
    raw(#","waitingCallbacks":"#)
    callbacks(outcome.waitingCallbacks, waiting: true)
    raw(#","transitions":"#)
    transitions(outcome.transitions)
    raw(#","effects":"#)
    array(outcome.effects(excluding: outcome.subject?.app)) { w, effect in
      w.object { w in
        w.member("app", effect.app)
        w.member("previousState", effect.previousState)
        w.member("state", effect.state)
      }
    }
    if let result = outcome.result {  // absent for the events that return nothing
      raw(#","result":"#)
      self.result(result)
    }
    raw(#","lastSeq":"#)
    rawDecimal(UInt64(outcome.lastSeq))
    endObject()
  }

  /// The most an event result's text takes up to its event but the names (a null app
  /// takes two more than its quotes).
  private static var resultHeadRoom: Int {
    // Folded at compile time; a `static let` would be a global made lazily, checked at each read.
    (#""device":"","app":null,"event":"# as StaticString).utf8CodeUnitCount
  }
  /// The most its two states and the key after them take.
  private static let resultStatesRoom =
    #","previousState":,"state":,"callbacks":"#.utf8.count + 2
    * max(AppState.quotedNames.longest, DeviceState.quotedNames.longest)

  /// Callbacks, each read where it is stored (`callback(at:waiting:texts:)`), all written from
  /// the same texts: read once, and only when there are callbacks, as each read of a static
  /// constant is a call that checks it is made.
  mutating func callbacks(_ callbacks: some Collection<Callback>, waiting: Bool = false) {
    beginArray()
    if !callbacks.isEmpty {
      let texts = CallbackTexts.shared
      let written: Void? = callbacks.withContiguousStorageIfAvailable { stored in
        for index in stored.indices {
          callback(at: stored.baseAddress! + index, waiting: waiting, texts: texts)
        }
      }
      if written == nil {  // made as they are read, as an app's waiting callbacks are
        for each in callbacks { callback(each, waiting: waiting, texts: texts) }
      }
    }
    endArray()
  }

  /// Transitions, each written from the same texts (as callbacks are).
  mutating func transitions(_ transitions: [Transition]) {
    let texts = TransitionTexts.shared
    array(transitions) { $0.transition($1, texts: texts) }
  }

  /// What an event returned: the task `beginBackgroundTask` began, the work `backgroundLaunch`
  /// or `launchTask` handed over (and what the latter went past), the task `expireTask`
  /// expired, the scene `openScene` opened.
  mutating func result(_ result: EventResult) {
    switch result {
    case .backgroundTask(let id, let expiresAt):
      object { w in
        w.member("taskId", id)
        w.member("expiresAt", time: expiresAt)
      }
    case .backgroundWork(let id, let deadline, let bypassed):
      object { w in
        w.member("workId", id)
        w.member("deadline", time: deadline)
        if !bypassed.isEmpty {
          w.key("bypassed")
          w.holdReasons(bypassed)
        }
      }
    case .push(let delivery):
      object { w in
        switch delivery {
        case .delivered(let workId):
          w.member("delivery", "delivered")
          if let workId { w.member("workId", workId) }
        case .displayed:
          w.member("delivery", "displayed")
        case .dropped(let reasons):
          w.member("delivery", "dropped")
          w.key("reasons")
          w.holdReasons(reasons)
        }
      }
    case .scene(let id):
      object { $0.member("scene", id) }
    }
  }

  mutating func jetsamRecord(_ record: JetsamRecord) {
    object { w in
      w.member("jetsamEvent", record.event)
      w.member("time", time: record.time)
      w.member("app", record.app)
      w.member("reason", record.reason)
      w.member("footprintMB", record.footprintMB)
      w.member("state", record.state)
    }
  }

  mutating func journalEntry(_ entry: JournalEntry) {
    object { w in
      switch entry {
      case .callback(let callback):
        w.member("kind", "callback")
        w.key("callback")
        w.callback(callback)
      case .transition(let transition):
        w.member("kind", "transition")
        w.key("transition")
        w.transition(transition)
      case .event(let seq, let time, let app, let event):
        w.member("kind", "event")
        w.member("seq", seq)
        w.member("time", time: time)
        w.member("app", app)
        w.key("event")
        w.event(event)
      }
    }
  }

  /// An event as its request body wrote it.
  mutating func event(_ event: RecordedEvent) {
    switch event {
    case .device(let event): self.event(event)
    case .app(let event): self.event(event)
    }
  }

  private mutating func event(_ event: some ParameterizedEvent) {
    object { w in
      w.key("type")
      w.enumCase(event.type)
      event.forEachParameter { w.parameter($0) }
    }
  }

  /// One parameter of an event, under its name (an entry's members stand for it).
  private mutating func parameter(_ parameter: EventParameter) {
    switch parameter.value {
    case .sceneID(let text), .taskName(let text): member(parameter.name, text)
    case .restorationData(let text): member(parameter.name, json: text)
    case .taskID(let number), .megabytes(let number): member(parameter.name, number)
    case .flag(let flag): member(parameter.name, flag)
    case .choice(let name): member(parameter.name, unescaped: name)
    case .entry(let entry): members(of: entry)
    case .payload(let text): member(parameter.name, json: text)
    case .sessionIdentifier(let text), .taskIdentifier(let text), .appName(let text),
      .version(let text):
      member(parameter.name, text)
    case .percent(let number), .count(let number, _): member(parameter.name, number)
    case .instant(let time): member(parameter.name, time: time)
    }
  }
}

/// The state an event result reports before and after the event: the app's for app events,
/// the device's (on and locked, or off) for device events.
enum ReportedState {
  case app(AppState)
  case device(DeviceState)

  /// Calls `body` with the state's name in quotes.
  func withQuotedName(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    switch self {
    case .app(let state): AppState.quotedNames.withText(of: state, body)
    case .device(let state): DeviceState.quotedNames.withText(of: state, body)
    }
  }
}

/// The text a callback is written from but its numbers and names, prepared per case.
struct CallbackTexts {
  static let shared = CallbackTexts()

  /// `,"method":"…","notifications":[` and the method's own notification, leaving the array
  /// open for the aggregate one.
  let methodAndOwnNotification = CaseTexts<CallbackMethod> { method in
    #","method":"\#(method.rawValue)","notifications":["#
      + (method.notification.map { "\"\($0.rawValue)\"" } ?? "")
  }
  /// A notification's name in quotes.
  let notification = UIKitNotification.quotedNames
  /// `],"state":"…"`
  let endOfNotificationsAndState = CaseTexts<AppState> { #"],"state":"\#($0.rawValue)""# }
  /// `,"sceneState":"…"`
  let sceneStateMember = CaseTexts<SceneState> { #","sceneState":"\#($0.rawValue)""# }

  /// The most a callback takes between its braces but its names and arguments.
  let room: Int

  private init() {
    room =
      #""seq":,"time":,"app":"","scene":""#.utf8.count + JSONCursor.decimalRoom
      + JSONCursor.secondsRoom + methodAndOwnNotification.longest + 1 + notification.longest
      + endOfNotificationsAndState.longest + sceneStateMember.longest
      + #","taskId":"#.utf8.count + JSONCursor.decimalRoom
  }
}

/// The text a transition is written from but its numbers and name, prepared per case.
struct TransitionTexts {
  static let shared = TransitionTexts()

  /// `,"from":"…"`
  let fromMember = CaseTexts<AppState> { #","from":"\#($0.rawValue)""# }
  /// `,"to":"…"`
  let toMember = CaseTexts<AppState> { #","to":"\#($0.rawValue)""# }
  /// `,"cause":"…"` for the transitions that events cause: nearly all of them.
  let eventCauseMember = CaseTexts<EventType> { #","cause":"\#($0.rawValue)""# }

  /// The most a transition takes from its `seq` to its `to` but its app's name.
  let room: Int

  private init() {
    room =
      #""seq":,"time":,"app":""#.utf8.count + JSONCursor.decimalRoom + JSONCursor.secondsRoom
      + fromMember.longest + toMember.longest
  }
}
