import JSONCore
import LifecycleEngine

/// The device profiles a device can be made as (`openapi.yaml`, `Profiles`).
extension LifecycleAPI {
  func showProfiles() -> APIResponse {
    let profiles = engine.configuration.profiles
    let defaults = engine.configuration.deviceDefaults
    return json(200) { w in
      w.object { w in
        w.key("default")
        w.object { w in
          w.member("model", profiles.model(named: defaults.model)?.name ?? defaults.model)
          w.member("osVersion", defaults.osVersion)
        }
        w.key("models")
        w.array(profiles.models) { w, model in
          w.deviceModel(model, releases: profiles.releases(of: model))
        }
        w.key("releases")
        w.array(profiles.releases) { $0.release($1) }
      }
    }
  }
}

extension JSONWriter {
  /// A model with its figures, each `{"megabytes":…,"method":…,"source":…}`, left out where
  /// no source measures it, the versions it runs, and those in a build of its own.
  fileprivate mutating func deviceModel(_ model: DeviceModel, releases: [OSRelease]) {
    object { w in
      w.member("name", model.name)
      w.member("identifier", model.identifier)
      if let type = model.simulatorDeviceType { w.member("simulatorDeviceType", type) }
      w.figure("memory", model.memory)
      w.figure("appLimit", model.appLimit)
      w.figure("backgroundAppLimit", model.backgroundAppLimit)
      w.figure("increasedAppLimit", model.increasedAppLimit)
      w.member("osVersions", releases.map(\.version))
      if !model.builds.isEmpty {
        w.key("builds")
        w.array(model.builds) { $0.release($1) }
      }
    }
  }

  /// `{"version":…,"build":…,"source":…}`.
  fileprivate mutating func release(_ release: OSRelease) {
    object { w in
      w.member("version", release.version)
      w.member("build", release.build)
      w.member("source", release.source)
    }
  }

  private mutating func figure(_ name: StaticString, _ figure: ProfileFigure?) {
    guard let figure else { return }
    key(name)
    object { w in
      w.member("megabytes", figure.megabytes)
      w.member("method", figure.method.rawValue)
      w.member("source", figure.source)
    }
  }
}
