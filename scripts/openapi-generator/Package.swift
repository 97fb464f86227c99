// swift-tools-version:6.1
// swift-openapi-generator, built on demand by scripts/generate-client: a package of its own, so
// that neither the server's build nor the client's users resolve it.
import PackageDescription

let package = Package(
  name: "openapi-generator",
  dependencies: [
    .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3")
  ]
)
