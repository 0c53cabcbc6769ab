import TagwardenBasics
import TagwardenGit
import TagwardenModel
#if canImport(Glibc)
import Glibc
#endif

/// How the push branch is built when it is not the checkout branch.
public enum PushBranchMode: String, Sendable, CaseIterable {
    /// On the push branch's tip when it exists (Flux's way: successive runs stack commits), else on the checkout tip.
    case stack
    /// Always on the checkout branch's tip: the push branch is rebuilt, and must be pushed with a lease.
    case reset
}

/// Where an automation's commit goes and what it is made on.
public struct CommitTarget: Sendable {
    public let checkoutBranch: String
    public let pushBranch: String
    public let checkoutTip: GitOID
    /// The commit whose tree the update reads and which the new commit has as parent.
    public let base: GitOID
    /// The local push branch's tip now; nil when it does not exist yet. The branch moves only if it is still here.
    public let pushTip: GitOID?
    /// The push branch is the branch checked out: its files are written and staged with the commit.
    public let checkedOut: Bool

    public init(checkoutBranch: String, pushBranch: String, checkoutTip: GitOID, base: GitOID, pushTip: GitOID?, checkedOut: Bool) {
        self.checkoutBranch = checkoutBranch
        self.pushBranch = pushBranch
        self.checkoutTip = checkoutTip
        self.base = base
        self.pushTip = pushTip
        self.checkedOut = checkedOut
    }
}

public enum Committer {
    /// The checkout and push branches of automation `a` and the commit to build on. A branch is the local one, else
    /// the remote's as last fetched (`refs/remotes/REMOTE/BRANCH`).
    public static func target(_ model: Model, automation a: AutomationID, repo: GitRepository, remote: String, mode: PushBranchMode) throws -> CommitTarget {
        let automation = model.flux.automations[a]
        let spec = automation.spec
        let name = "\(automation.namespace ?? "")/\(model.objects[automation.object].name ?? "")"
        // Flux checks out git.checkout.ref, else the GitRepository's ref, whose default branch is master
        let checkout = spec.checkoutBranch ?? model.flux.source(of: automation)?.branch ?? "master"
        let push = spec.pushBranch?.value ?? checkout
        for (field, branch) in [("its checkout branch", checkout), ("git.push.branch", push)] {
            if let problem = repo.branchNameProblem(branch) { throw TagwardenError("ImageUpdateAutomation \(name): \(field): \(problem)") }
        }
        func tip(_ branch: String) -> GitOID? {
            repo.referenceTarget("refs/heads/" + branch) ?? repo.referenceTarget("refs/remotes/\(remote)/\(branch)")
        }
        guard let checkoutTip = tip(checkout) else {
            throw TagwardenError("ImageUpdateAutomation \(name) checks out branch \(checkout), which is neither a local branch nor "
                                 + "refs/remotes/\(GitRepository.redacted(remote))/\(checkout): fetch it first")
        }
        let pushTip = repo.referenceTarget("refs/heads/" + push)
        let checkedOut = repo.currentBranch == "refs/heads/" + push
        var base = checkoutTip
        if push != checkout {
            switch mode {
            case .stack: base = tip(push) ?? checkoutTip
            case .reset:
                if checkedOut {
                    throw TagwardenError("--push-branch-mode reset would rebuild \(push), the branch checked out: check out another branch first")
                }
            }
        }
        if checkedOut, let head = repo.referenceTarget("HEAD"), head != base {
            throw TagwardenError("the push branch \(push) is checked out at \(head), not at \(base): run git pull or check out another branch")
        }
        return CommitTarget(checkoutBranch: checkout, pushBranch: push, checkoutTip: checkoutTip, base: base, pushTip: pushTip, checkedOut: checkedOut)
    }

