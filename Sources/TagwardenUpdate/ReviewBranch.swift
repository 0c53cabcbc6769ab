import TagwardenBasics
import TagwardenGit

/// A commit for review on a new branch from HEAD, as `promote` and `rollback` make it: what would stop the commit or
/// the push is checked first (`prepare`), then the commit is made without touching the work tree or the branch checked
/// out, and the branch pushed with a lease on its absence.
public struct ReviewBranch {
    public struct Options: Sendable {
        public var sign = false
        public var push = false
        public var remote = "origin"
        public init() {}
    }

    let repo: GitRepository
    public let branch: String
    let options: Options
    let signer: CommitSigner?
    let email: String

    /// Checks the branch (new, not in the way of another), git's `user.email`, the signing key and the remote. A branch
    /// that exists is refused (`refuse`), never moved.
    public static func prepare(_ repo: GitRepository, branch: String, options: Options, command: String) throws -> ReviewBranch {
        if let problem = repo.branchNameProblem(branch) { throw TagwardenError(problem) }
        if let there = repo.branchInTheWay(of: branch) {
            throw PromotionRefused(there == branch ? "branch \(branch) exists: delete it, or give another --branch"
                                   : "branch \(there) is in the way of \(branch) (git keeps branches as paths): give another --branch")
        }
        guard let email = repo.configString("user.email") else { throw TagwardenError("git has no user.email: set it to commit the \(command)") }
        var signer: CommitSigner?
        if options.sign || CommitSigner.configured(repo) {
            let s = try CommitSigner.fromConfig(repo, email: email)
            _ = try s.sign("tagwarden \(command): can this key sign?\n")
            signer = s
        }
        if options.push && !repo.isRemote(options.remote) {
            throw TagwardenError("cannot push to '\(GitRepository.redacted(options.remote))': no such remote (a name in git remote, or a URL)")
        }
        return ReviewBranch(repo: repo, branch: branch, options: options, signer: signer, email: email)
    }

    /// Commits `rewrites` on the branch, from `head`; pushes it when asked. Returns the commit and whether it was pushed.
    public func commit(_ rewrites: [FileRewrite], head: GitOID, message: String, reflog: String,
                       say: (String) -> Void) throws -> (commit: GitOID, pushed: Bool) {
        let author = Committer.signature(name: repo.configString("user.name") ?? email, email: email)
        let current = repo.currentBranch.map { String($0.dropFirst("refs/heads/".count)) } ?? "HEAD"
        let target = CommitTarget(checkoutBranch: current, pushBranch: branch, checkoutTip: head, base: head, pushTip: nil, checkedOut: false)
        let commit = try Committer.commit(rewrites, on: target, repo: repo, workdir: nil, author: author, committer: author, message: message,
                                          sign: signer.map { s in { try s.sign($0) } }, reflog: reflog)
        say("committed \(commit.hex) on \(branch)")
        guard options.push else { return (commit, false) }
        // the branch is new: a remote that has one of that name already is refused (a lease on its absence)
        let outcome: Pusher.Outcome
        do {
            outcome = try Pusher.push(repo, remote: options.remote, branch: branch, commit: commit, lease: .some(nil), refspec: nil)
        } catch let e as TagwardenError {
            throw TagwardenError("\(e.message); commit \(commit.hex) is on your \(branch), unpushed: push it with git push")
        }
        switch outcome {
        case .pushed:
            say("pushed \(branch) to \(GitRepository.redacted(options.remote)): open a pull request from it")
            return (commit, true)
        case .remoteMoved(let there):
            throw PromotionRefused("\(GitRepository.redacted(options.remote)) has a branch \(branch) already (at \(there?.hex.prefix(12) ?? "?")): "
                                   + "commit \(commit.hex) is on your \(branch), unpushed")
        }
    }
}
