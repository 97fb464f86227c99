// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "lifecycled",
  products: [
    .library(name: "LifecycleEngine", targets: ["LifecycleEngine"]),
    .library(name: "HTTPCore", targets: ["HTTPCore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2")
  ],
  targets: [
    // The pure simulator core: no I/O, no libuv, no wall clock, no Foundation.
    .target(name: "LifecycleEngine"),
    .testTarget(name: "LifecycleEngineTests", dependencies: ["LifecycleEngine"]),
    // HTTP/1.1 without I/O: the strict parser and the connection state machine.
    .target(name: "HTTPCore"),
    .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore"]),
    .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
    // The libuv shell around HTTPCore: sockets, timers, signals, shutdown. Knows no API.
    .target(
      name: "HTTPServer",
      dependencies: ["CLibUV", "HTTPCore", .product(name: "Logging", package: "swift-log")]),
    .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"]),
    // Figures for the README; run by `scripts/bench`, never by the tests.
    .executableTarget(
      name: "EngineBenchmark",
      dependencies: ["LifecycleEngine"],
      path: "Benchmarks/EngineBenchmark"
    ),
  ]
)