    /// Commits `files` (each rewritten from the base commit's version) on the target's push branch. When the branch is
    /// checked out, the files are written into the work tree at `workdir` and staged first (each must be clean), so that
    /// the work tree stays in step; otherwise neither the work tree nor the index is touched. Returns the commit.
    public static func commit(_ files: [FileRewrite], on target: CommitTarget, repo: GitRepository, workdir: String?,
                              author: GitSignature, committer: GitSignature, message: String,
                              sign: ((String) throws -> String)? = nil, reflog: String? = nil) throws -> GitOID {
        precondition(!files.isEmpty, "no change, no commit")
        var changes: [String: GitTreeChange] = [:]
        var blobs: [(path: String, blob: GitOID, mode: GitFileMode)] = []
        for f in files {
            // a symlink is followed to its file in the tree, as the files were read: the link stays a link
            var path = f.path
            var entry = repo.treeEntry(commit: target.base.hex, path: path)
            if let link = entry, link.mode == 0o120000 {
                guard case .bytes(let text) = repo.readBlob(link.oid, limit: 4096),
                      let resolved = Sources.resolveLink(from: path, target: String(decoding: text, as: UTF8.self)),
                      let file = repo.treeEntry(commit: target.base.hex, path: resolved), file.mode != 0o120000 else {
                    throw TagwardenError("\(path) is a symlink to no file of the tree: not committed")
                }
                path = resolved
                entry = file
            }
            let mode: GitFileMode = entry?.mode == GitFileMode.executable.rawValue ? .executable : .regular
            let blob = try repo.writeBlob(f.after)
            changes[path] = .blob(blob, mode: mode)
            blobs.append((path, blob, mode))
        }
        let tree = try repo.writeTree(base: repo.tree(ofCommit: target.base), changes: changes)
        let commit = try repo.createCommit(tree: tree, parents: [target.base], author: author, committer: committer,
                                           message: message, sign: sign)
        // the work tree, the index and the branch change as one: a Ctrl-C now takes effect after
        try Interruption.whole {
        if target.checkedOut {
            guard let workdir else { throw TagwardenError("the push branch \(target.pushBranch) is checked out, but the repository has no work tree") }
            let dirty = try files.map(\.path).filter { try repo.hasUncommittedChanges($0) }
            guard dirty.isEmpty else {
                throw TagwardenError("\(dirty.joined(separator: ", ")) \(dirty.count == 1 ? "has" : "have") uncommitted changes on \(target.pushBranch), "
                                     + "the branch checked out: commit or stash them first")
            }
            // a journal first: a run stopped from here on is finished or undone by the next (`recover`)
            let journal = Journal(branch: "refs/heads/" + target.pushBranch, base: target.base, commit: commit,
                                  files: zip(files, blobs).map { f, b in
                                      Journal.File(written: f.path, staged: b.path, before: repo.treeEntry(commit: target.base.hex, path: b.path)?.oid,
                                                   after: b.blob, mode: b.mode)
                                  })
            try journal.save(repo)
            for f in files {
                // written through the link (as `--write` writes), staged at the file the link names
                try writeFileAtomically(workdir + "/" + f.path, bytes: f.after)
            }
            try repo.stage(blobs)
        }
        try repo.updateReference("refs/heads/" + target.pushBranch, to: commit, expecting: target.pushTip,
                                 message: reflog ?? "tagwarden update: image update on \(target.pushBranch)")
        if target.checkedOut { Journal.remove(repo) }
        }
        return commit
    }

    /// Finishes or undoes the commit on the checked-out branch that a run stopped midway (killed while it wrote the
    /// work tree, the index or the branch), as its journal says: when the branch holds the commit, the files are made
    /// to match it; when it does not, each file is put back as the base commit has it, if it holds what that run wrote
    /// (or still the base's bytes). Returns what was done, nil when there was nothing to do.
    public static func recover(_ repo: GitRepository, workdir: String?) throws -> String? {
        guard let journal = try Journal.load(repo) else { return nil }
        guard let workdir else { Journal.remove(repo); return nil }
        let tip = repo.referenceTarget(journal.branch)
        let finish = tip == journal.commit
        guard finish || tip == journal.base else {
            Journal.remove(repo)
            return "a stopped update's journal named \(journal.branch) at \(journal.base.hex.prefix(12)), but it is at "
                + "\(tip?.hex.prefix(12) ?? "nothing") now: the journal is dropped and the files are left as they are"
        }
        func bytes(_ oid: GitOID?) -> [UInt8]? {
            guard let oid else { return nil }
            if case .bytes(let b) = repo.readBlob(oid, limit: Int.max) { return b }
            return nil
        }
        // a write killed midway leaves its temporary file
        for f in journal.files { removeLeftoverTemporaries(of: workdir + "/" + f.written) }
        // a file changed since by someone else is never overwritten
        for f in journal.files {
            let now: [UInt8]? = if case .success(let b) = FileSystem.readFile(workdir + "/" + f.written, limit: Int.max) { b } else { nil }
            guard now == bytes(f.after) || now == bytes(f.before) else {
                throw TagwardenError("an update stopped midway (journal \(Journal.path(repo))), and \(f.written) has changed since: "
                                     + "look at it, then remove the journal to go on")
            }
        }
        var staged: [(path: String, blob: GitOID, mode: GitFileMode)] = []
        for f in journal.files {
            let wanted = finish ? f.after : f.before
            guard let wanted, let content = bytes(wanted) else { continue }
            try writeFileAtomically(workdir + "/" + f.written, bytes: content)
            staged.append((f.staged, wanted, f.mode))
        }
        try repo.stage(staged)
        Journal.remove(repo)
        let n = journal.files.count
        return finish
            ? "an update stopped after it committed \(journal.commit.hex.prefix(12)): its \(n) file\(n == 1 ? "" : "s") now match the commit"
            : "an update stopped before it committed: its \(n) file\(n == 1 ? " is" : "s are") put back as \(journal.branch) has them"
    }

