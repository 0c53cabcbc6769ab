import Testing
import Foundation
@testable import TagwardenBasics
@testable import TagwardenGit
import TagwardenFixtures

/// A scratch directory for real git repositories, built and checked with the `git` CLI; removed at the end.
private final class GitScratch {
    let root: String

    init() throws {
        root = NSTemporaryDirectory() + "tagwarden-git-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Runs `git -C dir args…` with a fixed identity and no system or global configuration; its standard output.
    @discardableResult
    func git(_ dir: String, _ args: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", dir] + args
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("GIT_") { env[key] = nil }
        env.merge(["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "LC_ALL": "C",
                   "GIT_AUTHOR_NAME": "Fixture", "GIT_AUTHOR_EMAIL": "fixture@example.com", "GIT_AUTHOR_DATE": "1600000000 +0000",
                   "GIT_COMMITTER_NAME": "Fixture", "GIT_COMMITTER_EMAIL": "fixture@example.com",
                   "GIT_COMMITTER_DATE": "1600000000 +0000"]) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TagwardenError("git \(args.joined(separator: " ")) failed (\(process.terminationStatus)): \(String(decoding: stderr, as: UTF8.self))")
        }
        return String(decoding: stdout, as: UTF8.self)
    }

    /// `git rev-parse` of one revision, without the newline.
    func revParse(_ dir: String, _ rev: String) throws -> String { try git(dir, "rev-parse", "--verify", rev).trimmingTrailingNewlines }

    func write(_ path: String, _ text: String, executable: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        if executable { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
    }

    /// A repository on branch main with one commit: a.yaml, dir/b.yaml, other/c.yaml and an executable run.sh.
    func fixture(_ name: String = "work") throws -> (dir: String, repo: GitRepository, head: GitOID) {
        let dir = root + "/" + name
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try git(dir, "init", "-q", "-b", "main")
        try write(dir + "/a.yaml", "a: 1\n")
        try write(dir + "/dir/b.yaml", "b: 1\n")
        try write(dir + "/other/c.yaml", "c: 1\n")
        try write(dir + "/run.sh", "#!/bin/sh\n", executable: true)
        try git(dir, "add", "-A")
        try git(dir, "commit", "-q", "-m", "initial")
        let repo = try #require(try GitRepository.discover(dir))
        let head = try #require(GitOID(hex: try revParse(dir, "HEAD")))
        return (dir, repo, head)
    }
}

private let ann = GitSignature(name: "Ann Author", email: "ann@example.com", time: 1_700_000_000, offsetMinutes: 90)
private let cee = GitSignature(name: "Cee Committer", email: "cee@example.com", time: 1_700_000_100, offsetMinutes: -300)

/// A commit on `parent` with `path` set to `text`.
private func commit(_ repo: GitRepository, on parent: GitOID, _ path: String, _ text: String, message: String = "change") throws -> GitOID {
    let blob = try repo.writeBlob(Array(text.utf8))
    let tree = try repo.writeTree(base: try repo.tree(ofCommit: parent), changes: [path: .blob(blob, mode: .regular)])
    return try repo.createCommit(tree: tree, parents: [parent], author: ann, committer: cee, message: message)
}

/// TagwardenGit's object ids and its writing side (blobs, trees, commits, references, the index, push), checked
/// against the `git` CLI on real repositories.
@Suite struct GitRepositoryTests {
    @Test func objectIdsRoundTripThroughHex() throws {
        let hex = "0123456789abcdef0123456789abcdef01234567"
        let oid = try #require(GitOID(hex: hex))
        #expect(oid.hex == hex)
        #expect(oid.description == hex)
        #expect("\(oid)" == hex)
        #expect(GitRepository.hex(oid) == hex)
        #expect(GitOID(hex: hex.uppercased()) == oid)
        #expect(GitOID(hex: "ffffffffffffffffffffffffffffffffffffffff")?.hex == "ffffffffffffffffffffffffffffffffffffffff")
        #expect(GitOID(hex: String(hex.dropLast())) == nil)
        #expect(GitOID(hex: hex + "0") == nil)
        #expect(GitOID(hex: "g" + hex.dropFirst()) == nil)
        #expect(GitOID(hex: " " + hex.dropFirst()) == nil)
        #expect(GitOID(hex: "é" + hex.dropFirst(2)) == nil)
        #expect(GitOID(hex: "") == nil)
        let other = try #require(GitOID(hex: "0123456789abcdef0123456789abcdef01234568"))
        #expect(other != oid)
        #expect(Set([oid, other, GitOID(hex: hex.uppercased())!]).count == 2)
        #expect(GitOID(hex: String(repeating: "0", count: 40))!.isZero)
        #expect(!oid.isZero)
        #expect(MemoryLayout<GitOID>.size == 20)
    }

