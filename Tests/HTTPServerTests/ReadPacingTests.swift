import Testing

@testable import HTTPServer

/// A turn reads a buffer at most of each connection sending more than a buffer, four buffers of
/// them in all; requests that fit in a read are read whenever they come.
@Suite struct ReadPacingTests {
  static let buffer = 65_536

  @Test func connectionsFillingTheBufferShareFourBuffersATurn() {
    var pacing = ReadPacing()
    var lastFilled = [UInt64?](repeating: nil, count: 16)
    // Their first reads are like any other's: each fills the buffer.
    for index in lastFilled.indices {
      #expect(pacing.mayRead(lastFilledIn: lastFilled[index]))
      lastFilled[index] = pacing.read(Self.buffer, capacity: Self.buffer)
      #expect(!pacing.mayRead(lastFilledIn: lastFilled[index]), "a buffer a turn")
    }
    for turn in 1...4 {
      pacing.turnEnded()
      let readers = lastFilled.indices.filter { pacing.mayRead(lastFilledIn: lastFilled[$0]) }
      #expect(readers.count == 16, "turn \(turn): each may read until four have")
      var read: [Int] = []
      for index in lastFilled.indices where pacing.mayRead(lastFilledIn: lastFilled[index]) {
        lastFilled[index] = pacing.read(Self.buffer, capacity: Self.buffer)
        read.append(index)
      }
      #expect(read.count == 4)
      #expect(pacing.mayRead(lastFilledIn: nil), "a small request is still read")
    }
  }

  @Test func aReadThatDoesNotFillTheBufferEndsThePacing() {
    var pacing = ReadPacing()
    let filled = pacing.read(Self.buffer, capacity: Self.buffer)
    #expect(filled == 0)
    #expect(!pacing.mayRead(lastFilledIn: filled))
    pacing.turnEnded()
    #expect(pacing.mayRead(lastFilledIn: filled))
    #expect(pacing.read(Self.buffer - 1, capacity: Self.buffer) == nil)
    for _ in 0..<8 { _ = pacing.read(Self.buffer, capacity: Self.buffer) }
    #expect(pacing.mayRead(lastFilledIn: nil))
    #expect(!pacing.mayRead(lastFilledIn: pacing.turn - 1), "the turn's four buffers are read")
  }
}