    /// What a commit on the checked-out branch is about to write, kept in the git directory until it is done.
    struct Journal {
        struct File {
            let written: String
            let staged: String
            let before: GitOID?
            let after: GitOID
            let mode: GitFileMode
        }
        let branch: String
        let base: GitOID
        let commit: GitOID
        let files: [File]

        static func path(_ repo: GitRepository) -> String {
            (repo.commonDir.hasSuffix("/") ? repo.commonDir : repo.commonDir + "/") + "tagwarden-update.journal"
        }

        func save(_ repo: GitRepository) throws {
            let json = JSON.object([
                ("branch", .string(branch)), ("base", .string(base.hex)), ("commit", .string(commit.hex)),
                ("files", .array(files.map { f in
                    .object([("written", .string(f.written)), ("staged", .string(f.staged)), ("before", f.before.map { .string($0.hex) } ?? .null),
                             ("after", .string(f.after.hex)), ("mode", .int(Int(f.mode.rawValue)))])
                })),
            ])
            try writeFileAtomically(Self.path(repo), json.serialized())
        }

        static func load(_ repo: GitRepository) throws -> Journal? {
            guard case .success(let bytes) = FileSystem.readFile(path(repo), limit: 64 << 20) else { return nil }
            let damaged = TagwardenError("\(path(repo)): a stopped update's journal that cannot be read: look at the work tree, then remove it")
            guard let json = try? JSON.parse(String(decoding: bytes, as: UTF8.self)),
                  let branch = json["branch"]?.stringValue, let base = json["base"]?.stringValue.flatMap(GitOID.init(hex:)),
                  let commit = json["commit"]?.stringValue.flatMap(GitOID.init(hex:)), let list = json["files"]?.arrayValue else { throw damaged }
            let files = try list.map { f -> File in
                guard let written = f["written"]?.stringValue, let staged = f["staged"]?.stringValue,
                      let after = f["after"]?.stringValue.flatMap(GitOID.init(hex:)),
                      let mode = f["mode"]?.doubleValue.flatMap({ GitFileMode(rawValue: UInt32(exactly: $0) ?? 0) }) else { throw damaged }
                return File(written: written, staged: staged, before: f["before"]?.stringValue.flatMap(GitOID.init(hex:)), after: after, mode: mode)
            }
            return Journal(branch: branch, base: base, commit: commit, files: files)
        }

        static func remove(_ repo: GitRepository) { unlink(path(repo)) }
    }

    /// Who a commit is by: `name` and `email` (an automation's `git.commit.author`), at `time` in the local time zone.
    public static func signature(name: String, email: String, time: Int64 = Int64(Glibc.time(nil))) -> GitSignature {
        var t = time_t(time)
        var local = tm()
        localtime_r(&t, &local)
        return GitSignature(name: name, email: email, time: time, offsetMinutes: local.tm_gmtoff / 60)
    }
}

/// A lock in the git directory that stops two updates of one repository at once: a file held with `flock`, which the
/// kernel lets go when its process ends, so a dead run's lock is never in the way. The file names the holder's process.
public final class UpdateLock {
    public let path: String
    var fd: Int32 = -1

