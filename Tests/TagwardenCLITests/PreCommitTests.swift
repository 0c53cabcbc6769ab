import TagwardenFixtures
import Foundation
import Testing

/// The pre-commit framework, for real: `pre-commit try-repo` of this repository's `.pre-commit-hooks.yaml`.
@Suite struct PreCommitTests {
    /// A repository with one commit and a manifest using `latest` staged on top.
    func repoWithABadManifestStaged() throws -> TempRepo {
        let which = try run("/usr/bin/env", ["sh", "-c", "command -v pre-commit"], cwd: "/")
        try #require(which.code == 0, "pre-commit is not installed: scripts/setup installs it")
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("README", "x\n")
        try r.commitAll("init")
        try r.write("apps/web.yaml", pod("web", images: ["nginx:latest"]))
        try r.git("add", "apps/web.yaml")
        return r
    }

    @Test func tryRepoFailsOnABadStagedManifestAndPassesOnceFixed() throws {
        let r = try repoWithABadManifestStaged()
        let binDir = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        let env = ["PATH": "\(binDir):" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                   "PRE_COMMIT_HOME": r.path + "/.pre-commit-cache", "GIT_CONFIG_GLOBAL": "/dev/null"]
        let bad = try run("/usr/bin/env", ["pre-commit", "try-repo", packageRoot, "tagwarden-system", "--verbose"], cwd: r.path, env: env)
        #expect(bad.code == 1, "\(bad.stdout)\n\(bad.stderr)")
        #expect(bad.stdout.contains("apps/web.yaml:8:14: error[image-latest-tag]"), "\(bad.stdout)")
        try r.write("apps/web.yaml", pod("web", images: ["nginx:1.25.3"]))
        try r.git("add", "apps/web.yaml")
        let good = try run("/usr/bin/env", ["pre-commit", "try-repo", packageRoot, "tagwarden-system", "--verbose"], cwd: r.path, env: env)
        #expect(good.code == 0, "\(good.stdout)\n\(good.stderr)")
        #expect(good.stdout.contains("Passed"))
    }

    /// The `language: swift` hook: pre-commit builds Tagwarden from this repository (a release build, a few
    /// minutes the first time) and runs it on the staged tree.
    @Test func swiftHookBuildsFromSourceAndChecksTheStagedTree() throws {
        let r = try repoWithABadManifestStaged()
        let env = ["PRE_COMMIT_HOME": r.path + "/.pre-commit-cache", "GIT_CONFIG_GLOBAL": "/dev/null"]
        let bad = try run("/usr/bin/env", ["pre-commit", "try-repo", packageRoot, "tagwarden", "--verbose"], cwd: r.path, env: env)
        #expect(bad.code == 1, "\(bad.stdout)\n\(bad.stderr)")
        #expect(bad.stdout.contains("apps/web.yaml:8:14: error[image-latest-tag]"), "\(bad.stdout)")
    }

    @Test func manifestDeclaresBothHooksWithoutFileNames() throws {
        let text = try String(contentsOfFile: packageRoot + "/.pre-commit-hooks.yaml", encoding: .utf8)
        let check = try run("/usr/bin/env", ["python3", "-c", """
        import sys, yaml
        hooks = yaml.safe_load(open(sys.argv[1]))
        ids = {h["id"]: h for h in hooks}
        assert ids["tagwarden"]["language"] == "swift", ids
        assert ids["tagwarden-system"]["language"] == "system", ids
        assert all(h["pass_filenames"] is False and h["entry"] == "tagwarden check --staged" for h in hooks)
        print("ok")
        """, packageRoot + "/.pre-commit-hooks.yaml"], cwd: "/")
        #expect(check.stdout == "ok\n", "\(check.stderr)")
        #expect(text.contains("language: swift"))
    }

    /// The composite action: valid YAML, the steps CI needs, and a lint script that bash accepts.
    @Test func githubActionIsWellFormed() throws {
        let check = try run("/usr/bin/env", ["python3", "-c", """
        import subprocess, sys, yaml
        a = yaml.safe_load(open(sys.argv[1]))
        assert a["runs"]["using"] == "composite"
        steps = {s["name"]: s for s in a["runs"]["steps"]}
        assert "swift build -c release" in steps["Build Tagwarden"]["run"]
        lint = steps["Lint"]["run"]
        assert "check --base" in lint and "audit" in lint and "--format sarif" in lint and "GITHUB_STEP_SUMMARY" in lint
        assert steps["Upload SARIF"]["uses"].startswith("github/codeql-action/upload-sarif@")
        subprocess.run(["bash", "-n", "-c", lint], check=True)
        print("ok")
        """, packageRoot + "/action.yml"], cwd: "/")
        #expect(check.stdout == "ok\n", "\(check.stderr)")
    }
}
