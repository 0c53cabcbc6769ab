import TagwardenBasics
import TagwardenGit
import TagwardenModel

/// `update --commit [--push]`: each automation updated on its own branch's tree, committed, and pushed if asked.
public struct CommitRun {
    public struct Options {
        public var remote = "origin"
        public var mode: PushBranchMode = .stack
        public var sign = false
        public var push = false
        /// Push refspecs the runner allows although they push elsewhere than the automation's branch (`--allow-refspec`).
        public var allowedRefspecs: [String] = []
        /// Which runs (`plan.only`), what the plans leave alone and what they refuse to write.
        public var plan = PlanOptions()
        public init() {}
    }

    /// What one automation's commit did.
    public struct Made: Sendable {
        public let automation: String
        public let branch: String
        public let commit: GitOID
        public let pushed: Bool
        /// The files written into the work tree (the push branch is checked out).
        public let written: [String]
        /// The branch it was made from (the automation's checkout branch), and its message: a pull request's base and text.
        public let base: String
        public let message: String
    }

    let repo: GitRepository
    let config: Config
    let tags: any TagSource
    let options: Options
    /// The work tree, when the repository has one.
    let workdir: String?

    public init(repo: GitRepository, config: Config, tags: some TagSource, options: Options, workdir: String?) {
        self.repo = repo
        self.config = config
        self.tags = tags
        self.options = options
        self.workdir = workdir
    }

