import LifecycleEngine

/// The devices the engine let go of (`Engine.onRetire`), dropped on a worker thread when
/// large: freeing a device of a thousand apps, replaced by a restore, was a third of the
/// loop's work on each ("Stalls" in Benchmarks/README.md). Until dropped, each counts in the
/// memory budget at what it held.
struct DeviceDrops {
  /// Devices that held up to this many bytes are dropped at once: freeing them costs less
  /// than the trip to a thread.
  static let droppedAtOnceBytes = 65_536

  /// Those waiting to be handed to a thread (`takeUnstarted`).
  private var unstarted: [RetiredDevice] = []
  /// What the devices not yet dropped hold.
  private(set) var heldBytes = 0

  /// Drops `device` here if it is small; else keeps it for a thread.
  mutating func take(_ device: RetiredDevice) {
    guard device.retainedBytes > Self.droppedAtOnceBytes else { return device.drop() }
    unstarted.append(device)
    heldBytes += device.retainedBytes
  }

  var hasUnstarted: Bool { !unstarted.isEmpty }

  /// The devices to hand to threads now.
  mutating func takeUnstarted() -> [RetiredDevice] {
    defer { unstarted = [] }
    return unstarted
  }

  /// `device`, handed to a thread, is dropped.
  mutating func dropped(_ device: RetiredDevice) {
    heldBytes -= device.retainedBytes
  }
}

extension LifecycleAPI {
  /// Takes over dropping the devices the engine lets go of, from now on.
  func dropRetiredDevices() {
    engine.onRetire = { [unowned self] device in
      deviceDrops.take(device)
      countHeldBytes()
    }
  }

  /// A device was dropped on a thread: what it held is no longer counted.
  func dropped(_ device: RetiredDevice) {
    deviceDrops.dropped(device)
    countHeldBytes()
  }
}
