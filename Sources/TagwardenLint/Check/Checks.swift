import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenModel

/// What the two checks share with the command line: the config file given, the profile, the file size limit.
public struct CheckOptions: Sendable {
    public var configPath: String?
    public var profile: String?
    public var maxFileSize: Int?
    public var baseline: BaselineChoice
    /// Told how far a long read of staging's history is.
    public var historyProgress: History.Progress?

    public init(configPath: String?, profile: String?, maxFileSize: Int?, baseline: BaselineChoice = .off) {
        self.configPath = configPath
        self.profile = profile
        self.maxFileSize = maxFileSize
        self.baseline = baseline
    }
}

/// A check's findings, and what the user should be told beside them.
public struct CheckResult: Sendable {
    public var report: AuditReport
    public var notes: [String] = []
    /// What the result was made from (both trees' snapshots and audits, the facts they shared), freed with it: a caller
    /// that exits while it holds the result frees none of it (at 100,000 files that took 0.26 s of one core).
    var madeFrom: Kept?

    /// Values held, never read: only their release is wanted later (`@unchecked`: nothing reaches them through it).
    final class Kept: @unchecked Sendable {
        private let values: [Any]
        init(_ values: Any...) { self.values = values }
    }
}

/// `check --staged` (pre-commit) and `check --base` (the pull-request check): each lints two trees and keeps the
/// findings the change brings.
public enum Checks {
    /// The index against HEAD: the findings the staged change brings, wherever they are (with `all`, every finding of
    /// the staged files too). `fromEnvironment`: GIT_DIR or GIT_INDEX_FILE locate the repository (inside a hook).
    public static func staged(path: String, all: Bool = false, options: CheckOptions, fromEnvironment: Bool) throws -> CheckResult {
        var ws = try Workspace.open(path: path, configPath: options.configPath, fromIndex: true, fromEnvironment: fromEnvironment, knownRules: Catalogue.ids)
        ws.historyProgress = options.historyProgress
        guard let repo = ws.repo else { throw TagwardenError("--staged needs a git repository, and \(ws.root) is not inside one") }
        let indexSnap = try ws.snapshot(rev: nil, index: true, maxFileSize: options.maxFileSize)
        try indexSnap.requireIntact()
        var notes = indexSnap.notes
        if !indexSnap.conflicted.isEmpty {
            notes.append("unresolved merge conflict in \(indexSnap.conflicted.joined(separator: ", ")): the index holds both sides, and ours is linted")
        }
        let tip = repo.hasHead ? "HEAD" : nil
        let shared = SharedExtraction()
        defer { shared.withdraw() }
        let headSide = tip.map { tip in
            alongside(rev: tip, historyFrom: tip, options: options, taking: shared, knownBlobs: indexSnap.blobs) {
                try Workspace.open(path: path, configPath: options.configPath, fromIndex: true, fromEnvironment: fromEnvironment, knownRules: Catalogue.ids)
            }
        }
        let staged = try ws.audit(indexSnap, profile: options.profile, historyFrom: tip, sharing: .offer(shared))
        let before = try headSide?.value.get()
        // the baseline the commit will hold
        let (report, told) = try ws.leavingOutBaseline(Linter.compare(head: staged, base: before, alwaysIn: all ? try repo.stagedChanges() : []),
                                                       options.baseline, from: .index, prefix: ws.prefix, judgesStale: false)
        return CheckResult(report: report, notes: notes + told, madeFrom: CheckResult.Kept(ws, indexSnap, shared, headSide as Any, staged, before as Any))
    }