    public init(gitDir: String) throws {
        path = (gitDir.hasSuffix("/") ? gitDir : gitDir + "/") + "tagwarden-update.lock"
        // the handlers first, before the file can exist: a signal from here on removes it where this run holds its lock
        // or can take it, and leaves it where another run holds it
        Interruption.install(lockPath: path)
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                Interruption.lockReleased()
                throw TagwardenError("cannot create the lock \(path): \(String(cString: strerror(errno)))")
            }
            Interruption.lockOpened(fd)
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                Interruption.lockReleased()
                let holder = (try? FileSystem.readFile(path, limit: 64).get()).map { String(decoding: $0, as: UTF8.self) } ?? ""
                close(fd)
                let pid = Int32(holder.split(separator: "\n").first.map(String.init) ?? "") ?? 0
                throw TagwardenError("another tagwarden update or promote\(pid > 0 ? " (process \(pid))" : "") is running on this repository")
            }
            // the file may have been removed by the run that held it, between our open and our lock: lock the one there now
            var held = stat(), named = stat()
            guard fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev else {
                Interruption.lockOpened(-1)
                close(fd)
                continue
            }
            _ = ftruncate(fd, 0)
            _ = TagwardenBasics.writeAll(fd, Array("\(getpid())\n".utf8))
            self.fd = fd
            return
        }
    }

    /// Removes the lock (while still holding it, so no one takes a file about to go), then forgets it: a signal in
    /// between finds the file gone, never left behind; again, nothing happens.
    public func release() {
        guard fd >= 0 else { return }
        unlink(path)
        Interruption.lockReleased()
        close(fd)
        fd = -1
    }

    deinit { release() }
}

/// Pushing an automation's push branch as Flux does, with what Flux lacks: a lease for a rebuilt branch, and one
/// retry when the remote moved.
public enum Pusher {
    /// Why the automation's `git.push.refspec` is not pushed, nil when it may be: it may only push the automation's own
    /// push branch (or HEAD, the commit just made) to one ref, never delete a ref (`:ref`), never force one (`+`), never
    /// match several (`*`). Repository content writes the refspec; `allowed` (`--allow-refspec`) is the runner's word.
    public static func refspecProblem(_ refspec: String, branch: String, allowed: [String]) -> String? {
        guard !allowed.contains(refspec) else { return nil }
        let how = "; --allow-refspec '\(refspec)' pushes it"
        if refspec.hasPrefix("+") { return "git.push.refspec '\(refspec)' forces a ref (+)\(how)" }
        if refspec.contains("*") { return "git.push.refspec '\(refspec)' matches several refs (*)\(how)" }
        let parts = refspec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts[0].isEmpty { return "git.push.refspec '\(refspec)' deletes a ref (nothing before ':')\(how)" }
        guard ["HEAD", branch, "refs/heads/" + branch].contains(parts[0]) else {
            return "git.push.refspec '\(refspec)' pushes \(parts[0]), not the automation's push branch \(branch)\(how)"
        }
        let target = parts.count == 2 ? parts[1] : parts[0]
        var valid: Bool { target.hasPrefix("refs/") ? GitRepository.isValidReferenceName(target) : GitRepository.isValidBranchName(target) }
        if target.isEmpty || target == "HEAD" || !valid { return "git.push.refspec '\(refspec)' pushes to '\(target)', not a valid ref\(how)" }
        return nil
    }

    public enum Outcome: Sendable, Equatable {
        case pushed
        /// The remote's branch is not where this update's commit was made on: fetched, so the caller can re-apply.
        case remoteMoved(GitOID?)
    }

    /// Pushes `refs/heads/BRANCH` to the remote. A stacked branch goes as a fast-forward; a reset one (`lease`: the
    /// remote tip it was rebuilt over, as last fetched) is forced only if the remote is still there. The checkout
    /// branch is never forced.
    public static func push(_ repo: GitRepository, remote: String, branch: String, commit: GitOID, lease: GitOID??,
                            refspec: String?) throws -> Outcome {
        let ref = "refs/heads/" + branch
        if let lease {
            let now = try repo.remoteReference(remote: remote, name: ref)
            guard now == lease else {
                return .remoteMoved(now)
            }
            try repo.push(remote: remote, refspecs: ["+\(ref):\(ref)"])
        } else {
            do {
                try repo.push(remote: remote, refspecs: ["\(ref):\(ref)"])
            } catch let e as TagwardenError where e.message.contains("not a fast-forward") {
                let now = try repo.remoteReference(remote: remote, name: ref)
                return .remoteMoved(now)
            }
        }
        if let refspec, !refspec.isEmpty {
            // Flux pushes again with git.push.refspec; HEAD there is the commit just made (checked by `refspecProblem` first)
            var spec = refspec
            for head in ["HEAD:", "+HEAD:"] where spec.hasPrefix(head) {
                spec = (head.hasPrefix("+") ? "+" : "") + ref + ":" + spec.dropFirst(head.count)
            }
            try repo.push(remote: remote, refspecs: [spec])
        }
        return .pushed
    }
}
