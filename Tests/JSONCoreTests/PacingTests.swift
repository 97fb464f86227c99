import CPacing
import Foundation
import JSONCore
import Testing

/// A long read comes to pause points (`pacing_pause`): on a thread that works for the loop it
/// hands its core over there, so that the loop's thread need not wait for the kernel's tick;
/// on any other thread it never pauses.
@Suite struct PacingTests {
  /// Four megabytes of JSON: milliseconds of reading on any machine, many pause intervals.
  static let document = Array(
    ("[" + Array(repeating: #"{"a":[1,2,3],"b":"text"}"#, count: 160_000).joined(separator: ",")
      + "]").utf8)

  @Test func aLongReadOnAThreadThatWorksForTheLoopPauses() async {
    let pauses = await Self.onThreadOfItsOwn {
      pacing_work_for_loop()
      let read = (try? JSONDocument.parse(Self.document)) != nil
      return read ? pacing_pauses() : 0
    }
    #expect(pauses > 0)
  }

  /// What a body can hold with no member or element to pause after: one long string (plain,
  /// not ASCII, or escaped), or whitespace before a value. Sixteen megabytes of each:
  /// milliseconds of reading.
  @Test(arguments: [("x", true), ("é", true), (#"\n"#, true), (" ", false)])
  func aLongStretchWithoutMembersPauses(repeating unit: String, inAString: Bool) async {
    let stretch = String(repeating: unit, count: (16 << 20) / unit.utf8.count)
    let document = Array((inAString ? "\"\(stretch)\"" : "\(stretch)1").utf8)
    let pauses = await Self.onThreadOfItsOwn {
      pacing_work_for_loop()
      let read = (try? JSONDocument.parse(document)) != nil
      return read ? pacing_pauses() : 0
    }
    #expect(pauses > 0)
  }

  @Test func aReadOnAnyOtherThreadNeverPauses() async {
    let pauses = await Self.onThreadOfItsOwn {
      let read = (try? JSONDocument.parse(Self.document)) != nil
      return read ? pacing_pauses() : 1
    }
    #expect(pauses == 0)
  }

  /// `work`'s result, run on a new thread: what it marks ends with the thread.
  private static func onThreadOfItsOwn(_ work: @escaping @Sendable () -> UInt) async -> UInt {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: work()) }.start()
    }
  }
}
