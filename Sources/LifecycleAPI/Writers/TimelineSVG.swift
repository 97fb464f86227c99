import CPacing
import LifecycleEngine

/// A device's journal drawn as an SVG picture, as Instruments draws a trace: a lane for the
/// device's own events, then one per app, its state as coloured bands over device time, each
/// callback a tick labelled with its method, kills and the deadlines that fired marked where
/// they happened, and a legend. An app with several scenes has a lane under its own for each,
/// with the scene's state and its callbacks.
///
/// The picture is a pure function of the entries and the window, so the same journal always
/// draws the same bytes. It stays readable and bounded whatever the journal holds: marks
/// closer than a pixel are drawn as one, a label is left out where it would overlap the one
/// before it, at most `maxAppLanes` apps get a lane (the picture says how many more there
/// were) and at most `maxSceneLanes` scenes of each. Text is escaped; the picture loads no
/// script and no external resource.
struct TimelineSVG {
  /// The picture's width in pixels; its height follows from the lanes.
  static let width = 1200
  /// The most apps drawn, each with its lane.
  static let maxAppLanes = 64
  /// The most scenes of one app drawn on lanes of their own, in the order they first appear
  /// (as many as an app may have at once); callbacks of others stay on the app's lane.
  static let maxSceneLanes = Validation.maxScenesPerApp

  private static let gutter = 160  // lane names
  private static let right = 24
  private static let laneHeight = 54
  private static let sceneLaneHeight = 36
  private static let top = 56  // title and axis
  private static let legendHeight = 40
  /// How much room a label takes per character, in pixels (11 px sans-serif).
  fileprivate static let characterWidth = 6.2

  let title: String
  let entries: [JournalEntry]
  let start: Instant
  let end: Instant

  /// The picture of `entries` between `start` and `end` (device time), entitled `title`.
  init(title: String, entries: [JournalEntry], start: Instant, end: Instant) {
    self.title = title
    self.entries = entries
    self.start = start
    self.end = max(end, start + .seconds(1))
  }

