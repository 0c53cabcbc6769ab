import TagwardenFixtures
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What repository content can make `update` do with the runner's git credentials and CPU: which automations run and
/// push where, what a message template may cost, what a file name can print, and a run killed midway.
@Suite struct UpdateAttackTests {
    static let marker = #"# {"$imagepolicy": "flux-system:web"}"#

    func automation(name: String = "apps", path: String = "./apps", push: String = "main", refspec: String? = nil, template: String? = nil) -> String {
        "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: \(name), namespace: flux-system}\nspec:\n"
            + "  sourceRef: {kind: GitRepository, name: flux-system}\n"
            + "  git:\n    checkout: {ref: {branch: main}}\n    commit: {author: {email: bot@example.com}"
            + (template.map { ", messageTemplate: '\($0)'" } ?? "") + "}\n"
            + "    push: {branch: \(push)" + (refspec.map { ", refspec: '\($0)'" } ?? "") + "}\n"
            + "  update: {path: \(path)}\n"
    }

    /// A bare remote with `main` and `release`, and a clone of it holding `files`.
    func remoteAndClone(_ files: [String: String]) throws -> (remote: TempRepo, clone: TempRepo) {
        let remote = try TempRepo(git: false)
        try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote.path], cwd: remote.path)
        let clone = try TempRepo()
        try clone.write(files)
        try clone.write(".git/tags.yaml", "ghcr.io/acme/web: ['1.1.0']\n")
        try clone.commitAll("fleet")
        try clone.git("remote", "add", "origin", remote.path)
        try clone.git("push", "-q", "origin", "main", "main:release", "main:protected")
        try clone.git("fetch", "-q", "origin")
        return (remote, clone)
    }

    func remoteRef(_ remote: TempRepo, _ name: String) throws -> String? {
        let res = try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "-q", "--verify", name], cwd: remote.path)
        return res.code == 0 ? res.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    // MARK: which automations run, and where they push

    @Test func onlyTheAutomationsAClusterAppliesRunAndPush() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps")
        files["apps/flux.yaml"] = [imageRepository(), imagePolicy(), automation()].joined(separator: "---\n")
        files["apps/web.yaml"] = "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n"
        // an example no cluster applies, whose refspec would delete the remote's release branch
        files["docs/example/automation.yaml"] = automation(name: "example", path: "./", push: "main", refspec: ":refs/heads/release")
        let (remote, clone) = try remoteAndClone(files)
        let release = try remoteRef(remote, "release")
        let res = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit", "--push", "--format", "json"], in: clone.path)
        #expect(res.code == 0, "\(res.described)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(res.stdout.utf8)) as? [String: Any])
        let automations = (report["automations"] as? [[String: Any]]) ?? []
        #expect(automations.map { "\($0["name"]!): \(($0["skipped"] as? String) ?? "ran")" } == [
            "apps: ran",
            "example: no cluster this repository describes (flux bootstrap's sync, a FluxInstance's, or clusters: in .tagwarden.yaml), "
                + "and no Flux Kustomization of it, applies docs/example/automation.yaml, so it is not run here; if a cluster applies it "
                + "from outside (kubectl apply), declare that cluster under clusters: in .tagwarden.yaml",
        ], "\(res.described)")
        let warnings = (report["warnings"] as? [String]) ?? []
        #expect(warnings.count == 1 && warnings[0].hasPrefix("ImageUpdateAutomation flux-system/example: not run: no cluster"), "\(res.described)")
        #expect(try remoteRef(remote, "release") == release, "the example's refspec was pushed")
        #expect(try remoteRef(remote, "main") == (try clone.git("rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// A cluster bootstrapped here, and beside it a Flux Kustomization nothing here applies that builds the automation's
    /// directory (applied by hand, as dmytrolevin-dc/flux's infra-sync.yaml is): the automation runs, on that premise.
    @Test func anAutomationAFluxKustomizationAppliedByHandBuildsRunsOnThatPremise() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps")
        files["infra-sync.yaml"] = fluxKustomization(name: "infrastructure", path: "./infrastructure",
                                                     spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["infrastructure/automation.yaml"] = [imageRepository(), imagePolicy(), automation(name: "infra", path: "./apps")].joined(separator: "---\n")
        files["apps/web.yaml"] = "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n"
        let (_, clone) = try remoteAndClone(files)
        let res = try tagwarden(["update", "--tags", ".git/tags.yaml"], in: clone.path)
        #expect(res.code == 3 && res.stdout.contains("+image: ghcr.io/acme/web:1.1.0"), "\(res.described)")
        #expect(res.stderr.contains("tagwarden: note: ImageUpdateAutomation flux-system/infra: run on the premise that Flux Kustomization "
                                    + "flux-system/infrastructure (infra-sync.yaml), which builds infrastructure/automation.yaml and which no cluster "
                                    + "here applies, is applied from outside; declare that cluster under clusters: in .tagwarden.yaml to settle it"),
                "\(res.described)")
        // without that Kustomization: not run, a warning, and no claim that all is up to date
        try clone.remove("infra-sync.yaml")
        try clone.commitAll("no infra sync")
        let alone = try tagwarden(["update", "--tags", ".git/tags.yaml"], in: clone.path)
        #expect(alone.code == 0 && alone.stdout.isEmpty, "\(alone.described)")
        #expect(alone.stderr.contains("tagwarden: warning: ImageUpdateAutomation flux-system/infra: not run: no cluster this repository describes"),
                "\(alone.described)")
        #expect(alone.stderr.hasSuffix("tagwarden: no change, and 1 warning above\n"), "\(alone.described)")
    }

    @Test func aRefspecMayOnlyPushTheAutomationsOwnBranchUnlessTheRunnerAllowsIt() throws {
        for (refspec, why) in [(":refs/heads/release", "deletes a ref (nothing before ':')"),
                               ("+refs/heads/x:refs/heads/protected", "forces a ref (+)"),
                               ("refs/heads/release:refs/heads/protected", "pushes refs/heads/release, not the automation's push branch image-updates"),
                               ("refs/heads/*:refs/heads/*", "matches several refs (*)")] {
            let (remote, clone) = try remoteAndClone([
                "flux/images.yaml": [imageRepository(), imagePolicy(), automation(path: "./apps", push: "image-updates", refspec: refspec)]
                    .joined(separator: "---\n"),
                "apps/web.yaml": "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
            ])
            let before = try [remoteRef(remote, "release"), remoteRef(remote, "protected")]
            let res = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit", "--push"], in: clone.path)
            #expect(res.code == 2, "\(res.described)")
            #expect(res.stderr.contains("ImageUpdateAutomation flux-system/apps: git.push.refspec '\(refspec)' \(why); "
                                        + "--allow-refspec '\(refspec)' pushes it; nothing was committed"), "\(res.described)")
            #expect(try [remoteRef(remote, "release"), remoteRef(remote, "protected")] == before)
            #expect(try remoteRef(remote, "image-updates") == nil)
        }
        // the runner's word: this refspec, exactly
        let (remote, clone) = try remoteAndClone([
            "flux/images.yaml": [imageRepository(), imagePolicy(), automation(path: "./apps", push: "image-updates",
                                                                              refspec: "+refs/heads/image-updates:refs/heads/protected")]
                .joined(separator: "---\n"),
            "apps/web.yaml": "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
        ])
        let res = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit", "--push",
                                 "--allow-refspec", "+refs/heads/image-updates:refs/heads/protected"], in: clone.path)
        #expect(res.code == 0, "\(res.described)")
        #expect(try remoteRef(remote, "protected") == remoteRef(remote, "image-updates"))
    }

    @Test func branchNamesAreCheckedAsGitChecksThem() throws {
        let names = ["main", "feat/x", "@x", "a.b", "HEAD", "-x", "a..b", "a.lock", "x@{1}", "a b", "", "a/", "/a", "a//b", "a~b", "a^b",
                     "a:b", "a?b", "a*b", "a[b", "a\\b", ".a", "a/.b", "refs/heads/x", "x.", "@{-1}", "ä"]
        let dir = try TempRepo()
        for name in names {
            let git = try run("/usr/bin/git", ["check-ref-format", "--branch", name], cwd: dir.path).code == 0
            for (push, expected) in [(name, git)] {
                let (_, clone) = try remoteAndClone([
                    "flux/images.yaml": [imageRepository(), imagePolicy(), automation(path: "./apps", push: "'\(push.replacingOccurrences(of: "'", with: "''"))'")]
                        .joined(separator: "---\n"),
                    "apps/web.yaml": "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
                ])
                let res = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit"], in: clone.path)
                let refused = res.stderr.contains("not a valid branch name (git check-ref-format --branch)")
                if name.isEmpty { continue }   // an empty push branch is the checkout branch, as Flux reads it
                #expect(refused == !expected, "'\(name)': git says \(expected ? "valid" : "invalid"); \(res.described)")
            }
        }
        // two names git takes but reads otherwise: refused with why
        for (name, why) in [("@", "'@' is not taken as a branch name: git reads it as HEAD"),
                            ("origin/main", "'origin/main' is not taken as a branch name: git reads it as remote origin's branch main")] {
            let (_, clone) = try remoteAndClone([
                "flux/images.yaml": [imageRepository(), imagePolicy(), automation(path: "./apps", push: "'\(name)'")].joined(separator: "---\n"),
                "apps/web.yaml": "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
            ])
            let res = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit"], in: clone.path)
            #expect(res.code == 2 && res.stderr.contains("ImageUpdateAutomation flux-system/apps: git.push.branch: \(why)"), "\(res.described)")
        }
    }

    // MARK: templates and file names

    @Test func messageTemplatesThatRunAwayStopAtTheirBounds() throws {
        for (template, error) in [("{{range 15000000}}{{end}}", "the template ran more than 1000000 steps, tagwarden's bound for a commit message"),
                                  (#"{{repeat 100000000 "x"}}"#, "error calling repeat: the result would be more than 1 MiB"),
                                  ("{{range 100000}}{{range 100000}}{{end}}{{end}}", "the template ran more than 1000000 steps"),
                                  (#"{{range 100000}}{{"0123456789abcdef"}}{{end}}"#, "the message is longer than 1 MiB"),
                                  (#"{{indent 1000000 "a\nb\nc"}}"#, "error calling indent: the result would be more than 1 MiB"),
                                  (String(repeating: "{{if 1}}", count: 50_000) + String(repeating: "{{end}}", count: 50_000),
                                   "the template nests blocks or parentheses more than 200 deep"),
                                  ("{{" + String(repeating: "(", count: 9_990) + "1" + String(repeating: ")", count: 9_990) + "}}",
                                   "the template nests blocks or parentheses more than 200 deep")] {
            let r = try TempRepo()
            try r.write([
                "flux/images.yaml": [imageRepository(), imagePolicy(), automation(path: "./apps", template: template)].joined(separator: "---\n"),
                "apps/web.yaml": "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
                ".git/tags.yaml": "ghcr.io/acme/web: ['1.1.0']\n",
            ])
            try r.commitAll("fleet")
            let res = try bounded(["update", "--tags", ".git/tags.yaml", "--format", "json"], in: r.path, seconds: 20, rssMB: 200)
            #expect(res.code == 1, "\(template): \(res.described)")
            #expect(res.stdout.contains(error), "\(template): \(res.described)")
            // an error for that automation: nothing committed
            let commit = try bounded(["update", "--tags", ".git/tags.yaml", "--commit"], in: r.path, seconds: 20, rssMB: 200)
            #expect(commit.code == 1 && commit.stderr.contains(error), "\(template): \(commit.described)")
            #expect(try r.git("rev-list", "--count", "HEAD").stdout == "1\n")
        }
    }

    @Test func aFileNameWithALineBreakIsQuotedAsGitQuotesItInEveryOutput() throws {
        let name = "apps/x\n::error file=README.md,line=1::FORGED\n.yaml"
        let r = try TempRepo()
        try r.write([
            "flux/images.yaml": [imageRepository(), imagePolicy(), automation(path: "./apps")].joined(separator: "---\n"),
            name: "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
            ".git/tags.yaml": "ghcr.io/acme/web: ['1.1.0']\n",
        ])
        try r.commitAll("fleet")
        for args in [[], ["--explain"], ["--format", "markdown"]] {
            let res = try tagwarden(["update", "--tags", ".git/tags.yaml"] + args, in: r.path)
            #expect(res.code == 3, "\(res.described)")
            for line in (res.stdout + res.stderr).split(separator: "\n") {
                #expect(!line.hasPrefix("::") && !line.hasPrefix("error file="), "\(args): \(line)")
            }
        }
        let diff = try tagwarden(["update", "--tags", ".git/tags.yaml"], in: r.path)
        #expect(diff.stdout.hasPrefix("--- \"a/apps/x\\n::error file=README.md,line=1::FORGED\\n.yaml\"\n+++ \"b/apps/x\\n::error file=README.md,line=1::FORGED\\n.yaml\"\n"),
                "\(diff.described)")
        // git apply reads the quoted names
        try r.write(".git/update.patch", diff.stdout)
        let check = try run("/usr/bin/git", ["apply", "--check", ".git/update.patch"], cwd: r.path)
        #expect(check.code == 0, "\(check.described)")
    }
}

extension UpdateInterruptionTests {
    /// SIGKILL cannot be caught: whatever it leaves, the next `--commit` finishes or undoes it and commits once.
    @Test func aRunKilledWhileItCommitsIsFinishedOrUndoneByTheNext() throws {
        let files = 300
        for delay in [0.1, 0.2, 0.3, 0.45, 0.6, 0.9] {
            let r = try fleet(files: files, push: "main")
            let before = try r.git("rev-parse", "main").stdout
            _ = try UpdateInterruptionTests.signalled(["update", "--tags", ".git/tags.yaml", "--commit"], in: r.path, after: delay, signal: SIGKILL)
            try? FileManager.default.removeItem(atPath: r.path + "/.git/index.lock")   // a stale lock is git's own to clear
            // killed while libgit2 held the branch's lock: the next run refuses, as git does, and says what to delete
            let refLock = r.path + "/.git/refs/heads/main.lock"
            if FileManager.default.fileExists(atPath: refLock) {
                let locked = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit"], in: r.path)
                #expect(locked.code == 2 && locked.stderr.contains("main.lock") && locked.stderr.contains("delete the .lock file"),
                        "after \(delay) s: \(locked.described)")
                try FileManager.default.removeItem(atPath: refLock)
            }
            let again = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit"], in: r.path)
            #expect(again.code == 0, "after \(delay) s: \(again.described)")
            #expect(try checkEveryFileIsOldOrNew(r, files: files) == files)
            #expect(try r.git("status", "--porcelain").stdout.isEmpty, "after \(delay) s: the work tree is not the commit's")
            #expect(try r.git("rev-list", "--count", "\(before.trimmingCharacters(in: .whitespacesAndNewlines))..main").stdout == "1\n")
            #expect(!FileManager.default.fileExists(atPath: r.path + "/.git/tagwarden-update.journal"))
        }
    }
}

extension PromoteTests {
    /// A registry that names the staging build by a digest tagwarden cannot check against the bytes is refused before
    /// anything is tagged or pinned.
    @Test func aDigestOfAnAlgorithmThatIsNotVerifiedIsRefused() throws {
        let claimed = "sha512:" + String(repeating: "ab", count: 64)
        let registry = try FakeRegistry("""
            def respond(req):
                if req.path.endswith('/manifests/\(Self.stagingTag)'):
                    return (200, [('Docker-Content-Digest', '\(claimed)'),
                                  ('Content-Type', 'application/vnd.oci.image.index.v1+json')], b'{}')
                return (404, [('Content-Type', 'application/json')], b'{"errors":[{"code":"MANIFEST_UNKNOWN"}]}')
            """)
        let image = "\(registry.host)/acme/web"
        let (_, r) = try repository(image: image, stagingDigest: nil)
        for extra in [["--dry-run"], []] {
            let res = try tagwarden(["promote", image, "--from", "staging", "--to", "production"] + extra, in: r.path,
                                    env: ["DOCKER_CONFIG": r.path + "/.git/none"])
            #expect(res.code != 0, "\(res.described)")
            #expect(res.stderr.contains("the registry names the build \(claimed), a digest tagwarden cannot verify (only sha256:<64 hex digits> "
                                        + "is checked against the manifest's bytes): not promoted"), "\(res.described)")
        }
        #expect(try registry.log().allSatisfy { $0.method == "HEAD" || $0.method == "GET" }, "something was tagged")
        #expect(try r.git("branch", "--list", "tagwarden/*").stdout.isEmpty)
    }
}

extension HostileTests {
    /// A requirement the strict profile gives is as weak dropped by an explicit key as one the config wrote.
    @Test func droppingARequirementTheProfileGaveIsAWeakening() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\n")
        try r.write("apps/web.yaml", pod("web", images: ["nginx:1.25.3"]))
        try r.commitAll("base")
        try r.git("checkout", "-q", "-b", "pr")
        try r.write(".tagwarden.yaml", "profile: strict\nenvironments:\n  - name: production\n    requireDigest: false\n")
        try r.commitAll("no digests in production")
        let res = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(res.code == 1, "\(res.described)")
        #expect(res.findings == ["config-weakened .tagwarden.yaml:4:5"], "\(res.described)")
        #expect(res.findingObjects.first?["message"] as? String == "this change to .tagwarden.yaml drops requireDigest from environment 'production' "
                + "(the strict profile set it); the check ran with the base side's config, and later runs would not")
    }
}
