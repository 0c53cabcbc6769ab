import TagwardenFixtures
import Foundation
import Testing

/// `tagwarden audit --registry` against real registries: the rules only a registry can judge.
@Suite(.serialized) struct AuditRegistryTests {
    @Test func missingTagsMovedTagsAndMarkersBehindAreFound() throws {
        let open = try LocalRegistry()
        let old = try open.push("acme/web", tags: ["1.4.1"], seed: "1.4.1")
        try open.push("acme/web", tags: ["1.4.2"], seed: "1.4.2")
        let index = try open.push("acme/api", tags: ["2.0.0"], platforms: 2, seed: "api")
        // a platform of the index, as someone pins one architecture
        let platforms = try open.platforms("acme/api", index: index)
        let platform = try #require(platforms.first)
        let moved = try open.push("acme/worker", tags: ["3.0.0"], seed: "first")
        try open.push("acme/worker", tags: ["3.0.0"], seed: "pushed again")
        // a registry that wants a credential the test does not give: a note, no finding
        let closed = try LocalRegistry(users: [("bot", "pw")])
        try closed.push("acme/db", tags: ["1.0.0"], auth: ("bot", "pw"))

        let r = try TempRepo()

        try r.declareOneCluster()
        let o = open.host
        try r.write([
            // (the automation's GitRepository is here: one that is nowhere fails, and update, like Flux, runs nothing of it)
            "flux/images.yaml": [imageRepository(image: "\(o)/acme/web"), imagePolicy(semver: "~1.4"),
                                 imageUpdateAutomation(name: "apps", path: "./apps"),
                                 "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\n"
                                    + "spec: {url: https://github.com/acme/fleet, ref: {branch: main}}\n"].joined(separator: "---\n"),
            "apps/web.yaml": "image: \(o)/acme/web:1.4.1 # {\"$imagepolicy\": \"flux-system:web\"}\n",
            "apps/pods.yaml": """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: pods
                spec:
                  containers:
                    - name: typo
                      image: \(o)/acme/web:1.4.9
                    - name: pinned
                      image: \(o)/acme/web:1.4.1@\(old)
                    - name: platform
                      image: \(o)/acme/api:2.0.0@\(platform)
                    - name: index
                      image: \(o)/acme/api:2.0.0@\(index)
                    - name: moved
                      image: \(o)/acme/worker:3.0.0@\(moved)
                    - name: private
                      image: \(closed.host)/acme/db:1.0.0

                """,
        ])
        try r.commitAll("fleet")
        let env = ["XDG_CACHE_HOME": r.path + "/.git/cache", "DOCKER_CONFIG": r.path + "/.git/none"]
        // offline by default: none of the registry rules
        let offline = try r.audit("--format", "json", env: env)
        #expect(!offline.findings.contains { $0.hasPrefix("image-tag-missing") || $0.hasPrefix("image-digest-mismatch") || $0.hasPrefix("marker-behind") },
                "\(offline.described)")

        let res = try r.audit("--registry", "--format", "json", env: env)
        let registryFindings = res.findings.filter { $0.hasPrefix("image-tag-missing") || $0.hasPrefix("image-digest-mismatch") || $0.hasPrefix("marker-behind") }
        #expect(registryFindings.sorted() == [
            "image-digest-mismatch apps/pods.yaml:16:14",
            "image-tag-missing apps/pods.yaml:8:14",
            "marker-behind apps/web.yaml:1:39",
        ], "\(res.described)")
        let messages = res.findingObjects.compactMap { $0["message"] as? String }
        let now = try #require(try open.manifest("acme/worker", "3.0.0")?.digest.prefix(19)).appending("…")
        #expect(messages.contains("\(o)/acme/worker:3.0.0 is \(now) in the registry, "
                                  + "but this pins \(moved.prefix(19))…: the tag was pushed again, or the pin is not this tag's build; the runtime pulls the pinned digest"),
                "\(messages)")
        // a registry that refuses is a finding, never silence
        #expect(messages.contains("\(closed.host)/acme/db could not be asked about its tag (\(closed.host): reading the digest of acme/db:1.0.0: "
                                  + "HTTP 401 (no credential for \(closed.host))): whether it exists and what it names was not checked "
                                  + "(image-tag-missing, image-digest-mismatch)"), "\(messages)")
        #expect(res.findings.contains("registry-unreachable apps/pods.yaml:18:14"), "\(res.described)")
        #expect(res.stderr.contains("registries: 4 tags looked up, 1 repositories listed"), "\(res.described)")

        // --tags: the registry's content as a tag file, no registry asked
        try r.write(".git/tags.yaml", "\(o)/acme/web: [1.4.1, 1.4.2]\n")
        let fromFile = try r.audit("--tags", ".git/tags.yaml", "--format", "json", env: env)
        #expect(fromFile.findings.filter { $0.hasPrefix("image-tag-missing") || $0.hasPrefix("marker-behind") }.sorted() == [
            "image-tag-missing apps/pods.yaml:8:14", "marker-behind apps/web.yaml:1:39"], "\(fromFile.described)")
        let both = try r.audit("--tags", ".git/tags.yaml", "--registry", env: env)
        #expect(both.code == 2 && both.stderr.contains("give --registry or --tags, not both"), "\(both.described)")
    }
}
