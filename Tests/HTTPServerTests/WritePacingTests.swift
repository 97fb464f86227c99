import Testing

@testable import HTTPServer

/// A turn writes one part of the large answers (over 64 KiB) at most, whatever their number;
/// smaller answers are never paced.
@Suite struct WritePacingTests {
  @Test func onlyAnswersOverSixtyFourKiBArePaced() {
    #expect(!WritePacing.paces(bodyBytes: 65_536))
    #expect(WritePacing.paces(bodyBytes: 65_537))
  }

  @Test func aTurnHasRoomForOnePartOfTheLargeAnswers() {
    var pacing = WritePacing()
    #expect(pacing.mayWrite)
    pacing.wrote(100_000)
    #expect(pacing.mayWrite, "a part smaller than the turn's room leaves room")
    pacing.wrote(162_144)
    #expect(!pacing.mayWrite, "the turn's 256 KiB are written")
    pacing.turnEnded()
    #expect(pacing.mayWrite)
    pacing.wrote(262_144)
    #expect(!pacing.mayWrite)
  }
}
