// swift-tools-version:6.1
import PackageDescription

/// Where the client runs and what it needs: `Duration` (iOS 16) sets the floor. On macOS the
/// server's swift-configuration (and `Mutex`) need macOS 15, as does every Xcode that reads a
/// 6.1 manifest: a Mac that builds this package runs macOS 15 already.
let applePlatforms: [SupportedPlatform] = [
  .macOS(.v15), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1),
]

/// The platforms a client talks to the server through URLSession on; elsewhere (Linux),
/// through AsyncHTTPClient.
let urlSessionPlatforms: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS]

let package = Package(
  name: "lifecycled",
  platforms: applePlatforms,
  products: [
    .library(name: "LifecycleEngine", targets: ["LifecycleEngine"]),
    .library(name: "HTTPCore", targets: ["HTTPCore"]),
    .executable(name: "lifecycled", targets: ["lifecycled"]),
    // A typed Swift client of the API, for test suites of iOS apps (README, "From Swift").
    .library(name: "LifecycledClient", targets: ["LifecycledClient"]),
  ],
  // The client's dependencies are resolved only with its trait, on by default, so that adding
  // the package (in Xcode too) brings the client; the server's builds turn it off
  // (`--disable-default-traits`: scripts/run, the Dockerfile) and fetch none of them.
  traits: [
    .trait(
      name: "Client",
      description: "LifecycledClient: OpenAPIRuntime, and URLSession (Apple) or AsyncHTTPClient."),
    .default(enabledTraits: ["Client"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    // `swift package generate-documentation`: the user guide in Sources/lifecycled/lifecycled.docc.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // Not its JSON trait: that pulls in full Foundation and ICU (60 MB of binary);
    // LifecycledService reads the file itself (ConfigurationFileSnapshot).
    .package(
      url: "https://github.com/apple/swift-configuration", from: "1.4.0",
      traits: ["CommandLineArguments"]),
    // LifecycledClient only, under its trait. (The generator is scripts/openapi-generator's:
    // scripts/generate-client writes the client's GeneratedSources, and checks them in tests.)
    .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
  ],
  targets: [
    // Pause points where long work on a worker thread hands its core to the loop's: the one
    // place that asks the platform to (a C file: a thread-local mark and `sched_yield`).
    .target(name: "CPacing"),
    // The pure simulator core: no I/O, no libuv, no Foundation; it is handed the time (its
    // pause points read a clock only to pace work off the loop, never for what it simulates).
    .target(name: "LifecycleEngine", dependencies: ["CPacing"]),
    // With the API's snapshot document and views: a walk checks every form an app's state takes.
    .testTarget(name: "LifecycleEngineTests", dependencies: ["LifecycleEngine", "LifecycleAPI"]),
    // Strict JSON reading and fast writing: knows nothing of the engine, the API or HTTP.
    .target(name: "JSONCore", dependencies: ["CPacing"]),
    .testTarget(
      name: "JSONCoreTests", dependencies: ["CPacing", "JSONCore", "JSONReaderFuzzer"]),
    // The reader under libFuzzer (scripts/fuzz); built normally, it replays corpus files.
    .executableTarget(
      name: "JSONReaderFuzzer", dependencies: ["JSONCore"], path: "Tests/Fuzz/JSONReaderFuzzer"),
    // The JSON API over the engine: knows nothing of HTTP framing or sockets.
    // `openapi.yaml` is the contract at the top of the repository; the link beside the sources
    // embeds it in the binary, served at GET /openapi.yaml. `Page/` is the live page, GET /.
    .target(
      name: "LifecycleAPI", dependencies: ["CPacing", "JSONCore", "LifecycleEngine"],
      resources: [
        .embedInCode("openapi.yaml"), .embedInCode("Page/index.html"),
        .embedInCode("Page/page.css"), .embedInCode("Page/page.js"),
      ]),
    .testTarget(
      name: "LifecycleAPITests", dependencies: ["JSONCore", "LifecycleAPI", "SnapshotFuzzer"],
      exclude: ["Timelines"]),
    // Restoring under libFuzzer (scripts/fuzz); built normally, it replays corpus files.
    .executableTarget(
      name: "SnapshotFuzzer", dependencies: ["JSONCore", "LifecycleAPI"],
      path: "Tests/Fuzz/SnapshotFuzzer"),
    // HTTP/1.1 without I/O: the strict parser and the connection state machine.
    .target(name: "HTTPCore", dependencies: ["JSONCore"]),
    .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "HTTPParserFuzzer"]),
    // The parser under libFuzzer (scripts/fuzz); built normally, it replays corpus files.
    .executableTarget(
      name: "HTTPParserFuzzer", dependencies: ["HTTPCore"], path: "Tests/Fuzz/HTTPParserFuzzer"),
    .systemLibrary(
      name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"]), .brew(["libuv"])]),
    // The libuv shell around HTTPCore: sockets, timers, signals, shutdown. Knows no API.
    .target(
      name: "HTTPServer",
      dependencies: [
        "CLibUV", "CPacing", "HTTPCore", .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"]),
    .systemLibrary(name: "CMalloc"),
    // Configuration, logging and the wiring of the service: the builder main and tests share.
    .target(
      name: "LifecycledService",
      dependencies: [
        "CMalloc", "HTTPServer", "JSONCore", "LifecycleAPI",
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(name: "LifecycledServiceTests", dependencies: ["JSONCore", "LifecycledService"]),
    .executableTarget(
      name: "lifecycled",
      dependencies: [
        "LifecycledService", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),
    // The client: generated from `openapi.yaml` by swift-openapi-generator into GeneratedSources
    // and committed (its users build no generator), and a small layer that reads like Swift
    // over it. On Apple platforms it compiles no NIO and no BoringSSL.
    .target(
      name: "LifecycledClient",
      dependencies: [
        "LifecycleAPI", "LifecycleEngine",
        .product(
          name: "OpenAPIRuntime", package: "swift-openapi-runtime",
          condition: .when(traits: ["Client"])),
        .product(
          name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Client"])),
        .product(
          name: "OpenAPIURLSession", package: "swift-openapi-urlsession",
          condition: .when(platforms: urlSessionPlatforms, traits: ["Client"])),
        .product(
          name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client",
          condition: .when(platforms: [.linux], traits: ["Client"])),
        .product(
          name: "AsyncHTTPClient", package: "async-http-client",
          condition: .when(platforms: [.linux], traits: ["Client"])),
      ],
      exclude: ["openapi-generator-config.yaml"]),
    // Example tests of an iOS app's lifecycle through the client, against the built server.
    // The engine's names are the client's (methods, codes).
    .testTarget(
      name: "LifecycledClientTests",
      dependencies: ["LifecycledClient", "LifecycleEngine"]),
    // Figures for Benchmarks/README.md; run by `Benchmarks/run`, never by the tests.
    .executableTarget(
      name: "EngineBenchmark",
      dependencies: ["LifecycleEngine"],
      path: "Benchmarks/EngineBenchmark"
    ),
  ]
)
