extension Array where Element == UInt8 {
  /// Makes these bytes `bytes`, in the storage these had if nothing else holds it (copied on
  /// write if something does): written over in place when they are as long, as a server's
  /// next head, field lines or body of one kind nearly always are; emptying and appending
  /// cost two calls into `Array`, more than the bytes.
  @inlinable
  public mutating func replaceContents(with bytes: UnsafeBufferPointer<UInt8>) {
    if count == bytes.count {
      withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: bytes) }
    } else {
      removeAll(keepingCapacity: true)
      append(contentsOf: bytes)
    }
  }
}
