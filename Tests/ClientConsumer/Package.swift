// swift-tools-version:6.1
// A package that uses LifecycledClient as an iOS developer's would, by the README's lines (a
// path here, where the README says the repository's URL). scripts/test builds and runs it.
import PackageDescription

let package = Package(
  name: "ClientConsumer",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(name: "lifecycled", path: "../..")],
  targets: [
    .testTarget(
      name: "ConsumerTests",
      dependencies: [.product(name: "LifecycledClient", package: "lifecycled")])
  ]
)
