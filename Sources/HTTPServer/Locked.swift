import CLibUV

/// A value threads share, reached only while holding its lock: a libuv mutex, which every
/// platform the server builds for has (the standard library's `Mutex` needs macOS 15, and the
/// server runs on macOS 13).
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
  @exclusivity(unchecked)  // reached only with the mutex held
  @usableFromInline var value: Value
  @usableFromInline let mutex: UnsafeMutablePointer<uv_mutex_t>

  public init(_ value: consuming Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    // It fails only when the system has no room for another mutex, which nothing can mend.
    precondition(uv_mutex_init(mutex) == 0, "uv_mutex_init")
  }

  deinit {
    uv_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` on the value, the lock held. Inlinable, so that a caller in another module
  /// calls no generic function for each line it logs.
  @inlinable
  public func withLock<Result: ~Copyable, Failure>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    uv_mutex_lock(mutex)
    defer { uv_mutex_unlock(mutex) }
    return try body(&value)
  }
}
