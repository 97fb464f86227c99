/// Bytes of simulator state as the engine counts them (`RetainedSize`): a device's ledger
/// adds into the engine's, so that the engine's total is always current without a walk.
final class MemoryLedger {
  private(set) var bytes = 0
  /// The ledger this one's changes also count in, used unretained: a strong `var` read on
  /// every change costs a retain and a release each time (`owner` keeps it alive).
  private var total: Unmanaged<MemoryLedger>?
  private var owner: MemoryLedger?

  /// A ledger whose changes also count in `total`.
  init(within total: MemoryLedger? = nil) {
    if let total { join(total) }
  }

  func add(_ delta: Int) {
    guard delta != 0 else { return }  // most often: a full journal's entry replaced by its like
    bytes += delta
    total?._withUnsafeGuaranteedRef { $0.add(delta) }
  }

  /// Counts this ledger's bytes, and every change from now on, in `total` too: a device made
  /// apart from the engine (`Engine.recreate`) joins the engine's ledger when it is taken in.
  func join(_ total: MemoryLedger) {
    precondition(owner == nil, "a ledger counts in one total")
    owner = total
    self.total = Unmanaged.passUnretained(total)
    total.add(bytes)
  }
}

// The fixed costs are resident memory measured per device and per app over thousands of
// each (Benchmarks/README.md, "Memory"), rounded up.

extension Device {
  /// What a device costs before it holds any app or entry: the object, its heaps and tables.
  /// (2,333 to 2,505 bytes a device in six runs over 999 devices, its model and release
  /// included, rounded up; the 1,184 counted before had been measured without them.)
  static let retainedBytes = 2_560
}

extension App {
  /// What an app costs besides its background tasks: the object and its entries in its
  /// device's tables and heaps.
  static let retainedBytes = 1_120
}

extension AppSpec {
  /// What the spec holds beside the app's object: its permitted task identifiers.
  var retainedBytes: Int {
    permittedTaskIdentifiers.isEmpty
      ? 0 : 32 + permittedTaskIdentifiers.reduce(0) { $0 + 16 + textBytes($1) }
  }
}

extension TaskRequest: RetainedSize {
  public var retainedBytes: Int { MemoryLayout<Self>.stride + textBytes(identifier) }
}

/// What a device's labels cost: their dictionary's storage and their text.
func labelBytes(_ labels: [String: String]) -> Int {
  labels.isEmpty ? 0 : 64 + labels.reduce(0) { $0 + 48 + textBytes($1.key) + textBytes($1.value) }
}

/// What a string's text costs: nothing for up to 15 UTF-8 bytes, which Swift keeps inline;
/// beyond, the bytes and the heap object's header.
public func textBytes(_ text: String?) -> Int {
  guard let count = text?.utf8.count, count > 15 else { return 0 }
  return 32 + count
}

/// A member of an app's record or process that holds memory beside the app's object, as its
/// device's ledger counts it. Changed through the app (its dynamic members), a member of such
/// a type is counted again; `countedBytes` of the record and of the process add up each one.
protocol CountedMember {
  var countedBytes: Int { get }
}

extension Array: CountedMember where Element: RetainedSize {
  var countedBytes: Int { reduce(0) { $0 + $1.retainedBytes } }
}

/// State restoration data, as JSON text.
extension Optional: CountedMember where Wrapped == String {
  var countedBytes: Int { textBytes(self) }
}

extension ExitCounts: CountedMember {
  var countedBytes: Int { retainedBytes }
}

extension AppRecord {
  /// What the record holds beside the app's object: each member `CountedMember` counts.
  var countedBytes: Int {
    taskRequests.countedBytes + recentPushes.countedBytes + pendingExits.countedBytes
      + metricPayloads.countedBytes + diagnosticPayloads.countedBytes
      + savedRestorationData.countedBytes + sessions.countedBytes
  }
}

extension ProcessImage {
  /// What the process holds beside the app's object, its waiting callbacks aside (the app
  /// counts them as they queue).
  var countedBytes: Int {
    tasks.countedBytes + backgroundWork.countedBytes + restorationData.countedBytes
  }
}

extension Instant: RetainedSize {
  public var retainedBytes: Int { MemoryLayout<Self>.stride }
}

extension BackgroundTask: RetainedSize {
  public var retainedBytes: Int { MemoryLayout<Self>.stride + textBytes(name) }
}

extension BackgroundWork: RetainedSize {
  public var retainedBytes: Int { MemoryLayout<Self>.stride + textBytes(identifier) }
}

