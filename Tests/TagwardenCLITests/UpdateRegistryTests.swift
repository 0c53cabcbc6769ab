import TagwardenFixtures
import Foundation
import Testing

/// `tagwarden update --registry` against a real registry (Debian's docker-registry) on a loopback port.
@Suite(.serialized) struct UpdateRegistryTests {
    static let marker = #"# {"$imagepolicy": "flux-system:web"}"#
    static let secret = "pa55-\(UUID().uuidString.prefix(8))"

    func fleet(image: String, digests: Bool = false) throws -> TempRepo {
        let r = try TempRepo()
        try r.write([
            "flux/images.yaml": [imageRepository(image: image), imagePolicy(digestReflection: digests ? "IfNotPresent" : nil),
                                 imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n"),
            "apps/web.yaml": "image: \(image):1.0.0 \(Self.marker)\n",
        ])
        try r.commitAll("fleet")
        return r
    }

    func content(_ r: TempRepo) throws -> String { try String(contentsOfFile: r.path + "/apps/web.yaml", encoding: .utf8) }

    /// tagwarden with the repository's own tag cache and docker configuration (none unless given).
    func update(_ r: TempRepo, _ args: [String], env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        var environment = ["XDG_CACHE_HOME": r.path + "/.git/cache", "DOCKER_CONFIG": r.path + "/.git/none"]
        for (k, v) in env { environment[k] = v }
        return try tagwarden(["update"] + args, in: r.path, env: environment, sourceLocation: sourceLocation)
    }

    @Test func tagsAndTheIndexDigestComeFromTheRegistry() throws {
        let registry = try LocalRegistry()
        try registry.push("acme/web", tags: ["1.0.0", "1.1.0", "0.9.0", "1.2.0-rc.1"])
        let digest = try registry.push("acme/web", tags: ["1.2.0"], platforms: 2, seed: "newer")
        let r = try fleet(image: "\(registry.host)/acme/web", digests: true)
        let missing = try update(r, ["--registry", "--registry-config", r.path + "/nope.json"])
        #expect(missing.code == 2 && missing.stderr.contains("nope.json: cannot be read"), "\(missing.described)")
        let res = try update(r, ["--registry", "--write"])
        #expect(res.code == 0, "\(res.described)")
        // the multi-arch 1.2.0's index digest, as Flux records it
        #expect(try content(r) == "image: \(registry.host)/acme/web:1.2.0@\(digest) \(Self.marker)\n")
    }

    @Test func credentialsAsDockerFindsThemAndTheSecretIsNeverShown() throws {
        let registry = try LocalRegistry(users: [("bot", Self.secret)])
        try registry.push("acme/web", tags: ["1.0.0", "1.3.0"], auth: ("bot", Self.secret))
        let r = try fleet(image: "\(registry.host)/acme/web")
        let config = r.path + "/.git/docker"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        func check(_ res: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(!res.stdout.contains(Self.secret) && !res.stderr.contains(Self.secret), "the secret was printed", sourceLocation: sourceLocation)
        }
        // anonymous: the policy cannot read its tags, an error that says why
        try "{}".write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
        let anonymous = try update(r, ["--registry", "--format", "json"], env: ["DOCKER_CONFIG": config])
        #expect(anonymous.code == 1, "\(anonymous.described)")
        #expect(anonymous.stdout.contains("HTTP 401 UNAUTHORIZED"), "\(anonymous.described)")
        check(anonymous)
        // auths, as docker login writes them
        let auth = Data("bot:\(Self.secret)".utf8).base64EncodedString()
        try #"{"auths": {"\#(registry.host)": {"auth": "\#(auth)"}}}"#.write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
        for args in [["--registry"], ["--registry", "--explain"], ["--registry", "--format", "json"], ["--registry", "--format", "markdown"]] {
            let res = try update(r, args, env: ["DOCKER_CONFIG": config])
            #expect(res.code == 3, "\(res.described)")
            #expect(res.stdout.contains("1.3.0"))
            check(res)
        }
        // a credential helper, as ECR, GAR and ACR logins work
        let bin = r.path + "/.git/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\nread server\necho '{\"ServerURL\": \"'$server'\", \"Username\": \"bot\", \"Secret\": \"\(Self.secret)\"}'\n"
            .write(toFile: bin + "/docker-credential-fake", atomically: true, encoding: .utf8)
        chmod(bin + "/docker-credential-fake", 0o755)
        try #"{"credHelpers": {"\#(registry.host)": "fake"}}"#.write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
        let helped = try update(r, ["--registry", "--write"],
                                env: ["DOCKER_CONFIG": config, "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")])
        #expect(helped.code == 0, "\(helped.described)")
        check(helped)
        #expect(try content(r) == "image: \(registry.host)/acme/web:1.3.0 \(Self.marker)\n")
    }

