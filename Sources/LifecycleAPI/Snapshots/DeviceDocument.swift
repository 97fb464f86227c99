import JSONCore
import LifecycleEngine

/// A whole device as a client gives it, to `PUT /v1/devices/{device}` or in a fixture file:
/// a snapshot (it has a `format`: `SnapshotFormat`), or a declaration, the device's fields as
/// `POST /v1/devices` takes them with its apps as `POST .../apps` takes them:
/// `{"id": "phone", "clock": "manual", "apps": [{"name": "mail"}]}`. A declared device is new:
/// the fields it leaves out take the configured defaults, and none of its apps is running.
enum DeviceDocument {
  /// The device `body` gives for the path's `id`, which a body may leave out (a snapshot of
  /// one device can be put under another id); a 422 names the field of the first broken rule,
  /// or the body's id if it is another.
  static func image(_ body: JSONDocument, id: String, defaults: DeviceDefaults)
    throws(Problem) -> DeviceImage
  {
    var fields = Fields(body)
    let image = Self.image(&fields, id: id, defaults: defaults)
    if let problem = fields.problem() { throw problem }
    guard let image, image.id == id else {
      let field = fields.has("format") ? "device.id" : "id"
      throw Problem.validation(field, "must be the path's device, '\(id)'")
    }
    return image
  }

  /// The device a snapshot's or a declaration's fields show, its id `id` if they leave it out
  /// (else the id is required); nil, with the issues in `fields`, if they are not a valid
  /// snapshot (members left unread are for the caller to check).
  static func image(_ fields: inout Fields, id: String? = nil, defaults: DeviceDefaults)
    -> DeviceImage?
  {
    fields.nullIsAbsent = true
    if fields.has("format") { return SnapshotFormat.image(&fields, id: id) }
    let configuration = Decode.device(&fields, id: id, defaults: defaults)
    let apps = fields.array("apps", maxCount: SnapshotFormat.maxElements) { app in
      Decode.app(&app)
    }
    return DeviceImage(declaring: configuration, apps: apps ?? [])
  }
}
