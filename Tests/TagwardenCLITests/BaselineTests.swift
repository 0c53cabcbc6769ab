import TagwardenFixtures
import Foundation
import Testing

/// `tagwarden baseline` and the runs that read it: a repository with findings from before takes tagwarden up and is
/// held to what comes after.
@Suite struct BaselineTests {
    /// A repository with two old findings (a `latest` tag, a floating tag), committed.
    func repository() throws -> TempRepo {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/web.yaml", "# the web tier\n" + pod("web", images: ["nginx:latest"]))
        try r.write("apps/cache.yaml", pod("cache", images: ["redis:7.2"]))
        try r.commitAll("apps")
        return r
    }

    @Test func audit_reportsOnlyWhatTheBaselineDoesNotHold() throws {
        let r = try repository()
        let before = try r.audit("--format", "json").findings
        #expect(before == ["image-floating-tag apps/cache.yaml:8:14", "image-latest-tag apps/web.yaml:9:14"], "\(before)")
        let made = try tagwarden(["baseline"], in: r.path)
        #expect(made.code == 0 && made.stderr == "tagwarden: \(r.path)/.tagwarden-baseline.json: 2 findings recorded; commit it, "
                + "and audit and check leave them out\n", "\(made.described)")
        let file = try String(contentsOfFile: r.path + "/.tagwarden-baseline.json", encoding: .utf8)
        let entries = try #require((try JSONSerialization.jsonObject(with: Data(file.utf8)) as? [String: Any])?["findings"] as? [[String: String]])
        #expect(entries.map { "\($0["rule"]!) \($0["file"]!) \($0["object"]!)" }
                == ["image-floating-tag apps/cache.yaml Pod cache", "image-latest-tag apps/web.yaml Pod web"])
        #expect(entries.allSatisfy { $0.keys.sorted() == ["file", "fingerprint", "object", "rule", "text"] })

        let clean = try r.audit("--format", "json")
        #expect(clean.code == 0 && clean.findings.isEmpty, "\(clean.described)")
        #expect(clean.stderr.contains("tagwarden: note: 2 findings are in the baseline .tagwarden-baseline.json and not reported "
                                      + "(--no-baseline reports them)"), "\(clean.described)")
        #expect(try r.audit("--format", "json", "--no-baseline").findings == before)

        // lines added above a finding and an unrelated file: the same baseline, byte for byte
        try r.write("apps/web.yaml", "# the web tier\n# served from the edge\n\n" + pod("web", images: ["nginx:latest"]))
        try r.write("apps/api.yaml", pod("api", images: ["ghcr.io/acme/api:1.4.2"]))
        #expect(try r.audit("--format", "json").findings.isEmpty)
        _ = try tagwarden(["baseline", "--output", ".git/again.json"], in: r.path)
        #expect(try String(contentsOfFile: r.path + "/.git/again.json", encoding: .utf8) == file)

        // a new finding is reported; a paid debt leaves an entry that matches nothing, a note
        try r.write("apps/api.yaml", pod("api", images: ["ghcr.io/acme/api:latest"]))
        try r.write("apps/cache.yaml", pod("cache", images: ["redis:7.2.4"]))
        let later = try r.audit("--format", "json")
        #expect(later.code == 1 && later.findings == ["image-latest-tag apps/api.yaml:8:14"], "\(later.described)")
        #expect(later.stderr.contains("tagwarden: note: 1 entry of the baseline .tagwarden-baseline.json matches no finding any more "
                                      + "(image-floating-tag in apps/cache.yaml): tagwarden baseline writes it again without it"), "\(later.described)")
    }

    @Test func aBaselineThatIsNotOneIsAnErrorNamingItsLine() throws {
        let r = try repository()
        try r.write(".tagwarden-baseline.json", "{\n  \"version\": 1,\n  \"findings\": [\n    {\"rule\": }\n  ]\n}\n")
        let res = try r.audit()
        #expect(res.code == 2 && res.stderr.hasPrefix("tagwarden: error: .tagwarden-baseline.json:4: not a baseline: "), "\(res.described)")
        let missing = try r.audit("--baseline", "nowhere.json")
        #expect(missing.code == 2 && missing.stderr.hasPrefix("tagwarden: error: nowhere.json: "), "\(missing.described)")
    }

    /// The pre-commit hook: a comment-only change to a file with old findings commits; a new finding in it does not.
    @Test func checkStagedReportsWhatTheCommitBringsNotWhatTheFileHad() throws {
        let r = try repository()
        try r.write("apps/web.yaml", "# the web tier, behind the edge\n" + pod("web", images: ["nginx:latest"]))
        try r.git("add", "apps/web.yaml")
        let comment = try tagwarden(["check", "--staged", "--quiet"], in: r.path)
        #expect(comment.code == 0 && comment.stdout.isEmpty && comment.stderr.isEmpty, "\(comment.described)")
        let all = try tagwarden(["check", "--staged", "--all", "--format", "json"], in: r.path)
        #expect(all.code == 1 && all.findings == ["image-latest-tag apps/web.yaml:9:14"], "\(all.described)")

        try r.write("apps/web.yaml", "# the web tier\n" + pod("web", images: ["nginx:latest", "busybox"]))
        try r.git("add", "apps/web.yaml")
        let added = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        #expect(added.code == 1 && added.findings == ["image-missing-tag apps/web.yaml:11:14"], "\(added.described)")
        // recorded in the baseline the commit holds, it passes
        _ = try tagwarden(["baseline"], in: r.path)
        try r.git("add", ".tagwarden-baseline.json")
        let accepted = try tagwarden(["check", "--staged", "--format", "json"], in: r.path)
        #expect(accepted.code == 0 && accepted.findings.isEmpty, "\(accepted.described)")
        #expect(accepted.stderr.contains("1 finding is in the baseline .tagwarden-baseline.json and not reported"), "\(accepted.described)")
    }

    /// Through git and the installed hook: a repository with old findings commits a comment-only change without a word,
    /// and a change that adds a finding is stopped.
    @Test func theHookCommitsACommentOnlyChangeToAFileWithOldFindings() throws {
        let r = try repository()
        #expect(try tagwarden(["install-hook"], in: r.path).code == 0)
        let env = ["PATH": "/usr/bin:/bin"]
        try r.write("apps/web.yaml", "# the web tier, now behind the edge\n" + pod("web", images: ["nginx:latest"]))
        let comment = try run("/usr/bin/git", ["commit", "-a", "-m", "a comment"], cwd: r.path, env: env)
        #expect(comment.code == 0 && !(comment.stdout + comment.stderr).contains("tagwarden"), "\(comment.described)")
        try r.write("apps/cache.yaml", pod("cache", images: ["redis:7.2", "memcached:latest"]))
        let added = try run("/usr/bin/git", ["commit", "-a", "-m", "a sidecar"], cwd: r.path, env: env)
        #expect(added.code != 0 && (added.stdout + added.stderr).contains("apps/cache.yaml:10:14: error[image-latest-tag]"), "\(added.described)")
    }

    /// A pull request that writes its own finding into the baseline is still held to it: the check reads the base's.
    @Test func aPullRequestCannotPutItsOwnFindingsInTheBaseline() throws {
        let r = try repository()
        _ = try tagwarden(["baseline"], in: r.path)
        try r.commitAll("baseline")
        try r.git("checkout", "-q", "-b", "pr")
        try r.write("apps/api.yaml", pod("api", images: ["ghcr.io/acme/api:latest"]))
        _ = try tagwarden(["baseline"], in: r.path)
        try r.commitAll("an api, and its finding in the baseline")
        let res = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(res.code == 1 && res.findings == ["image-latest-tag apps/api.yaml:8:14"], "\(res.described)")
        let headSide = try tagwarden(["check", "--base", "main", "--config-from", "head", "--format", "json"], in: r.path)
        #expect(headSide.code == 0 && headSide.findings.isEmpty, "\(headSide.described)")
    }

    /// A team's config in its directory is read by runs started there; a run from the root (the hook's, the Action's)
    /// says that it leaves it aside, rather than ignoring it without a word.
    @Test func aConfigTheRunLeavesAsideIsNamed() throws {
        let r = try repository()
        try r.write("apps/.tagwarden.yaml", oneClusterConfig + "rules:\n  image-latest-tag: {severity: note}\n")
        try r.commitAll("a team's config")
        let note = "tagwarden: note: apps/.tagwarden.yaml is not in force in this run, which reads the config .tagwarden.yaml (the nearest "
            + "from where it starts): its settings apply to runs started in apps or below (tagwarden audit apps), or move them into the config in force\n"
        let root = try r.audit("--format", "json")
        #expect(root.stderr == note, "\(root.described)")
        let team = try tagwarden(["audit", "apps", "--format", "json"], in: r.path)
        #expect(team.stderr.isEmpty && team.findingObjects.contains { $0["rule"] as? String == "image-latest-tag" && $0["severity"] as? String == "note" },
                "\(team.described)")
        try r.write("apps/web.yaml", "# edited\n" + pod("web", images: ["nginx:latest"]))
        try r.git("add", "apps/web.yaml")
        let hook = try tagwarden(["check", "--staged"], in: r.path)
        #expect(hook.code == 0 && hook.stderr == note, "\(hook.described)")
    }
}