    /// Runs every automation of `model` (the repository at commit `commit`, whose files are `files`), each on its
    /// checkout and push branches. Returns the plans (one per automation run) and the commits made.
    public func run(_ model: Model, files: [SourceFile], commit: GitOID) throws -> (plans: [UpdatePlan], commits: [Made], notes: [String]) {
        let lock = try UpdateLock(gitDir: repo.commonDir)
        defer { lock.release() }
        let notes = try Committer.recover(repo, workdir: workdir).map { [$0] } ?? []
        var plans: [UpdatePlan] = []
        var commits: [Made] = []
        // the tree of each base commit read and modelled once: automations made on one commit share it
        var models: [GitOID: (files: [SourceFile], model: Model)] = [commit: (files, model)]
        var rebuilt: Set<String> = []
        var order = Updater.runs(model).map { ($0.automation, RunSelection($0, of: model)) }
        if let only = options.plan.only { order = try only.select(order) }
        for (a, selection) in order {
            let (namespace, name) = (selection.namespace, selection.name)
            var attempt = 0
            var lease: GitOID?? = nil
            while true {
                attempt += 1
                var target = try Committer.target(model, automation: a, repo: repo, remote: options.remote, mode: options.mode)
                // a push branch is rebuilt once a run: the automations after the first stack on it
                if options.mode == .reset, rebuilt.contains(target.pushBranch) {
                    target = try Committer.target(model, automation: a, repo: repo, remote: options.remote, mode: .stack)
                }
                // the automation as its branch holds it, on that branch's files
                if models[target.base] == nil {
                    let snapshot = try Sources.commit(repo, rev: target.base.hex)
                    models[target.base] = (snapshot.files, try Model.build(snapshot.files, config: config, profile: nil, remoteURLs: repo.remoteURLs()))
                }
                let (baseFiles, base) = models[target.base]!
                var planOptions = options.plan
                planOptions.only = selection
                let plan = try Updater.plan(base, files: baseFiles, tags: tags, options: planOptions)
                plans.append(plan)
                guard plan.errors.isEmpty, let run = plan.automations.first, run.skipped == nil, !plan.files.isEmpty,
                      case .success(let message)? = run.message else { break }
                let spec = base.flux.automations[run.automation].spec
                if options.push, let refspec = spec.pushRefspec, !refspec.isEmpty,
                   let problem = Pusher.refspecProblem(refspec, branch: target.pushBranch, allowed: options.allowedRefspecs) {
                    throw TagwardenError("ImageUpdateAutomation \(namespace)/\(name): \(problem); nothing was committed")
                }
                guard let email = spec.authorEmail ?? repo.configString("user.email") else {
                    throw TagwardenError("ImageUpdateAutomation \(namespace)/\(name) has no git.commit.author.email, and git has no user.email")
                }
                let author = Committer.signature(name: spec.authorName ?? repo.configString("user.name") ?? email, email: email)
                // the committer is the author unless git's configuration names one
                let committer = repo.configString("user.email").map {
                    Committer.signature(name: repo.configString("user.name") ?? $0, email: $0, time: author.time)
                } ?? author
                var signer: CommitSigner?
                if options.sign || CommitSigner.configured(repo) { signer = try CommitSigner.fromConfig(repo, email: committer.email) }
                let commit = try Committer.commit(plan.files, on: target, repo: repo, workdir: workdir, author: author, committer: committer,
                                                  message: message, sign: signer.map { s in { try s.sign($0) } })
                if options.mode == .reset { rebuilt.insert(target.pushBranch) }
                var pushed = false
                if options.push {
                    if !spec.pushOptions.isEmpty {
                        throw TagwardenError("ImageUpdateAutomation \(namespace)/\(name) sets git.push.options, which this build's libgit2 "
                                             + "cannot send; commit \(commit) is on \(target.pushBranch), unpushed")
                    }
                    // a rebuilt branch is forced only over the remote tip last fetched
                    let forced = options.mode == .reset && target.pushBranch != target.checkoutBranch
                    lease = forced ? .some(repo.referenceTarget("refs/remotes/\(options.remote)/\(target.pushBranch)")) : nil
                    switch try Pusher.push(repo, remote: options.remote, branch: target.pushBranch, commit: commit, lease: lease,
                                           refspec: spec.pushRefspec) {
                    case .pushed: pushed = true
                    case .remoteMoved(let now):
                        let branchRef = "refs/heads/" + target.pushBranch
                        let moved = "the remote's \(target.pushBranch) moved (now \(now?.hex ?? "deleted"))"
                        if target.checkedOut {
                            throw TagwardenError("\(moved): the update is commit \(commit) on your \(target.pushBranch); pull --rebase and push it")
                        }
                        // put the branch back as it was
                        if let old = target.pushTip {
                            try repo.updateReference(branchRef, to: old, expecting: commit, message: "tagwarden update: the remote moved")
                        } else {
                            try repo.deleteReference(branchRef, expecting: commit)
                        }
                        // a rebuilt branch is forced only over what was last fetched: someone else's commits are not lost
                        if lease != nil {
                            throw TagwardenError("\(moved) since it was last fetched: nothing pushed; fetch it and look at what is there before "
                                                 + "rebuilding it")
                        }
                        guard attempt == 1 else { throw TagwardenError("\(moved) again while updating; gave up after one retry") }
                        // once: fetch, follow the remote (a fast-forward only: local commits are never dropped), update again
                        let tracking = "refs/remotes/\(options.remote)/\(target.pushBranch)"
                        try repo.fetch(remote: options.remote, refspecs: ["+\(branchRef):\(tracking)"])
                        if let fetched = repo.referenceTarget(tracking), fetched != target.pushTip {
                            if let local = target.pushTip, !repo.isAncestor(local.hex, of: fetched.hex) {
                                throw TagwardenError("\(moved), and your \(target.pushBranch) has commits it has not: merge or rebase them first")
                            }
                            try repo.updateReference(branchRef, to: fetched, expecting: target.pushTip, message: "tagwarden update: follow the remote")
                        }
                        plans.removeLast()
                        continue
                    }
                }
                commits.append(Made(automation: run.label, branch: target.pushBranch, commit: commit, pushed: pushed,
                                    written: target.checkedOut ? plan.files.map(\.path) : [], base: target.checkoutBranch, message: message))
                break
            }
        }
        return (plans, commits, notes)
    }
}

extension UpdatePlan {
    /// Several automations' plans as one, for the report.
    public static func merging(_ plans: [UpdatePlan]) -> UpdatePlan {
        var files: [String: FileRewrite] = [:]
        for p in plans {
            for f in p.files {
                files[f.path] = FileRewrite(path: f.path, before: files[f.path]?.before ?? f.before, after: f.after,
                                            changes: (files[f.path]?.changes ?? []) + f.changes)
            }
        }
        var merged = UpdatePlan(policies: plans.first?.policies ?? [], automations: plans.flatMap(\.automations),
                          files: files.values.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) },
                          errors: plans.flatMap(\.errors), warnings: plans.flatMap(\.warnings))
        // (each plan says what the whole run says, and what its own automation's run does on a premise)
        var seen: Set<String> = []
        merged.notes = plans.flatMap(\.notes).filter { seen.insert($0).inserted }
        return merged
    }
}
