import TagwardenFixtures
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

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

    /// Three hooks, none given file names: built from source, an installed binary, and the release's container image of
    /// this very version (the version in the image's tag is the binary's).
    @Test func manifestDeclaresTheHooksWithoutFileNames() throws {
        let version = try #require(try tagwarden(["--version"], in: "/").stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let check = try run("/usr/bin/env", ["python3", "-c", """
        import sys, yaml
        hooks = yaml.safe_load(open(sys.argv[1]))
        ids = {h["id"]: h for h in hooks}
        assert ids["tagwarden"]["language"] == "swift", ids
        assert ids["tagwarden-system"]["language"] == "system", ids
        assert ids["tagwarden-docker"]["language"] == "docker_image", ids
        assert ids["tagwarden-docker"]["entry"] == "ghcr.io/tagwarden/tagwarden:" + sys.argv[2] + " check --staged", ids
        assert all(h["pass_filenames"] is False and h["entry"].endswith("tagwarden check --staged") or h["language"] == "docker_image" for h in hooks)
        print("ok")
        """, packageRoot + "/.pre-commit-hooks.yaml", version], cwd: "/")
        #expect(check.stdout == "ok\n", "\(check.stderr)")
    }

    /// The composite action: valid YAML, the steps CI needs, and a lint script that bash accepts.
    @Test func githubActionIsWellFormed() throws {
        let check = try run("/usr/bin/env", ["python3", "-c", """
        import subprocess, sys, yaml
        a = yaml.safe_load(open(sys.argv[1]))
        assert a["runs"]["using"] == "composite"
        steps = {s["name"]: s for s in a["runs"]["steps"]}
        assert "scripts/action-install" in steps["Install Tagwarden"]["run"]
        assert steps["Restore this version's source build"]["uses"].startswith("actions/cache@")
        assert steps["Keep the promotion history between runs"]["with"]["path"] == ".git/tagwarden"
        assert all(s["env"]["TW"] == "${{ steps.install.outputs.tw }}" for s in a["runs"]["steps"] if "TW" in s.get("env", {}))
        lint = steps["Lint"]["run"]
        assert "check --base" in lint and "audit" in lint and "--format sarif" in lint and "GITHUB_STEP_SUMMARY" in lint
        assert steps["Upload SARIF"]["uses"].startswith("github/codeql-action/upload-sarif@")
        subprocess.run(["bash", "-n", "-c", lint], check=True)
        print("ok")
        """, packageRoot + "/action.yml"], cwd: "/")
        #expect(check.stdout == "ok\n", "\(check.stderr)")
    }

    /// The action's install: a release tag installs the package on Debian 12 and the image where docker is; any other
    /// ref builds from source.
    @Test func theActionInstallsTheReleaseForItsVersion() throws {
        let dir = try TempRepo(git: false)
        try dir.write("debian", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n")
        try dir.write("ubuntu", "ID=ubuntu\nVERSION_ID=\"24.04\"\n")
        try dir.write("bin/docker", "#!/bin/sh\nexit 0\n")
        chmod(dir.path + "/bin/docker", 0o755)
        func plan(_ ref: String, _ os: String, docker: Bool) throws -> String {
            let path = (docker ? dir.path + "/bin:" : "") + "/usr/bin:/bin"
            return try run(packageRoot + "/scripts/action-install", ["--plan"], cwd: dir.path,
                           env: ["ACTION_REF": ref, "OS_RELEASE": dir.path + "/" + os, "PATH": path]).stdout
        }
        #expect(try plan("v0.1.0", "debian", docker: true) == "deb 0.1.0\n")
        #expect(try plan("v0.1.0", "ubuntu", docker: true) == "image 0.1.0\n")
        #expect(try plan("v0.1.0", "ubuntu", docker: false) == "source 0.1.0\n")
        #expect(try plan("main", "debian", docker: true) == "source\n")
        #expect(try plan("3f9c2ab", "ubuntu", docker: true) == "source\n")
    }

    /// Every YAML snippet of the README and the docs (but the rule catalogue's examples of broken files), the action, the
    /// workflows and the hooks manifest parse; and the README's GitLab job runs as written in a repository, on a
    /// merge request and on a push, with tagwarden on PATH as the image has it.
    @Test func everyYAMLSnippetParsesAndTheGitLabJobRuns() throws {
        let check = try run("/usr/bin/env", ["python3", "-c", """
        import glob, os, re, sys, yaml
        root = sys.argv[1]
        bad, n = [], 0
        for f in ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root)):
            if f == "docs/rules.md": continue
            text = open(os.path.join(root, f)).read()
            for m in re.finditer(r"^```ya?ml\\n(.*?)^```", text, re.S | re.M):
                n += 1
                try: list(yaml.safe_load_all(m.group(1)))
                except Exception as e: bad.append(f"{f}:{text[:m.start()].count(chr(10)) + 1}: {e}")
        for f in ["action.yml", ".pre-commit-hooks.yaml"] + sorted(glob.glob(".github/workflows/*.yml", root_dir=root)):
            n += 1
            try: yaml.safe_load(open(os.path.join(root, f)))
            except Exception as e: bad.append(f"{f}: {e}")
        print(n, bad)
        """, packageRoot], cwd: packageRoot)
        #expect(check.code == 0 && check.stdout.hasSuffix(" []\n"), "\(check.described)")
        #expect(Int(check.stdout.split(separator: " ").first ?? "") ?? 0 >= 12, "\(check.described)")

        let job = try run("/usr/bin/env", ["python3", "-c", """
        import re, sys, yaml
        text = open(sys.argv[1]).read()
        for m in re.finditer(r"^```yaml\\n(.*?)^```", text, re.S | re.M):
            doc = yaml.safe_load(m.group(1))
            if isinstance(doc, dict) and "tagwarden" in doc and "script" in doc["tagwarden"]:
                print("\\n".join(doc["tagwarden"]["script"]))
        """, packageRoot + "/README.md"], cwd: packageRoot)
        let script = job.stdout
        #expect(script.contains("tagwarden check --base"), "\(job.described)")
        let remote = try TempRepo(git: false)
        try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote.path], cwd: remote.path)
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/web.yaml", pod("web", images: ["nginx:1.25.3"]))
        try r.commitAll("base")
        try r.git("remote", "add", "origin", remote.path)
        try r.git("push", "-q", "origin", "main")
        try r.git("checkout", "-q", "-b", "feature")
        try r.write("apps/api.yaml", pod("api", images: ["nginx:latest"]))
        try r.commitAll("an api")
        let bin = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let mr = try run("/bin/bash", ["-e", "-c", script], cwd: r.path, env: ["PATH": path, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"])
        #expect(mr.code == 1 && mr.stdout.contains("apps/api.yaml:8:14: error[image-latest-tag]"), "\(mr.described)")
        for artifact in ["tagwarden.md", "gl-code-quality.json", "tagwarden-junit.xml"] {
            #expect(FileManager.default.fileExists(atPath: r.path + "/" + artifact), "\(artifact) was not written")
        }
        try r.write("apps/api.yaml", pod("api", images: ["nginx:1.25.3"]))
        try r.commitAll("pinned")
        let push = try run("/bin/bash", ["-e", "-c", script], cwd: r.path, env: ["PATH": path])
        #expect(push.code == 0, "\(push.described)")
    }
}