    /// HEAD against the merge base of BASE and HEAD, both from the object database. With `configFromBase`, BASE's
    /// config is in force and what HEAD's loosens is a `config-weakened` error; staging's history is always the
    /// merge base's (the pull request's own commits are no evidence). `all` keeps every HEAD finding, marked new or not.
    public static func pullRequest(path: String, base: String, head: String?, all: Bool, configFromBase: Bool,
                                   options: CheckOptions) throws -> CheckResult {
        let headRev = head ?? "HEAD"
        var ws = try Workspace.open(path: path, configPath: options.configPath, rev: headRev, configRev: configFromBase ? base : headRev, knownRules: Catalogue.ids)
        ws.historyProgress = options.historyProgress
        guard let repo = ws.repo else { throw TagwardenError("--base needs a git repository, and \(ws.root) is not inside one") }
        let baseSha = try repo.resolveCommit(base)
        let headSha = try repo.resolveCommit(headRev)
        guard let mergeBase = repo.mergeBase(baseSha, headSha) else {
            throw TagwardenError(repo.isShallow ? "no merge base of \(base) and \(headRev) in this clone: \(GitRepository.shallowHint)"
                                                : "\(base) and \(headRev) share no history")
        }
        let headSnap = try ws.snapshot(rev: headSha, maxFileSize: options.maxFileSize)
        try headSnap.requireIntact()
        let shared = SharedExtraction()
        defer { shared.withdraw() }
        let baseSide = alongside(rev: mergeBase, historyFrom: mergeBase, options: options, taking: shared, knownBlobs: headSnap.blobs) {
            try Workspace.open(path: path, configPath: options.configPath, rev: headRev, configRev: configFromBase ? base : headRev, knownRules: Catalogue.ids)
        }
        var headReport = try ws.audit(headSnap, profile: options.profile, historyFrom: mergeBase, sharing: .offer(shared))
        if configFromBase, options.configPath == nil {
            headReport.findings += try configWeakenings(repo, ws: ws, base: baseSha, head: headSha)
        }
        let baseReport = try baseSide.value.get()
        var r = Linter.compare(head: headReport, base: baseReport, renamed: try repo.renames(from: mergeBase, to: headSha), all: all)
        r.source.kind = .diff
        // the baseline of the side whose config is in force: a pull request cannot put its own findings in it
        let (report, told) = try ws.leavingOutBaseline(r, options.baseline, from: .commit(configFromBase ? baseSha : headSha),
                                                       prefix: ws.prefix, judgesStale: false)
        return CheckResult(report: report, notes: headSnap.notes + told,
                           madeFrom: CheckResult.Kept(ws, headSnap, shared, baseSide, headReport, baseReport, r))
    }

    /// The audit of `rev` on another thread, started now, in a workspace of its own that `open` makes: a libgit2
    /// repository is one thread's. A check's two audits run side by side, so that on two cores it takes little more
    /// time than one audit: this one reads its tree while the other extracts (a blob the other's snapshot read,
    /// `knownBlobs`, is not read again), then takes the other's facts of the files both trees hold (`shared`) and
    /// builds its model while the other builds its own. Staging's history is read by one of them at a time
    /// (`History.stagingEvidence`), and the other finds it in the cache.
    static func alongside(rev: String, historyFrom tip: String, options: CheckOptions, taking shared: SharedExtraction,
                          knownBlobs: [GitOID: [UInt8]], _ open: @escaping @Sendable () throws -> Workspace) -> Started<Result<AuditReport, any Error>> {
        Started {
            Result {
                var ws = try open()
                ws.historyProgress = options.historyProgress
                let snap = try ws.snapshot(rev: rev, maxFileSize: options.maxFileSize, knownBlobs: knownBlobs)
                try snap.requireIntact()
                return try ws.audit(snap, profile: options.profile, historyFrom: tip, sharing: .take(shared))
            }
        }
    }

    /// `config-weakened` findings for what HEAD's config loosens against BASE's (the one in force).
    static func configWeakenings(_ repo: GitRepository, ws: Workspace, base: String, head: String) throws -> [Finding] {
        let baseConfig = try Workspace.committedConfig(repo: repo, rev: base, dirs: ws.configDirs, knownRules: Catalogue.ids)
        let headConfig: (path: String, bytes: [UInt8], config: Config)?
        do {
            headConfig = try Workspace.committedConfig(repo: repo, rev: head, dirs: ws.configDirs, knownRules: Catalogue.ids)
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