    @Test func tooManyRequestsIsWaitedOut() throws {
        let registry = try LocalRegistry()
        try registry.push("acme/web", tags: ["1.0.0", "1.4.0"])
        let proxy = try RegistryProxy(upstream: registry.host, refusals: 2, retryAfter: 1)
        let r = try fleet(image: "\(proxy.host)/acme/web")
        let res = try update(r, ["--registry", "--write"])
        #expect(res.code == 0, "\(res.described)")
        #expect(try content(r) == "image: \(proxy.host)/acme/web:1.4.0 \(Self.marker)\n")
        // two refusals, then the one listing
        #expect(try proxy.count() == 3)
    }
}

extension UpdateRegistryTests {
    @Test func policyEvalListsTheRegistryOfThePolicy() throws {
        let registry = try LocalRegistry()
        try registry.push("acme/web", tags: ["1.0.0", "2.0.0", "1.5.0", "x.sig"])
        let r = try fleet(image: "\(registry.host)/acme/web")
        let res = try tagwarden(["policy", "eval", "--policy", "flux-system/web", "--registry"], in: r.path,
                                env: ["DOCKER_CONFIG": r.path + "/.git/none", "XDG_CACHE_HOME": r.path + "/.git/cache"])
        #expect(res.code == 0, "\(res.described)")
        #expect(res.stdout == "selected: 2.0.0\nlatestRef: \(registry.host)/acme/web:2.0.0\n")
        let inline = try tagwarden(["policy", "eval", "--semver", ">=1.0.0", "--registry"], in: r.path)
        #expect(inline.code == 2 && inline.stderr.contains("name it with --policy NS/NAME"))
    }
}