    @Test func blobsAreWrittenAsGitWritesThem() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let bytes = Array("kind: Deployment\nimage: app:1.2.3\n".utf8)
        let blob = try repo.writeBlob(bytes)
        try s.write(s.root + "/loose.txt", "kind: Deployment\nimage: app:1.2.3\n")
        #expect(blob.hex == (try s.git(dir, "hash-object", s.root + "/loose.txt")).trimmingTrailingNewlines)
        #expect(try s.git(dir, "cat-file", "-t", blob.hex) == "blob\n")
        #expect(try s.git(dir, "cat-file", "-p", blob.hex) == "kind: Deployment\nimage: app:1.2.3\n")
        guard case .bytes(let read) = repo.readBlob(blob, limit: 1 << 20) else { Issue.record("the written blob cannot be read"); return }
        #expect(read == bytes)
        #expect(try repo.writeBlob([]).hex == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
        // the spellings the other layers use
        let entries = try repo.treeEntries(commit: head.hex) { $0 == "dir/b.yaml" }
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(GitRepository.hex(entry.oid) == (try s.revParse(dir, "HEAD:dir/b.yaml")))
        guard case .bytes(let b) = repo.readBlob(entry.oid, limit: 1 << 20) else { Issue.record("dir/b.yaml cannot be read"); return }
        #expect(b == Array("b: 1\n".utf8))
    }

    @Test func aCommitOfChangedBlobsIsWhatGitShows() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let baseTree = try repo.tree(ofCommit: head)
        #expect(baseTree.hex == (try s.revParse(dir, "HEAD^{tree}")))
        let blob = try repo.writeBlob(Array("b: 2\n".utf8))
        let tree = try repo.writeTree(base: baseTree, changes: ["dir/b.yaml": .blob(blob, mode: .regular)])
        // an unchanged subtree keeps its id, the changed one is new
        #expect(try s.revParse(dir, "\(tree.hex):other") == (try s.revParse(dir, "HEAD:other")))
        #expect(try s.revParse(dir, "\(tree.hex):dir") != (try s.revParse(dir, "HEAD:dir")))
        #expect(try s.git(dir, "ls-tree", tree.hex, "run.sh") == "100755 blob \(try s.revParse(dir, "HEAD:run.sh"))\trun.sh\n")

        let c = try repo.createCommit(tree: tree, parents: [head], author: ann, committer: cee, message: "Update b\n\nWhy it changed.")
        #expect(try s.git(dir, "cat-file", "-p", c.hex) == """
            tree \(tree.hex)
            parent \(head.hex)
            author Ann Author <ann@example.com> 1700000000 +0130
            committer Cee Committer <cee@example.com> 1700000100 -0500

            Update b

            Why it changed.

            """)
        // createCommit moves no reference
        #expect(try s.revParse(dir, "refs/heads/main") == head.hex)

        try repo.updateReference("refs/heads/main", to: c, expecting: head, message: "tagwarden: update b")
        #expect(try s.revParse(dir, "refs/heads/main") == c.hex)
        #expect(repo.referenceTarget("refs/heads/main") == c)
        #expect(repo.referenceTarget("HEAD") == c)
        #expect(try s.git(dir, "log", "-1", "--format=%an%n%ae%n%s", "main") == "Ann Author\nann@example.com\nUpdate b\n")
        #expect(try s.git(dir, "log", "-1", "--format=%cn%n%ce%n%b", "main") == "Cee Committer\ncee@example.com\nWhy it changed.\n\n")
        #expect(try s.git(dir, "diff-tree", "-r", "--no-commit-id", "--name-status", head.hex, c.hex) == "M\tdir/b.yaml\n")
        #expect(try s.git(dir, "show", "main:dir/b.yaml") == "b: 2\n")
        #expect(try s.git(dir, "reflog", "-1", "--format=%gs", "refs/heads/main") == "tagwarden: update b\n")
        #expect(try s.git(dir, "fsck", "--strict", "--no-dangling") == "")
    }

    @Test func aRootCommitHasNoParentLine() throws {
        let s = try GitScratch()
        let (dir, repo, _) = try s.fixture()
        let blob = try repo.writeBlob(Array("x\n".utf8))
        let tree = try repo.writeTree(base: nil, changes: ["x.txt": .blob(blob, mode: .regular)])
        let c = try repo.createCommit(tree: tree, parents: [], author: ann, committer: ann, message: "root\n")
        #expect(try s.git(dir, "cat-file", "-p", c.hex) == """
            tree \(tree.hex)
            author Ann Author <ann@example.com> 1700000000 +0130
            committer Ann Author <ann@example.com> 1700000000 +0130

            root

            """)
        #expect(try repo.writeTree(base: nil, changes: [:]).hex == "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
        #expect(throws: TagwardenError.self) {
            try repo.createCommit(tree: tree, parents: [], author: GitSignature(name: "A <b>", email: "a@b", time: 0), committer: ann, message: "x")
        }
        #expect(throws: TagwardenError.self) {
            try repo.createCommit(tree: tree, parents: [blob], author: ann, committer: ann, message: "a blob is no parent")
        }
    }

    @Test func nestedPathsCreateTheirDirectories() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let app = try repo.writeBlob(Array("app: 1\n".utf8))
        let hook = try repo.writeBlob(Array("#!/bin/sh\nexit 0\n".utf8))
        let tree = try repo.writeTree(base: try repo.tree(ofCommit: head), changes: [
            "deploy/apps/new/app.yaml": .blob(app, mode: .regular),
            "deploy/apps/new/hook.sh": .blob(hook, mode: .executable),
            "deploy/top.yaml": .blob(app, mode: .regular),
            "dir/deeper/b.yaml": .blob(app, mode: .regular),
        ])
        let a = try s.revParse(dir, "HEAD:a.yaml"), b = try s.revParse(dir, "HEAD:dir/b.yaml")
        let c = try s.revParse(dir, "HEAD:other/c.yaml"), run = try s.revParse(dir, "HEAD:run.sh")
        #expect(try s.git(dir, "ls-tree", "-r", "--full-tree", tree.hex) == """
            100644 blob \(a)\ta.yaml
            100644 blob \(app.hex)\tdeploy/apps/new/app.yaml
            100755 blob \(hook.hex)\tdeploy/apps/new/hook.sh
            100644 blob \(app.hex)\tdeploy/top.yaml
            100644 blob \(b)\tdir/b.yaml
            100644 blob \(app.hex)\tdir/deeper/b.yaml
            100644 blob \(c)\tother/c.yaml
            100755 blob \(run)\trun.sh

