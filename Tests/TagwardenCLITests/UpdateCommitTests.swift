import TagwardenFixtures
import Foundation
import Testing

/// `update --commit [--push] [--sign]` end to end: a bare repository as the remote, a clone as the work tree, the real
/// binary, and git itself to check what was made.
@Suite struct UpdateCommitTests {
    static let marker = #"# {"$imagepolicy": "flux-system:web"}"#

    static func automation(push: String, extra: String = "") -> String {
        """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageUpdateAutomation
        metadata: {name: apps, namespace: flux-system}
        spec:
          sourceRef: {kind: GitRepository, name: flux-system}
          git:
            checkout: {ref: {branch: main}}
            commit:
              author: {name: Flux Bot, email: flux@example.com}
              messageTemplate: |
                Update images

                {{ range .Changed.Changes }}- {{ .OldValue }} -> {{ .NewValue }}
                {{ end }}
            push: {branch: \(push)}
          update: {path: ./apps}
        \(extra)
        """
    }

    /// A bare remote and a clone of it holding a fleet whose automation pushes to `push`.
    func setUp(push: String = "image-updates") throws -> (remote: TempRepo, clone: TempRepo) {
        let remote = try TempRepo(git: false)
        try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote.path], cwd: remote.path)
        let clone = try TempRepo()
        try clone.write([
            "flux/images.yaml": [imageRepository(), imagePolicy(), Self.automation(push: push)].joined(separator: "---\n"),
            "apps/web.yaml": "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
            "apps/notes.yaml": "note: keep\n",
        ])
        try clone.commitAll("fleet")
        try clone.git("remote", "add", "origin", remote.path)
        try clone.git("push", "-q", "origin", "main")
        try clone.git("fetch", "-q", "origin")
        return (remote, clone)
    }

    /// Someone else commits `file` on the remote's `branch` and pushes it: the remote moves. Their commit.
    @discardableResult
    func pushFromElsewhere(_ remote: TempRepo, branch: String, file: String, text: String) throws -> String {
        let other = try TempRepo()
        try other.git("fetch", "-q", remote.path, branch)
        try other.git("checkout", "-q", "-B", branch, "FETCH_HEAD")
        try other.write(file, text)
        try other.commitAll("theirs")
        try other.git("push", "-q", remote.path, branch)
        return try other.git("rev-parse", "HEAD").stdout
    }

    func tags(_ clone: TempRepo, _ list: [String]) throws {
        try FileManager.default.createDirectory(atPath: clone.path + "/.git/t", withIntermediateDirectories: true)
        try clone.write(".git/t/tags.yaml", "ghcr.io/acme/web: [\(list.joined(separator: ", "))]\n")
    }

    func update(_ clone: TempRepo, _ args: [String], env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        try tagwarden(["update", "--tags", ".git/t/tags.yaml", "--commit"] + args, in: clone.path, env: env, sourceLocation: sourceLocation)
    }

    @Test func aPushBranchIsCreatedThenStackedAndTheWorkTreeIsLeftAlone() throws {
        let (_, clone) = try setUp()
        // uncommitted work, in a marked file too, survives untouched
        try clone.write("apps/web.yaml", "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n# mine\n")
        try clone.write("apps/new.yaml", "draft: true\n")
        let statusBefore = try clone.git("status", "--porcelain").stdout
        let main = try clone.git("rev-parse", "main").stdout
        try tags(clone, ["1.1.0"])
        let first = try update(clone, [])
        #expect(first.code == 0, "\(first.described)")
        #expect(try clone.git("status", "--porcelain").stdout == statusBefore)
        #expect(try clone.git("rev-parse", "main").stdout == main)
        #expect(try clone.git("rev-parse", "image-updates^").stdout == main)
        #expect(try clone.git("show", "image-updates:apps/web.yaml").stdout == "image: ghcr.io/acme/web:1.1.0 \(Self.marker)\n")
        #expect(try clone.git("log", "-1", "--format=%an <%ae>%n%B", "image-updates").stdout
                == "Flux Bot <flux@example.com>\nUpdate images\n\n- ghcr.io/acme/web:1.0.0 -> ghcr.io/acme/web:1.1.0\n\n\n")
        #expect(try clone.git("diff", "--stat", "main", "image-updates").stdout.contains("apps/web.yaml | 2 +-"))
        let firstCommit = try clone.git("rev-parse", "image-updates").stdout
        // a newer tag: stacked on the push branch, as Flux stacks
        try tags(clone, ["1.2.0"])
        let second = try update(clone, [])
        #expect(second.code == 0, "\(second.described)")
        #expect(try clone.git("rev-parse", "image-updates^").stdout == firstCommit)
        // nothing new: no commit
        let third = try update(clone, [])
        #expect(third.code == 0 && third.stderr.hasSuffix("tagwarden: up to date\n"), "\(third.described)")
        #expect(try clone.git("rev-list", "--count", "main..image-updates").stdout == "2\n")
    }

    @Test func resetModeRebuildsThePushBranchFromTheCheckoutBranch() throws {
        let (_, clone) = try setUp()
        try tags(clone, ["1.1.0"])
        _ = try update(clone, [])
        try tags(clone, ["1.2.0"])
        let res = try update(clone, ["--push-branch-mode", "reset"])
        #expect(res.code == 0, "\(res.described)")
        #expect(try clone.git("rev-parse", "image-updates^").stdout == (try clone.git("rev-parse", "main").stdout))
        #expect(try clone.git("show", "image-updates:apps/web.yaml").stdout == "image: ghcr.io/acme/web:1.2.0 \(Self.marker)\n")
    }

    @Test func onTheBranchCheckedOutTheFilesAreWrittenAndStagedWithTheCommit() throws {
        let (_, clone) = try setUp(push: "main")
        try clone.write("apps/other.yaml", "draft: true\n")
        try tags(clone, ["1.1.0"])
        let res = try update(clone, [])
        #expect(res.code == 0, "\(res.described)")
        #expect(try clone.git("status", "--porcelain").stdout == "?? apps/other.yaml\n")
        #expect(try String(contentsOfFile: clone.path + "/apps/web.yaml", encoding: .utf8) == "image: ghcr.io/acme/web:1.1.0 \(Self.marker)\n")
        #expect(try clone.git("log", "-1", "--format=%s", "main").stdout == "Update images\n")
        // a marked file being edited stops the commit, and nothing moves
        try tags(clone, ["1.2.0"])
        try clone.write("apps/web.yaml", "image: ghcr.io/acme/web:1.1.0 \(Self.marker)\n# mine\n")
        let head = try clone.git("rev-parse", "HEAD").stdout
        let refused = try update(clone, [])
        #expect(refused.code == 2)
        #expect(refused.stderr == "tagwarden: error: apps/web.yaml has uncommitted changes on main, the branch checked out: commit or stash them first\n")
        #expect(try clone.git("rev-parse", "HEAD").stdout == head)
    }

    @Test func pushGoesToTheRemoteAndARemoteThatMovedIsFollowedOnce() throws {
        let (remote, clone) = try setUp()
        try tags(clone, ["1.1.0"])
        let res = try update(clone, ["--push"])
        #expect(res.code == 0, "\(res.described)")
        let pushed = try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "image-updates"], cwd: remote.path).stdout
        #expect(pushed == (try clone.git("rev-parse", "image-updates").stdout))
        // someone else adds to the push branch; our next update is made on their commit, after one fetch
        let theirs = try pushFromElsewhere(remote, branch: "image-updates", file: "apps/notes.yaml", text: "note: theirs\n")
        try tags(clone, ["1.2.0"])
        let again = try update(clone, ["--push"])
        #expect(again.code == 0, "\(again.described)")
        let tip = try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "image-updates"], cwd: remote.path).stdout
        #expect(try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "image-updates^"], cwd: remote.path).stdout == theirs)
        #expect(try run("/usr/bin/git", ["--git-dir", remote.path, "show", "image-updates:apps/notes.yaml"], cwd: remote.path).stdout == "note: theirs\n")
        #expect(tip == (try clone.git("rev-parse", "image-updates").stdout))
    }

    @Test func aPushRefspecIsPushedToo() throws {
        let (remote, clone) = try setUp()
        try clone.write("flux/images.yaml", [imageRepository(), imagePolicy(),
                                             Self.automation(push: "image-updates").replacingOccurrences(
                                                of: "    push: {branch: image-updates}",
                                                with: "    push: {branch: image-updates, refspec: 'HEAD:refs/heads/review/images'}")].joined(separator: "---\n"))
        try clone.commitAll("refspec")
        try tags(clone, ["1.1.0"])
        let res = try update(clone, ["--push"])
        #expect(res.code == 0, "\(res.described)")
        let review = try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "review/images"], cwd: remote.path).stdout
        #expect(review == (try clone.git("rev-parse", "image-updates").stdout))
    }

    @Test func aResetBranchIsPushedWithALeaseAndARejectedPushSaysSo() throws {
        let (remote, clone) = try setUp()
        try tags(clone, ["1.1.0"])
        #expect(try update(clone, ["--push"]).code == 0)
        // with the remote where it was last fetched, the rebuilt branch is forced over it
        try tags(clone, ["1.2.0"])
        let rebuilt = try update(clone, ["--push", "--push-branch-mode", "reset"])
        #expect(rebuilt.code == 0, "\(rebuilt.described)")
        #expect(try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "image-updates^"], cwd: remote.path).stdout
                == (try clone.git("rev-parse", "main").stdout))
        // the remote's push branch moves and our tracking ref does not know: the lease refuses, nothing is lost
        let theirs = try pushFromElsewhere(remote, branch: "image-updates", file: "x.yaml", text: "x: 1\n")
        let localBefore = try clone.git("rev-parse", "image-updates").stdout
        try tags(clone, ["1.3.0"])
        let res = try update(clone, ["--push", "--push-branch-mode", "reset"])
        #expect(res.code == 2, "\(res.described)")
        #expect(res.stderr.contains("since it was last fetched: nothing pushed"), "\(res.described)")
        #expect(try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "image-updates"], cwd: remote.path).stdout == theirs)
        #expect(try clone.git("rev-parse", "image-updates").stdout == localBefore)
        // the checkout branch is never forced: a push to a main that moved is refused and says so
        let (remote2, clone2) = try setUp(push: "main")
        try pushFromElsewhere(remote2, branch: "main", file: "y.yaml", text: "y: 1\n")
        try tags(clone2, ["1.1.0"])
        let refused = try update(clone2, ["--push"])
        #expect(refused.code == 2)
        #expect(refused.stderr.contains("the remote's main moved (now "), "\(refused.described)")
        #expect(refused.stderr.contains("pull --rebase and push it"))
    }

    @Test func resetRebuildsASharedPushBranchOnceAndKeepsEveryAutomationsCommit() throws {
        // found by review: a second automation on the same push branch rebuilt it again, dropping the first's commit
        let (_, clone) = try setUp()
        try clone.write("flux/second.yaml", [imageRepository(name: "api", image: "ghcr.io/acme/api"), imagePolicy(name: "api"),
                                             Self.automation(push: "image-updates").replacingOccurrences(of: "name: apps", with: "name: zz-api")
                                                .replacingOccurrences(of: "path: ./apps", with: "path: ./api")].joined(separator: "---\n"))
        try clone.write("api/api.yaml", "image: ghcr.io/acme/api:1.0.0 # {\"$imagepolicy\": \"flux-system:api\"}\n")
        try clone.commitAll("second automation")
        try clone.write(".git/t/tags.yaml", "ghcr.io/acme/web: ['1.1.0']\nghcr.io/acme/api: ['1.1.0']\n")
        let res = try update(clone, ["--push-branch-mode", "reset"])
        #expect(res.code == 0, "\(res.described)")
        #expect(try clone.git("rev-list", "--count", "main..image-updates").stdout == "2\n")
        #expect(try clone.git("show", "image-updates:apps/web.yaml").stdout.contains("web:1.1.0"))
        #expect(try clone.git("show", "image-updates:api/api.yaml").stdout.contains("api:1.1.0"))
    }

    @Test func localCommitsTheRemoteLacksAreNeverDropped() throws {
        // found by review: following a remote that moved reset the local branch, dropping unpushed commits
        let (remote, clone) = try setUp(push: "main")
        try clone.git("checkout", "-q", "-b", "elsewhere")
        try clone.git("checkout", "-q", "main")
        try clone.write("apps/notes.yaml", "note: mine, unpushed\n")
        try clone.commitAll("my unpushed work")
        let mine = try clone.git("rev-parse", "main").stdout
        try clone.git("checkout", "-q", "elsewhere")
        try pushFromElsewhere(remote, branch: "main", file: "y.yaml", text: "y: 1\n")
        try tags(clone, ["1.1.0"])
        let res = try update(clone, ["--push"])
        #expect(res.code == 2, "\(res.described)")
        #expect(res.stderr.contains("and your main has commits it has not: merge or rebase them first"), "\(res.described)")
        #expect(try clone.git("rev-parse", "main").stdout == mine)
    }

    @Test func aSymlinkedManifestStaysALinkAndItsFileChanges() throws {
        // found by review: --commit replaced the link with a regular file
        let (_, clone) = try setUp()
        try clone.write("common/web.yaml", "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n")
        try clone.remove("apps/web.yaml")
        try FileManager.default.createSymbolicLink(atPath: clone.path + "/apps/web.yaml", withDestinationPath: "../common/web.yaml")
        try clone.commitAll("linked")
        try tags(clone, ["1.1.0"])
        let res = try update(clone, [])
        #expect(res.code == 0, "\(res.described)")
        #expect(try clone.git("ls-tree", "image-updates", "apps/web.yaml").stdout.hasPrefix("120000 blob"))
        #expect(try clone.git("show", "image-updates:common/web.yaml").stdout == "image: ghcr.io/acme/web:1.1.0 \(Self.marker)\n")
    }

    @Test func signedCommitsOfBothFormatsAreVerifiedByGit() throws {
        // ssh
        let (_, clone) = try setUp()
        let key = clone.path + "/.git/t/key"
        try FileManager.default.createDirectory(atPath: clone.path + "/.git/t", withIntermediateDirectories: true)
        try run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "flux@example.com", "-f", key], cwd: clone.path)
        let publicKey = try String(contentsOfFile: key + ".pub", encoding: .utf8)
        try clone.write(".git/t/allowed", "flux@example.com \(publicKey)")
        try clone.git("config", "gpg.format", "ssh")
        try clone.git("config", "user.signingKey", key)
        try clone.git("config", "gpg.ssh.allowedSignersFile", clone.path + "/.git/t/allowed")
        try clone.git("config", "user.email", "flux@example.com")
        try tags(clone, ["1.1.0"])
        let res = try update(clone, ["--sign"])
        #expect(res.code == 0, "\(res.described)")
        let verified = try run("/usr/bin/git", ["verify-commit", "image-updates"], cwd: clone.path)
        #expect(verified.code == 0, "\(verified.described)")
        #expect(verified.stderr.contains("Good \"git\" signature for flux@example.com"))

        // OpenPGP, from commit.gpgsign=true without --sign
        let (_, pgp) = try setUp()
        let home = pgp.path + "/.git/gnupg"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chmod(home, 0o700)
        let gen = try run("/usr/bin/gpg", ["--batch", "--homedir", home, "--pinentry-mode", "loopback", "--passphrase", "",
                                           "--quick-gen-key", "Flux Bot <flux@example.com>", "ed25519", "sign", "never"], cwd: pgp.path)
        #expect(gen.code == 0, "\(gen.described)")
        try pgp.git("config", "commit.gpgsign", "true")
        try pgp.git("config", "user.email", "flux@example.com")
        try tags(pgp, ["1.1.0"])
        let signed = try update(pgp, [], env: ["GNUPGHOME": home])
        #expect(signed.code == 0, "\(signed.described)")
        let log = try run("/usr/bin/git", ["log", "-1", "--show-signature", "--format=%G?", "image-updates"], cwd: pgp.path, env: ["GNUPGHOME": home])
        #expect(log.stdout.hasSuffix("G\n"), "\(log.described)")
        #expect(log.stdout.contains("Good signature from \"Flux Bot <flux@example.com>\""))
    }

    /// The action's Update step (mode: update), run by bash as GitHub runs it on a schedule.
    @Test func githubActionUpdateStepCommitsAndPushes() throws {
        let (remote, clone) = try setUp()
        try tags(clone, ["1.1.0"])
        let extract = try run("/usr/bin/env", ["python3", "-c", "import yaml, sys; a = yaml.safe_load(open(sys.argv[1])); "
            + "print(next(s for s in a['runs']['steps'] if s['name'] == 'Update')['run'])", packageRoot + "/action.yml"], cwd: "/")
        #expect(!extract.stdout.isEmpty, "\(extract.stderr)")
        let out = try TempRepo(git: false)
        let env = ["TW": binary, "TW_PATH": ".", "TW_CONFIG": "", "TW_TAGS": ".git/t/tags.yaml", "TW_ARGS": "--automation flux-system/apps",
                   "GITHUB_STEP_SUMMARY": out.path + "/summary.md"]
        let step = try run("/bin/bash", ["-e", "-c", extract.stdout], cwd: clone.path, env: env)
        #expect(step.code == 0, "\(step.stderr)")
        let pushed = try run("/usr/bin/git", ["--git-dir", remote.path, "show", "image-updates:apps/web.yaml"], cwd: remote.path).stdout
        #expect(pushed == "image: ghcr.io/acme/web:1.1.0 \(Self.marker)\n")
        let summary = try String(contentsOfFile: out.path + "/summary.md", encoding: .utf8)
        #expect(summary.hasPrefix("## Image updates\n\n| File | Line | Setter | From | To |\n|---|---|---|---|---|\n"
                                  + "| apps/web.yaml | 1 | flux-system:web | ghcr.io/acme/web:1.0.0 | ghcr.io/acme/web:1.1.0 |\n"), "\(summary)")
        #expect(summary.contains(", pushed (flux-system/apps)."))
    }

    @Test func aLockStopsASecondRunAndADeadRunsLockIsNoObstacle() throws {
        let (_, clone) = try setUp()
        try tags(clone, ["1.1.0"])
        // a live process holds it: this test's own
        let path = clone.path + "/.git/tagwarden-update.lock"
        try clone.write(".git/tagwarden-update.lock", "\(getpid())\n")
        let fd = open(path, O_RDWR)
        #expect(flock(fd, LOCK_EX) == 0)
        let held = try update(clone, [])
        #expect(held.code == 2)
        #expect(held.stderr == "tagwarden: error: another tagwarden update or promote (process \(getpid())) is running on this repository\n")
        #expect(try clone.git("branch", "--list", "image-updates").stdout.isEmpty)
        close(fd)
        // a dead run's file, which nothing holds, is no lock
        try clone.write(".git/tagwarden-update.lock", "999999\n")
        let taken = try update(clone, [])
        #expect(taken.code == 0, "\(taken.described)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// Ctrl-C during `update --write` and `--commit`: every file old or new, no lock or temporary file left, the branch at
/// its old or its new commit.
@Suite struct UpdateInterruptionTests {
    static let marker = #"# {"$imagepolicy": "flux-system:web"}"#

    func fleet(files: Int, push: String) throws -> TempRepo {
        let r = try TempRepo()
        var all = ["flux/images.yaml": [imageRepository(), imagePolicy(),
                                        UpdateCommitTests.automation(push: push)].joined(separator: "---\n")]
        for i in 0..<files { all["apps/app\(i).yaml"] = "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\nindex: \(i)\n" }
        try r.write(all)
        try r.write(".git/tags.yaml", "ghcr.io/acme/web: ['1.1.0']\n")
        try r.commitAll("fleet")
        return r
    }

    /// Tagwarden with SIGINT deliverable: the test runner's threads block it, and a child inherits the mask (so that it
    /// was never interrupted at all, and these tests could not fail); Python unblocks it, sets its default, and execs.
    static func interruptible(_ args: [String]) -> (executable: URL, arguments: [String]) {
        (URL(fileURLWithPath: "/usr/bin/python3"),
         ["-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); os.execv(sys.argv[1], sys.argv[1:])", binary] + args)
    }

    /// Starts tagwarden with `args` in `dir` (and `env`, if given, as its whole environment), sends it `signal` after
    /// `delay` seconds, and waits for it: how it ended, and what it said on standard error.
    static func signalled(_ args: [String], in dir: String, env: [String: String]? = nil, after delay: Double,
                          signal: Int32 = SIGINT) throws -> (process: Process, stderr: String) {
        let p = Process()
        (p.executableURL, p.arguments) = interruptible(args)
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        if let env { p.environment = env }
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        Thread.sleep(forTimeInterval: delay)
        kill(p.processIdentifier, signal)
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p, said)
    }

    func checkEveryFileIsOldOrNew(_ r: TempRepo, files: Int) throws -> Int {
        var updated = 0
        for i in 0..<files {
            let text = try String(contentsOfFile: r.path + "/apps/app\(i).yaml", encoding: .utf8)
            let old = "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\nindex: \(i)\n"
            let new = "image: ghcr.io/acme/web:1.1.0 \(Self.marker)\nindex: \(i)\n"
            #expect(text == old || text == new, "apps/app\(i).yaml is half-written: \(text)")
            if text == new { updated += 1 }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: r.path + "/apps").filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "temporary files left: \(left)")
        #expect(!FileManager.default.fileExists(atPath: r.path + "/.git/tagwarden-update.lock"), "the lock was left behind")
        #expect(!FileManager.default.fileExists(atPath: r.path + "/.git/index.lock"), "git's index lock was left behind")
        return updated
    }

    @Test func writeInterruptedLeavesEveryFileWhole() throws {
        let files = 400
        for delay in [0.05, 0.15, 0.3, 0.6] {
            let r = try fleet(files: files, push: "main")
            _ = try Self.signalled(["update", "--tags", ".git/tags.yaml", "--write"], in: r.path, after: delay)
            _ = try checkEveryFileIsOldOrNew(r, files: files)
        }
    }

    @Test func commitInterruptedLeavesTheBranchOldOrNewAndTheWorkTreeInStep() throws {
        let files = 400
        for delay in [0.05, 0.15, 0.3, 0.6] {
            let r = try fleet(files: files, push: "main")
            let before = try r.git("rev-parse", "main").stdout
            _ = try Self.signalled(["update", "--tags", ".git/tags.yaml", "--commit"], in: r.path, after: delay)
            let updated = try checkEveryFileIsOldOrNew(r, files: files)
            let after = try r.git("rev-parse", "main").stdout
            // the files are written before the branch moves, all of them inside one uninterruptible change
            if after == before {
                #expect(updated == 0, "the branch did not move but \(updated) files changed")
            } else {
                #expect(updated == files)
                #expect(try r.git("status", "--porcelain").stdout.isEmpty)
            }
        }
    }
}

