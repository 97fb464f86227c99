// swift-tools-version:6.1
// A package that uses LifecycledClient as an iOS developer's would: the client's guide shows
// this manifest, with the repository's URL where this names its path (WalkthroughTests checks
// that the two agree). scripts/test builds and runs it.
import PackageDescription

let package = Package(
  name: "ClientConsumer",
  platforms: [.macOS(.v15), .iOS(.v16)],
  dependencies: [.package(name: "lifecycled", path: "../..")],
  targets: [
    .testTarget(
      name: "ConsumerTests",
      dependencies: [.product(name: "LifecycledClient", package: "lifecycled")])
  ]
)
