// The models and releases the simulator knows out of the box. Each figure names where it was
// published and how it was found (`FigureMethod`): single runs on one iOS version, which
// Apple says can change within an OS line ("the effect depends on the device type, the OS
// version, and the state of the device", of the increased-memory entitlement). A model no
// source measures a figure of leaves it out rather than guessing it.

extension DeviceProfiles {
  /// What a server knows unless its configuration says otherwise.
  public static let builtIn = DeviceProfiles(
    models: [
      model(
        "iPhone 6s", "iPhone8,1", simulator: "iPhone-6s", ram: 2048, limit: 1396,
        by: .allocatedUntilKilled, on: "iOS 9.2", source: budgetAnswer, first: 9, last: 15),
      model(
        "iPhone 8", "iPhone10,1", simulator: "iPhone-8", ram: 1990, limit: 1364,
        by: .allocatedUntilKilled, on: "iOS 12.1", source: budgetAnswer, first: 11, last: 16),
      model(
        "iPhone X", "iPhone10,3", simulator: "iPhone-X", ram: 2785, limit: 1392,
        by: .allocatedUntilKilled, on: "iOS 11.2.1", source: budgetAnswer, first: 11, last: 16),
      model(
        "iPhone XR", "iPhone11,8", simulator: "iPhone-XR", ram: 2813, limit: 1792,
        by: .allocatedUntilKilled, on: "iOS 12.1", source: budgetAnswer, first: 12, last: 18),
      model(
        "iPhone XS", "iPhone11,2", simulator: "iPhone-XS", ram: 3754, limit: 2040,
        by: .allocatedUntilKilled, on: "iOS 12.1", source: budgetAnswer, first: 12, last: 18),
      model(
        "iPhone 11", "iPhone12,1", simulator: "iPhone-11", ram: 3844, limit: 2068,
        by: .allocatedUntilKilled, on: "iOS 13.1.3", source: budgetAnswer, first: 13),
      model(
        "iPhone 12 mini", "iPhone13,1", simulator: "iPhone-12-mini", ram: 4096,
        ramSource: ramList, limit: 2150, increased: 2458, by: .availableMemory, on: "2024",
        source: "allenai/OLMoE.swift, pull request 38", first: 14),
      model(
        "iPhone 12", "iPhone13,2", simulator: "iPhone-12", ram: 4096, ramSource: ramList,
        limit: 3072, increased: 4096, by: .availableMemory, on: "2025",
        source: "introlab/rtabmap, pull request 1446", first: 14),
      model(
        "iPhone 13 Pro", "iPhone14,2", simulator: "iPhone-13-Pro", ram: 6144, ramSource: ramList,
        limit: 3195, increased: 4301, by: .availableMemory, on: "2026",
        source: "a-ghorbani/pocketpal-ai, pull request 651", first: 15),
      model(
        "iPhone 15 Pro", "iPhone16,1", simulator: "iPhone-15-Pro", ram: 8192, ramSource: ramList,
        limit: 3072, increased: 6144, by: .availableMemory, on: "2025",
        source: "introlab/rtabmap, pull request 1446", first: 17),
      model(
        "iPhone 17 Pro", "iPhone18,1", simulator: "iPhone-17-Pro", ram: 12288,
        ramSource: "LNPANDY/NX2Apple, ENTITLEMENTS.md (2026)", limit: 3342,
        by: .allocatedUntilKilled, on: "iOS 26",
        source: "boardsesh, pull request 5524 (killed at a 3,342 MB peak)", first: 26,
        builds: [
          OSRelease(
            version: "26.0", build: "23A345",
            source: "multiplayer.it, \"Apple rilascia una patch last-minute di iOS 26 per "
              + "iPhone 17 Pro e Pro Max\" (2025-09-19): the Pro models' own build of 26.0")
        ]),
      model(
        "iPad Pro (11-inch)", "iPad8,1", simulator: "iPad-Pro--11-inch-", ram: 3769,
        limit: 2858, by: .allocatedUntilKilled, on: "iOS 12.1", source: budgetAnswer, first: 12,
        last: 26),
    ],
    releases: [
      release("13.0", "17A577"), release("15.0", "19A346"), release("17.0", "21A329"),
      release("18.0", "22A3354"), release("26.0", "23A341"), release("26.1", "23B85"),
      release("26.4", "23E246"), release("27.0", "24A437"),
    ])

  /// The model and release of a device made without naming them: a current iPhone on the
  /// iOS of its day.
  public static let defaultModel = "iPhone 15 Pro"
  public static let defaultOSVersion = "26.1"

  /// The allocate-until-killed measurements of many models, one run on one iOS version each
  /// (with the device's total memory as the tool read it).
  private static let budgetAnswer =
    "Stack Overflow, \"iOS app maximum memory budget\" (question 5887248), answer 15200855"
  private static let ramList = "9to5Mac, \"iPhone RAM list\" (2023-11-18)"

  /// A model of Apple's: its RAM from `ramSource` (else, as the tool read it, from `source`),
  /// its limits as `source` found them on `when`'s iOS, its releases `first` to `last` (nil:
  /// to the latest known), those in a build of its own among `builds`.
  private static func model(
    _ name: String, _ identifier: String, simulator: String, ram: Int, ramSource: String? = nil,
    limit: Int, increased: Int? = nil, by method: FigureMethod, on when: String,
    source: String, first: Int, last: Int? = nil, builds: [OSRelease] = []
  ) -> DeviceModel {
    let source = "\(source), \(when)"
    return DeviceModel(
      name: name, identifier: identifier,
      simulatorDeviceType: "com.apple.CoreSimulator.SimDeviceType.\(simulator)",
      memory: ramSource.map { ProfileFigure(ram, .specification, source: $0) }
        ?? ProfileFigure(ram, method, source: source),
      appLimit: ProfileFigure(limit, method, source: source),
      increasedAppLimit: increased.map { ProfileFigure($0, method, source: source) },
      firstMajorVersion: first, lastMajorVersion: last, builds: builds)
  }

  /// A release whose build crash reports name (their `os_version`, `iPhone OS 26.1 (23B85)`).
  private static func release(_ version: String, _ build: String) -> OSRelease {
    OSRelease(
      version: version, build: build,
      source: "crash and jetsam reports' os_version, \"iPhone OS \(version) (\(build))\"")
  }
}
