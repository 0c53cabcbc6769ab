import TagwardenFixtures
import Foundation
import Testing

/// `tagwarden promote` end to end: a real registry (Debian's docker-registry, behind a Bearer token service), a
/// repository with staging and production manifests, a bare remote to push the promotion branch to.
@Suite(.serialized) struct PromoteTests {
    static let secret = "s3cret-\(UUID().uuidString.prefix(8))"
    static let stagingTag = "staging-v1.4.0-3f2a9c1-1732300000"
    static let productionTag = "production-v1.4.0-3f2a9c1-1732300000"

    /// What the registry names `repository:tag` now, as the test's user, or nil.
    func registryDigest(_ registry: LocalRegistry, _ repository: String, _ tag: String, auth: (String, String)? = nil) throws -> String? {
        try registry.manifest(repository, tag, auth: auth)?.digest
    }

    /// A repository whose staging runs `image:stagingTag` (pinned to `stagingDigest` when given), and whose production
    /// names the image three ways: a quoted reference, a kustomize entry without a digest, chart values with one.
    func repository(image: String, stagingDigest: String?) throws -> (remote: TempRepo, clone: TempRepo) {
        let remote = try TempRepo(git: false)
        try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote.path], cwd: remote.path)
        let r = try TempRepo()
        let staging = "\(image):\(Self.stagingTag)" + (stagingDigest.map { "@" + $0 } ?? "")
        try r.write([
            ".tagwarden.yaml": "profile: strict\n",
            "flux/images.yaml": imageRepository(image: image),
            "apps/staging/web.yaml": deployment(image: staging, comment: #" # {"$imagepolicy": "flux-system:web"}"#),
            "apps/production/web.yaml": deployment(image: "\"\(image):production-v1.3.9-0a0b0c0-1732000000@sha256:\(String(repeating: "1", count: 64))\""),
            "clusters/production/apps/kustomization.yaml": """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources: [web.yaml]
                images:
                  - name: \(image)   # the production build
                    newTag: production-v1.3.9-0a0b0c0-1732000000
                """ + "\n",
            "clusters/production/apps/web.yaml": deployment(image: "\(image):base"),
            "clusters/production/apps/release.yaml": """
                apiVersion: helm.toolkit.fluxcd.io/v2
                kind: HelmRelease
                metadata:
                  name: web
                  namespace: production
                spec:
                  chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: charts}}}
                  values:
                    image:
                      repository: \(image)
                      tag: 'production-v1.3.9-0a0b0c0-1732000000'
                      digest: ""
                """ + "\n",
        ])
        try r.commitAll("staging runs v1.4.0")
        try r.git("remote", "add", "origin", remote.path)
        try r.git("push", "-q", "origin", "main")
        return (remote, r)
    }

    func deployment(image: String, comment: String = "") -> String {
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          template:
            spec:
              containers:
                - name: web
                  image: \(image)\(comment)

        """
    }

    func dockerConfig(_ r: TempRepo, host: String) throws -> String {
        let dir = r.path + "/.git/docker"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let auth = Data("bot:\(Self.secret)".utf8).base64EncodedString()
        try #"{"auths": {"\#(host)": {"auth": "\#(auth)"}}}"#.write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        return dir
    }

    func promote(_ r: TempRepo, _ args: [String], config: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        let res = try tagwarden(["promote"] + args, in: r.path, env: ["DOCKER_CONFIG": config], sourceLocation: sourceLocation)
        #expect(!res.stdout.contains(Self.secret) && !res.stderr.contains(Self.secret), "the secret was printed", sourceLocation: sourceLocation)
        return res
    }

    @Test func theTestedBuildIsRetaggedPinnedAndCommittedForReview() throws {
        let registry = try LocalRegistry(users: [("bot", Self.secret)], tokenService: true)
        let user = ("bot", Self.secret)
        // staging runs a multi-arch image: the index digest is what is promoted
        let digest = try registry.push("acme/web", tags: [Self.stagingTag], platforms: 2, auth: user, seed: "v1.4.0")
        let image = "\(registry.host)/acme/web"
        let (remote, r) = try repository(image: image, stagingDigest: digest)
        let config = try dockerConfig(r, host: registry.host)
        let head = try r.git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let branch = "tagwarden/promote-web-\(Self.productionTag)"

        // --dry-run: the whole plan, nothing changed
        let dry = try promote(r, [image, "--from", "staging", "--to", "production", "--dry-run"], config: config)
        #expect(dry.code == 0, "\(dry.described)")
        #expect(dry.stderr.contains("would tag \(digest) as \(Self.productionTag)"), "\(dry.described)")
        #expect(dry.stdout.contains("+    newTag: \(Self.productionTag)\n+    digest: \(digest)\n"), "\(dry.described)")
        #expect(try registryDigest(registry, "acme/web", Self.productionTag, auth: user) == nil)
        #expect((try? r.git("rev-parse", "--verify", "-q", branch)) == nil)
        // the diff is a patch git applies
        try r.write(".git/promote.patch", dry.stdout)
        #expect(try run("/usr/bin/git", ["apply", "--check", ".git/promote.patch"], cwd: r.path).code == 0)

        // the same plan as JSON
        let json = try promote(r, [image, "--from", "staging", "--to", "production", "--dry-run", "--format", "json"], config: config)
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.described)")
        let staging = plan["staging"] as? [String: Any], production = plan["production"] as? [String: Any]
        #expect(staging?["digest"] as? String == digest && staging?["mediaType"] as? String == "application/vnd.oci.image.index.v1+json")
        #expect(staging?["identity"] as? String == "v1.4.0-3f2a9c1-1732300000" && staging?["testedAt"] as? String == head)
        #expect(production?["reference"] as? String == "\(image):\(Self.productionTag)@\(digest)" && production?["tagged"] as? String == "would")
        #expect((plan["files"] as? [[String: Any]])?.map { $0["path"] as? String } == [
            "apps/production/web.yaml", "clusters/production/apps/kustomization.yaml", "clusters/production/apps/release.yaml"])
        #expect(plan["commit"] is NSNull && plan["branch"] as? String == branch)

        let res = try promote(r, [image, "--from", "staging", "--to", "production", "--push"], config: config)
        #expect(res.code == 0, "\(res.described)")
        // the production tag names the staging digest, in the registry
        #expect(try registryDigest(registry, "acme/web", Self.productionTag, auth: user) == digest)
        #expect(res.stderr.contains("read back identical"), "\(res.described)")
        // the work tree and the checkout branch are as they were; the branch is on the remote
        #expect(try r.git("status", "--porcelain").stdout.isEmpty)
        #expect(try r.git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == head)
        let pushed = try run("/usr/bin/git", ["rev-parse", branch], cwd: remote.path)
        let local = try r.git("rev-parse", branch).stdout
        #expect(pushed.code == 0 && pushed.stdout == local, "\(pushed.described)")
        #expect(try r.git("rev-parse", branch + "^").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == head)

        // the manifests: tag@digest, each written in its own field and style
        func file(_ path: String) throws -> String { try r.git("show", "\(branch):\(path)").stdout }
        let prod = "\(image):\(Self.productionTag)@\(digest)"
        #expect(try file("apps/production/web.yaml") == deployment(image: "\"\(prod)\""))
        #expect(try file("clusters/production/apps/kustomization.yaml").contains("""
              - name: \(image)   # the production build
                newTag: \(Self.productionTag)
                digest: \(digest)

            """))
        #expect(try file("clusters/production/apps/release.yaml").contains("""
                  repository: \(image)
                  tag: '\(Self.productionTag)'
                  digest: "\(digest)"

            """))
        #expect(try file("clusters/production/apps/web.yaml") == deployment(image: "\(image):base"))
        #expect(try r.git("diff", "--name-only", head, branch).stdout == """
            apps/production/web.yaml
            clusters/production/apps/kustomization.yaml
            clusters/production/apps/release.yaml

            """)
        // the message: identity, digest, the staging commit, the checklist
        let message = try r.git("log", "-1", "--format=%B", branch).stdout
        #expect(message.hasPrefix("Promote web v1.4.0-3f2a9c1-1732300000 from staging to production\n\n"), "\(message)")
        for line in ["Identity:   v1.4.0-3f2a9c1-1732300000", "Digest:     \(digest) (application/vnd.oci.image.index.v1+json)",
                     "Tested at:  \(head) (staging has run it since \(head.prefix(12)) \"staging runs v1.4.0\")",
                     "Production: \(prod)", "  apps/production/web.yaml:10: \(image):production-v1.3.9-0a0b0c0-1732000000@sha256:\(String(repeating: "1", count: 64))",
                     "- [ ] Confirm staging:", "- [ ] Promote the identity, not a rebuild:", "- [ ] Open a pull request from \(branch)",
                     "- [ ] Verify Flux:", "- [ ] Prepare the rollback:"] {
            #expect(message.contains(line + (line.hasSuffix(":") ? " " : "")) || message.contains(line), "missing '\(line)' in \(message)")
        }
        // the audit's promotion rules pass on the result, by construction
        try r.git("checkout", "-q", branch)
        let audit = try r.audit("--format", "json")
        let rules = audit.findings.map { String($0.prefix { $0 != " " }) }
        for rule in ["promotion-untested-digest", "promotion-rebuilt-artifact", "image-env-prefix", "image-tag-pattern", "image-not-pinned"] {
            #expect(!rules.contains(rule), "\(rule) after the promotion: \(audit.described)")
        }
        try r.git("checkout", "-q", "main")

        // again: the tag names the build already and the branch exists: refused, nothing changed
        let again = try promote(r, [image, "--from", "staging", "--to", "production"], config: config)
        #expect(again.code == 1 && again.stderr.contains("branch \(branch) exists"), "\(again.described)")
    }

    @Test func aMovedStagingTagOrATakenProductionTagIsRefused() throws {
        let registry = try LocalRegistry()
        let tested = try registry.push("acme/web", tags: [Self.stagingTag], seed: "tested")
        let image = "\(registry.host)/acme/web"
        let (_, r) = try repository(image: image, stagingDigest: tested)
        let config = r.path + "/.git/none"
        // someone pushed another build under staging's tag since staging was tested
        let other = try registry.push("acme/web", tags: [Self.stagingTag], seed: "rebuilt")
        let moved = try promote(r, [image, "--from", "staging", "--to", "production"], config: config)
        #expect(moved.code == 1, "\(moved.described)")
        #expect(moved.stderr.contains("refused: staging's tag now points to another build: \(Self.stagingTag) is \(other) in the registry, "
                                      + "but staging was tested with \(tested)"), "\(moved.described)")
        #expect(try registryDigest(registry, "acme/web", Self.productionTag) == nil)
        #expect((try? r.git("rev-parse", "--verify", "-q", "tagwarden/promote-web-\(Self.productionTag)")) == nil)

        // --digest that is not what the tag names is refused the same way, for a staging that pins no digest
        let (_, unpinned) = try repository(image: image, stagingDigest: nil)
        let wrong = try promote(unpinned, [image, "--from", "staging", "--to", "production", "--digest", tested], config: config)
        #expect(wrong.code == 1 && wrong.stderr.contains("staging's tag now points to another build"), "\(wrong.described)")

        // the production tag names another build already: not overwritten
        try registry.push("acme/web", tags: [Self.productionTag], seed: "someone else's")
        let taken = try promote(unpinned, [image, "--from", "staging", "--to", "production", "--dry-run"], config: config)
        #expect(taken.code == 1 && taken.stderr.contains("\(image):\(Self.productionTag) exists and names another build"), "\(taken.described)")
        // as JSON too, for a CI step that reads standard output
        let json = try promote(unpinned, [image, "--from", "staging", "--to", "production", "--dry-run", "--format", "json"], config: config)
        let refusal = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(json.code == 1 && (refusal?["refused"] as? String)?.contains("exists and names another build") == true, "\(json.described)")
        let usage = try promote(unpinned, [image, "--from", "qa", "--to", "production", "--format", "json"], config: config)
        let error = try JSONSerialization.jsonObject(with: Data(usage.stdout.utf8)) as? [String: Any]
        #expect(usage.code == 2 && (error?["error"] as? String)?.hasPrefix("no environment 'qa'") == true, "\(usage.described)")
    }

    @Test func whatCannotBePromotedSaysWhy() throws {
        let registry = try LocalRegistry()
        let image = "\(registry.host)/acme/web"
        let (_, r) = try repository(image: image, stagingDigest: nil)
        let config = r.path + "/.git/none"
        let cases: [([String], String)] = [
            ([image, "--from", "qa", "--to", "production"], "no environment 'qa' (the environments are development, staging, production"),
            (["\(registry.host)/acme/api", "--from", "staging", "--to", "production"], "no staging manifest runs \(registry.host)/acme/api"),
            ([image, "--from", "staging", "--to", "development"], "no development manifest names \(image): nothing to rewrite"),
            ([image, "--from", "staging", "--to", "production", "--tag", "prod-1"], "the production tag prod-1 does not match production's tag pattern"),
            ([image, "--from", "staging", "--to", "production", "--branch", "a..b"], "'a..b' is not a valid branch name"),
        ]
        for (args, message) in cases {
            let res = try promote(r, args, config: config)
            #expect(res.code == 2 && res.stderr.contains(message), "\(args): \(res.described)")
        }
        // the tag is not in the registry: nothing to promote
        let missing = try promote(r, [image, "--from", "staging", "--to", "production"], config: config)
        #expect(missing.code == 1 && missing.stderr.contains("\(image):\(Self.stagingTag) is not in the registry"), "\(missing.described)")
        let bad = try promote(r, [image, "--from", "staging", "--to", "production", "--digest", "sha256:12"], config: config)
        #expect(bad.code == 2 && bad.stderr.contains("--digest must be a digest"), "\(bad.described)")
    }

    @Test func nothingIsTaggedWhenTheCommitOrPushCouldNotBeMadeAndARepeatCommitsNothing() throws {
        let registry = try LocalRegistry()
        let digest = try registry.push("acme/web", tags: [Self.stagingTag], seed: "v1.4.0")
        let image = "\(registry.host)/acme/web"
        let (remote, r) = try repository(image: image, stagingDigest: digest)
        let config = r.path + "/.git/none"
        let args = [image, "--from", "staging", "--to", "production"]
        let branch = "tagwarden/promote-web-\(Self.productionTag)"
        // a branch in the way of the new one, a remote that does not exist: refused before the registry is touched
        try r.git("branch", "tagwarden")
        let inTheWay = try promote(r, args, config: config)
        #expect(inTheWay.code == 1 && inTheWay.stderr.contains("branch tagwarden is in the way of \(branch)"), "\(inTheWay.described)")
        try r.git("branch", "-D", "tagwarden")
        let noRemote = try promote(r, args + ["--push", "--remote", "nowhere"], config: config)
        #expect(noRemote.code == 2 && noRemote.stderr.contains("cannot push to 'nowhere': no such remote"), "\(noRemote.described)")
        #expect(try registryDigest(registry, "acme/web", Self.productionTag) == nil)
        // a remote that has a branch of that name already: refused, the commit kept locally
        try r.git("push", "-q", "origin", "main:refs/heads/" + branch)
        let taken = try promote(r, args + ["--push"], config: config)
        #expect(taken.code == 1 && taken.stderr.contains("has a branch \(branch) already"), "\(taken.described)")
        let there = try run("/usr/bin/git", ["rev-parse", branch], cwd: remote.path).stdout
        #expect(there == (try r.git("rev-parse", "main").stdout), "the remote's branch was moved")
        // merged: promoting again finds production running the build, and commits nothing
        try r.git("merge", "-q", "--ff-only", branch)
        try r.git("branch", "-D", branch)
        let again = try promote(r, args, config: config)
        #expect(again.code == 0 && again.stderr.contains("runs \(image):\(Self.productionTag)@\(digest) already: nothing to commit"), "\(again.described)")
        #expect((try? r.git("rev-parse", "--verify", "-q", branch)) == nil)
    }

    @Test func stagingAsItReallyIs() throws {
        let registry = try LocalRegistry()
        let index = try registry.push("acme/web", tags: [Self.stagingTag], platforms: 2, seed: "v1.4.0")
        let image = "\(registry.host)/acme/web"
        let config = "/nonexistent"
        // two staging clusters, one pinning the build and one naming its tag: one build
        let (_, r) = try repository(image: image, stagingDigest: index)
        try r.write("apps/staging/us/web.yaml", deployment(image: "\(image):\(Self.stagingTag)"))
        try r.commitAll("a second staging cluster")
        let two = try promote(r, [image, "--from", "staging", "--to", "production", "--dry-run"], config: config)
        #expect(two.code == 0 && two.stderr.contains("(apps/staging/web.yaml:10, apps/staging/us/web.yaml:10)"), "\(two.described)")
        // a production tag with another identity than staging's build
        let mislabelled = try promote(r, [image, "--from", "staging", "--to", "production", "--tag", "production-v2.0.0-bbbbbbb-1732399999"], config: config)
        #expect(mislabelled.code == 2 && mislabelled.stderr.contains("names the version identity v2.0.0-bbbbbbb-1732399999, but staging runs "
                                                                      + "v1.4.0-3f2a9c1-1732300000"), "\(mislabelled.described)")
        // staging pins one platform of the index its tag names: said so, not "the tag moved"
        let platforms = try #require(try registry.platforms("acme/web", index: index).first)
        let (_, pinsPlatform) = try repository(image: image, stagingDigest: platforms)
        let platform = try promote(pinsPlatform, [image, "--from", "staging", "--to", "production", "--dry-run"], config: config)
        #expect(platform.code == 1 && platform.stderr.contains("staging pins \(platforms), one platform of the multi-arch index \(index)"),
                "\(platform.described)")
        // staging by digest alone: the message names it so
        let (_, byDigest) = try repository(image: image, stagingDigest: nil)
        try byDigest.write("apps/staging/web.yaml", deployment(image: "\(image)@\(index)"))
        try byDigest.commitAll("staging by digest")
        let digestOnly = try promote(byDigest, [image, "--from", "staging", "--to", "production", "--dry-run", "--tag", Self.productionTag], config: config)
        #expect(digestOnly.code == 0 && digestOnly.stderr.contains("    Staging:    \(image)@\(index)\n"), "\(digestOnly.described)")
        // since when: not a commit that ran another build under the tag
        let (_, history) = try repository(image: image, stagingDigest: "sha256:" + String(repeating: "9", count: 64))
        try history.write("apps/staging/web.yaml", deployment(image: "\(image):\(Self.stagingTag)"))
        try history.commitAll("staging unpinned")
        let head = try history.git("rev-parse", "HEAD").stdout.prefix(12)
        let since = try promote(history, [image, "--from", "staging", "--to", "production", "--dry-run"], config: config)
        #expect(since.code == 0 && since.stderr.contains("(staging has run it since \(head) \"staging unpinned\")"), "\(since.described)")
    }
}

extension PromoteTests {
    /// A repository whose production field carries a marker an automation runs: `pattern` filters the production
    /// policy's tags (by the timestamp it extracts); production runs v1.3.9, pinned.
    func ownedRepository(_ registry: LocalRegistry, pattern: String) throws -> (repo: TempRepo, image: String, old: String) {
        let image = "\(registry.host)/acme/web"
        let old = try registry.push("acme/web", tags: ["production-v1.3.9-0a0b0c0-1732000000"], seed: "v1.3.9")
        let r = try TempRepo()
        try r.write([
            ".tagwarden.yaml": "profile: strict\n",
            "flux/images.yaml": imageRepository(image: image) + "---\n"
                + imagePolicy(name: "web-production", repository: "web", pattern: pattern, extract: "$ts", order: .numerical("asc"),
                              digestReflection: "IfNotPresent")
                + "---\n" + imageUpdateAutomation(name: "production", path: "./apps/production"),
            "apps/staging/web.yaml": deployment(image: "\(image):\(Self.stagingTag)"),
            "apps/production/web.yaml": deployment(image: "\(image):production-v1.3.9-0a0b0c0-1732000000@\(old)",
                                                   comment: #" # {"$imagepolicy": "flux-system:web-production"}"#),
        ])
        try r.commitAll("production runs v1.3.9")
        return (r, image, old)
    }

    @Test func aPromotionTheProductionPolicyWouldWriteOverIsWarnedOf() throws {
        let registry = try LocalRegistry()
        _ = try registry.push("acme/web", tags: [Self.stagingTag], seed: "v1.4.0")
        // the production policy takes release builds, not the promoted tags
        let (r, image, _) = try ownedRepository(registry, pattern: "^release-(?P<ts>[0-9]+)$")
        _ = try registry.push("acme/web", tags: ["release-1732400000"], seed: "release")
        let json = try promote(r, [image, "--from", "staging", "--to", "production", "--dry-run", "--format", "json"], config: "/nonexistent")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.described)")
        let owned = try #require(plan["automations"] as? [[String: Any]])
        #expect(owned.count == 1 && owned.first?["automation"] as? String == "flux-system/production"
                && (owned.first?["writes"] as? String)?.hasPrefix("\(image):release-1732400000@sha256:") == true, "\(owned)")
        let warning = "apps/production/web.yaml:10: ImageUpdateAutomation flux-system/production writes '\(image):release-1732400000@sha256:"
        #expect((plan["warnings"] as? [String])?.first?.hasPrefix(warning) == true, "\(plan["warnings"] ?? "none")")
        #expect((plan["message"] as? String)?.contains("- [ ] Resolve first: apps/production/web.yaml:10 is written over by ImageUpdateAutomation "
                                                         + "flux-system/production at its next run") == true)
        let text = try promote(r, [image, "--from", "staging", "--to", "production", "--dry-run"], config: "/nonexistent")
        #expect(text.code == 0 && text.stderr.contains("warning: " + warning), "\(text.described)")
    }

    @Test func rollbackRevertsTheLastPromotionAndSaysWhatWouldReapplyIt() throws {
        let registry = try LocalRegistry()
        let digest = try registry.push("acme/web", tags: [Self.stagingTag], seed: "v1.4.0")
        let (r, image, old) = try ownedRepository(registry, pattern: "^production-v[0-9.]+-[0-9a-f]+-(?P<ts>[0-9]+)$")
        let before = try r.git("show", "HEAD:apps/production/web.yaml").stdout
        // the policy selects the promoted tag: the automation keeps the promotion (and makes it, once the tag exists), and
        // would write it back after a revert
        let dryPromote = try promote(r, [image, "--from", "staging", "--to", "production", "--dry-run"], config: "/nonexistent")
        #expect(dryPromote.stderr.contains("note: apps/production/web.yaml:10: ImageUpdateAutomation flux-system/production selects "
                                           + "\(Self.productionTag) itself once the registry has it"), "\(dryPromote.described)")
        let promoted = try promote(r, [image, "--from", "staging", "--to", "production", "--format", "json"], config: "/nonexistent")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(promoted.stdout.utf8)) as? [String: Any], "\(promoted.described)")
        #expect((plan["automations"] as? [[String: Any]])?.map { $0["writes"] is NSNull } == [true], "\(plan["automations"] ?? "none")")
        #expect((plan["warnings"] as? [String]) == [])
        #expect((plan["message"] as? String)?.contains("ImageUpdateAutomation flux-system/production writes \(Self.productionTag) back while its policy "
                                                         + "selects it: `tagwarden rollback \(image) --env production` says what keeps a rollback") == true)
        let promotion = try #require(plan["commit"] as? String)
        try r.git("merge", "-q", "--no-ff", "-m", "Merge the promotion", "tagwarden/promote-web-\(Self.productionTag)")
        try r.write("README.md", "an unrelated change after the merge\n")
        try r.commitAll("unrelated")
        let head = try r.git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // --dry-run: the revert as a diff, what re-applies it, nothing changed
        let dry = try tagwarden(["rollback", image, "--env", "production", "--dry-run"], in: r.path)
        #expect(dry.code == 0, "\(dry.described)")
        #expect(dry.stdout.contains("-          image: \(image):\(Self.productionTag)@\(digest)")
                && dry.stdout.contains("+          image: \(image):production-v1.3.9-0a0b0c0-1732000000@\(old)"), "\(dry.described)")
        #expect(dry.stderr.contains("the last promotion of \(image) to production: \(promotion.prefix(12))"), "\(dry.described)")
        #expect(dry.stderr.contains("warning: apps/production/web.yaml:10: ImageUpdateAutomation flux-system/production writes "
                                    + "'\(image):\(Self.productionTag)@\(digest)' back at its next run while the registry has \(Self.productionTag)"), "\(dry.described)")
        #expect(dry.stderr.contains("(flux suspend image update production -n flux-system)"), "\(dry.described)")
        #expect(try r.git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == head)

        // the rollback: a commit on a new branch from HEAD whose file is production's before the promotion
        let res = try tagwarden(["rollback", image, "--env", "production"], in: r.path)
        #expect(res.code == 0, "\(res.described)")
        let branch = "tagwarden/rollback-web-\(Self.productionTag)"
        #expect(try r.git("show", "\(branch):apps/production/web.yaml").stdout == before)
        #expect(try r.git("rev-parse", branch + "^").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == head)
        let message = try r.git("log", "-1", "--format=%B", branch).stdout
        #expect(message.hasPrefix("Roll back web \(Self.productionTag) in production\n\nThis reverts commit \(promotion) "), "\(message)")
        #expect(message.contains("Restores:\n  apps/production/web.yaml:10: \(image):production-v1.3.9-0a0b0c0-1732000000@\(old)\n"), "\(message)")
        #expect(try r.git("status", "--porcelain").stdout.isEmpty)

        // merged, the promotion is reverted already: nothing to roll back
        try r.git("merge", "-q", "--ff-only", branch)
        let again = try tagwarden(["rollback", image, "--env", "production"], in: r.path)
        #expect(again.code == 1 && again.stderr.contains("is reverted already by"), "\(again.described)")
        // no promotion of another image
        let none = try tagwarden(["rollback", "\(registry.host)/acme/api", "--env", "production"], in: r.path)
        #expect(none.code == 2 && none.stderr.contains("no commit from HEAD promotes \(registry.host)/acme/api to production"), "\(none.described)")
    }
}
