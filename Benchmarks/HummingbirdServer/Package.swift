// swift-tools-version:6.1
import PackageDescription

// The Swift framework baseline of Benchmarks/run: Hummingbird 2 serving the C ceiling's constant
// 100-byte body. Its own package, so the tests never build it.
let package = Package(
  name: "HummingbirdServer",
  platforms: [.macOS(.v14)],
  dependencies: [
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1")
  ],
  targets: [
    .executableTarget(
      name: "HummingbirdServer",
      dependencies: [.product(name: "Hummingbird", package: "hummingbird")])
  ]
)
