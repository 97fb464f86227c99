import LifecycleEngine

/// A device's journal drawn as an SVG picture, as Instruments draws a trace: a lane for the
/// device's own events, then one per app, its state as coloured bands over device time, each
/// callback a tick labelled with its method, kills and the deadlines that fired marked where
/// they happened, and a legend.
///
/// The picture is a pure function of the entries and the window, so the same journal always
/// draws the same bytes. It stays readable and bounded whatever the journal holds: marks
/// closer than a pixel are drawn as one, a label is left out where it would overlap the one
/// before it, and at most `maxAppLanes` apps get a lane (the picture says how many more there
/// were). Text is escaped; the picture loads no script and no external resource.
struct TimelineSVG {
  /// The picture's width in pixels; its height follows from the lanes.
  static let width = 1200
  /// The most apps drawn, each with its lane.
  static let maxAppLanes = 64

  private static let gutter = 160  // lane names
  private static let right = 24
  private static let laneHeight = 54
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
    let apps = appNames
    let drawn = Array(apps.prefix(Self.maxAppLanes))
    let lanes = 1 + drawn.count
    let height = Self.top + lanes * Self.laneHeight + Self.legendHeight + 16
    svg.line(
      ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Self.width)" height="\##(height)" "##
        + ##"viewBox="0 0 \##(Self.width) \##(height)" font-family="sans-serif" font-size="11">"##)
    svg.line(##"<rect width="100%" height="100%" fill="#ffffff"/>"##)
    svg.text(x: 12, y: 20, title, attributes: ##" font-size="14" font-weight="bold""##)
    drawAxis(into: &svg, bottom: Self.top + lanes * Self.laneHeight)
    drawDeviceLane(into: &svg)
    for (index, app) in drawn.enumerated() {
      drawLane(of: app, at: Self.top + (index + 1) * Self.laneHeight, into: &svg)
    }
    if apps.count > drawn.count {
      svg.text(
        x: 12, y: Self.top + lanes * Self.laneHeight + 12,
        "and \(apps.count - drawn.count) more apps, not drawn: filter with app=")
    }
    drawLegend(into: &svg, top: Self.top + lanes * Self.laneHeight + 18)
    svg.line("</svg>")
    return svg.bytes
  }

  // MARK: Layout

  /// The apps the entries are about, in name order.
  private var appNames: [AppName] {
    var names: Set<AppName> = []
    for entry in entries {
      switch entry {
      case .callback(let callback): names.insert(callback.app)
      case .transition(let transition): names.insert(transition.app)
      case .event(_, _, let app?, _): names.insert(app)
      case .event: break
      }
    }
    return names.sorted()
  }

  /// Where `time` falls on the x axis.
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
    // Each tick a whole number of steps (a sum of steps drifts), its label left out where the
    // end's would cover it.
    var index = (start.seconds / step).rounded(.up)
    while index * step < end.seconds {
      let tick = index * step
      let position = x(.seconds(tick))
      svg.line(
        ##"<line x1="\##(format(position))" y1="\##(Self.top - 8)" x2="\##(format(position))" "##
          + ##"y2="\##(bottom)" stroke="#e4e4e4"/>"##)
      if now - position >= 24 {
        svg.text(
          x: position, y: Self.top - 12, "\(format(tick)) s",
          attributes: ##" text-anchor="middle""##)
      }
      index += 1
    }
    svg.line(
      ##"<line x1="\##(format(now))" y1="\##(Self.top - 8)" x2="\##(format(now))" "##
        + ##"y2="\##(bottom)" stroke="#999999" stroke-dasharray="4 3"/>"##)
    svg.text(
      x: now + 3, y: Self.top - 12, "end \(format(end.seconds)) s",
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

  private func drawLane(of app: AppName, at top: Int, into svg: inout Drawing) {
    svg.text(x: 12, y: top + 29, String(app), attributes: ##" font-weight="bold""##)
    drawBands(of: app, top: top, into: &svg)
    var callbacks = Marks()
    var system = Marks()  // kills and the deadlines that fired
    for entry in entries {
      switch entry {
      case .callback(let callback) where callback.app == app:
        callbacks.add(
          x: x(callback.time),
          label: "\(callback.method)" + (callback.scene.map { "@\($0)" } ?? ""), shape: .tick,
          color: "#222222")
      case .transition(let transition) where transition.app == app && transition.isKill:
        let code = transition.terminationCode.map { " \($0.rawValue)" } ?? ""
        system.add(
          x: x(transition.time), label: "\(transition.cause.name)\(code)", shape: .cross,
          color: "#d0021b")
      case .transition(let transition) where transition.app == app:
        if case .event = transition.cause { break }  // a posted event's: its callbacks show it
        system.add(
          x: x(transition.time), label: transition.cause.name, shape: .diamond, color: "#7a3db8")
      default: break
      }
    }
    callbacks.draw(into: &svg, y: top + 25, labelsAbove: true)
    system.draw(into: &svg, y: top + 45, labelsAbove: false)
  }

  /// The app's state over time, from its transitions: the state before the first one, then
  /// each one's; the state at `end` goes on, paler, to the right edge.
  private func drawBands(of app: AppName, top: Int, into svg: inout Drawing) {
    let transitions = entries.compactMap { entry -> Transition? in
      guard case .transition(let transition) = entry, transition.app == app else { return nil }
      return transition
    }
    guard let first = transitions.first else { return }
    var state = first.from
    var since = start
    for transition in transitions + [nil] {
      let until = transition?.time ?? end
      let (from, to) = (x(since), x(until))
      if let color = Self.color(of: state), to - from >= 0.5 {
        svg.line(
          ##"<rect x="\##(format(from))" y="\##(top + 17)" width="\##(format(to - from))" "##
            + ##"height="16" fill="\##(color)"><title>\##(state.rawValue)</title></rect>"##)
      }
      if let transition {
        state = transition.to
        since = transition.time
      }
    }
    if let color = Self.color(of: state) {
      let from = x(end)
      let width = Double(Self.width - Self.right) - from
      svg.line(
        ##"<rect x="\##(format(from))" y="\##(top + 17)" width="\##(format(width))" "##
          + ##"height="16" fill="\##(color)" fill-opacity="0.4"/>"##)
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

  private func drawLegend(into svg: inout Drawing, top: Int) {
    var position = 12.0
    for state in [AppState.active, .inactive, .background, .suspended] {
      svg.line(
        ##"<rect x="\##(format(position))" y="\##(top)" width="14" height="10" "##
          + ##"fill="\##(Self.color(of: state)!)"/>"##)
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
/// only where it does not overlap the one before it.
private struct Marks {
  enum Shape { case tick, diamond, cross }

  private var marks: [(x: Double, label: String, count: Int, shape: Shape, color: String)] = []

  mutating func add(x: Double, label: String, shape: Shape, color: String) {
    if let last = marks.last, x - last.x < 1 {
      marks[marks.count - 1].count += 1
    } else {
      marks.append((x, label, 1, shape, color))
    }
  }

  /// Draws the marks centred on `y`, their labels above them or beside them.
  func draw(into svg: inout Drawing, y: Int, labelsAbove: Bool) {
    var labelEnd = -Double.infinity
    for (x, label, count, shape, color) in marks {
      let text = count > 1 ? "\(label) +\(count - 1)" : label
      svg.mark(shape, x: x, y: Double(y), color: color, title: text)
      let start = labelsAbove ? x : x + 8
      if start >= labelEnd + 6 {
        svg.text(
          x: start, y: labelsAbove ? y - 11 : y + 4, text, attributes: ##" fill="\##(color)""##)
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
