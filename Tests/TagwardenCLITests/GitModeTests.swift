import TagwardenFixtures
import Foundation
import Testing

/// `check --staged`, `check --base`, the hooks, and the promotion rules over real git histories.
@Suite struct GitModeTests {
    @Test func stagedContentIsLintedNotTheWorkingFile() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("a.yaml", pod("a", images: ["nginx:1.25.3"]))
        try r.commitAll("clean")
        // staged: latest; working tree: fixed again
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        try r.git("add", "a.yaml")
        try r.write("a.yaml", pod("a", images: ["nginx:1.25.4"]))
        let res = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        #expect(res.code == 1)
        #expect(res.findings == ["image-latest-tag a.yaml:8:14"])
        #expect((res.json["source"] as? [String: Any])?["kind"] as? String == "index")
        // the opposite: staged clean, working tree broken
        try r.git("add", "a.yaml")
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        let clean = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        #expect(clean.code == 0 && clean.findings.isEmpty)
    }

    @Test func stagedDeletionAndAdditionAndUnchangedFiles() throws {
        let r = try TempRepo()
        try r.write("old.yaml", pod("old", images: ["nginx:latest"]))
        try r.write("untouched.yaml", pod("u", images: ["redis:latest"]))
        try r.commitAll("two findings")
        try r.git("rm", "-q", "--cached", "old.yaml")    // deleted in the index, still on disk
        try r.write("new.yaml", pod("new", images: ["busybox"]))
        try r.git("add", "new.yaml")
        let res = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        // old.yaml is gone from the commit; untouched.yaml's finding is not this commit's doing
        #expect(res.findings == ["image-missing-tag new.yaml:8:14"])
    }

    @Test func unbornBranch() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        try r.git("add", "a.yaml", ".tagwarden.yaml")
        let res = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        #expect(res.code == 1 && res.findings == ["image-latest-tag a.yaml:8:14"])
    }

    @Test func aStagedChangeThatBreaksAnUnchangedFileIsReported() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\n")
        try r.write("apps/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.0.0-abc1234-1@sha256:\(String(repeating: "a", count: 64))"]))
        try r.write("flux/repo.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata:\n  name: web\nspec:\n  image: ghcr.io/acme/other\n")
        try r.commitAll("the web image is not watched yet")
        #expect(try tagwarden(["check", "--staged"], in: r.path).code == 0)
        // watching ghcr.io/acme/web makes it a promoted image: its staging tag in production is now a finding
        try r.write("flux/repo.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata:\n  name: web\nspec:\n  image: ghcr.io/acme/web\n")
        try r.git("add", "flux/repo.yaml")
        let res = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        #expect(res.findings == ["image-env-prefix apps/production/web.yaml:8:14"])
    }

    @Test func aRenamedPolicyBreaksAMarkerInAnUnchangedFile() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        let policy = { (name: String) in imagePolicy(name: name, repository: "web", order: .alphabetical()) }
        try r.write("flux/policy.yaml", policy("web"))
        try r.write("flux/repo.yaml", imageRepository())
        try r.write("apps/web.yaml", pod("web", images: ["ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:web\"}"]))
        try r.commitAll("marker and policy")
        try r.write("flux/policy.yaml", policy("web-app"))
        try r.git("add", "flux/policy.yaml")
        let res = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        #expect(res.code == 1)
        #expect(res.findings == ["marker-unknown-policy apps/web.yaml:8:37", "policy-fragile-order flux/policy.yaml:2:7",
                                 "policy-unused flux/policy.yaml:2:7"])
        #expect((res.findingObjects.first?["message"] as? String)?.hasSuffix("did you mean 'flux-system:web-app'?") == true)
    }

    @Test func hookInstallRefuseForceUninstallAndCommitA() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("a.yaml", pod("a", images: ["nginx:1.25.3"]))
        try r.commitAll("clean")
        let install = try tagwarden(["install-hook"], in: r.path)
        #expect(install.code == 0 && install.stderr == "installed \(r.path)/.git/hooks/pre-commit\n")
        let hook = try String(contentsOfFile: r.path + "/.git/hooks/pre-commit", encoding: .utf8)
        #expect(hook.contains("tagwarden-hook") && hook.contains(binary))
        // git commit -a: git points GIT_INDEX_FILE at a temporary index; the hook must lint that
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        let env = ["PATH": "/usr/bin:/bin"]
        let blocked = try run("/usr/bin/git", ["commit", "-a", "-m", "bad"], cwd: r.path, env: env)
        #expect(blocked.code != 0)
        #expect(blocked.stdout.contains("image-latest-tag") || blocked.stderr.contains("image-latest-tag"))
        #expect(blocked.stderr.contains("git commit --no-verify"))
        // git commit <path> uses another temporary index
        let blocked2 = try run("/usr/bin/git", ["commit", "a.yaml", "-m", "bad"], cwd: r.path, env: env)
        #expect(blocked2.code != 0)
        #expect(blocked2.stdout.contains("image-latest-tag") || blocked2.stderr.contains("image-latest-tag"), "the hook blocked it, not a crash")
        try r.write("a.yaml", pod("a", images: ["nginx:1.25.4"]))
        let ok = try run("/usr/bin/git", ["commit", "-a", "-m", "good"], cwd: r.path, env: env)
        #expect(ok.code == 0, "\(ok.stderr)")
        // a clean commit: the hook says nothing
        #expect(!(ok.stdout + ok.stderr).contains("tagwarden"), "\(ok.described)")
        // emergency bypass
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        let skipped = try run("/usr/bin/git", ["commit", "-a", "-m", "skip"], cwd: r.path, env: env.merging(["TAGWARDEN_SKIP": "1"]) { $1 })
        #expect(skipped.code == 0)
        // a foreign hook is refused, then replaced with --force and restored on uninstall
        try "#!/bin/sh\nexit 0\n".write(toFile: r.path + "/.git/hooks/pre-commit", atomically: true, encoding: .utf8)
        let refused = try tagwarden(["install-hook"], in: r.path)
        #expect(refused.code == 2 && refused.stderr.contains("is not Tagwarden's hook; --force replaces it"))
        let forced = try tagwarden(["install-hook", "--force"], in: r.path)
        #expect(forced.code == 0 && forced.stderr.contains("kept as \(r.path)/.git/hooks/pre-commit.orig"))
        // the replaced hook still runs, first: its refusal stops the commit, and its pass leaves the decision to Tagwarden
        try r.write("a.yaml", pod("a", images: ["nginx:1.25.5"]))
        try "#!/bin/sh\necho 'the old hook refuses' >&2\nexit 3\n".write(toFile: r.path + "/.git/hooks/pre-commit.orig", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: r.path + "/.git/hooks/pre-commit.orig")
        let oldRefuses = try run("/usr/bin/git", ["commit", "-a", "-m", "old refuses"], cwd: r.path, env: env)
        #expect(oldRefuses.code != 0 && oldRefuses.stderr.contains("the old hook refuses"), "\(oldRefuses.described)")
        try "#!/bin/sh\ntouch .git/old-hook-ran\nexit 0\n".write(toFile: r.path + "/.git/hooks/pre-commit.orig", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: r.path + "/.git/hooks/pre-commit.orig")
        let both = try run("/usr/bin/git", ["commit", "-a", "-m", "both pass"], cwd: r.path, env: env)
        #expect(both.code == 0 && FileManager.default.fileExists(atPath: r.path + "/.git/old-hook-ran"), "\(both.described)")
        try "#!/bin/sh\nexit 0\n".write(toFile: r.path + "/.git/hooks/pre-commit.orig", atomically: true, encoding: .utf8)
        let removed = try tagwarden(["install-hook", "--uninstall"], in: r.path)
        #expect(removed.code == 0 && removed.stderr.contains("restored the previous one"))
        #expect(try String(contentsOfFile: r.path + "/.git/hooks/pre-commit", encoding: .utf8) == "#!/bin/sh\nexit 0\n")
    }

    @Test func hooksPathAndLinkedWorktree() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("a.yaml", pod("a", images: ["nginx:1.25.3"]))
        try r.commitAll("clean")
        try r.git("config", "core.hooksPath", ".githooks")
        let install = try tagwarden(["install-hook"], in: r.path)
        #expect(install.stderr == "installed \(r.path)/.githooks/pre-commit\n")
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        try r.git("add", "a.yaml")
        let blocked = try run("/usr/bin/git", ["commit", "-m", "bad"], cwd: r.path, env: ["PATH": "/usr/bin:/bin"])
        #expect(blocked.code != 0)
        #expect(blocked.stdout.contains("image-latest-tag") || blocked.stderr.contains("image-latest-tag"), "the hook blocked it, not a crash")
        try r.git("reset", "-q", "--hard")
        // a linked worktree has its own index
        let wt = r.path + "-wt"
        try r.git("worktree", "add", "-q", wt, "-b", "feature")
        defer { try? FileManager.default.removeItem(atPath: wt) }
        try pod("b", images: ["busybox:latest"]).write(toFile: wt + "/b.yaml", atomically: true, encoding: .utf8)
        _ = try run("/usr/bin/git", ["add", "b.yaml"], cwd: wt)
        let res = try tagwarden(["check", "--staged", "--format", "json"], in: wt)
        #expect(res.findings == ["image-latest-tag b.yaml:8:14"])
        #expect(try tagwarden(["check", "--staged", "--format", "json"], in: r.path).findings.isEmpty)
    }

    func prRepo() throws -> TempRepo {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("fixed.yaml", pod("f", images: ["nginx:latest"]))
        try r.write("moved.yaml", pod("m", images: ["redis:latest"]))
        try r.commitAll("base")
        try r.git("checkout", "-q", "-b", "feature")
        try r.write("fixed.yaml", pod("f", images: ["nginx:1.25.3"]))                      // fixes one
        let moved = try String(contentsOfFile: r.path + "/moved.yaml", encoding: .utf8)
        try r.write("moved.yaml", "# a comment\n# that moves the finding down\n" + moved)  // moves one
        try r.write("added.yaml", pod("n", images: ["busybox:edge"]))                      // adds one
        try r.commitAll("feature")
        try r.git("checkout", "-q", "main")
        try r.write("other.yaml", pod("o", images: ["alpine:3"]))                          // main moves on
        try r.commitAll("main moves on")
        try r.git("checkout", "-q", "feature")
        return r
    }

    /// The action's Lint step, run by bash as GitHub runs it on a pull request.
    @Test func githubActionLintStepOnAPullRequest() throws {
        let r = try prRepo()
        let check = try run("/usr/bin/env", ["python3", "-c", "import yaml, sys; a = yaml.safe_load(open(sys.argv[1])); "
            + "print(next(s for s in a['runs']['steps'] if s['name'] == 'Lint')['run'])", packageRoot + "/action.yml"], cwd: "/")
        let script = check.stdout
        #expect(!script.isEmpty, "\(check.stderr)")
        let out = try TempRepo(git: false)
        let env = ["TW": binary, "TW_PATH": ".", "TW_CONFIG": "", "TW_PROFILE": "", "TW_FAIL_ON": "warning", "TW_BASE": "",
                   "TW_SARIF": out.path + "/t.sarif", "EVENT": "pull_request", "BASE_REF": "main",
                   "GITHUB_STEP_SUMMARY": out.path + "/summary.md", "GITHUB_OUTPUT": out.path + "/output"]
        try r.git("update-ref", "refs/remotes/origin/main", "main")   // what actions/checkout leaves
        let step = try run("/bin/bash", ["-e", "-c", script], cwd: r.path, env: env)
        #expect(step.code == 0, "\(step.stderr)")
        // annotations and the summary show what the pull request introduces; the step fails on it (a warning)
        #expect(step.stdout.split(separator: "\n").filter { $0.hasPrefix("::") } == ["::warning file=added.yaml,line=8,col=14,endLine=8,endColumn=26,title=tagwarden image-floating-tag::image 'busybox:edge' uses the floating tag 'edge', which points at a new build after each push"])
        let summary = try String(contentsOfFile: out.path + "/summary.md", encoding: .utf8)
        #expect(summary.contains("| added.yaml:8:14 |") && !summary.contains("moved.yaml"))
        #expect(try String(contentsOfFile: out.path + "/output", encoding: .utf8) == "status=1\n")
        // code scanning gets every finding of the pull request's head, the new one marked
        let sarif = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out.path + "/t.sarif"))) as? [String: Any]
        let results = ((sarif?["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
        #expect(results.map { "\($0["ruleId"] as? String ?? "?") \((($0["properties"] as? [String: Any])?["new"] as? Bool).map { "\($0)" } ?? "nil")" }
                == ["image-floating-tag true", "image-latest-tag false"])
    }

    @Test func pullRequestReportsOnlyWhatItIntroduces() throws {
        let r = try prRepo()
        let res = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(res.code == 0)  // a warning only
        #expect(res.findings == ["image-floating-tag added.yaml:8:14"])
        let source = res.json["source"] as? [String: Any]
        #expect(source?["kind"] as? String == "diff")
        let mergeBase = try r.git("merge-base", "main", "feature").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(source?["base"] as? String == mergeBase)
        #expect((source?["rev"] as? String)?.count == 40)
        let all = try tagwarden(["check", "--base", "main", "--all", "--format", "json"], in: r.path)
        #expect(all.findings == ["image-floating-tag added.yaml:8:14", "image-latest-tag moved.yaml:10:14"])
        #expect(all.findingObjects.map { $0["new"] as? Bool } == [true, false])
        // --head names the commit explicitly; the text report marks new findings
        let text = try tagwarden(["check", "--base", "main", "--head", "feature", "--all", "--no-color"], in: r.path)
        #expect(text.stdout.contains("warning[image-floating-tag]: image 'busybox:edge' uses the floating tag 'edge', which points at a new build after each push (new)"))
        let sarif = try tagwarden(["check", "--base", "main", "--format", "sarif"], in: r.path)
        #expect(sarif.stdout.contains("\"id\": \"tagwarden/pr/\""))
    }

    @Test func aFindingInARenamedFileIsNotNew() throws {
        let r = try TempRepo()
        try r.write("apps/web.yaml", pod("web", images: ["nginx:latest", "redis:7.2.4"]))
        try r.commitAll("base")
        try r.git("checkout", "-q", "-b", "feature")
        try FileManager.default.createDirectory(atPath: r.path + "/apps/web", withIntermediateDirectories: true)
        try r.git("mv", "apps/web.yaml", "apps/web/deployment.yaml")
        try r.commitAll("move it")
        let moved = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(moved.code == 0 && moved.findings.isEmpty, "\(moved.findings)")
        // moved and edited: the old finding is still not new, a finding the edit adds is
        let text = try String(contentsOfFile: r.path + "/apps/web/deployment.yaml", encoding: .utf8)
        try r.write("apps/web/deployment.yaml", "# the web tier\n" + text.replacingOccurrences(of: "redis:7.2.4", with: "redis:edge"))
        try r.commitAll("edit it")
        let edited = try tagwarden(["check", "--base", "main", "--all", "--format", "json"], in: r.path)
        #expect(edited.findings == ["image-latest-tag apps/web/deployment.yaml:9:14", "image-floating-tag apps/web/deployment.yaml:11:14"])
        #expect(edited.findingObjects.map { $0["new"] as? Bool } == [false, true])
    }

    @Test func aPullRequestThatMovesMoreThanAThousandEditedFiles() throws {
        // libgit2 gives up on a file after 1000 rename candidates: every one must be compared, as git does
        let r = try TempRepo()
        for i in 0..<1100 { try r.write("apps/a/d\(i).yaml", pod("p\(i)", images: ["nginx:latest", "redis:7.\(i).1"])) }
        try r.commitAll("base")
        try r.git("checkout", "-q", "-b", "feature")
        for i in 0..<1100 {
            try r.write("apps/b/d\(i).yaml", pod("p\(i)", images: ["nginx:latest", "redis:8.\(i).1"]))
            try r.remove("apps/a/d\(i).yaml")
        }
        try r.commitAll("move and edit")
        let res = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(res.code == 0 && res.findings.isEmpty, "\(res.findings.count) new")
    }

    @Test func aMergeConflictInTheIndexIsNamed() throws {
        let r = try TempRepo()
        try r.write("a.yaml", pod("a", images: ["nginx:1.0.0"]))
        try r.commitAll("base")
        let main = try r.git("rev-parse", "--abbrev-ref", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try r.git("checkout", "-q", "-b", "other")
        try r.write("a.yaml", pod("a", images: ["nginx:1.1.0"]))
        try r.commitAll("theirs")
        try r.git("checkout", "-q", main)
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        try r.commitAll("ours")
        _ = try? r.git("merge", "-q", "other")   // fails: a conflict
        let res = try tagwarden(["check", "--staged", "--all", "--format", "json"], in: r.path)
        #expect(res.stderr == "tagwarden: note: unresolved merge conflict in a.yaml: the index holds both sides, and ours is linted\n")
        #expect(res.findings == ["image-latest-tag a.yaml:8:14"])
        // ours is HEAD's: nothing the merge brings
        #expect(try tagwarden(["check", "--staged", "--format", "json"], in: r.path).findings == [])
    }

    @Test func aRepositoryInsideTheRepositoryIsNotItsContent() throws {
        let r = try TempRepo()
        try r.write("app.yaml", pod("a", images: ["nginx:1.25.3"]))
        try r.write("vendor/kept/kept.yaml", pod("k", images: ["redis:latest"]))
        try r.commitAll("outer")
        try r.write("vendor/other/bad.yaml", pod("b", images: ["nginx:latest"]))
        _ = try run("/usr/bin/git", ["init", "-q"], cwd: r.path + "/vendor/other")
        // like a submodule's checkout: git lists none of its files, so neither does the worktree audit
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag vendor/kept/kept.yaml:8:14"])
        // a repository made where the outer one tracks files: those files stay its content, as for git
        _ = try run("/usr/bin/git", ["init", "-q"], cwd: r.path + "/vendor/kept")
        try r.write("vendor/kept/new.yaml", pod("n", images: ["busybox:latest"]))
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag vendor/kept/kept.yaml:8:14", "image-latest-tag vendor/kept/new.yaml:8:14"])
        #expect(try r.audit("--rev", "HEAD", "--format", "json").findings == ["image-latest-tag vendor/kept/kept.yaml:8:14"])
        // outside any repository, a directory is walked whole
        let plain = try TempRepo(git: false)
        try plain.write("x/inner/bad.yaml", pod("b", images: ["nginx:latest"]))
        _ = try run("/usr/bin/git", ["init", "-q"], cwd: plain.path + "/x/inner")
        let walked = try tagwarden(["audit", "--format", "json"], in: plain.path)
        #expect(walked.findings == ["image-latest-tag x/inner/bad.yaml:8:14"], "\(walked.findings) \(walked.stderr)")
    }

    @Test func shallowCloneWithoutTheBaseAsksForHistory() throws {
        let r = try prRepo()
        let clone = try TempRepo(git: false)
        let dest = clone.path + "/c"
        _ = try run("/usr/bin/git", ["clone", "-q", "--depth", "1", "--branch", "feature", "file://" + r.path, dest], cwd: clone.path)
        _ = try run("/usr/bin/git", ["fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main"], cwd: dest)
        let res = try tagwarden(["check", "--base", "origin/main"], in: dest)
        #expect(res.code == 2)
        #expect(res.stderr.contains("the clone is shallow: fetch more history"), "\(res.stderr)")
        let missing = try tagwarden(["check", "--base", "origin/nope"], in: dest)
        #expect(missing.code == 2 && missing.stderr.contains("fetch more history"))
        // a commit past the shallow boundary, for audit too
        let past = try tagwarden(["audit", "--rev", "HEAD~1"], in: dest)
        #expect(past.code == 2 && past.stderr.contains("unknown revision 'HEAD~1'") && past.stderr.contains("fetch more history"), "\(past.stderr)")
        // only the remote-tracking branch exists: it is named
        let local = try tagwarden(["check", "--base", "main"], in: dest)
        #expect(local.code == 2 && local.stderr.contains("unknown revision 'main'") && local.stderr.contains("did you mean 'origin/main'?"), "\(local.stderr)")
    }

    @Test func sparseAndSplitIndexesThatLibgit2CannotRead() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/a.yaml", pod("a", images: ["nginx:latest"]))
        try r.write("other/o.yaml", pod("o", images: ["redis:latest"]))
        try r.write("apps/vendor/v.yaml", pod("v", images: ["busybox:latest"]))
        try r.write(".gitignore", "vendor/\n")
        try r.git("add", "-A")
        try r.git("add", "-f", "apps/vendor/v.yaml")
        try r.git("commit", "-q", "-m", "three")
        // a sparse checkout of apps/ with a sparse index: the working tree is linted, without the index
        try r.git("sparse-checkout", "set", "--cone", "apps")
        try r.git("config", "index.sparse", "true")
        try r.git("sparse-checkout", "reapply")
        let audit = try r.audit("--format", "json")
        #expect(audit.code == 1 && audit.findings == ["image-latest-tag apps/a.yaml:8:14"], "\(audit.findings) \(audit.stderr)")
        #expect(audit.stderr.contains("note: cannot read the git index: it is a sparse index") && audit.stderr.contains("git config index.sparse false"), "\(audit.stderr)")
        let staged = try tagwarden(["check", "--staged"], in: r.path)
        #expect(staged.code == 2 && staged.stderr.contains("error: cannot read the git index: it is a sparse index"), "\(staged.stderr)")
        // the fix the message names gives an index libgit2 reads: the tracked file .gitignore names is linted again
        try r.git("config", "index.sparse", "false")
        try r.git("sparse-checkout", "reapply")
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14", "image-latest-tag apps/vendor/v.yaml:8:14"])
        try r.git("sparse-checkout", "disable")
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14", "image-latest-tag apps/vendor/v.yaml:8:14",
                                                            "image-latest-tag other/o.yaml:8:14"])
        try r.git("update-index", "--split-index")
        let split = try tagwarden(["check", "--staged"], in: r.path)
        #expect(split.code == 2 && split.stderr.contains("it is a split index (core.splitIndex)"), "\(split.stderr)")
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14", "image-latest-tag other/o.yaml:8:14"])
    }

    @Test func untrackedFilesUnderAnIgnoredDirectoryStayIgnored() throws {
        let r = try TempRepo()
        // */ ignores every directory; a later !**/keep.yaml cannot bring back a file under one, as git has it
        try r.write(".gitignore", "*/\n!**/keep.yaml\n")
        try r.write("gen/tracked.yaml", pod("t", images: ["nginx:latest"]))
        try r.write("gen/keep.yaml", pod("k", images: ["redis:latest"]))
        try r.write("top.yaml", pod("o", images: ["busybox:latest"]))
        try r.git("add", "-f", "gen/tracked.yaml")
        let untracked = try r.git("ls-files", "--others", "--exclude-standard").stdout
        #expect(!untracked.contains("gen/keep.yaml"))
        // the tracked file is linted (git tracks it although .gitignore ignores it); the untracked one beside it is not
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag gen/tracked.yaml:8:14", "image-latest-tag top.yaml:8:14"])
    }

    @Test func checkNeedsExactlyOneMode() throws {
        let r = try TempRepo()
        #expect(try tagwarden(["check"], in: r.path).code == 2)
        #expect(try tagwarden(["check", "--staged", "--base", "main"], in: r.path).code == 2)
    }

    static let d1 = "sha256:" + String(repeating: "1", count: 64)
    static let d2 = "sha256:" + String(repeating: "2", count: 64)
    static let d3 = "sha256:" + String(repeating: "3", count: 64)
    static let d4 = "sha256:" + String(repeating: "4", count: 64)

    @Test func promotionFromHistory() throws {
        let r = try TempRepo()
        // staging and production are clusters of their own, applied from elsewhere
        try r.write(".tagwarden.yaml", "profile: strict\nclusters:\n  - {name: staging, paths: [apps/staging, flux]}\n"
                    + "  - {name: production, paths: [apps/production, flux]}\n")
        try r.write("flux/repo.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata:\n  name: web\nspec:\n  image: ghcr.io/acme/web\n")
        // staging ran v1.0.0 as d1, then v1.1.0 as d2 (d1 leaves HEAD but stays in history)
        try r.write("apps/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.0.0-abc1234-100@\(Self.d1)"]))
        try r.commitAll("staging v1.0.0")
        try r.write("apps/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.1.0-def5678-200@\(Self.d2)"]))
        try r.commitAll("staging v1.1.0")
        for i in 0..<5 {
            try r.write("apps/staging/other\(i).yaml", pod("o\(i)", images: ["nginx:1.25.\(i)"]))
            try r.commitAll("noise \(i)")
        }
        try r.write("apps/production/web.yaml", pod("web", images: [
            "ghcr.io/acme/web:production-v1.0.0-abc1234-100@\(Self.d1)",   // tested in an earlier commit: fine
            "ghcr.io/acme/web:production-v1.1.0-def5678-200@\(Self.d3)",   // same identity, other digest: rebuilt
            "ghcr.io/acme/web:production-v1.2.0-aaaaaaa-300@\(Self.d4)",   // never in staging
        ]))
        try r.commitAll("production")
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["promotion-rebuilt-artifact apps/production/web.yaml:10:14",
                                 "promotion-untested-digest apps/production/web.yaml:12:14"])
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[0] == "production runs v1.1.0-def5678-200 of ghcr.io/acme/web as sha256:333333333333…, but staging ran v1.1.0-def5678-200 as sha256:222222222222…: the artifact was rebuilt, not promoted")
        // the cache: one file per walked tip in the git directory; a warm run gives the same answer
        func evidenceFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: r.path + "/.git/tagwarden").filter { $0.hasPrefix("evidence-") }
        }
        #expect(try evidenceFiles().count == 1)
        #expect(try r.audit("--format", "json").findings == res.findings)
        // a new commit extends the cache incrementally
        try r.write("apps/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.2.0-aaaaaaa-300@\(Self.d4)"]))
        try r.commitAll("staging catches up")
        #expect(try r.audit("--format", "json").findings == ["promotion-rebuilt-artifact apps/production/web.yaml:10:14"])
        #expect(try evidenceFiles().count == 2)
        // --rev of the earlier commit sees the earlier history
        #expect(try r.audit("--rev", "HEAD~1", "--format", "json").findings.count == 2)
    }

    /// A long cold read of staging's history says how far it is on a terminal, and nothing in a log or with --quiet.
    @Test func aLongHistoryReadShowsProgressOnATerminal() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "clusters:\n  - {name: staging, paths: [apps/staging]}\n")
        // 2,100 commits, each re-pinning the staging Deployment (git fast-import: a second, not minutes)
        var stream = ""
        func blob(_ path: String, _ text: String) { stream += "M 100644 inline \(path)\ndata \(text.utf8.count)\n\(text)\n" }
        for n in 0..<2_100 {
            let message = "staging \(n)"
            stream += "commit refs/heads/main\ncommitter T <t@example.com> \(1_700_000_000 + n) +0000\ndata \(message.utf8.count)\n\(message)\n"
            if n == 0 { blob(".tagwarden.yaml", "clusters:\n  - {name: staging, paths: [apps/staging]}\n") }
            blob("apps/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.0.\(n)-abc1234-\(n)"]))
        }
        _ = try run("/usr/bin/git", ["fast-import", "--quiet"], cwd: r.path, stdin: stream)
        try r.git("checkout", "-q", "-f", "main")
        let cmd = "\(binary) audit --format json -o /dev/null"
        let tty = try run("/usr/bin/script", ["-qec", cmd, "/dev/null"], cwd: r.path)
        #expect(tty.stdout.contains("\rtagwarden: reading staging's history: 1000 of 2100 commits\u{1B}[K"), "\(tty.described)")
        #expect(tty.stdout.contains("\rtagwarden: reading staging's history: 2000 of 2100 commits\u{1B}[K\r\u{1B}[K"), "\(tty.described)")
        try FileManager.default.removeItem(atPath: r.path + "/.git/tagwarden")
        let quiet = try run("/usr/bin/script", ["-qec", cmd + " --quiet", "/dev/null"], cwd: r.path)
        #expect(!quiet.stdout.contains("staging's history"))
        try FileManager.default.removeItem(atPath: r.path + "/.git/tagwarden")
        let log = try r.audit("--format", "json", "-o", "/dev/null")
        #expect(log.code < 2 && !log.stderr.contains("staging's history"), "\(log.described)")
    }

    /// The history cache is keyed by commit: restored into another clone (as a CI cache step does with
    /// `.git/tagwarden`), it is used as it is, and a commit that clone adds is read on top of it.
    @Test func theHistoryCacheServesAnotherClone() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\nclusters:\n  - {name: staging, paths: [apps/staging]}\n"
                    + "  - {name: production, paths: [apps/production]}\n")
        try r.write("apps/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.0.0-abc1234-100@\(Self.d1)"]))
        try r.commitAll("staging v1.0.0")
        try r.write("apps/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.1.0-def5678-200@\(Self.d2)"]))
        try r.commitAll("staging v1.1.0")
        try r.write("apps/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:production-v1.0.0-abc1234-100@\(Self.d1)"]))
        try r.commitAll("production")
        let first = try r.audit("--format", "json")
        #expect(!first.findings.contains { $0.hasPrefix("promotion-") })

        let clone = try TempRepo(git: false)
        _ = try run("/usr/bin/git", ["clone", "-q", r.path, clone.path + "/work"], cwd: clone.path)
        let work = clone.path + "/work"
        try FileManager.default.copyItem(atPath: r.path + "/.git/tagwarden", toPath: work + "/.git/tagwarden")
        let cached = try #require(try FileManager.default.contentsOfDirectory(atPath: work + "/.git/tagwarden").first { $0.hasPrefix("evidence-") })
        func inode(_ name: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: work + "/.git/tagwarden/" + name)[.systemFileNumber] as? Int)
        }
        let before = try inode(cached)
        #expect(try tagwarden(["audit", "--format", "json"], in: work).findings == first.findings)
        // the cached evidence answered: the file was not written again
        #expect(try inode(cached) == before)
        // the clone's own commit is read on top of the restored cache: d1 is still evidence, from the commits before
        try Data(pod("web", images: ["ghcr.io/acme/web:staging-v1.2.0-aaaaaaa-300@\(Self.d3)"]).utf8).write(to: URL(fileURLWithPath: work + "/apps/staging/web.yaml"))
        _ = try run("/usr/bin/git", ["-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-qam", "staging v1.2.0"], cwd: work)
        #expect(try tagwarden(["audit", "--format", "json"], in: work).findings == first.findings)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work + "/.git/tagwarden").filter { $0.hasPrefix("evidence-") }.count == 2)
    }
}

