// The JSON reader under libFuzzer (`scripts/fuzz`), or, built normally, a replayer of the
// files it is given. Its oracle is stronger than "does not crash": a text the reader accepts
// has no object with a repeated key, and written back out it reads as the same value.

import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// Why `input` breaks the reader's contract, or nil if it keeps it.
///
/// An odd first byte puts the rest among the members of an object of up to 63 other keys
/// (`"k0"`, `"k1"`, ...), so that the fuzzer also explores the key index of large objects.
func checkReader(_ input: [UInt8]) -> String? {
  guard let selector = input.first else { return nil }
  var bytes = Array(input.dropFirst())
  if selector & 1 == 1 {
    let members = (0..<Int(selector >> 2)).map { #""k\#($0)":0,"# }.joined()
    bytes = Array("{\(members)".utf8) + bytes + Array("}".utf8)
  }
  guard let value = try? JSON.parse(bytes) else { return nil }
  if let repeated = repeatedKey(in: value) { return "accepted the repeated key '\(repeated)'" }
  guard let again = try? JSON.parse(value.bytes), again == value else {
    return "written back, the value reads otherwise: \(value)"
  }
  return nil
}

/// A key that two members of one object of `value` share, if any.
func repeatedKey(in value: JSON) -> String? {
  switch value {
  case .object(let members):
    var keys = Set<String>()
    for (key, member) in members {
      guard keys.insert(key).inserted else { return key }
      if let repeated = repeatedKey(in: member) { return repeated }
    }
    return nil
  case .array(let elements):
    return elements.lazy.compactMap(repeatedKey).first
  default:
    return nil
  }
}

#if FUZZING
  /// The libFuzzer entry point (only in the fuzzing build: the test bundle links the HTTP
  /// parser's fuzzer too).
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let failure = checkReader(bytes) { fatalError(failure) }
    return 0
  }
#else
  /// Replays corpus files: `JSONReaderFuzzer FILE...`.
  @main
  struct Replay {
    static func main() {
      for path in CommandLine.arguments.dropFirst() {
        guard let file = fopen(path, "rb") else { continue }
        var bytes: [UInt8] = []
        var byte = fgetc(file)
        while byte != EOF {
          bytes.append(UInt8(byte))
          byte = fgetc(file)
        }
        fclose(file)
        guard let failure = checkReader(bytes) else { continue }
        print("\(path): \(failure)")
        exit(1)
      }
    }
  }
#endif
