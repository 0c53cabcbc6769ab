import TagwardenFixtures
import Foundation
import Testing

/// Registry and git credentials never appear in anything Tagwarden writes: every command and format that speaks to a
/// registry, run with a password, an identity token and a git token, successes and refusals alike, and the tag cache.
@Suite(.serialized) struct SecretScrubbingTests {
    static let password = "pw-\(UUID().uuidString.prefix(12))"
    static let token = "gittoken-\(UUID().uuidString.prefix(12))"

    @Test func noCommandOrFormatShowsACredential() throws {
        let registry = try LocalRegistry(users: [("bot", Self.password)], tokenService: true)
        let user = ("bot", Self.password)
        try registry.push("acme/web", tags: ["1.0.0", "1.1.0"], auth: user)
        try registry.push("acme/web", tags: ["staging-v1.1.0-abc1234-1700000000"], auth: user, seed: "staging")
        let image = "\(registry.host)/acme/web"
        let remote = try TempRepo(git: false)
        try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote.path], cwd: remote.path)
        let r = try TempRepo()
        try r.write([
            "flux/images.yaml": [imageRepository(image: image), imagePolicy(), imageUpdateAutomation(name: "apps", path: "./apps")]
                .joined(separator: "---\n"),
            "apps/web.yaml": "image: \(image):1.0.0 # {\"$imagepolicy\": \"flux-system:web\"}\n",
            "apps/staging/web.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n"
                + "      image: \(image):staging-v1.1.0-abc1234-1700000000\n",
            "apps/production/web.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n"
                + "      image: \(image):production-v1.0.0-abc1234-1600000000\n",
        ])
        try r.commitAll("fleet")
        try r.git("remote", "add", "origin", remote.path)
        let config = r.path + "/.git/docker"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let cache = r.path + "/.git/cache"
        var env = ["DOCKER_CONFIG": config, "XDG_CACHE_HOME": cache, "TAGWARDEN_GIT_TOKEN": Self.token, "TAGWARDEN_TIMINGS": "1"]

        let runs: [[String]] = [
            ["update", "--registry"], ["update", "--registry", "--explain"], ["update", "--registry", "--format", "json"],
            ["update", "--registry", "--format", "markdown"], ["update", "--registry", "--no-cache", "--format", "json"],
            ["update", "--registry", "--commit", "--push", "--remote", "https://x-access-token:\(Self.token)@127.0.0.1:1/acme/fleet.git"],
            ["policy", "eval", "--policy", "flux-system/web", "--registry", "--explain"],
            ["policy", "eval", "--policy", "flux-system/web", "--registry", "--format", "json"],
            ["audit", "--registry"], ["audit", "--registry", "--format", "json"], ["audit", "--registry", "--format", "sarif"],
            ["audit", "--registry", "--format", "markdown"], ["audit", "--registry", "--format", "github"],
            ["promote", image, "--from", "staging", "--to", "production", "--tag", "production-v1.1.0-abc1234-1700000000", "--dry-run"],
            ["promote", image, "--from", "staging", "--to", "production", "--tag", "production-v1.1.0-abc1234-1700000000", "--format", "json"],
        ]
        func check(_ args: [String], _ credentials: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
            let res = try tagwarden(args, in: r.path, env: env, sourceLocation: sourceLocation)
            for secret in [Self.password, Self.token, Data("bot:\(Self.password)".utf8).base64EncodedString()] {
                #expect(!res.stdout.contains(secret) && !res.stderr.contains(secret),
                        "\(credentials): \(args.joined(separator: " ")) printed a secret: \(res.described)", sourceLocation: sourceLocation)
            }
            return res
        }
        let auth = Data("bot:\(Self.password)".utf8).base64EncodedString()
        // the right password, an identity token (a refresh token the token service trades), a wrong password, none
        let configs = [
            ("auths", #"{"auths": {"\#(registry.host)": {"auth": "\#(auth)"}}}"#),
            ("identity token", #"{"auths": {"\#(registry.host)": {"identitytoken": "refresh-\#(Self.password)"}}}"#),
            ("a refused password", #"{"auths": {"\#(registry.host)": {"auth": "\#(Data("bot:\(Self.password)x".utf8).base64EncodedString())"}}}"#),
            ("a refused identity token", #"{"auths": {"\#(registry.host)": {"identitytoken": "\#(Self.password)"}}}"#),
        ]
        var succeeded = 0
        for (name, text) in configs {
            try text.write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
            for args in runs {
                let res = try check(args, name)
                if res.code == 0 || res.code == 3 { succeeded += 1 }
                // the push fails (nothing listens there), and says where to without the token
                if args.contains("--push"), name == "auths" {
                    #expect(res.code == 2 && res.stderr.contains("***@127.0.0.1:1"), "\(res.described)")
                }
            }
            // a refused credential's message says so, without the credential
            if name.hasPrefix("a refused") {
                let res = try check(["update", "--registry", "--no-cache"], name)
                #expect(res.code == 1 && (res.stderr.contains("refused") || res.stdout.contains("refused") || res.stderr.contains("401")),
                        "\(name): \(res.described)")
            }
        }
        // the runs did talk to the registry (a check of nothing would pass too)
        #expect(succeeded >= runs.count, "only \(succeeded) runs succeeded")
        // and the cache holds no credential either
        env["DOCKER_CONFIG"] = nil
        let cached = try run("/usr/bin/grep", ["-r", "-l", "-e", Self.password, "-e", auth, cache], cwd: "/")
        #expect(cached.stdout.isEmpty, "the tag cache holds a credential: \(cached.stdout)")
    }
}
