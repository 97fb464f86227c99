import LifecycleEngine

/// The guide's tables of the profiles: one row a model, its figures with how each was found
/// and where, then one row a release.
enum ProfileTables {
  static func markdown(_ profiles: DeviceProfiles) -> String {
    var lines = [
      "",
      "| Model | Identifier | RAM (MB) | Foreground limit (MB) | With the entitlement (MB) "
        + "| iOS | Sources |",
      "|---|---|---|---|---|---|---|",
    ]
    for model in profiles.models {
      // A release the model runs in a build of its own shows that build.
      let releases = profiles.releases(of: model).map {
        model.builds.contains($0) ? "\($0.version) (\($0.build))" : $0.version
      }
      let cells = [
        model.name, "`\(model.identifier)`", figure(model.memory), figure(model.appLimit),
        model.increasedAppLimit.map(figure) ?? "none measured",
        releases.isEmpty ? "none known" : releases.joined(separator: ", "),
        model.memory.source == model.appLimit.source
          ? model.appLimit.source : "\(model.appLimit.source); RAM: \(model.memory.source)",
      ]
      lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    lines += [
      "",
      "| Version | Build | Source |",
      "|---|---|---|",
    ]
    for release in profiles.releases {
      lines.append("| \(release.version) | \(release.build) | \(release.source) |")
    }
    lines.append("")
    return lines.joined(separator: "\n")
  }

  /// `3072 (available-memory)`.
  private static func figure(_ figure: ProfileFigure) -> String {
    "\(figure.megabytes) (\(figure.method.rawValue))"
  }
}