extension UpdateInterruptionTests {
    /// Ctrl-C at many points of `--commit --push` to a branch of its own: the local and the remote branch each at its
    /// old or its new commit, no lock or `index.lock` left here or in the remote, and a message that says so.
    @Test func pushInterruptedLeavesBothBranchesOldOrNewAndNoLock() throws {
        let files = 300
        var outcomes: Set<String> = []
        func clone() throws -> (r: TempRepo, remote: TempRepo) {
            let r = try fleet(files: files, push: "image-updates")
            let remote = try TempRepo(git: false)
            try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote.path], cwd: remote.path)
            try r.git("remote", "add", "origin", remote.path)
            try r.git("push", "-q", "origin", "main")
            return (r, remote)
        }
        // the points: spread over how long a whole run takes here, now (a loaded machine is slower)
        let whole = try clone()
        let start = Date()
        #expect(try run(binary, ["update", "--tags", ".git/tags.yaml", "--commit", "--push"], cwd: whole.r.path).code == 0)
        let step = Date().timeIntervalSince(start) / 12
        // further points until a run ends before its signal: a machine busier with other tests is slower than the
        // measured run, and then a fixed spread would interrupt every run before its commit
        var finished = false
        for delay in (1...48).lazy.map({ step * Double($0) }) where !finished {
            let (r, remote) = try clone()
            let (p, said) = try Self.signalled(["update", "--tags", ".git/tags.yaml", "--commit", "--push"], in: r.path, after: delay)
            let local = try run("/usr/bin/git", ["rev-parse", "-q", "--verify", "image-updates"], cwd: r.path).stdout
            let pushed = try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "-q", "--verify", "image-updates"], cwd: remote.path).stdout
            #expect(pushed.isEmpty || pushed == local, "after \(delay) s: the remote has \(pushed), the clone \(local)")
            // (a signal before the run took its lock ends it at once: nothing was begun, and nothing is said)
            if p.terminationReason == .uncaughtSignal && !(local.isEmpty && said.isEmpty) {
                // (under a sanitizer its runtime may write after the message as the process dies)
                let message = "tagwarden: interrupted: every file and branch is as it was before or as this run makes it\n"
                #expect(sanitized ? said.contains(message) : said.hasSuffix(message), "after \(delay) s: \(said.debugDescription)")
            }
            for dir in [r.path + "/.git", remote.path] {
                let locks = try run("/usr/bin/find", [dir, "-name", "*.lock"], cwd: dir).stdout
                #expect(locks.isEmpty, "after \(delay) s: locks left: \(locks)")
            }
            #expect(try r.git("status", "--porcelain").stdout.isEmpty, "after \(delay) s: the work tree changed")
            outcomes.insert(local.isEmpty ? "none" : pushed.isEmpty ? "committed" : "pushed")
            finished = delay >= step * 12 && p.terminationReason == .exit
        }
        #expect(outcomes.count >= 2, "every interruption came at the same point: \(outcomes)")
    }
}

