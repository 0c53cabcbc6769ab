import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import TagwardenLint
import TagwardenReport
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lint what a commit or a pull request introduces.",
        discussion: """
        --staged (pre-commit): lints the index — the exact blobs the commit will contain, not the working files — and \
        reports the findings in the staged files plus any finding elsewhere that the staged change creates (a renamed \
        policy that breaks a marker in an unchanged file). Works on an unborn branch, in linked worktrees and inside \
        hooks of `git commit -a` / `git commit <path>` (GIT_INDEX_FILE is honoured).

        --base REV [--head REV] (PR status check): lints HEAD's tree and the tree of the merge base of BASE and HEAD, \
        both from the object database, and reports the findings HEAD has that the merge base did not (matched by \
        fingerprint, so a finding that only moved is not new, nor one in a file the change renamed or moved). --all reports every HEAD finding, marking the new ones.

        A pull request cannot vouch for itself: the config in force is the one of BASE (not the pull request's \
        .tagwarden.yaml), and a change that loosens the config (a rule turned off or lowered, a path ignored, a \
        requirement dropped) is a config-weakened error; the promotion rules take staging's history from the merge \
        base and its ancestors (plus HEAD's staging manifests), never from the pull request's own commits. \
        --config-from head uses the pull request's config instead, for repositories that review config changes \
        by other means.

        Examples:
          tagwarden check --staged
          tagwarden check --base origin/main --format sarif --output tagwarden.sarif
        """
    )

    @Argument(help: "A directory in the repository; findings outside it are not reported.")
    var path: String = "."

    @Flag(help: "Lint the index (what the next commit will contain).")
    var staged = false

    @Option(help: "The branch or commit the change will merge into.")
    var base: String?

    @Option(help: "The commit to check against --base (default HEAD).")
    var head: String?

    @Flag(help: "With --base: report every finding of HEAD, marking which are new.")
    var all = false

    enum ConfigFrom: String, ExpressibleByArgument, CaseIterable {
        case base, head
    }

    @Option(help: "With --base: whose .tagwarden.yaml is in force, base (the default: a pull request cannot loosen its own check) or head.")
    var configFrom: ConfigFrom = .base

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if staged == (base != nil) { throw ValidationError("give exactly one of --staged or --base REV") }
        if staged && (head != nil || all || configFrom != .base) { throw ValidationError("--head, --all and --config-from go with --base") }
    }

    func run() throws {
        try guarded {
            let env = ProcessInfo.environment
            let fromEnv = staged && (env["GIT_INDEX_FILE"] != nil || env["GIT_DIR"] != nil)
            let report: AuditReport
            if staged {
                let ws = try Workspace.open(path: path, configPath: options.config, fromIndex: true, fromEnvironment: fromEnv)
                guard let repo = ws.repo else { throw TagwardenError("--staged needs a git repository, and \(ws.root) is not inside one") }
                let indexSnap = try ws.snapshot(rev: nil, index: true, maxFileSize: options.maxFileSizeBytes)
                try indexSnap.requireIntact()
                if !indexSnap.conflicted.isEmpty, !options.quiet {
                    writeStderr("tagwarden: note: unresolved merge conflict in \(indexSnap.conflicted.joined(separator: ", ")): "
                                + "the index holds both sides, and ours is linted\n")
                }
                let tip = repo.hasHead ? "HEAD" : nil
                let staged = try ws.audit(indexSnap, profile: options.profile, historyFrom: tip)
                var before: AuditReport?
                if let tip {
                    let headSnap = try ws.snapshot(rev: tip, maxFileSize: options.maxFileSizeBytes)
                    try headSnap.requireIntact()
                    before = try ws.audit(headSnap, profile: options.profile, historyFrom: tip)
                }
                report = Linter.compare(head: staged, base: before, alwaysIn: try repo.stagedChanges())
            } else {
                let headRev = head ?? "HEAD"
                let ws = try Workspace.open(path: path, configPath: options.config, rev: headRev,
                                            configRev: configFrom == .base ? base! : headRev)
                guard let repo = ws.repo else { throw TagwardenError("--base needs a git repository, and \(ws.root) is not inside one") }
                let baseSha = try repo.resolveCommit(base!)
                let headSha = try repo.resolveCommit(headRev)
                guard let mergeBase = repo.mergeBase(baseSha, headSha) else {
                    throw TagwardenError(repo.isShallow ? "no merge base of \(base!) and \(headRev) in this clone: \(GitRepository.shallowHint)"
                                                        : "\(base!) and \(headRev) share no history")
                }
                // staging's history is the merge base's: the pull request's own commits are no evidence
                let headSnap = try ws.snapshot(rev: headSha, maxFileSize: options.maxFileSizeBytes)
                try headSnap.requireIntact()
                var headReport = try ws.audit(headSnap, profile: options.profile, historyFrom: mergeBase)
                if configFrom == .base, options.config == nil {
                    headReport.findings += try configWeakenings(repo, ws: ws, base: baseSha, head: headSha)
                }
                let baseSnap = try ws.snapshot(rev: mergeBase, maxFileSize: options.maxFileSizeBytes)
                try baseSnap.requireIntact()
                let baseReport = try ws.audit(baseSnap, profile: options.profile, historyFrom: mergeBase)
                var r = Linter.compare(head: headReport, base: baseReport, renamed: try repo.renames(from: mergeBase, to: headSha), all: all)
                r.source.kind = .diff
                report = r
            }
            let code = try options.emit(report)
            withExtendedLifetime(report) { Glibc.exit(code) }
        }
    }
}

extension Check {
    /// `config-weakened` findings for what HEAD's config loosens against BASE's (the one in force).
    func configWeakenings(_ repo: GitRepository, ws: Workspace, base: String, head: String) throws -> [Finding] {
        let baseConfig = try Workspace.committedConfig(repo: repo, rev: base, dirs: ws.configDirs)
        let headConfig: (path: String, bytes: [UInt8], config: Config)?
        do {
            headConfig = try Workspace.committedConfig(repo: repo, rev: head, dirs: ws.configDirs)
        } catch let e as TagwardenError {
            // a config the pull request breaks would break every later run
            let at = SourcePosition(offset: 0, line: 1, column: 1)
            return [Finding(rule: ConfigChange.ruleID, severity: .error, message: "the pull request's config cannot be read: \(e.message)",
                            file: baseConfig?.path ?? Config.fileName, span: SourceSpan(start: at, end: at))]
        }
        guard let baseConfig else { return [] }
        return ConfigChange.findings(base: baseConfig.config, head: headConfig?.config ?? Config(),
                                     path: headConfig?.path ?? baseConfig.path, headBytes: headConfig?.bytes)
    }
}

enum ProcessInfo {
    static var environment: [String: String] {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { out[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return out
    }
}
