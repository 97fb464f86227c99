import JSONCore
import Testing

@testable import LifecycleAPI
@testable import LifecycleEngine

/// An app's state is declared once, as the values `AppRecord` and `ProcessImage` that a live
/// app and its image both hold. These tests find its fields by reflection, not from a list,
/// and check that each reaches the forms the state takes beyond the copy (`PropertyTests`):
/// the snapshot document and the app's view.
@Suite struct StateFormsTests {
  /// Images of random walks (every third step): they give every field a value other than its
  /// first, so that each is written and read.
  private static let walkedImages: [DeviceImage] = PropertyTests.seeds.flatMap { seed in
    let walk = RandomWalk(seed: seed)
    return (0..<PropertyTests.copyingSteps).compactMap { step in
      walk.step()
      return step % 3 == 0 ? walk.image : nil
    }
  }

  /// The walked images read back from their snapshot documents unchanged, and the walks change
  /// every field.
  @Test func everyFieldOfAnAppsStateSurvivesTheSnapshotDocument() throws {
    var reached: Set<String> = []
    for image in Self.walkedImages {
      #expect(try readBack(image) == image)
      for app in image.apps { reached.formUnion(fieldsChanged(in: app)) }
    }
    #expect(Self.fields.subtracting(reached) == [], "fields the walks never changed")
  }

  /// Each field has one member in the snapshot document (which leaves out a member with no
  /// value: the walked images' documents show each), and one in the app's view unless the view
  /// shows what follows from it instead.
  @Test func everyFieldOfAnAppsStateHasItsMembers() throws {
    var appMembers: Set<String> = []
    var processMembers: Set<String> = []
    for image in Self.walkedImages {
      let snapshot = try JSON.parse(JSONWriter.encode { $0.snapshot(image, journal: nil) })
      guard case .array(let apps) = snapshot["apps"] else { continue }
      for app in apps {
        appMembers.formUnion(Self.members(of: app).subtracting(["process"]))
        processMembers.formUnion(Self.members(of: app["process"]))
      }
    }
    let spec = AppSpec(name: "a")
    #expect(appMembers.count == Self.labels(of: spec).count + Self.recordFields.count)
    #expect(processMembers.count == Self.processFields.count)

    // The view of an app with every member written: a process that ended (lastTermination),
    // and one that runs with background work under way (the view leaves out what has no value).
    let sim = Simulator()
    sim.add("mail", modes: [.fetch])
    _ = try sim.post(.launch(), to: "mail")
    _ = try sim.post(.crash(), to: "mail")
    _ = try sim.post(.backgroundLaunch(.fetch), to: "mail")
    let view = try JSON.parse(JSONWriter.encode { $0.app(sim.app("mail")) })
    let viewMembers = Self.members(of: view).union(Self.members(of: view["counters"]))
    // The view shows when each deadline falls due (`killAt`, a task's `expiresAt`), the
    // state's cause in the journal and the watchdog's transition in `lastTermination` once it
    // kills; jetsam's order and task numbering are internal; a push's budget shows in the
    // push's result when it is spent; MetricKit's period and the update's time show in the
    // payloads they make.
    let notInTheView: Set<String> = [
      "lastUsed", "nextTaskId", "discardedScenes", "inactiveCause", "backgroundSince",
      "watchdogKillAt", "watchdogTransition", "recentPushes", "metricPeriodBegin", "updatedAt",
    ]
    #expect(appMembers.union(processMembers).subtracting(viewMembers) == notInTheView)
  }

  private static let recordFields = labels(of: AppRecord())
  private static let processFields = labels(of: ProcessImage(notRunning: AppSpec(name: "a")))
  private static let fields = Set(
    recordFields.map { "record.\($0)" } + processFields.map { "process.\($0)" })

  private static func members(of object: JSON?) -> Set<String> {
    guard case .object(let members) = object else { return [] }
    return Set(members.map(\.0))
  }

  private static func labels(of value: Any) -> [String] {
    Mirror(reflecting: value).children.map { $0.label! }
  }

  /// The fields of `app`'s record and process that differ from a new app's.
  private func fieldsChanged(in app: AppImage) -> Set<String> {
    var changed = Self.differences(app.record, AppRecord()).map { "record.\($0)" }
    if let process = app.process {
      changed += Self.differences(process, ProcessImage(notRunning: app.spec)).map {
        "process.\($0)"
      }
    }
    return Set(changed)
  }

  private static func differences(_ first: Any, _ second: Any) -> [String] {
    zip(Mirror(reflecting: first).children, Mirror(reflecting: second).children).compactMap {
      String(reflecting: $0.value) == String(reflecting: $1.value) ? nil : $0.label
    }
  }

  /// `image` written as a snapshot document and read back.
  private func readBack(_ image: DeviceImage) throws -> DeviceImage {
    let document = try JSONDocument.parse(JSONWriter.encode { $0.snapshot(image, journal: nil) })
    return try DeviceDocument.image(document, id: image.id, defaults: DeviceDefaults())
  }
}
