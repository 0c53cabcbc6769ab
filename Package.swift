// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Tagwarden",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "tagwarden", targets: ["tagwarden"]),
        .library(name: "TagwardenCore", targets: ["TagwardenCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CGit2", pkgConfig: "libgit2", providers: [.apt(["libgit2-dev"])]),
        // The RE2-compatible regular expression engine: no dependency on the rest of Tagwarden.
        .target(name: "TagwardenRegex"),
        .target(name: "TagwardenCore", dependencies: ["CYAML", "CGit2", "TagwardenRegex"]),
        .executableTarget(
            name: "tagwarden",
            dependencies: ["TagwardenCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "TagwardenCoreTests", dependencies: ["TagwardenCore", "TagwardenRegex"]),
        .testTarget(name: "TagwardenCLITests", dependencies: ["TagwardenCore"]),
    ],
    swiftLanguageModes: [.v6]
)
