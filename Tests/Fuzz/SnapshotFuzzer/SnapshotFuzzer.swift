// Restoring under libFuzzer (`scripts/fuzz ... snapshot`), or, built normally, a replayer of
// the files it is given and the writer of its seeds. Its oracle is `checkSnapshot`.

#if canImport(Glibc)
  import Glibc
#endif

#if FUZZING
  /// The libFuzzer entry point (only in the fuzzing build: the test bundle links the other
  /// fuzzers too).
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = SnapshotInput(Array(UnsafeRawBufferPointer(start: start, count: count)))
    if let failure = checkSnapshot(input) { fatalError(failure) }
    return 0
  }

  /// libFuzzer's own byte mutations, for inputs whose document is not JSON.
  @_silgen_name("LLVMFuzzerMutate")
  func byteMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

  /// Mutates a document as JSON (`SnapshotMutator`) three times in four, else as bytes.
  @_cdecl("LLVMFuzzerCustomMutator")
  public func customMutate(
    _ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: CUnsignedInt
  ) -> Int {
    var random = FuzzRandom(state: UInt64(seed))
    let input = SnapshotInput(Array(UnsafeBufferPointer(start: data, count: size)))
    guard Int.random(in: 0..<4, using: &random) > 0 else {
      return byteMutate(data, size, maxSize)
    }
    let bytes = SnapshotMutator.mutate(input, using: &random).bytes
    guard bytes.count <= maxSize else { return byteMutate(data, size, maxSize) }
    data.update(from: bytes, count: bytes.count)
    return bytes.count
  }
#else
  /// `SnapshotFuzzer --seeds DIR` writes the seeds into DIR, the fuzzer's starting corpus;
  /// `SnapshotFuzzer FILE...` replays inputs.
  @main
  struct Replay {
    static func main() {
      let arguments = Array(CommandLine.arguments.dropFirst())
      if arguments.first == "--seeds", arguments.count == 2 {
        for (index, seed) in SnapshotSeeds.make().enumerated() {
          guard let file = fopen("\(arguments[1])/seed-\(index)", "wb") else { exit(1) }
          _ = seed.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
          fclose(file)
        }
        return
      }
      for path in arguments {
        guard let file = fopen(path, "rb") else { continue }
        var bytes: [UInt8] = []
        var byte = fgetc(file)
        while byte != EOF {
          bytes.append(UInt8(byte))
          byte = fgetc(file)
        }
        fclose(file)
        guard let failure = checkSnapshot(SnapshotInput(bytes)) else { continue }
        print("\(path): \(failure)")
        exit(1)
      }
    }
  }
#endif
