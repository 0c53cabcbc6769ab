// swift-tools-version:6.0
import PackageDescription

// Tagwarden builds and is tested on Linux (Debian, with the system libyaml and libgit2). It states no Apple platform:
// it has never been built on one.
//
// The targets are layers: each depends only on those above it in this list, and the compiler refuses an import that
// runs the other way (docs/architecture.md draws them).
// Release builds optimise across the layers as they would inside one module (generic specialisation, inlining): the
// split into targets otherwise costs the audit about 1% more instructions. A compiler flag that SwiftPM calls unsafe
// only because a package that others depend on may not use it; Tagwarden is built as a tool, not depended on.
// `-disable-type-layout` (a frontend flag, what debug builds do anyway) has a copy or destruction of a bound generic value
// (`Located?`, a tuple) done field by field where IRGen would otherwise call the runtime's generic value witnesses: an
// optional's copy cost 125 instructions through them, 48 inline; the audit 1.8% fewer in all.
// `-disable-concrete-type-metadata-mangled-name-accessors` has our code reach a generic type's metadata through an
// accessor that passes its conformances, where demangling its name had the runtime look each up by a scan of every
// conformance record of the binary (the first time): 6.7 M of the audit. Neither is a documented option: a toolchain
// upgrade must check that they are still accepted.
// Both inliners take larger functions: LLVM's a threshold of 500 (its default 225), the Swift optimiser's a benefit of 40
// for the call it removes (its default 20): about 30 M fewer instructions, 1.9 MB more code. Ordinary inlining, after
// the optimiser has placed every retain and release. After changing any of these flags, delete
// .build/x86_64-unknown-linux-gnu/release before building: an incremental build does not always recompile or relink.
let cmo: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization", "-Xfrontend", "-disable-type-layout", "-Xfrontend",
                                         "-disable-concrete-type-metadata-mangled-name-accessors", "-Xllvm", "-inline-threshold=500",
                                         "-Xllvm", "-sil-inline-removed-call-benefit=40"],
                                        .when(configuration: .release))]
// The release binary allocates through Microsoft's mimalloc (Debian's libmimalloc2.0), which takes the place of
// glibc's malloc for the whole process: libyaml, libgit2 and libcurl allocate through it too. An audit allocates and
// frees millions of small blocks on two threads (nodes, strings, arrays); against glibc's malloc it takes 8% fewer
// instructions on the bench fleet and about 15% less time at 100,000 files (docs/performance.md). Debug builds, which
// the sanitizers and the tests use, keep the system's malloc.
let releaseAllocator: [LinkerSetting] = [.linkedLibrary("mimalloc", .when(platforms: [.linux], configuration: .release))]
let package = Package(
    name: "Tagwarden",
    products: [
        .executable(name: "tagwarden", targets: ["tagwarden"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CGit2", pkgConfig: "libgit2", providers: [.apt(["libgit2-dev"])]),
        // libcurl's headers only: the library is loaded when a registry is first asked (Sources/CCurl/shim.h), so that
        // runs that ask none do not load it and the libraries it needs.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The error every layer reports, the run's phase timings, atomic file writes.
        .target(name: "TagwardenBasics", swiftSettings: cmo),
        // An RE2-compatible regular expression engine with Go's syntax, and the languages of tags it can select.
        .target(name: "TagwardenRegex", swiftSettings: cmo),
        // libyaml wrapped once: YAML documents with exact positions, read as Go's YAML libraries read them, and byte-span edits.
        .target(name: "TagwardenYAML", dependencies: ["CYAML", "TagwardenBasics"], swiftSettings: cmo),
        // libgit2 wrapped once: repositories, trees, the index, blobs, commits, references, push.
        .target(name: "TagwardenGit", dependencies: ["CGit2", "TagwardenBasics"], swiftSettings: cmo),
        // libcurl wrapped once: HTTP(S) requests with the system trust store and the proxy environment, for registries.
        // libcurl rather than a Swift HTTP client: a system C library like libyaml and libgit2 (TLS, proxies, CA files
        // as users already configure them), synchronous like the rest of the tool, and no package tree to build.
        .target(name: "TagwardenHTTP", dependencies: ["CCurl", "TagwardenBasics"], swiftSettings: cmo),
        // How Flux chooses a tag: semver ranges, numerical and alphabetical order, Go's float parsing.
        .target(name: "TagwardenPolicy", dependencies: ["TagwardenBasics", "TagwardenRegex", "TagwardenYAML"], swiftSettings: cmo),
        // What a repository holds: its snapshot (working tree, index, commit), the config, and the frozen Model of
        // manifests, images, markers, Flux objects, kustomize builds, clusters and environments.
        .target(name: "TagwardenModel", dependencies: ["TagwardenBasics", "TagwardenRegex", "TagwardenYAML", "TagwardenGit", "TagwardenPolicy"], swiftSettings: cmo),
        // The rules, the linter that runs them over a Model, suppressions, fingerprints, and the check orchestration.
        .target(name: "TagwardenLint", dependencies: ["TagwardenBasics", "TagwardenRegex", "TagwardenYAML", "TagwardenGit", "TagwardenPolicy",
                                                      "TagwardenModel"], swiftSettings: cmo),
        // Findings rendered: text, JSON, SARIF, GitHub annotations, Markdown.
        .target(name: "TagwardenReport", dependencies: ["TagwardenBasics", "TagwardenYAML", "TagwardenModel", "TagwardenLint"], swiftSettings: cmo),
        // The update engine: tag sources (a file, registries), policy evaluation, setters as byte-span edits, commit
        // messages, commit, sign, push.
        .target(name: "TagwardenUpdate", dependencies: ["TagwardenBasics", "TagwardenYAML", "TagwardenGit", "TagwardenHTTP", "TagwardenPolicy",
                                                        "TagwardenModel"],
                swiftSettings: cmo),
        // Argument parsing and printing only.
        .executableTarget(
            name: "tagwarden",
            dependencies: ["TagwardenBasics", "TagwardenYAML", "TagwardenGit", "TagwardenPolicy", "TagwardenModel", "TagwardenLint",
                           "TagwardenReport", "TagwardenUpdate", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: releaseAllocator
        ),
        // The Flux and Kubernetes objects both test targets write (YAML text builders).
        .target(name: "TagwardenFixtures", path: "Tests/TagwardenFixtures"),
        // In-process tests of the libraries: parsers, the Model, the rules over their catalogue examples.
        .testTarget(name: "TagwardenTests", dependencies: ["TagwardenBasics", "TagwardenRegex", "TagwardenYAML", "TagwardenGit", "TagwardenHTTP",
                                                           "TagwardenPolicy", "TagwardenModel", "TagwardenLint", "TagwardenReport",
                                                           "TagwardenUpdate", "TagwardenFixtures"]),
        // End-to-end tests of the built binary: the commands, git, hooks.
        .testTarget(name: "TagwardenCLITests", dependencies: ["tagwarden", "TagwardenFixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// scripts/fuzz adds the libFuzzer entry (Fuzz/) and builds it alone, with the fuzzer and address sanitizers.
if Context.environment["TAGWARDEN_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "tagwarden-fuzz", dependencies: ["TagwardenBasics", "TagwardenRegex", "TagwardenYAML",
                                             "TagwardenHTTP", "TagwardenPolicy", "TagwardenModel", "TagwardenLint", "TagwardenUpdate",
                                             "TagwardenGit"],
                                             path: "Fuzz", exclude: ["corpus"]))
}