extension JournalEntry: BoundedLogElement {
  public static var vacancy: Self {
    .event(seq: 0, time: .zero, app: nil, event: .device(.lock))
  }

  public var retainedBytes: Int {
    switch self {
    case .event(_, _, _, let event): Self.retainedBytes(of: event)
    case .callback(let callback): Self.retainedBytes(of: callback)
    case .transition: Self.transitionBytes
    }
  }

  /// What an entry of each kind retains, for a recorder that knows the kind it records
  /// (finding the kind of an entry again costs more than the count).
  static func retainedBytes(of event: RecordedEvent) -> Int {
    var held = 0
    // An indirect case's box (its header and its payload), and what the parameters hold.
    switch event {
    case .app(let event):
      switch event {
      case .backgroundLaunch, .submitTaskRequest, .reportProgress: held += 64
      default: break
      }
      event.forEachParameter { held += heapBytes(of: $0) }
    case .device(let event):
      if case .push = event { held += 64 }
      event.forEachParameter { held += heapBytes(of: $0) }
    }
    return MemoryLayout<Self>.stride + held
  }

  /// What an event's parameter holds on the heap: its text, or its entry's.
  private static func heapBytes(of parameter: EventParameter) -> Int {
    switch parameter.value {
    case .sceneID(let text), .taskName(let text), .appName(let text): textBytes(text)
    case .restorationData(let text): textBytes(text)
    case .payload(let text), .sessionIdentifier(let text), .taskIdentifier(let text):
      textBytes(text)
    case .entry(let entry): entry.retainedBytes
    case .taskID, .megabytes, .flag, .choice, .instant, .percent, .count, .version: 0  // inline
    }
  }

  static func retainedBytes(of callback: Callback) -> Int {
    MemoryLayout<Self>.stride + callback.heapBytes
  }

  /// A transition holds nothing on the heap.
  static var transitionBytes: Int { MemoryLayout<Self>.stride }
}

extension Callback {
  /// What a callback holds on the heap: its arguments and its scene's id.
  var heapBytes: Int { (arguments?.retainedBytes ?? 0) + textBytes(scene) }
}

extension WaitingCallback: RetainedSize {
  public var retainedBytes: Int { MemoryLayout<Self>.stride + callback.heapBytes }
}

/// An indirect case's box: its header and its payload.
private let boxBytes = 48

extension Entry {
  var retainedBytes: Int {
    switch self {
    case .url(let url): boxBytes + textBytes(url)
    case .notification(let response):
      boxBytes + textBytes(response.identifier) + textBytes(response.actionIdentifier)
    case .userActivity(let activity):
      boxBytes + textBytes(activity.activityType) + textBytes(activity.webpageURL)
    case .shortcutItem(let type): boxBytes + textBytes(type)
    }
  }
}

extension CallbackArguments {
  var retainedBytes: Int {
    switch self {
    case .launchOptions(let entry), .entry(let entry): boxBytes + entry.retainedBytes
    case .connectionOptions(let entry, let data):
      boxBytes + (entry?.retainedBytes ?? 0) + textBytes(data)
    case .restorationData(let data): boxBytes + textBytes(data)
    case .sessions(let ids): boxBytes + 32 + ids.reduce(0) { $0 + 16 + textBytes($1) }
    case .backgroundLaunchOptions(.remoteNotification(let payload)), .userInfo(let payload):
      boxBytes + textBytes(payload)
    case .backgroundLaunchOptions(.location): boxBytes
    case .sessionIdentifier(let identifier), .taskIdentifier(let identifier):
      boxBytes + textBytes(identifier)
    case .metrics(let payloads): boxBytes + 32 + payloads.reduce(0) { $0 + $1.retainedBytes }
    case .diagnostics(let payloads):
      boxBytes + 32 + payloads.reduce(0) { $0 + $1.retainedBytes }
    case .metricReport(let payload): boxBytes + payload.retainedBytes
    case .diagnosticReport(let diagnostic): boxBytes + diagnostic.retainedBytes
    }
  }
}

extension JetsamEvent: BoundedLogElement {
  public static var vacancy: Self {
    JetsamEvent(
      time: .zero, product: "", os: OSRelease(version: "", build: "", source: ""),
      processes: [], killCount: 0)
  }

  /// The event and its processes' storage; the names are the apps' own, the product's and
  /// the release's the profiles'.
  public var retainedBytes: Int {
    MemoryLayout<Self>.stride + 32 + processes.count * MemoryLayout<JetsamProcess>.stride
  }
}
