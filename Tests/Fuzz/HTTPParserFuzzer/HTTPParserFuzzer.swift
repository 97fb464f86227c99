// The HTTP parser under libFuzzer (`scripts/fuzz`), or, built normally, a replayer of the
// files it is given. Its oracle is stronger than "does not crash": the same bytes must give
// the same events whether fed whole or split, and nothing may follow an error.

import HTTPCore

#if canImport(Glibc)
  import Glibc
#endif

/// The libFuzzer entry point.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  if let failure = checkParser(bytes) { fatalError(failure) }
  return 0
}

/// Why `bytes` break the parser's contract, or nil if they keep it.
///
/// The first byte chooses a split point and small limits, so the fuzzer also explores the
/// incremental paths and every limit.
func checkParser(_ input: [UInt8]) -> String? {
  guard let selector = input.first else { return nil }
  let bytes = Array(input.dropFirst())
  var limits = HTTPLimits()
  if selector & 0x80 != 0 {
    limits.maxRequestLineBytes = 64
    limits.maxHeaderBytes = 128
    limits.maxHeaderCount = 4
    limits.maxBodyBytes = 32
  }
  let cut = bytes.isEmpty ? 0 : Int(selector & 0x7F) % (bytes.count + 1)
  let whole = events(bytes, cuts: [], limits: limits)
  let split = events(bytes, cuts: [cut], limits: limits)
  let drip = events(bytes, cuts: Array(0..<bytes.count), limits: limits)
  guard whole == split, whole == drip else {
    return "events differ when split at \(cut): \(whole) / \(split) / \(drip)"
  }
  if let error = whole.firstIndex(where: { if case .error = $0 { true } else { false } }),
    error != whole.count - 1
  {
    return "events after an error: \(whole)"
  }
  return nil
}

/// The parser's events for `bytes` fed in pieces cut at `cuts`, without `continueExpected`
/// (which depends, by design, on whether the body had already arrived).
func events(_ bytes: [UInt8], cuts: [Int], limits: HTTPLimits) -> [HTTPParserEvent] {
  var parser = HTTPParser(limits: limits)
  var events: [HTTPParserEvent] = []
  var from = 0
  for cut in cuts + [bytes.count] where cut >= from {
    parser.append(bytes[from..<cut])
    from = cut
    while let event = parser.next() {
      if event != .continueExpected { events.append(event) }
    }
  }
  return events
}

/// The bytes of the file at `path`.
func readFile(_ path: String) -> [UInt8] {
  guard let file = fopen(path, "rb") else { return [] }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = fread(&chunk, 1, chunk.count, file)
    guard count > 0 else { return bytes }
    bytes += chunk[..<count]
  }
}

#if !FUZZING
  /// Replays corpus files: `HTTPParserFuzzer FILE...`.
  @main
  struct Replay {
    static func main() {
      for path in CommandLine.arguments.dropFirst() {
        guard let failure = checkParser(readFile(path)) else { continue }
        print("\(path): \(failure)")
        exit(1)
      }
    }
  }
#endif
