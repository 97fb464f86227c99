import JSONCore
import Logging
import Testing

@testable import LifecycledService

#if canImport(Glibc)
  import Glibc
#endif

/// The log line formats: exact bytes for text and JSON.
struct LogTests {
  func line(_ format: LogFormat, _ message: String, _ metadata: Logger.Metadata) -> String {
    String(
      decoding: LineLogHandler.line(
        format: format, time: "2026-11-22T09:40:00.125Z", level: .info, message: message,
        metadata: metadata), as: UTF8.self)
  }

  let request: Logger.Metadata = [
    "method": "GET", "path": "/health", "status": .stringConvertible(200),
    "duration_us": .stringConvertible(UInt64(12)),
  ]

  @Test func textIsKeyValuePairsSortedByKey() {
    #expect(
      line(.text, "request", request)
        == "2026-11-22T09:40:00.125Z info request duration_us=12 method=GET path=/health status=200\n"
    )
  }

  @Test func jsonIsOneObjectWithIntegersAsNumbers() {
    #expect(
      line(.json, "request", request)
        == #"{"time":"2026-11-22T09:40:00.125Z","level":"info","message":"request","#
        + #""duration_us":12,"method":"GET","path":"/health","status":200}"# + "\n")
  }

  @Test func textQuotesValuesWithSpacesQuotesOrEqualsSigns() {
    let metadata: Logger.Metadata = [
      "a": "two words", "b": #"say "hi""#, "c": "x=y", "d": "", "e": "line\nbreak",
    ]
    #expect(
      line(.text, "m", metadata)
        == #"2026-11-22T09:40:00.125Z info m a="two words" b="say \"hi\"" c="x=y" d="" e="line\nbreak""#
        + "\n")
  }

  @Test func jsonEscapesAndNestsListsAndDictionaries() {
    let metadata: Logger.Metadata = [
      "list": ["a", .stringConvertible(2)], "map": ["z": "1", "y": "\"q\""],
      "text": .stringConvertible(1.5),
    ]
    #expect(
      line(.json, "quote \" here", metadata)
        == #"{"time":"2026-11-22T09:40:00.125Z","level":"info","message":"quote \" here","#
        + #""list":["a",2],"map":{"y":"\"q\"","z":"1"},"text":"1.5"}"# + "\n")
  }

  @Test(arguments: [
    (0, 0, "1970-01-01T00:00:00.000Z"),
    (951_782_400, 7_000_000, "2000-02-29T00:00:00.007Z"),
    (1_795_340_400, 125_999_999, "2026-11-22T09:40:00.125Z"),
  ])
  func timestampsAreUTCToTheMillisecond(seconds: Int, nanoseconds: Int, expected: String) {
    #expect(LineLogHandler.timestamp(timespec(tv_sec: seconds, tv_nsec: nanoseconds)) == expected)
  }
}
