import Foundation
import HTTPServer
import Testing

@Suite struct LockedTests {
  /// Threads that change the value at once each see it whole: no increment is lost.
  @Test func threadsChangingTheValueAtOnceLoseNothing() {
    let count = Locked(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<20_000 { count.withLock { $0 += 1 } }
    }
    #expect(count.withLock { $0 } == 160_000)
  }

  /// What the body returns, or throws, comes out of `withLock`, and the lock is free after.
  @Test func theBodysResultAndErrorComeOut() {
    struct Refused: Error {}
    let names = Locked([String]())
    let count = names.withLock { names in
      names.append("a")
      return names.count
    }
    #expect(count == 1)
    #expect(throws: Refused.self) { try names.withLock { _ in throw Refused() } }
    #expect(names.withLock { $0 } == ["a"])
  }
}