extension PromoteTests {
    /// Ctrl-C at many points of `promote --push`: the production tag names the staging build or nothing, the branch
    /// (here and on the remote) is the promotion's or absent, no lock is left, and the work tree is untouched.
    @Test func promoteInterruptedLeavesTheTagAndTheBranchOldOrNew() throws {
        let registry = try LocalRegistry(users: [("bot", Self.secret)], tokenService: true)
        let user = ("bot", Self.secret)
        let branch = "tagwarden/promote-web-\(Self.productionTag)"
        var outcomes: Set<String> = []
        // a repository of the registry each time: a tag the last run made is not there
        func promotion(_ k: Int) throws -> (digest: String, image: String, remote: TempRepo, r: TempRepo, config: String) {
            let digest = try registry.push("acme/web\(k)", tags: [Self.stagingTag], platforms: 1, auth: user, seed: "v1.4.0")
            let image = "\(registry.host)/acme/web\(k)"
            let (remote, r) = try repository(image: image, stagingDigest: digest)
            return (digest, image, remote, r, try dockerConfig(r, host: registry.host))
        }
        // the points: spread over how long a whole promotion takes here, now
        let whole = try promotion(99)
        let start = Date()
        let done = try tagwarden(["promote", whole.image, "--from", "staging", "--to", "production", "--push"], in: whole.r.path,
                                 env: ["DOCKER_CONFIG": whole.config])
        #expect(done.code == 0, "\(done.described)")
        let step = Date().timeIntervalSince(start) / 12
        var finished = false  // as in the push test: further points until a run ends before its signal
        for (k, delay) in (1...48).map({ step * Double($0) }).enumerated() where !finished {
            let (digest, image, remote, r, config) = try promotion(k)
            let (p, _) = try UpdateInterruptionTests.signalled(["promote", image, "--from", "staging", "--to", "production", "--push"], in: r.path,
                                                               env: ["DOCKER_CONFIG": config, "PATH": "/usr/bin:/bin"], after: delay)
            let tagged = try registryDigest(registry, "acme/web\(k)", Self.productionTag, auth: user)
            #expect(tagged == nil || tagged == digest, "after \(delay) s: the tag names \(tagged ?? "")")
            let local = try run("/usr/bin/git", ["rev-parse", "-q", "--verify", branch], cwd: r.path).stdout
            let pushed = try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "-q", "--verify", branch], cwd: remote.path).stdout
            #expect(pushed.isEmpty || pushed == local, "after \(delay) s: the remote has \(pushed), the clone \(local)")
            #expect(try r.git("status", "--porcelain").stdout.isEmpty, "after \(delay) s: the work tree changed")
            for dir in [r.path + "/.git", remote.path] {
                let locks = try run("/usr/bin/find", [dir, "-name", "*.lock"], cwd: dir).stdout
                #expect(locks.isEmpty, "after \(delay) s: locks left: \(locks)")
            }
            outcomes.insert(tagged == nil ? "nothing" : local.isEmpty ? "tagged" : pushed.isEmpty ? "committed" : "pushed")
            finished = delay >= step * 12 && p.terminationReason == .exit
        }
        #expect(outcomes.count >= 2, "every interruption came at the same point: \(outcomes)")
    }
}

