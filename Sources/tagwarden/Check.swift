import ArgumentParser
import TagwardenCore
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

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if staged == (base != nil) { throw ValidationError("give exactly one of --staged or --base REV") }
        if staged && (head != nil || all) { throw ValidationError("--head and --all go with --base") }
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
                if !indexSnap.conflicted.isEmpty, !options.quiet {
                    writeStderr("tagwarden: note: unresolved merge conflict in \(indexSnap.conflicted.joined(separator: ", ")): "
                                + "the index holds both sides, and ours is linted\n")
                }
                let tip = repo.hasHead ? "HEAD" : nil
                let staged = try ws.audit(indexSnap, profile: options.profile, historyFrom: tip)
                var before: AuditReport?
                if let tip {
                    before = try ws.audit(try ws.snapshot(rev: tip, maxFileSize: options.maxFileSizeBytes), profile: options.profile, historyFrom: tip)
                }
                report = Engine.compare(head: staged, base: before, alwaysIn: try repo.stagedChanges())
            } else {
                let headRev = head ?? "HEAD"
                let ws = try Workspace.open(path: path, configPath: options.config, rev: headRev)
                guard let repo = ws.repo else { throw TagwardenError("--base needs a git repository, and \(ws.root) is not inside one") }
                let baseSha = try repo.resolveCommit(base!)
                let headSha = try repo.resolveCommit(headRev)
                guard let mergeBase = repo.mergeBase(baseSha, headSha) else {
                    throw TagwardenError(repo.isShallow ? "no merge base of \(base!) and \(headRev) in this clone: \(GitRepository.shallowHint)"
                                                        : "\(base!) and \(headRev) share no history")
                }
                let headReport = try ws.audit(try ws.snapshot(rev: headSha, maxFileSize: options.maxFileSizeBytes),
                                              profile: options.profile, historyFrom: headSha)
                let baseReport = try ws.audit(try ws.snapshot(rev: mergeBase, maxFileSize: options.maxFileSizeBytes),
                                              profile: options.profile, historyFrom: mergeBase)
                var r = Engine.compare(head: headReport, base: baseReport, renamed: try repo.renames(from: mergeBase, to: headSha), all: all)
                r.source.kind = .diff
                report = r
            }
            let code = try options.emit(report)
            withExtendedLifetime(report) { Glibc.exit(code) }
        }
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