            """)
        #expect(try s.git(dir, "cat-file", "-t", "\(tree.hex):deploy/apps") == "tree\n")
        // from nothing
        let alone = try repo.writeTree(base: nil, changes: ["x/y/z.yaml": .blob(app, mode: .regular)])
        #expect(try s.git(dir, "ls-tree", "-r", "-t", "--full-tree", alone.hex) == """
            040000 tree \(try s.revParse(dir, "\(alone.hex):x"))\tx
            040000 tree \(try s.revParse(dir, "\(alone.hex):x/y"))\tx/y
            100644 blob \(app.hex)\tx/y/z.yaml

            """)
        #expect(try s.git(dir, "fsck", "--strict", "--no-dangling") == "")
    }

    @Test func deletionsRemoveFilesAndEmptiedDirectories() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let base = try repo.tree(ofCommit: head)
        let t1 = try repo.writeTree(base: base, changes: ["dir/b.yaml": .delete])
        #expect(try s.git(dir, "ls-tree", "-r", "-t", "--name-only", t1.hex) == "a.yaml\nother\nother/c.yaml\nrun.sh\n")
        #expect(try s.git(dir, "diff-tree", "-r", "--name-status", base.hex, t1.hex) == "D\tdir/b.yaml\n")
        let t2 = try repo.writeTree(base: base, changes: ["other": .delete, "a.yaml": .delete])
        #expect(try s.git(dir, "ls-tree", "-r", "--name-only", t2.hex) == "dir/b.yaml\nrun.sh\n")
        // a directory deleted and written again holds only what is written
        let blob = try repo.writeBlob(Array("n\n".utf8))
        let t3 = try repo.writeTree(base: base, changes: ["dir": .delete, "dir/new.yaml": .blob(blob, mode: .regular)])
        #expect(try s.git(dir, "ls-tree", "-r", "--name-only", t3.hex) == "a.yaml\ndir/new.yaml\nother/c.yaml\nrun.sh\n")
        // a file replaced by a directory, when the file is deleted first
        let t4 = try repo.writeTree(base: base, changes: ["a.yaml": .delete, "a.yaml/inner": .blob(blob, mode: .regular)])
        #expect(try s.git(dir, "ls-tree", "-r", "--name-only", t4.hex) == "a.yaml/inner\ndir/b.yaml\nother/c.yaml\nrun.sh\n")
        // everything deleted: the empty tree
        let t5 = try repo.writeTree(base: base, changes: ["a.yaml": .delete, "dir/b.yaml": .delete, "other/c.yaml": .delete, "run.sh": .delete])
        #expect(t5.hex == "4b825dc642cb6eb9a060e54bf8d69288fbee4904")

        let missing = #expect(throws: TagwardenError.self) { try repo.writeTree(base: base, changes: ["dir/nope.yaml": .delete]) }
        #expect(missing?.message == "cannot delete 'dir/nope.yaml': it is not in the tree")
        #expect(throws: TagwardenError.self) { try repo.writeTree(base: base, changes: ["nowhere/nope.yaml": .delete]) }
    }

    @Test func impossibleTreeChangesFail() throws {
        let s = try GitScratch()
        let (_, repo, head) = try s.fixture()
        let base = try repo.tree(ofCommit: head)
        let blob = try repo.writeBlob(Array("x\n".utf8))
        let underFile = #expect(throws: TagwardenError.self) {
            try repo.writeTree(base: base, changes: ["a.yaml/x": .blob(blob, mode: .regular)])
        }
        #expect(underFile?.message == "cannot write 'a.yaml/x': 'a.yaml' is not a directory")
        let both = #expect(throws: TagwardenError.self) {
            try repo.writeTree(base: base, changes: ["new": .blob(blob, mode: .regular), "new/x": .blob(blob, mode: .regular)])
        }
        #expect(both?.message == "cannot write 'new' as a file and 'new/x' inside it")
        for bad in ["", "/abs", "a//b", "../x", "dir/./b", "trail/", "dir/.."] {
            let e = #expect(throws: TagwardenError.self) { try repo.writeTree(base: base, changes: [bad: .blob(blob, mode: .regular)]) }
            #expect(e?.message == "cannot write '\(bad)' to a tree: not a relative path of /-separated names")
        }
        #expect(throws: TagwardenError.self) { try repo.writeTree(base: base, changes: [".git/config": .blob(blob, mode: .regular)]) }
        // a blob that is not in the object database
        let absent = try #require(GitOID(hex: "1111111111111111111111111111111111111111"))
        #expect(throws: TagwardenError.self) { try repo.writeTree(base: base, changes: ["x": .blob(absent, mode: .regular)]) }
        #expect(throws: TagwardenError.self) { try repo.writeTree(base: absent, changes: [:]) }
        #expect(throws: TagwardenError.self) { try repo.tree(ofCommit: blob) }
    }

    @Test func updateReferenceIsACompareAndSwap() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let c1 = try commit(repo, on: head, "a.yaml", "a: 2\n")
        let c2 = try commit(repo, on: head, "a.yaml", "a: 3\n")
        #expect(repo.referenceTarget("refs/heads/x") == nil)
        try repo.updateReference("refs/heads/x", to: head, expecting: nil, message: "create x")
        #expect(try s.revParse(dir, "refs/heads/x") == head.hex)

        let exists = #expect(throws: TagwardenError.self) {
            try repo.updateReference("refs/heads/x", to: c1, expecting: nil, message: "create x again")
        }
        #expect(exists?.message == "cannot update refs/heads/x: it is at \(head.hex), not nothing (it was to be created) as expected: it moved")
        #expect(try s.revParse(dir, "refs/heads/x") == head.hex)

        // someone else moves it
        try s.git(dir, "update-ref", "refs/heads/x", c1.hex)
        let moved = #expect(throws: TagwardenError.self) {
            try repo.updateReference("refs/heads/x", to: c2, expecting: head, message: "stale")
        }
        #expect(moved?.message == "cannot update refs/heads/x: it is at \(c1.hex), not \(head.hex) as expected: it moved")
        #expect(try s.revParse(dir, "refs/heads/x") == c1.hex)

        try repo.updateReference("refs/heads/x", to: c2, expecting: c1, message: "fresh")
        #expect(try s.revParse(dir, "refs/heads/x") == c2.hex)
        #expect(repo.referenceTarget("refs/heads/x") == c2)

        let gone = #expect(throws: TagwardenError.self) {
            try repo.updateReference("refs/heads/missing", to: c2, expecting: head, message: "no such ref")
        }
        #expect(gone?.message == "cannot update refs/heads/missing: it is at nothing (no such reference), not \(head.hex) as expected: it moved")
        #expect(repo.referenceTarget("refs/heads/missing") == nil)
        #expect(throws: TagwardenError.self) { try repo.updateReference("HEAD", to: c2, expecting: head, message: "x") }
        #expect(throws: TagwardenError.self) { try repo.updateReference("refs/heads/a..b", to: c2, expecting: nil, message: "x") }
        #expect(try s.revParse(dir, "HEAD") == head.hex)
    }

    @Test func currentBranchIsWhatHeadNames() throws {
        let s = try GitScratch()
        let (dir, repo, _) = try s.fixture()
        #expect(repo.currentBranch == "refs/heads/main")
        try s.git(dir, "checkout", "-q", "-b", "feature")
        #expect(repo.currentBranch == "refs/heads/feature")
        try s.git(dir, "checkout", "-q", "--detach")
        #expect(repo.currentBranch == nil)

        let empty = s.root + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try s.git(empty, "init", "-q", "-b", "trunk")
        let unborn = try #require(try GitRepository.discover(empty))
        #expect(unborn.currentBranch == "refs/heads/trunk")
        #expect(unborn.referenceTarget("refs/heads/trunk") == nil)
        #expect(!unborn.hasHead)
    }

    @Test func stageWritesTheIndex() throws {
        let s = try GitScratch()
        let (dir, repo, _) = try s.fixture()
        _ = try repo.indexEntries()   // the repository's index is loaded now: what git does next must not be lost
        try s.write(dir + "/other/c.yaml", "c: 2\n")
        try s.git(dir, "add", "other/c.yaml")

        let blob = try repo.writeBlob(Array("b: 2\n".utf8))
        try repo.stage(path: "dir/b.yaml", blob: blob, mode: .regular)
        #expect(try s.git(dir, "diff", "--cached", "--name-only") == "dir/b.yaml\nother/c.yaml\n")
        #expect(try s.git(dir, "ls-files", "-s", "dir/b.yaml") == "100644 \(blob.hex) 0\tdir/b.yaml\n")

        let tool = try repo.writeBlob(Array("#!/bin/sh\n".utf8))
        try repo.stage(path: "new/tool.sh", blob: tool, mode: .executable)
        #expect(try s.git(dir, "ls-files", "-s", "new/tool.sh") == "100755 \(tool.hex) 0\tnew/tool.sh\n")
        #expect(try s.git(dir, "diff", "--cached", "--name-status") == "M\tdir/b.yaml\nA\tnew/tool.sh\nM\tother/c.yaml\n")
        #expect(try repo.stagedChanges() == ["dir/b.yaml", "new/tool.sh", "other/c.yaml"])
        // the working tree is not touched
        #expect(try s.git(dir, "show", ":dir/b.yaml") == "b: 2\n")
        #expect(try readText(dir + "/dir/b.yaml") == "b: 1\n")

        #expect(throws: TagwardenError.self) { try repo.stage(path: "../outside", blob: blob, mode: .regular) }
        let absent = try #require(GitOID(hex: "1111111111111111111111111111111111111111"))
        #expect(throws: TagwardenError.self) { try repo.stage(path: "x.yaml", blob: absent, mode: .regular) }
        #expect(try s.git(dir, "ls-files", "x.yaml", "outside") == "")
    }

    /// The index read directly lists what libgit2 lists, in the same order: versions 2 and 3 (intent-to-add and
    /// skip-worktree entries), each stage of a conflict, a name outside ASCII, a symlink, an executable and a
    /// submodule's entry, each with its object id and mode; version 4 and a damaged file are libgit2's.
    @Test func theIndexReadDirectlyListsWhatLibgit2Lists() throws {
        let s = try GitScratch()
        let (dir, _, head) = try s.fixture()
        func readDirectly() throws -> [String]? { IndexFile.paths(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/.git/index")))) }
        // (opened again each time: libgit2 keeps the index it read first)
        func fresh() throws -> GitRepository { try #require(try GitRepository.discover(dir)) }
        func described(_ entries: [GitRepository.TreeEntry]) -> [String] {
            entries.map { "\($0.path) \($0.oid) \(String($0.mode, radix: 8))\($0.conflicted ? " ours" : "")" }
        }
        func agrees(_ state: String) throws {
            let direct = try #require(try readDirectly(), "\(state): not read directly")
            let repo = try fresh()
            let libgit2 = try repo.indexEntries().map(\.path)
            #expect(direct == libgit2, "\(state): \(direct) \(libgit2)")
            #expect(try repo.indexPaths() == direct, "\(state)")
            let entries = described(try repo.indexBlobEntries { _ in true })
            let libgit2Entries = described(try fresh().libgit2IndexBlobEntries { _ in true })
            #expect(!entries.isEmpty && entries == libgit2Entries, "\(state): \(entries) \(libgit2Entries)")
            #expect(described(try repo.indexBlobEntries { $0.hasSuffix(".yaml") }) == entries.filter { $0.split(separator: " ")[0].hasSuffix(".yaml") })
        }
        try agrees("version 2")
        try s.write(s.root + "/target", "a.yaml")
        let target = try s.git(dir, "hash-object", "-w", s.root + "/target").trimmingTrailingNewlines
        try s.git(dir, "update-index", "--add", "--cacheinfo", "160000,\(head),vendor/sub")
        try s.git(dir, "update-index", "--add", "--cacheinfo", "120000,\(target),link.yaml")
        try agrees("a submodule and a symlink")
        #expect(try described(fresh().indexBlobEntries { $0.hasPrefix("vendor/") || $0.hasPrefix("link") }) == ["link.yaml \(target) 120000"])
        #expect(try described(fresh().indexBlobEntries { $0 == "run.sh" }).first?.hasSuffix(" 100755") == true)
        try s.git(dir, "rm", "-q", "--cached", "vendor/sub", "link.yaml")
        try s.write(dir + "/caf\u{E9}/d\u{E9}ploiement.yaml", "d: 1\n")
        try s.write(dir + "/later.yaml", "l: 1\n")
        try s.git(dir, "add", "caf\u{E9}")
        try s.git(dir, "add", "-N", "later.yaml")
        try s.git(dir, "update-index", "--skip-worktree", "a.yaml")
        #expect(try readDirectly() != nil && (try Data(contentsOf: URL(fileURLWithPath: dir + "/.git/index")))[7] == 3)
        try agrees("version 3")
        try s.git(dir, "update-index", "--no-skip-worktree", "a.yaml")
        try s.git(dir, "rm", "-q", "--cached", "later.yaml")
        try s.git(dir, "commit", "-q", "-m", "more")
        try s.git(dir, "checkout", "-q", "-b", "other")
        try s.write(dir + "/a.yaml", "a: 2\n")
        try s.git(dir, "commit", "-q", "-am", "other")
        try s.git(dir, "checkout", "-q", "main")
        try s.write(dir + "/a.yaml", "a: 3\n")
        try s.git(dir, "commit", "-q", "-am", "main")
        #expect(throws: TagwardenError.self) { try s.git(dir, "merge", "-q", "other") }
        try agrees("a conflict")
        #expect(try fresh().indexPaths().filter { $0 == "a.yaml" }.count == 3)
        // version 4 compresses its paths: libgit2 reads it
        try s.git(dir, "update-index", "--index-version", "4")
        #expect(try readDirectly() == nil)
        let repo = try fresh()
        #expect(try repo.indexPaths() == (try repo.indexEntries().map(\.path)) && (try repo.indexPaths()).count == 7)
        // a file cut short, or with bytes after its last extension, is not read directly
        try s.git(dir, "update-index", "--index-version", "2")
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/.git/index")))
        #expect(IndexFile.paths(whole) != nil)
        #expect(IndexFile.paths(Array(whole.dropLast(21))) == nil)
        #expect(IndexFile.paths(whole.dropLast(20) + [0, 0, 0, 0] + whole.suffix(20)) == nil)
    }

    /// A path of 4,095 bytes or more: the entry's 12 bits of length say 0xFFF, and the NUL ends it.
    @Test func aLongPathInTheIndexIsReadToItsNul() throws {
        func entry(_ path: String) -> [UInt8] {
            let name = Array(path.utf8)
            let length = min(name.count, 0xFFF)
            var e = [UInt8](repeating: 0, count: 60) + [UInt8(length >> 8), UInt8(length & 0xFF)] + name
            e += [UInt8](repeating: 0, count: (62 + name.count + 8) / 8 * 8 - e.count)
            return e
        }
        let long = String(repeating: "d/", count: 2100) + "x.yaml"
        let bytes = Array("DIRC".utf8) + [0, 0, 0, 2, 0, 0, 0, 2] + entry("a.yaml") + entry(long) + [UInt8](repeating: 0, count: 20)
        #expect(IndexFile.paths(bytes) == ["a.yaml", long])
    }

    @Test func pushSendsABranchToABareRepository() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let bare = s.root + "/remote.git", mirror = s.root + "/mirror.git"
        try s.git(s.root, "init", "-q", "--bare", bare)
        try s.git(s.root, "init", "-q", "--bare", mirror)
        try s.git(dir, "remote", "add", "origin", bare)
        try s.git(dir, "remote", "add", "mirror", "file://" + mirror)

        let c = try commit(repo, on: head, "dir/b.yaml", "b: 2\n", message: "Update b")
        try repo.updateReference("refs/heads/x", to: c, expecting: nil, message: "tagwarden: branch x")
        try repo.push(remote: "origin", refspecs: ["refs/heads/x:refs/heads/x"])
        #expect(try s.revParse(bare, "refs/heads/x") == c.hex)
        #expect(try s.git(bare, "log", "--format=%s", "refs/heads/x") == "Update b\ninitial\n")
        #expect(try s.git(bare, "show", "refs/heads/x:dir/b.yaml") == "b: 2\n")
        #expect(repo.referenceTarget("refs/remotes/origin/x") == c)

        try repo.push(remote: "mirror", refspecs: ["refs/heads/x:refs/heads/pushed", "refs/heads/main:refs/heads/main"])
        #expect(try s.revParse(mirror, "refs/heads/pushed") == c.hex)
        #expect(try s.revParse(mirror, "refs/heads/main") == head.hex)
        #expect(try s.git(mirror, "fsck", "--strict", "--no-dangling") == "")

        // a fast-forward on top goes through
        let next = try commit(repo, on: c, "a.yaml", "a: 9\n")
        try repo.updateReference("refs/heads/x", to: next, expecting: c, message: "tagwarden: stack")
        try repo.push(remote: "origin", refspecs: ["refs/heads/x:refs/heads/x"])
        #expect(try s.revParse(bare, "refs/heads/x") == next.hex)

        let unknown = #expect(throws: TagwardenError.self) { try repo.push(remote: "nowhere", refspecs: ["refs/heads/x"]) }
        #expect(unknown?.message.hasPrefix("cannot push to 'nowhere': ") == true)
    }

    @Test func aNonFastForwardPushIsRejectedNamingTheRef() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let bare = s.root + "/remote.git"
        try s.git(s.root, "init", "-q", "--bare", bare)
        try s.git(dir, "remote", "add", "origin", bare)
        let pushed = try commit(repo, on: head, "a.yaml", "a: 2\n", message: "pushed")
        try repo.updateReference("refs/heads/x", to: pushed, expecting: nil, message: "x")
        try repo.push(remote: "origin", refspecs: ["refs/heads/x:refs/heads/x", "refs/heads/main:refs/heads/main"])
        #expect(try s.revParse(bare, "refs/heads/x") == pushed.hex)

        // x rebuilt beside what the remote has: not a fast-forward of it
        let diverged = try commit(repo, on: head, "a.yaml", "a: 3\n", message: "diverged")
        try repo.updateReference("refs/heads/x", to: diverged, expecting: pushed, message: "x rebuilt")
        let newer = try commit(repo, on: head, "run.sh", "#!/bin/sh\necho\n")
        try repo.updateReference("refs/heads/main", to: newer, expecting: head, message: "main moves on")
        let refused = #expect(throws: TagwardenError.self) {
            try repo.push(remote: "origin", refspecs: ["refs/heads/main:refs/heads/main", "refs/heads/x:refs/heads/x"])
        }
        #expect(refused?.message == "push to 'origin' rejected, not a fast-forward: "
                + "refs/heads/x (the remote has \(pushed.hex), which \(diverged.hex) does not descend from)")
        #expect(try s.revParse(bare, "refs/heads/x") == pushed.hex)
        #expect(try s.revParse(bare, "refs/heads/main") == head.hex)

        // forced, it goes through
        try repo.push(remote: "origin", refspecs: ["+refs/heads/x:refs/heads/x"])
        #expect(try s.revParse(bare, "refs/heads/x") == diverged.hex)
    }

    @Test func aReferenceTheRemoteCannotUpdateFailsThePush() throws {
        let s = try GitScratch()
        let (dir, repo, head) = try s.fixture()
        let bare = s.root + "/remote.git"
        try s.git(s.root, "init", "-q", "--bare", bare)
        try s.git(dir, "remote", "add", "origin", bare)
        try repo.push(remote: "origin", refspecs: ["refs/heads/main:refs/heads/main"])
        // another writer holds the remote's lock on main
        try s.write(bare + "/refs/heads/main.lock", "")
        let next = try commit(repo, on: head, "a.yaml", "a: 2\n")
        try repo.updateReference("refs/heads/main", to: next, expecting: head, message: "main moves on")
        let refused = #expect(throws: TagwardenError.self) { try repo.push(remote: "origin", refspecs: ["refs/heads/main:refs/heads/main"]) }
        let expected = "push to 'origin' rejected: refs/heads/main: failed to lock file '\(bare)/refs/heads/main.lock' for writing"
        #expect(refused?.message.hasPrefix(expected) == true, "\(refused?.message ?? "no error")")
        #expect(try s.revParse(bare, "refs/heads/main") == head.hex)
        #expect(repo.referenceTarget("refs/remotes/origin/main") == head)
    }
}

/// The history walk the promotion rules read (`commitTrees`, `changedEntries`), held to git's own walk and diff on a
/// generated history of every kind of change a tree comparison can meet.
@Suite struct HistoryWalkTests {
    /// 80 commits of pseudo-random edits, with a side branch merged in: files added, changed, made executable,
    /// deleted, turned into directories and back, symbolic links, a submodule, and names that sort around a
    /// directory's (`a`, `a.b`, `a-b`, `a0`, `a/`).
    private func history(_ s: GitScratch) throws -> (dir: String, repo: GitRepository) {
        let dir = s.root + "/history"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try s.git(dir, "init", "-q", "-b", "main")
        let names = ["a", "a.b", "a-b", "a0", "d/x.yaml", "d/a", "d/a.b", "d/e/f.yaml", "d/e/g", "z.yaml", "d/e/h/i.yaml"]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        func remove(_ path: String) { try? FileManager.default.removeItem(atPath: dir + "/" + path) }
        for n in 0..<80 {
            if n == 50 { try s.git(dir, "checkout", "-q", "-b", "side", "HEAD~5") }
            if n == 60 {
                try s.git(dir, "checkout", "-q", "main")
                try s.git(dir, "merge", "-q", "--no-ff", "-s", "ours", "-m", "merge side", "side")
                continue
            }
            for _ in 0...next(3) {
                let name = names[next(names.count)]
                switch next(7) {
                case 0:   // a file where a directory was, or the other way round
                    remove(name)
                    try s.write(dir + "/" + name + "/inside.yaml", "n: \(n)\n")
                case 1:
                    remove(name)
                case 2:
                    remove(name)
                    try FileManager.default.createDirectory(atPath: (dir + "/" + name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try FileManager.default.createSymbolicLink(atPath: dir + "/" + name, withDestinationPath: "z.yaml")
                case 3:
                    remove(name)
                    try s.write(dir + "/" + name, "n: \(n % 4)\n", executable: next(2) == 0)
                case 4:   // the same bytes, executable or no longer
                    let attributes = try? FileManager.default.attributesOfItem(atPath: dir + "/" + name)
                    guard attributes?[.type] as? FileAttributeType == .typeRegular, let mode = attributes?[.posixPermissions] as? Int else { continue }
                    try FileManager.default.setAttributes([.posixPermissions: mode ^ 0o111], ofItemAtPath: dir + "/" + name)
                default:
                    remove(name)
                    try s.write(dir + "/" + name, "n: \(n)\nk: \(next(1000))\n")
                }
            }
            if n == 20 {   // a submodule entry (a gitlink): neither a blob nor a tree
                try s.git(dir, "update-index", "--add", "--cacheinfo", "160000,\(String(repeating: "ab", count: 20)),sub")
            }
            try s.git(dir, "add", "-A")
            try s.git(dir, "commit", "-q", "--allow-empty", "-m", "change \(n)")
        }
        return (dir, try #require(try GitRepository.discover(dir)))
    }

    /// What `git diff-tree` says changed against the first parent: added, modified or retyped, and now a file.
    private func gitChanged(_ s: GitScratch, _ dir: String, _ commit: String, parent: String?) throws -> [String] {
        let out = parent.map { try? s.git(dir, "diff-tree", "-r", "--no-renames", $0, commit) }
            ?? (try? s.git(dir, "diff-tree", "-r", "--root", "--no-renames", "--no-commit-id", commit))
        return (out ?? "").split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: "\t", maxSplits: 1)
            let meta = fields[0].split(separator: " ")
            guard meta.count == 5, meta[4] != "D", meta[1].hasPrefix("100") else { return nil }
            return "\(fields[1]) \(meta[3]) \(meta[1])"
        }
    }

    @Test func everyCommitsChangedFilesAreWhatGitDiffTreeSays() throws {
        let s = try GitScratch()
        let (dir, repo) = try history(s)
        let tip = try #require(GitOID(hex: try s.revParse(dir, "HEAD")))
        let walked = try repo.commitTrees(from: tip, hiding: nil)
        // the walk is git's: every commit once
        let revList = try s.git(dir, "rev-list", "HEAD").split(separator: "\n").map(String.init)
        #expect(walked.map(\.commit.hex).sorted() == revList.sorted())
        #expect(walked.count == 80)
        var compared = 0
        for step in walked {
            let parent = try? s.revParse(dir, step.commit.hex + "^1")
            #expect(step.tree.hex == (try s.revParse(dir, step.commit.hex + "^{tree}")))
            #expect(step.parentTree?.hex == (try parent.map { try s.revParse(dir, $0 + "^{tree}") }))
            let ours = try repo.changedEntries(step) { _ in true }.map { "\($0.path) \($0.oid.hex) \(String($0.mode, radix: 8))" }
            #expect(ours == (try gitChanged(s, dir, step.commit.hex, parent: parent)), "commit \(step.commit.hex)")
            compared += ours.count
        }
        #expect(compared > 80)
        // the same walked newest first by git's own walk, and a directory left out as a pathspec would leave it
        for step in walked.reversed() {
            let ours = try repo.changedEntries(step, descend: { $0 != "d/e" }) { _ in true }.map(\.path)
            let parent = try? s.revParse(dir, step.commit.hex + "^1")
            #expect(ours == (try gitChanged(s, dir, step.commit.hex, parent: parent)).map { String($0.split(separator: " ")[0]) }
                .filter { !$0.hasPrefix("d/e/") })
        }
    }

    @Test func aWalkFromACachedTipReadsOnlyTheCommitsSince() throws {
        let s = try GitScratch()
        let (dir, repo) = try history(s)
        let tip = try #require(GitOID(hex: try s.revParse(dir, "HEAD")))
        for hidden in ["HEAD~3", "HEAD~25", "side"] {
            let hide = try #require(GitOID(hex: try s.revParse(dir, hidden)))
            let walked = try repo.commitTrees(from: tip, hiding: hide).map(\.commit.hex).sorted()
            #expect(walked == (try s.git(dir, "rev-list", "HEAD", "^" + hidden)).split(separator: "\n").map(String.init).sorted(), "\(hidden)")
        }
    }

    @Test func aShallowClonesFirstCommitIsComparedWithNothing() throws {
        let s = try GitScratch()
        let (dir, _) = try history(s)
        let shallow = s.root + "/shallow"
        try s.git(s.root, "clone", "-q", "--depth", "4", "file://" + dir, shallow)
        let repo = try #require(try GitRepository.discover(shallow))
        let walked = try repo.commitTrees(from: try #require(GitOID(hex: try s.revParse(shallow, "HEAD"))), hiding: nil)
        #expect(walked.map(\.commit.hex).sorted() == (try s.git(shallow, "rev-list", "HEAD")).split(separator: "\n").map(String.init).sorted())
        let first = try #require(walked.first { $0.parentTree == nil })
        // every file of a commit whose parent the clone lacks is new
        let files = try s.git(shallow, "ls-tree", "-r", first.commit.hex).split(separator: "\n").filter { $0.hasPrefix("100") }
        #expect(try repo.changedEntries(first) { _ in true }.count == files.count)
    }
}

/// libgit2's CA certificates, parsed when a remote is first reached instead of in `git_libgit2_init`.
@Suite struct DeferredCertificatesTests {
    @Test func libgit2sCertificatesAreNotedAtItsStartAndReadByMbedTLSWhenARemoteIsReached() throws {
        let s = try GitScratch()
        let (_, repo, _) = try s.fixture()
        // the premise: libgit2 built over mbedTLS (Debian's), whose initialisation parses the system's CA bundle
        try #require(dlopen("libmbedx509.so.1", RTLD_NOW | RTLD_NOLOAD) != nil, "this libgit2 is not built over mbedTLS")
        let system = try #require(DeferredCertificates.noted, "libgit2's initialisation asked for no CA file")
        #expect(system == .file("/etc/ssl/certs/ca-certificates.crt"))

        // a server whose self-signed certificate is for another name: with the system's certificates (which the first
        // remote operation has libgit2 read) it is not trusted and its name does not match, with that certificate taken
        // as the CA only its name does not match (mbedTLS 2.28 matches no IP address). libgit2 quotes mbedTLS's flags:
        // 0x08 not trusted, 0x04 another name. Both reads go through the executable's definition to mbedTLS's.
        let registry = try LocalRegistry(tls: true)
        let url = "https://\(registry.host)/acme/web.git"
        let refused = #expect(throws: TagwardenError.self) { try repo.remoteReference(remote: url, name: "refs/heads/main") }
        #expect(refused?.message.contains("the SSL certificate is invalid: 0x0c - ") == true, "\(String(describing: refused))")
        defer { try? DeferredCertificates.load(system) }
        try DeferredCertificates.load(.file(registry.certificate))
        let trusted = #expect(throws: TagwardenError.self) { try repo.remoteReference(remote: url, name: "refs/heads/main") }
        #expect(trusted?.message.contains("the SSL certificate is invalid: 0x04 - ") == true, "\(String(describing: trusted))")
        // a directory of certificates (another libgit2's compiled-in location may be one): read through mbedTLS's own
        // parse_path, which reads each file through the executable's parse_file
        try FileManager.default.createDirectory(atPath: s.root + "/empty", withIntermediateDirectories: true)
        try DeferredCertificates.load(.directory(s.root + "/empty"))
        let untrusted = #expect(throws: TagwardenError.self) { try repo.remoteReference(remote: url, name: "refs/heads/main") }
        #expect(untrusted?.message.contains("the SSL certificate is invalid: 0x0c - ") == true, "\(String(describing: untrusted))")
        let dir = s.root + "/certificates"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: registry.certificate, toPath: dir + "/registry.pem")
        try DeferredCertificates.load(.directory(dir))
        let trustedByDirectory = #expect(throws: TagwardenError.self) { try repo.remoteReference(remote: url, name: "refs/heads/main") }
        #expect(trustedByDirectory?.message.contains("the SSL certificate is invalid: 0x04 - ") == true, "\(String(describing: trustedByDirectory))")
    }
}