/// `--push` over HTTPS-style authentication: a git smart-HTTP server (git http-backend behind Basic authentication)
/// that only takes one token; the token reaches it from the environment or from git's credential helper, and never
/// appears in what tagwarden prints.
@Suite struct UpdatePushCredentialTests {
    static let token = "s3cr3t-token-\(UUID().uuidString.prefix(8))"

    /// A server for `root` on a free port; stopped at the end of `body`.
    func withServer(root: String, _ body: (String) throws -> Void) throws {
        let script = """
        import base64, http.server, os, subprocess, sys
        root, token = sys.argv[1], sys.argv[2]
        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def handle_one(self):
                expected = "Basic " + base64.b64encode(("x-access-token:" + token).encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self.send_response(401); self.send_header("WWW-Authenticate", 'Basic realm="git"'); self.send_header("Content-Length", "0"); self.end_headers(); return
                path, _, query = self.path.partition("?")
                env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path, QUERY_STRING=query,
                           REQUEST_METHOD=self.command, CONTENT_TYPE=self.headers.get("Content-Type", ""), REMOTE_USER="bot")
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    body = b""
                    while True:
                        size = int(self.rfile.readline().strip().split(b";")[0], 16)
                        if size == 0:
                            self.rfile.readline(); break
                        body += self.rfile.read(size); self.rfile.readline()
                else:
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
                out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
                head, _, rest = out.partition(b"\\r\\n\\r\\n")
                status = 200
                headers = []
                for line in head.decode().split("\\r\\n"):
                    k, _, v = line.partition(": ")
                    if k.lower() == "status": status = int(v.split()[0])
                    elif k: headers.append((k, v))
                self.send_response(status)
                for k, v in headers: self.send_header(k, v)
                self.send_header("Content-Length", str(len(rest))); self.end_headers(); self.wfile.write(rest)
            do_GET = do_POST = handle_one
        s = http.server.HTTPServer(("127.0.0.1", 0), H)
        print(s.server_port, flush=True)
        s.serve_forever()
        """
        let dir = try TempRepo(git: false)
        try dir.write("server.py", script)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [dir.path + "/server.py", root, Self.token]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        var port = ""
        while !port.hasSuffix("\n") {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { break }
            port += String(decoding: byte, as: UTF8.self)
        }
        try body("http://127.0.0.1:\(port.trimmingCharacters(in: .whitespacesAndNewlines))/remote.git")
    }