extension UpdateRegistryTests {
    @Test func theCacheSavesTheSecondRunsRequestsAndServesWhenTheRegistryIsGone() throws {
        let registry = try LocalRegistry()
        try registry.push("acme/web", tags: ["1.0.0", "1.5.0"])
        let proxy = try RegistryProxy(upstream: registry.host)
        let r = try fleet(image: "\(proxy.host)/acme/web")
        #expect(try update(r, ["--registry"]).code == 3)
        let first = try proxy.count()
        #expect(first == 1)
        // fresh: no request at all
        let second = try update(r, ["--registry"])
        #expect(second.code == 3 && second.stderr.contains("0 repositories listed, 1 from the cache; 0 requests"), "\(second.described)")
        #expect(try proxy.count() == first)
        // --no-cache asks again; --offline never asks
        #expect(try update(r, ["--registry", "--no-cache"]).code == 3)
        #expect(try proxy.count() == first + 1)
        #expect(try update(r, ["--registry", "--offline", "--cache-ttl", "0"]).code == 3)
        #expect(try proxy.count() == first + 1)
        // the registry is gone and the cache is stale: the old listing is used, and said to be
        registry.stop()
        let stale = try update(r, ["--registry", "--cache-ttl", "0"])
        #expect(stale.code == 3, "\(stale.described)")
        #expect(stale.stderr.contains("tagwarden: note: the tags of \(proxy.host)/acme/web are "), "\(stale.described)")
        #expect(stale.stderr.contains("old, from the cache: "))
        // another repository's cache, and offline without one, is an error for its policy
        let other = try TempRepo()
        try other.write(["flux/images.yaml": [imageRepository(image: "\(proxy.host)/acme/web"), imagePolicy(),
                                              imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n"),
                         "apps/web.yaml": "image: \(proxy.host)/acme/web:1.0.0 \(Self.marker)\n"])
        try other.commitAll("other")
        let offline = try update(other, ["--registry", "--offline", "--format", "json"])
        #expect(offline.code == 1 && offline.stdout.contains("--offline reads the cache only"), "\(offline.described)")
    }
}

extension UpdateRegistryTests {
    @Test func aProgressLineOnATerminalAndNothingInALog() throws {
        let registry = try LocalRegistry()
        try registry.push("acme/web", tags: ["1.0.0", "1.6.0"])
        let r = try fleet(image: "\(registry.host)/acme/web")
        let env = ["XDG_CACHE_HOME": r.path + "/.git/cache", "DOCKER_CONFIG": r.path + "/.git/none"]
        let tty = try run("/usr/bin/script", ["-qec", "'\(binary)' update --registry > /dev/null", "/dev/null"], cwd: r.path, env: env)
        #expect(tty.stdout.contains("\rtagwarden: registries: 1/1 repositories, 2 tags, 1 requests, 0 retried"), "\(tty.described)")
        let log = try update(r, ["--registry", "--no-cache"])
        #expect(!log.stderr.contains("\r"), "\(log.described)")
        let quiet = try run("/usr/bin/script", ["-qec", "'\(binary)' update --registry --quiet > /dev/null", "/dev/null"], cwd: r.path, env: env)
        #expect(!quiet.stdout.contains("registries:"), "\(quiet.described)")
    }
}

extension UpdateRegistryTests {
    @Test func manyRepositoriesAreListedSeveralAtOnceEachRightly() throws {
        let registry = try LocalRegistry()
        let r = try TempRepo()
        var docs: [String] = []
        var files: [String: String] = [:]
        for i in 0..<12 {
            try registry.push("acme/app\(i)", tags: ["1.0.0", "1.\(i + 1).0"])
            docs += [imageRepository(name: "app\(i)", image: "\(registry.host)/acme/app\(i)"), imagePolicy(name: "app\(i)")]
            files["apps/app\(i).yaml"] = "image: \(registry.host)/acme/app\(i):1.0.0 # {\"$imagepolicy\": \"flux-system:app\(i)\"}\n"
        }
        files["flux/images.yaml"] = (docs + [imageUpdateAutomation(name: "apps", path: "./apps")]).joined(separator: "---\n")
        try r.write(files)
        try r.commitAll("fleet")
        let res = try update(r, ["--registry", "--write"])
        #expect(res.code == 0, "\(res.described)")
        #expect(res.stderr.contains("12 repositories listed, 0 from the cache; 12 requests"), "\(res.described)")
        for i in 0..<12 {
            #expect(try String(contentsOfFile: r.path + "/apps/app\(i).yaml", encoding: .utf8)
                    == "image: \(registry.host)/acme/app\(i):1.\(i + 1).0 # {\"$imagepolicy\": \"flux-system:app\(i)\"}\n")
        }
    }
}

extension UpdateRegistryTests {
    @Test func theRunsTimeLimitEndsRegistryWorkWithAClearError() throws {
        let registry = try LocalRegistry()
        try registry.push("acme/web", tags: ["1.0.0", "1.7.0"])
        let r = try fleet(image: "\(registry.host)/acme/web")
        let res = try update(r, ["--registry", "--registry-time-limit", "0", "--format", "json"])
        #expect(res.code == 1, "\(res.described)")
        #expect(res.stdout.contains("the registry time limit of the run (0 s) ran out"), "\(res.described)")
        let bad = try update(r, ["--registry", "--registry-rate", "-1"])
        #expect(bad.code == 2)
    }
}
