/// A device its engine has let go of (removed, replaced, forgotten by a reset, or a
/// scenario's copy once the scenario ends), with the memory it holds until it is dropped.
///
/// Freeing a device of a thousand apps costs milliseconds: a host that hears of each
/// (`Engine.onRetire`) may drop it on another thread.
public final class RetiredDevice: @unchecked Sendable {
  // Unchecked: the engine keeps no reference to the device, and `drop` does nothing but
  // release it. A reference the host still holds (a scenario's run) keeps the device alive
  // where that one is, and it is freed there.
  private var device: Device?

  /// What the device held, as `Engine.retainedBytes` counted it.
  public let retainedBytes: Int

  init(_ device: Device) {
    self.device = device
    retainedBytes = device.ledger.bytes
  }

  /// Frees what the device holds, on the calling thread: once, from one thread.
  @Sendable public func drop() { device = nil }
}

extension Engine {
  /// Lets go of `device`, which the engine no longer counts: the host hears of it
  /// (`onRetire`), or it is dropped here.
  func retire(_ device: Device) {
    onRetire?(RetiredDevice(device))
  }
}