  /// The SVG document, UTF-8.
  var bytes: [UInt8] {
    var svg = Drawing()
    let byApp = entriesByApp
    let apps = byApp.keys.sorted()
    let drawn = Array(apps.prefix(Self.maxAppLanes))
    let scenes = sceneLanes(of: drawn, byApp)
    let bottom =
      Self.top + (1 + drawn.count) * Self.laneHeight
      + scenes.values.map(\.count).reduce(0, +) * Self.sceneLaneHeight
    let height = bottom + Self.legendHeight + 16
    svg.line(
      ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Self.width)" height="\##(height)" "##
        + ##"viewBox="0 0 \##(Self.width) \##(height)" font-family="sans-serif" font-size="11">"##)
    svg.line(##"<rect width="100%" height="100%" fill="#ffffff"/>"##)
    svg.text(x: 12, y: 20, title, attributes: ##" font-size="14" font-weight="bold""##)
    drawAxis(into: &svg, bottom: bottom)
    drawDeviceLane(into: &svg)
    var top = Self.top + Self.laneHeight
    for app in drawn {
      let lanes = scenes[app] ?? []
      let entries = byApp[app] ?? []
      drawLane(of: app, entries, leavingOut: lanes, at: top, into: &svg)
      top += Self.laneHeight
      for scene in lanes {
        drawSceneLane(scene, entries, at: top, into: &svg)
        top += Self.sceneLaneHeight
      }
    }
    if apps.count > drawn.count {
      svg.text(
        x: 12, y: bottom + 12,
        "and \(apps.count - drawn.count) more apps, not drawn: filter with app=")
    }
    drawLegend(into: &svg, top: bottom + 18)
    svg.line("</svg>")
    return svg.bytes
  }

  // MARK: Layout

  /// The entries about each app, in order: one pass, so that each lane reads its own.
  private var entriesByApp: [AppName: [JournalEntry]] {
    var byApp: [AppName: [JournalEntry]] = [:]
    for entry in entries {
      pacing_pause()
      switch entry {
      case .callback(let callback): byApp[callback.app, default: []].append(entry)
      case .transition(let transition): byApp[transition.app, default: []].append(entry)
      case .event(_, _, let app?, _): byApp[app, default: []].append(entry)
      case .event: break
      }
    }
    return byApp
  }

  /// The scenes of each app that had several, each to be drawn on its own lane: the first
  /// `maxSceneLanes` that callbacks name, in the order they appear.
  private func sceneLanes(of apps: [AppName], _ byApp: [AppName: [JournalEntry]])
    -> [AppName: [String]]
  {
    var scenes: [AppName: [String]] = [:]
    for app in apps {
      var names: [String] = []
      for case .callback(let callback) in byApp[app] ?? [] {
        guard let scene = callback.scene, names.count < Self.maxSceneLanes,
          !names.contains(scene)
        else { continue }
        names.append(scene)
      }
      if names.count > 1 { scenes[app] = names }
    }
    return scenes
  }

  /// Where `time` falls on the x axis. The axis runs a quarter past `end`, so that what
  /// happened last has room for its labels (a manual clock puts much at one instant).
  private func x(_ time: Instant) -> Double {
    let span = Double((end - start) / .milliseconds(1)) * 1.25
    let offset = Double((time - start) / .milliseconds(1))
    let plot = Double(Self.width - Self.gutter - Self.right)
    return Double(Self.gutter) + min(max(offset / span, 0), 1) * plot
  }

  private func drawAxis(into svg: inout Drawing, bottom: Int) {
    let seconds = Double((end - start) / .milliseconds(1)) / 1000
    let step = Self.tickStep(for: seconds)
    let now = x(end)
    // Each tick a whole number of steps (a sum of steps drifts), labelled to the millisecond
    // (3 × 0.2 is 0.6000000000000001), its label left out where the end's would cover it.
    var index = (start.seconds / step).rounded(.up)
    while index * step < end.seconds {
      let tick = index * step
      let position = x(.seconds(tick))
      svg.line(
        ##"<line x1="\##(format(position))" y1="\##(Self.top - 8)" x2="\##(format(position))" "##
          + ##"y2="\##(bottom)" stroke="#e4e4e4"/>"##)
      if now - position >= 24 {
        svg.text(
          x: position, y: Self.top - 12, "\(Instant.seconds(tick).seconds.asWritten) s",
          attributes: ##" text-anchor="middle""##)
      }
      index += 1
    }
    svg.line(
      ##"<line x1="\##(format(now))" y1="\##(Self.top - 8)" x2="\##(format(now))" "##
        + ##"y2="\##(bottom)" stroke="#999999" stroke-dasharray="4 3"/>"##)
    svg.text(
      x: now + 3, y: Self.top - 12, "end \(end.seconds.asWritten) s",
      attributes: ##" fill="#999999""##)
  }

  /// A round step (1, 2 or 5 times a power of ten) that puts at most ten ticks on the axis.
  static func tickStep(for seconds: Double) -> Double {
    var power = 0.001
    while true {
      for step in [power, 2 * power, 5 * power] where seconds / step <= 10 { return step }
      power *= 10
    }
  }

  private func drawDeviceLane(into svg: inout Drawing) {
    let top = Self.top
    svg.text(x: 12, y: top + 29, "device", attributes: ##" font-weight="bold""##)
    var marks = Marks()
    for case .event(_, let time, _, .device(let event)) in entries {
      marks.add(x: x(time), label: event.type.rawValue, shape: .tick, color: "#555555")
    }
    marks.draw(into: &svg, y: top + 30, labelsAbove: true)
  }

  /// The app's lane: its state, its callbacks but those of the scenes drawn on lanes of
  /// their own, its kills and the deadlines that fired.
  private func drawLane(
    of app: AppName, _ entries: [JournalEntry], leavingOut scenes: [String], at top: Int,
    into svg: inout Drawing
  ) {
    pacing_pause()
    svg.text(x: 12, y: top + 29, String(app), attributes: ##" font-weight="bold""##)
    drawBands(of: entries, top: top, into: &svg)
    var callbacks = Marks()
    var system = Marks()  // kills and the deadlines that fired
    for entry in entries {
      switch entry {
      case .callback(let callback) where !(callback.scene.map(scenes.contains) ?? false):
        callbacks.add(
          x: x(callback.time),
          label: "\(callback.method)" + (callback.scene.map { "@\($0)" } ?? ""), shape: .tick,
          color: "#222222")
      case .transition(let transition) where transition.isKill:
        let code = transition.terminationCode.map { " \($0.rawValue)" } ?? ""
        system.add(
          x: x(transition.time), label: "\(transition.cause.name)\(code)", shape: .cross,
          color: "#d0021b")
      case .transition(let transition):
        if case .event = transition.cause { break }  // a posted event's: its callbacks show it
        system.add(
          x: x(transition.time), label: transition.cause.name, shape: .diamond, color: "#7a3db8")
      default: break
      }
    }
    callbacks.draw(into: &svg, y: top + 25, labelsAbove: true)
    system.draw(into: &svg, y: top + 45, labelsAbove: false)
  }

  /// A lane of one of the app's scenes (`entries` are the app's): the scene's state and the
  /// callbacks it was sent.
  private func drawSceneLane(
    _ scene: String, _ entries: [JournalEntry], at top: Int, into svg: inout Drawing
  ) {
    pacing_pause()
    svg.text(x: 24, y: top + 25, scene, attributes: ##" fill="#555555""##)
    var callbacks = Marks()
    var state: SceneState?  // not known before the scene's first callback: no band
    var changes: [Band] = []
    for entry in entries {
      var next = state
      switch entry {
      case .callback(let callback) where callback.scene == scene:
        callbacks.add(
          x: x(callback.time), label: "\(callback.method)", shape: .tick, color: "#222222")
        next = callback.sceneState
      case .transition(let transition):
        next = state.map { Self.sceneState($0, afterTheAppBecomes: transition.to) }
      default: continue
      }
      guard next != state, let next else { continue }
      changes.append(Band(time: entry.time, color: Self.color(of: next), name: next.rawValue))
      state = next
    }
    drawBands(changes, top: top + 14, height: 14, into: &svg)
    callbacks.draw(into: &svg, y: top + 21, labelsAbove: true)
  }

  /// The state of an attached scene once its app's state changes without a callback to it:
  /// killed, its scenes are unattached; suspended and woken, its background scenes are too.
  private static func sceneState(_ scene: SceneState, afterTheAppBecomes app: AppState)
    -> SceneState
  {
    switch (scene, app) {
    case (_, .notRunning): .unattached
    case (.background, .suspended): .suspended
    case (.suspended, .background): .background
    default: scene
    }
  }

  /// The app's state over time, from its transitions (`entries` are the app's): the state
  /// before the first one, then each one's.
  private func drawBands(of entries: [JournalEntry], top: Int, into svg: inout Drawing) {
    let transitions = entries.compactMap { entry -> Transition? in
      guard case .transition(let transition) = entry else { return nil }
      return transition
    }
    guard let first = transitions.first else { return }
    let changes =
      [Band(time: start, color: Self.color(of: first.from), name: first.from.rawValue)]
      + transitions.map { Band(time: $0.time, color: Self.color(of: $0.to), name: $0.to.rawValue) }
    drawBands(changes, top: top + 17, height: 16, into: &svg)
  }

  /// A state that began at `time`: its colour (nil: no band) and its name, the band's title.
  private struct Band {
    var time: Instant
    var color: String?
    var name: String
  }

  /// Each state from its start to the next one's, the last one's to `end`, and on, paler, to
  /// the right edge.
  private func drawBands(_ changes: [Band], top: Int, height: Int, into svg: inout Drawing) {
    for (index, band) in changes.enumerated() {
      let (from, to) = (x(band.time), x(changes.dropFirst(index + 1).first?.time ?? end))
      if let color = band.color, to - from >= 0.5 {
        svg.line(
          ##"<rect x="\##(format(from))" y="\##(top)" width="\##(format(to - from))" "##
            + ##"height="\##(height)" fill="\##(color)"><title>\##(band.name)</title></rect>"##)
      }
    }
    if let color = changes.last?.color {
      let from = x(end)
      let width = Double(Self.width - Self.right) - from
      svg.line(
        ##"<rect x="\##(format(from))" y="\##(top)" width="\##(format(width))" "##
          + ##"height="\##(height)" fill="\##(color)" fill-opacity="0.4"/>"##)
    }
  }

  static func color(of state: AppState) -> String? {
    switch state {
    case .notRunning: nil
    case .inactive: "#f5d76e"
    case .active: "#7ed321"
    case .background: "#4a90e2"
    case .suspended: "#b8b8b8"
    }
  }

  /// A scene's state in the colour of the app state it mirrors.
  static func color(of state: SceneState) -> String? {
    switch state {
    case .unattached: nil
    case .foregroundInactive: color(of: AppState.inactive)
    case .foregroundActive: color(of: AppState.active)
    case .background: color(of: AppState.background)
    case .suspended: color(of: AppState.suspended)
    }
  }

  private func drawLegend(into svg: inout Drawing, top: Int) {
    var position = 12.0
    for state in [AppState.active, .inactive, .background, .suspended] {
      svg.line(
        ##"<rect x="\##(format(position))" y="\##(top)" width="14" height="10" "##
          + ##"fill="\##(Self.color(of: state)!)"/>"##)  // of these four states: all coloured
      svg.text(x: position + 18, y: top + 9, state.rawValue)
      position += 100
    }
    for (shape, color, label) in [
      (Marks.Shape.tick, "#222222", "callback"),
      (.diamond, "#7a3db8", "deadline fired"), (.cross, "#d0021b", "kill"),
    ] {
      svg.mark(shape, x: position + 5, y: Double(top + 5), color: color)
      svg.text(x: position + 14, y: top + 9, label)
      position += 110
    }
  }
}

/// Marks along a lane, those closer than a pixel drawn as one (with their count), and a label
/// only where it does not overlap the one before it. Of marks drawn as one, the first of the
/// highest rank shows (a kill over a deadline over a callback): a kill at the instant of a
/// suspension is never hidden. The mark's title names the first few, in order.
private struct Marks {
  /// In rising rank.
  enum Shape: Comparable { case tick, diamond, cross }

  private struct Mark {
    var x: Double
    /// The label of the first mark of the highest rank, the one drawn.
    var shown: String
    /// The first `maxTitled` labels, in the order added.
    var labels: [String]
    var count: Int
    var shape: Shape
    var color: String
  }

  /// The most labels one mark's title names; the rest are counted.
  private static let maxTitled = 4

  private var marks: [Mark] = []

  mutating func add(x: Double, label: String, shape: Shape, color: String) {
    guard let last = marks.last, x - last.x < 1 else {
      let mark = Mark(x: x, shown: label, labels: [label], count: 1, shape: shape, color: color)
      return marks.append(mark)
    }
    var mark = last
    mark.count += 1
    if mark.labels.count < Self.maxTitled { mark.labels.append(label) }
    if shape > mark.shape { (mark.shown, mark.shape, mark.color) = (label, shape, color) }
    marks[marks.count - 1] = mark
  }

  /// Draws the marks centred on `y`, their labels above them or beside them.
  func draw(into svg: inout Drawing, y: Int, labelsAbove: Bool) {
    var labelEnd = -Double.infinity
    for mark in marks {
      let text = mark.count > 1 ? "\(mark.shown) +\(mark.count - 1)" : mark.shown
      let untitled = mark.count - mark.labels.count
      let title =
        mark.labels.joined(separator: ", ") + (untitled > 0 ? " and \(untitled) more" : "")
      svg.mark(mark.shape, x: mark.x, y: Double(y), color: mark.color, title: title)
      let start = labelsAbove ? mark.x : mark.x + 8
      if start >= labelEnd + 6 {
        svg.text(
          x: start, y: labelsAbove ? y - 11 : y + 4, text,
          attributes: ##" fill="\##(mark.color)""##)
        labelEnd = start + Double(text.utf8.count) * TimelineSVG.characterWidth
      }
    }
  }
}

/// The SVG text being written.
private struct Drawing {
  private(set) var bytes: [UInt8] = []

  mutating func line(_ text: String) {
    bytes += text.utf8
    bytes.append(UInt8(ascii: "\n"))
  }

  mutating func text(x: Double, y: Int, _ text: String, attributes: String = "") {
    line(
      ##"<text x="\##(format(x))" y="\##(y)"\##(attributes)>\##(escape(text))</text>"##)
  }

  mutating func text(x: Int, y: Int, _ text: String, attributes: String = "") {
    self.text(x: Double(x), y: y, text, attributes: attributes)
  }

  mutating func mark(
    _ shape: Marks.Shape, x: Double, y: Double, color: String, title: String? = nil
  ) {
    let tooltip = title.map { "<title>\(escape($0))</title>" } ?? ""
    switch shape {
    case .tick:
      line(
        ##"<line x1="\##(format(x))" y1="\##(format(y - 8))" x2="\##(format(x))" "##
          + ##"y2="\##(format(y + 8))" stroke="\##(color)" stroke-width="1.5">\##(tooltip)</line>"##
      )
    case .diamond:
      line(
        ##"<path d="M\##(format(x)) \##(format(y - 5))l5 5l-5 5l-5 -5z" fill="\##(color)">"##
          + ##"\##(tooltip)</path>"##)
    case .cross:
      line(
        ##"<path d="M\##(format(x - 4)) \##(format(y - 4))l8 8m0 -8l-8 8" stroke="\##(color)" "##
          + ##"stroke-width="2">\##(tooltip)</path>"##)
    }
  }
}

/// A coordinate or a time with at most one decimal: the picture's bytes do not depend on
/// how a platform prints a Double.
private func format(_ value: Double) -> String {
  let tenths = Int((value * 10).rounded())
  let sign = tenths < 0 ? "-" : ""
  let magnitude = abs(tenths)
  return magnitude % 10 == 0
    ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
}

/// Text as SVG (XML) character data or an attribute value.
func escape(_ text: String) -> String {
  var escaped = ""
  for character in text.unicodeScalars {
    switch character {
    case "&": escaped += "&amp;"
    case "<": escaped += "&lt;"
    case ">": escaped += "&gt;"
    case "\"": escaped += "&quot;"
    case "'": escaped += "&apos;"
    default: escaped.unicodeScalars.append(character)
    }
  }
  return escaped
}
