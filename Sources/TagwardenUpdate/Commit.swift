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
            for (f, b) in zip(files, blobs) {
                // written through the link (as `--write` writes), staged at the file the link names
                try writeFileAtomically(workdir + "/" + f.path, bytes: f.after)
                try repo.stage(path: b.path, blob: b.blob, mode: b.mode)
            }
        }
        try repo.updateReference("refs/heads/" + target.pushBranch, to: commit, expecting: target.pushTip,
                                 message: reflog ?? "tagwarden update: image update on \(target.pushBranch)")
        }
        return commit
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
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw TagwardenError("cannot create the lock \(path): \(String(cString: strerror(errno)))") }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let holder = (try? FileSystem.readFile(path, limit: 64).get()).map { String(decoding: $0, as: UTF8.self) } ?? ""
                close(fd)
                let pid = Int32(holder.split(separator: "\n").first.map(String.init) ?? "") ?? 0
                throw TagwardenError("another tagwarden update or promote\(pid > 0 ? " (process \(pid))" : "") is running on this repository")
            }
            // the file may have been removed by the run that held it, between our open and our lock: lock the one there now
            var held = stat(), named = stat()
            guard fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev else {
                close(fd)
                continue
            }
            _ = ftruncate(fd, 0)
            _ = TagwardenBasics.writeAll(fd, Array("\(getpid())\n".utf8))
            self.fd = fd
            Interruption.install(lockPath: path)
            return
        }
    }

    /// Removes the lock (while still holding it, so no one takes a file about to go); again, nothing happens.
    public func release() {
        guard fd >= 0 else { return }
        Interruption.uninstall()
        unlink(path)
        close(fd)
        fd = -1
    }

    deinit { release() }
}

/// Pushing an automation's push branch as Flux does, with what Flux lacks: a lease for a rebuilt branch, and one
/// retry when the remote moved.
public enum Pusher {
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
            // Flux pushes again with git.push.refspec; HEAD there is the commit just made
            var spec = refspec
            for head in ["HEAD:", "+HEAD:"] where spec.hasPrefix(head) {
                spec = (head.hasPrefix("+") ? "+" : "") + ref + ":" + spec.dropFirst(head.count)
            }
            try repo.push(remote: remote, refspecs: [spec])
        }
        return .pushed
    }
}
