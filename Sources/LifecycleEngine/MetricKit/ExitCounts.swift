/// Why a process ended, in MetricKit's categories (`MXAppExitMetric`): what a real app learns
/// of its terminations afterwards, through `MXMetricManagerSubscriber.didReceive(_:)`.
public enum ExitCategory: CaseIterable, Sendable {
  case normalApp, abnormal, appWatchdog, memoryResourceLimit, memoryPressure, cpuResourceLimit
  case badAccess, illegalInstruction, backgroundTaskAssertionTimeout, suspendedWithLockedFile

  /// The categories `MXForegroundExitData` counts, in its order; `MXBackgroundExitData`
  /// counts every one.
  public static let foreground: [ExitCategory] = [
    .normalApp, .abnormal, .appWatchdog, .memoryResourceLimit, .badAccess, .illegalInstruction,
  ]

  /// The category of a process's end (the user guide's decision table): jetsam's per-process
  /// limit is a memory resource limit, its other kills memory pressure (a resource limit in
  /// the foreground, where MetricKit has no pressure); the watchdog's kill, the background
  /// time kills, the file lock at suspension each their own; a crash, UIKit's trap at launch
  /// or a thermal kill is abnormal; a force-quit, a shutdown or a terminating app is normal.
  static func of(
    cause: TransitionCause, terminationCode: TerminationCode?, jetsamReason: JetsamReason?,
    inForeground: Bool
  ) -> ExitCategory {
    if let jetsamReason {
      return jetsamReason == .perProcessLimit || inForeground
        ? .memoryResourceLimit : .memoryPressure
    }
    if let terminationCode { return of(terminationCode) }
    return cause == .event(.crash) || cause == .sceneLifecycleRequired ? .abnormal : .normalApp
  }

  /// The category of a kill with `code`.
  static func of(_ code: TerminationCode) -> ExitCategory {
    switch code {
    case .watchdog: .appWatchdog
    case .backgroundTask, .backgroundURLSession, .backgroundFetch: .backgroundTaskAssertionTimeout
    case .fileLock: .suspendedWithLockedFile
    case .thermal: .abnormal
    }
  }
}

/// An app's exits counted by MetricKit's categories, split into foreground and background
/// exits (`MXForegroundExitData`, `MXBackgroundExitData`): those since the last payload
/// delivered. Bounded: a count per category and phase, stored only once an exit is counted.
public struct ExitCounts: Hashable, Sendable {
  /// The foreground counts by category, then the background ones; empty while all are 0.
  private var counts: [Int] = []

  public init() {}

  /// Whether no exit is counted.
  public var isEmpty: Bool { counts.allSatisfy { $0 == 0 } }

  /// The largest count of any category.
  var largest: Int { counts.max() ?? 0 }

  /// Every exit counted.
  public var total: Int { counts.reduce(0, +) }

  /// The count of `category` among foreground or background exits.
  public func count(of category: ExitCategory, inForeground: Bool) -> Int {
    counts.isEmpty ? 0 : counts[Self.index(of: category, inForeground: inForeground)]
  }

  /// Sets the count of `category` among foreground or background exits (a snapshot's).
  public mutating func set(_ count: Int, of category: ExitCategory, inForeground: Bool) {
    if counts.isEmpty {
      guard count != 0 else { return }
      counts = Array(repeating: 0, count: 2 * ExitCategory.allCases.count)
    }
    counts[Self.index(of: category, inForeground: inForeground)] = count
  }

  mutating func add(_ category: ExitCategory, inForeground: Bool) {
    let count = count(of: category, inForeground: inForeground)
    set(count + 1, of: category, inForeground: inForeground)
  }

  /// The bytes the counts hold beyond the value itself.
  var retainedBytes: Int {
    counts.isEmpty ? 0 : 32 + counts.count * MemoryLayout<Int>.stride  // with the array's header
  }

  private static func index(of category: ExitCategory, inForeground: Bool) -> Int {
    let index = ExitCategory.allCases.firstIndex(of: category)!  // every case is among them
    return inForeground ? index : ExitCategory.allCases.count + index
  }
}