    @Test func aTokenFromTheEnvironmentOrGitsCredentialHelperPushesAndIsNeverShown() throws {
        let (remoteRepo, clone) = try UpdateCommitTests().setUp()
        let root = remoteRepo.path + "-root"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.moveItem(atPath: remoteRepo.path, toPath: root + "/remote.git")
        try run("/usr/bin/git", ["--git-dir", root + "/remote.git", "config", "http.receivepack", "true"], cwd: root)
        try withServer(root: root) { url in
            try UpdateCommitTests().tags(clone, ["1.1.0"])
            let noGlobal = ["GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0", "GITHUB_TOKEN": "", "TAGWARDEN_GIT_TOKEN": ""]
            // no credentials: refused, and the message says what was tried
            let refused = try tagwarden(["update", "--tags", ".git/t/tags.yaml", "--commit", "--push", "--remote", url], in: clone.path, env: noGlobal)
            #expect(refused.code == 2, "\(refused.described)")
            #expect(refused.stderr.contains("credentials tried: git credential helper"), "\(refused.described)")
            try clone.git("update-ref", "-d", "refs/heads/image-updates")
            // a token written in the remote's URL is never printed either, failing or not
            let inURL = url.replacingOccurrences(of: "http://", with: "http://x-access-token:wrong-\(Self.token)@")
            let leaked = try tagwarden(["update", "--tags", ".git/t/tags.yaml", "--commit", "--push", "--remote", inURL], in: clone.path, env: noGlobal)
            #expect(leaked.code == 2, "\(leaked.described)")
            #expect(!leaked.stderr.contains("wrong-") && leaked.stderr.contains("***@127.0.0.1"), "\(leaked.described)")
            try clone.git("update-ref", "-d", "refs/heads/image-updates")
            // a token in the environment
            var env = noGlobal
            env["TAGWARDEN_GIT_TOKEN"] = Self.token
            let pushed = try tagwarden(["update", "--tags", ".git/t/tags.yaml", "--commit", "--push", "--remote", url, "--format", "json"],
                                       in: clone.path, env: env)
            #expect(pushed.code == 0, "\(pushed.described)")
            #expect(!pushed.stdout.contains(Self.token) && !pushed.stderr.contains(Self.token))
            #expect(try run("/usr/bin/git", ["--git-dir", root + "/remote.git", "rev-parse", "image-updates"], cwd: root).stdout
                    == (try clone.git("rev-parse", "image-updates").stdout))
            // git's credential helper: a store file with the token
            try run("/usr/bin/git", ["--git-dir", root + "/remote.git", "update-ref", "-d", "refs/heads/image-updates"], cwd: root)
            try clone.git("update-ref", "-d", "refs/heads/image-updates")
            let store = clone.path + "/.git/t/credentials"
            try clone.write(".git/t/credentials", url.replacingOccurrences(of: "http://", with: "http://x-access-token:\(Self.token)@") + "\n")
            try clone.git("config", "credential.helper", "store --file=\(store)")
            let helped = try tagwarden(["update", "--tags", ".git/t/tags.yaml", "--commit", "--push", "--remote", url], in: clone.path, env: noGlobal)
            #expect(helped.code == 0, "\(helped.described)")
            #expect(!helped.stdout.contains(Self.token) && !helped.stderr.contains(Self.token))
            #expect(try run("/usr/bin/git", ["--git-dir", root + "/remote.git", "rev-parse", "image-updates"], cwd: root).code == 0)
        }
    }
}