/// What a cluster reads when its GitRepository names another branch of this repository than the one checked out.
@Suite struct CheckedOutBranchTests {
    /// bancey/lab-ops (a cluster still on `master`, renamed `main`) and Room-Of-Requirement/spellbook (a `deploy`
    /// branch CI renders from `main`): on the repository's own line, a GitRepository of another branch builds
    /// files the checkout need not hold, so what only it applies is a premise. A feature branch, which will merge
    /// into the branch Flux reads, keeps its facts.
    @Test func aClusterOnAnotherBranchThanTheCheckoutsLineIsAPremise() throws {
        let r = try TempRepo()
        var files = bootstrapFiles("clusters/lab", flux: "v2.4.0")
        files["clusters/lab/flux-system/gotk-sync.yaml"] = files["clusters/lab/flux-system/gotk-sync.yaml"]!
            .replacingOccurrences(of: "ref: {branch: main}", with: "ref: {branch: deploy}")
        files["clusters/lab/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps") + "---\n"
            + fluxKustomization(name: "gen", path: "./generated", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        try r.write(files)
        try r.commitAll("fleet")
        // the repository's default branch, as a clone records it
        try r.git("update-ref", "refs/remotes/origin/main", "HEAD")
        try r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
        let res = try tagwarden(["audit", "--format", "json"], in: r.path)
        let found = res.findingObjects.filter { $0["severity"] as? String != "note" }
        #expect(found.map { "\($0["severity"]!) \($0["rule"]!) \($0["file"]!):\($0["line"]!)" }
                == ["warning image-latest-tag apps/web.yaml:9", "warning kustomization-build-fails clusters/lab/apps.yaml:11"], "\(res.described)")
        #expect((found.first?["message"] as? String)?.hasSuffix("(applied only through Flux Kustomization flux-system (clusters/lab/flux-system/"
                + "gotk-sync.yaml), which builds branch deploy of GitRepository flux-system (the checkout is on main), not this checkout: "
                + "assuming that revision holds this file as it is here)") == true, "\(found)")
        // the branch Flux reads, as the clone has it (AlexisMtr/poseidon-gitops's origin/main), says whether the path is there
        try r.git("checkout", "-q", "-b", "deploy")
        try r.write("generated/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: made, namespace: apps}\n")
        try r.commitAll("rendered")
        try r.git("update-ref", "refs/remotes/origin/deploy", "HEAD")
        try r.git("checkout", "-q", "main")
        try r.git("branch", "-q", "-D", "deploy")
        let rendered = try tagwarden(["audit", "--format", "json"], in: r.path)
        #expect(rendered.findings.filter { $0.hasPrefix("kustomization-build-fails") }.isEmpty, "\(rendered.described)")
        try r.git("update-ref", "refs/remotes/origin/deploy", "main")
        let absent = try tagwarden(["audit", "--format", "json"], in: r.path)
        let message = absent.findingObjects.first { $0["rule"] as? String == "kustomization-build-fails" }?["message"] as? String ?? ""
        #expect(message.contains("(assuming branch deploy, which it builds, still holds no manifest there, as this clone last fetched it)"), "\(message)")
        // on a feature branch, the files are what the branch Flux reads will hold once it merges: facts
        try r.git("checkout", "-q", "-b", "feature")
        let feature = try tagwarden(["audit", "--format", "json"], in: r.path)
        #expect(feature.findingObjects.filter { $0["severity"] as? String == "error" }.map { "\($0["rule"]!) \($0["file"]!):\($0["line"]!)" }
                == ["image-latest-tag apps/web.yaml:9", "kustomization-build-fails clusters/lab/apps.yaml:11"], "\(feature.described)")
        // and so they are where the cluster reads the branch checked out
        try r.git("checkout", "-q", "main")
        try r.write("clusters/lab/flux-system/gotk-sync.yaml", files["clusters/lab/flux-system/gotk-sync.yaml"]!
            .replacingOccurrences(of: "ref: {branch: deploy}", with: "ref: {branch: main}"))
        let same = try tagwarden(["audit", "--format", "json"], in: r.path)
        #expect(same.findingObjects.filter { $0["severity"] as? String == "error" }.count == 2, "\(same.described)")
    }

    /// An automation that checks out another branch than the checkout's line (flux2-multi-tenancy's tenant
    /// GitRepository, on a branch of its own) updates that branch's files: its `update.path` is judged there, as far
    /// as the clone has the branch, and is a premise where the clone lacks it.
    @Test func anAutomationOnAnotherBranchIsJudgedOnThatBranch() throws {
        let r = try TempRepo()
        var files = bootstrapFiles("clusters/lab", flux: "v2.4.0")
        files["clusters/lab/team.yaml"] = """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: team, namespace: flux-system}
            spec:
              url: ssh://git@github.com/acme/fleet
              ref: {branch: team}
            ---
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageUpdateAutomation
            metadata: {name: team, namespace: flux-system}
            spec:
              sourceRef: {kind: GitRepository, name: team}
              git: {commit: {author: {email: bot@example.com}}}
              update: {path: ./deploy}

            """
        try r.write(files)
        try r.commitAll("fleet")
        try r.git("update-ref", "refs/remotes/origin/main", "HEAD")
        try r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
        func missingPath() throws -> String {
            let res = try tagwarden(["audit", "--format", "json"], in: r.path)
            return res.findingObjects.filter { $0["rule"] as? String == "automation-missing-path" }
                .map { "\($0["severity"]!) \($0["message"]!)" }.joined(separator: "\n")
        }
        // the clone has no branch team
        #expect(try missingPath() == "warning update.path './deploy' holds no manifest in this tree, and the automation checks out branch team: "
                + "the automation updates nothing (assuming branch team, which this clone does not have, holds what this checkout does there)")
        // branch team, as the clone last fetched it, holds the directory
        try r.git("checkout", "-q", "-b", "team")
        try r.write("deploy/web.yaml", deployment(namespace: "apps", image: "nginx:1.27.0"))
        try r.commitAll("the team's apps")
        try r.git("update-ref", "refs/remotes/origin/team", "HEAD")
        try r.git("checkout", "-q", "main")
        try r.git("branch", "-q", "-D", "team")
        #expect(try missingPath() == "")
        // and where it does not
        try r.git("update-ref", "refs/remotes/origin/team", "main")
        #expect(try missingPath() == "warning update.path './deploy' holds no manifest on branch team: the automation updates nothing "
                + "(assuming branch team still holds no manifest there, as this clone last fetched it)")
        // on a feature branch, the files are what the branch will hold once it merges: a fact
        try r.git("checkout", "-q", "-b", "feature")
        #expect(try missingPath() == "error update.path './deploy' holds no manifest in this tree: the automation updates nothing")
    }

    /// A GitRepository's `ref.name: refs/heads/deploy` is branch deploy (source-controller ranks `name` above a semver
    /// and a tag), as a FluxInstance's `sync.ref` is; another `ref.name` is a fixed revision.
    @Test func aGitRepositorysRefNameOfABranchIsThatBranch() throws {
        let r = try TempRepo()
        var files = bootstrapFiles("clusters/lab", flux: "v2.4.0")
        let sync = files["clusters/lab/flux-system/gotk-sync.yaml"]!
        files["clusters/lab/flux-system/gotk-sync.yaml"] = sync.replacingOccurrences(of: "ref: {branch: main}", with: "ref: {name: refs/heads/deploy, tag: v1}")
        files["clusters/lab/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        try r.write(files)
        try r.commitAll("fleet")
        try r.git("update-ref", "refs/remotes/origin/main", "HEAD")
        try r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
        func latest() throws -> String {
            let res = try tagwarden(["audit", "--format", "json"], in: r.path)
            let found = res.findingObjects.filter { $0["rule"] as? String == "image-latest-tag" }
            return found.map { "\($0["severity"]!) \($0["message"]!)" }.joined()
        }
        #expect(try latest().hasSuffix("which builds branch deploy of GitRepository flux-system (the checkout is on main), not this checkout: "
                                       + "assuming that revision holds this file as it is here)"))
        try r.write("clusters/lab/flux-system/gotk-sync.yaml", sync.replacingOccurrences(of: "ref: {branch: main}", with: "ref: {name: refs/pull/7/head}"))
        try r.commitAll("a pull request's head")
        #expect(try latest().hasSuffix("which builds name refs/pull/7/head of GitRepository flux-system, not this checkout: "
                                       + "assuming that revision holds this file as it is here)"))
        try r.write("clusters/lab/flux-system/gotk-sync.yaml", sync.replacingOccurrences(of: "ref: {branch: main}", with: "ref: {name: refs/heads/main}"))
        try r.commitAll("main")
        #expect(try latest().hasPrefix("error image 'nginx:latest' uses the tag 'latest'"))
    }

    /// arjansiemons/homelab: the cluster's Kustomizations read GitRepository `homelab`, which no file defines (made
    /// outside the repository, it may read this one or another): what only they apply is applied by assumption.
    @Test func aKustomizationOfAGitRepositoryNoFileDefinesIsAPremise() throws {
        let r = try TempRepo()
        var files = bootstrapFiles("clusters/lab", flux: "v2.4.0")
        files["clusters/lab/infra.yaml"] = fluxKustomization(name: "infra", path: "./infra", spec: "  sourceRef: {kind: GitRepository, name: homelab}\n")
        files["infra/job.yaml"] = deployment(namespace: "infra", image: "nginx:latest")
        try r.write(files)
        try r.commitAll("fleet")
        let res = try tagwarden(["audit", "--format", "json"], in: r.path)
        #expect(res.findingObjects.filter { $0["rule"] as? String == "image-latest-tag" }.map { "\($0["severity"]!) \($0["message"]!)" }
                == ["warning image 'nginx:latest' uses the tag 'latest', which moves with every push: pin a version or a digest (applied only "
                    + "through Flux Kustomization infra (clusters/lab/infra.yaml), which reads GitRepository homelab, which no file here "
                    + "defines: assuming it is this repository, as the checkout has it)"], "\(res.described)")
        // once a file defines it as this repository, a fact
        try r.write("clusters/lab/homelab.yaml", "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
                    + "metadata: {name: homelab, namespace: flux-system}\nspec: {url: 'https://github.com/acme/fleet.git', ref: {branch: main}}\n")
        try r.commitAll("defined")
        let defined = try tagwarden(["audit", "--format", "json"], in: r.path)
        #expect(defined.findingObjects.filter { $0["rule"] as? String == "image-latest-tag" }.map { "\($0["severity"]!)" } == ["error"], "\(defined.described)")
        // the flux-instance chart's sync, in the namespace a kustomization gives the release, names a GitRepository after
        // it: not written here, so a name no file defines may be that one (soulwhisper/homelab-ops's gitops-system)
        try r.git("rm", "-q", "clusters/lab/homelab.yaml")
        try r.write("clusters/lab/flux-instance.yaml", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: flux-instance}\n"
                    + "spec:\n  chartRef: {kind: OCIRepository, name: flux-instance}\n  values:\n    instance:\n"
                    + "      sync: {kind: GitRepository, url: 'https://github.com/acme/fleet.git', ref: refs/heads/main, path: clusters/lab}\n")
        try r.commitAll("a FluxInstance of the chart")
        let chart = try tagwarden(["audit", "--format", "json"], in: r.path)
        #expect(chart.findingObjects.filter { $0["rule"] as? String == "image-latest-tag" }.map { "\($0["severity"]!)" } == ["error"], "\(chart.described)")
    }

    /// theartusz/demo-cluster-gitops-system: the repository's one GitRepository is its -apps repository, whose path the
    /// automation updates. With no remote, it is taken to be this checkout (the message says so); a remote of another
    /// name says it is not, and one of the same name (a fork) that it is.
    @Test func theOnlyGitRepositoryIsThisCheckoutUnlessTheRemotesNameAnother() throws {
        let r = try TempRepo()
        try r.write("system/flux.yaml", """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: apps, namespace: flux-system}
            spec: {url: 'https://gitlab.com/acme/gitops-apps.git', ref: {branch: main}}
            ---

            """ + imageUpdateAutomation(name: "web", source: "apps", path: "./web"))
        try r.commitAll("system")
        func missing() throws -> [String] {
            try tagwarden(["audit", "--format", "json"], in: r.path).findings.filter { $0.hasPrefix("automation-missing-path") }
        }
        #expect(try missing() == ["automation-missing-path system/flux.yaml:12:18"])
        try r.git("remote", "add", "origin", "https://gitlab.com/acme/gitops-system.git")
        #expect(try missing() == [])
        try r.git("remote", "set-url", "origin", "https://gitlab.com/someone/gitops-apps.git")
        #expect(try missing() == ["automation-missing-path system/flux.yaml:12:18"])
    }

    /// vikbaranov/homelab: one cluster bootstrapped on a feature branch, another synced by a FluxInstance from `main`.
    /// flux-operator makes that cluster's own `flux-system` GitRepository (named after its namespace) on the sync's
    /// `ref`: its Kustomizations build that, not the other cluster's branch.
    @Test func aFluxInstancesClusterReadsTheBranchOfItsOwnSync() throws {
        let r = try TempRepo()
        var files = bootstrapFiles("clusters/local", flux: "v2.7.5")
        files["clusters/local/flux-system/gotk-sync.yaml"] = files["clusters/local/flux-system/gotk-sync.yaml"]!
            .replacingOccurrences(of: "ref: {branch: main}", with: "ref: {branch: feature/structure}")
        files["clusters/homelab/kustomization.yaml"] = "resources: [apps.yaml]\n"
        files["clusters/homelab/apps.yaml"] = fluxKustomization(path: "./clusters/homelab/apps", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        func instance(ref: String) -> String {
            "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux, namespace: flux-system}\nspec:\n"
                + "  distribution: {version: '2.8.1', registry: ghcr.io/fluxcd}\n"
                + "  sync: {kind: GitRepository, url: 'https://github.com/acme/fleet.git', ref: '\(ref)', path: clusters/homelab}\n"
        }
        files["clusters/homelab/apps/flux/flux-instance.yaml"] = instance(ref: "refs/heads/main")
        files["clusters/homelab/apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        try r.write(files)
        try r.commitAll("fleet")
        try r.git("update-ref", "refs/remotes/origin/main", "HEAD")
        try r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
        func found() throws -> [String] {
            let res = try tagwarden(["audit", "--format", "json"], in: r.path)
            return res.findingObjects.filter { $0["severity"] as? String != "note" }
                .map { "\($0["severity"]!) \($0["rule"]!) \($0["file"]!):\($0["line"]!) \($0["message"]!)" }
        }
        let latest = "image-latest-tag clusters/homelab/apps/web.yaml:9 image 'nginx:latest' uses the tag 'latest', which moves with every push: "
            + "pin a version or a digest"
        #expect(try found() == ["error " + latest])
        // a sync of another branch is that cluster's premise
        try r.write("clusters/homelab/apps/flux/flux-instance.yaml", instance(ref: "refs/heads/deploy"))
        try r.commitAll("deploy")
        #expect(try found() == ["warning " + latest + " (applied only through Flux Kustomization apps (clusters/homelab/apps.yaml), which "
                                + "builds branch deploy of GitRepository flux-system (the checkout is on main), not this checkout: assuming "
                                + "that revision holds this file as it is here)"])
    }
}
