import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

public struct SourceInfo: Sendable {
    public var kind: SourceKind
    public var root: String
    public var rev: String?
    public var base: String?
}

public struct Summary: Sendable {
    public var files = 0
    public var documents = 0
    public var images = 0
    public var markers = 0
    public var errors = 0
    public var warnings = 0
    public var notes = 0

    /// The errors, warnings and notes counted again, of `findings` (what a report keeps after a comparison or a baseline).
    mutating func count(_ findings: [Finding]) {
        (errors, warnings, notes) = (0, 0, 0)
        for f in findings {
            switch f.severity {
            case .error: errors += 1
            case .warning: warnings += 1
            case .note: notes += 1
            }
        }
    }
}

public struct AuditReport: Sendable {
    public var source: SourceInfo
    public var summary: Summary
    public var findings: [Finding]
    public var environments: EnvironmentModel
    /// The Flux the repository runs, for the text report's header (`Model.fluxHeader`).
    public var flux = ""
    /// What the header says of the files under PATH that no cluster here applies (`Model.appliedHeader`); nil when every
    /// one is applied.
    public var applied: String?
    /// Source bytes by file, for the text report's excerpts.
    public var sources: [String: [UInt8]]
    /// The model the findings came from (a caller may exit without tearing it down).
    public var model: Model?
    /// Seconds each rule took (for `TAGWARDEN_TIMINGS=1`).
    public var ruleTimings: [(rule: String, seconds: Double)] = []
    /// For a comparison (`check`): every finding of the head, the kept ones and the others, for what needs the
    /// whole picture (the wiring graph of a PR check tells a suppressed problem from one that is not new).
    public var headFindings: [Finding]?
}

public struct AuditRequest {
    public var snapshot: SourceSnapshot
    public var config: Config
    public var profile: String?
    /// Report only findings under this relative path ("" or nil: everything). Resolution always uses the whole tree.
    public var reportPrefix: String?
    /// The facts of another audit's files, to take or to offer (a check's two trees share the files they both hold).
    public var sharing: SharedExtraction.Role?

    public init(snapshot: SourceSnapshot, config: Config, profile: String? = nil, reportPrefix: String? = nil,
                sharing: SharedExtraction.Role? = nil) {
        self.snapshot = snapshot
        self.config = config
        self.profile = profile
        self.reportPrefix = reportPrefix
        self.sharing = sharing
    }
}

/// The linter: a snapshot's files → the Model → every rule → settings and suppressions → findings, in one pass.
public enum Linter {
    /// Audits a snapshot. `evidence`: what staging ran, for the promotion rules (given the Model, which knows where
    /// staging lives).
    /// `registry`: what the registries say about the model's images, for the rules only a registry can judge.
    public static func audit(_ request: AuditRequest,
                             evidence: (Model) throws -> PromotionEvidence? = { _ in nil },
                             registry: (Model) throws -> RegistryFacts? = { _ in nil }) rethrows -> AuditReport {
        let model = try Model.load(request.snapshot, config: request.config, profile: request.profile, sharing: request.sharing, evidence: evidence)
        return finish(request, model: model, registry: try registry(model))
    }

    static func finish(_ request: AuditRequest, model: Model, registry: RegistryFacts? = nil) -> AuditReport {
        let config = request.config
        let enabled = Rule.all.filter { config.rules[$0.id]?.enabled != false }
        var (findings, timings) = run(enabled.filter { !$0.judgesSuppressions }, on: model, registry: registry)
        Timings.mark("rules")
        findings = applySettings(findings, config: config)
        let used: Set<String>
        (findings, used) = applySuppressions(findings, model: model)
        let (verdicts, _) = run(enabled.filter(\.judgesSuppressions), on: model, suppressionsUsed: used)
        findings += applySettings(verdicts, config: config)
        findings.removeAll { !Linter.isUnder($0.file, prefix: request.reportPrefix) }
        findings.sort(by: Linter.order)
        var sources: [String: [UInt8]] = [:]
        let withFindings = Set(findings.map(\.file))
        // (by index: a loop over the files' facts copies each, retaining all it holds)
        for f in model.files.indices where withFindings.contains(model.files[f].path) { sources[model.files[f].path] = model.files[f].bytes }
        assignFingerprints(&findings, sources: sources)

        // the summary counts what is reported on: the files under PATH
        let inScope = model.files.indices.column { Linter.isUnder(model.files[$0].path, prefix: request.reportPrefix) }
        var summary = Summary(files: inScope.filter { $0 }.count,
                              documents: inScope.indices.reduce(0) { $0 + (inScope[$1] ? model.files[$1].documents : 0) },
                              images: model.images.filter { inScope[$0.file] && $0.substitution?.isRepeat != true }.count,
                              markers: model.markers.filter { inScope[$0.file] }.count)
        summary.count(findings)
        let snap = request.snapshot
        Timings.mark("findings")
        return AuditReport(source: SourceInfo(kind: snap.kind, root: snap.root, rev: snap.rev, base: nil),
                           summary: summary, findings: findings, environments: model.environments, flux: model.fluxHeader,
                           applied: model.appliedHeader(under: request.reportPrefix), sources: sources, model: model, ruleTimings: timings)
    }

    /// What a change introduces: the findings of `head` whose fingerprints `base` lacks (a finding that only
    /// moved keeps its fingerprint; so does one in a file the change renamed, old path → new path in
    /// `renamed`). `alwaysIn` keeps every finding in those files too (the staged files of a commit). With
    /// `all`, every head finding is kept and marked new or not.
    public static func compare(head: AuditReport, base: AuditReport?, renamed: [String: String] = [:], alwaysIn: Set<String> = [],
                               all: Bool = false) -> AuditReport {
        var baseFindings = base?.findings ?? []
        if let base, !renamed.isEmpty {
            // the base's findings as if its files already had their new names
            var sources: [String: [UInt8]] = [:]
            for (path, bytes) in base.sources { sources[renamed[path] ?? path] = bytes }
            for i in baseFindings.indices { baseFindings[i].file = renamed[baseFindings[i].file] ?? baseFindings[i].file }
            assignFingerprints(&baseFindings, sources: sources)
        }
        let known = Set(baseFindings.map(\.fingerprint))
        var out = head
        out.headFindings = head.findings
        out.findings = head.findings.compactMap { f in
            var f = f
            f.isNew = !known.contains(f.fingerprint)
            if all || f.isNew == true || alwaysIn.contains(f.file) { return f }
            return nil
        }
        if !all { for i in out.findings.indices { out.findings[i].isNew = nil } }
        out.source.base = base?.source.rev
        out.summary.count(out.findings)
        return out
    }

    /// Whether `path` is reported on by a run limited to `prefix` (the PATH given, relative to the root; nil, "" or ".":
    /// the whole repository).
    public static func isUnder(_ path: String, prefix: String?) -> Bool {
        guard let prefix, !prefix.isEmpty, prefix != "." else { return true }
        return path == prefix || path.hasPrefix(prefix + "/")
    }

    static func order(_ a: Finding, _ b: Finding) -> Bool {
        if a.file != b.file { return SourceText.byteLess(a.file, b.file) }
        if a.span.start.line != b.span.start.line { return a.span.start.line < b.span.start.line }
        if a.span.start.column != b.span.start.column { return a.span.start.column < b.span.start.column }
        if a.rule != b.rule { return a.rule < b.rule }
        return a.message < b.message
    }

    /// Runs rules over the Model in parallel, and keeps the findings their scope allows.
    static func run(_ rules: [Rule], on model: Model, suppressionsUsed: Set<String> = [],
                    registry: RegistryFacts? = nil) -> ([Finding], [(rule: String, seconds: Double)]) {
        // the files that are not applied, by path, with what is known of them (gathered while the first rules run)
        let unappliedFiles = Started { [model] () -> [String: FileID] in
            rules.allSatisfy({ $0.scope == .everyFile }) ? [:] : Dictionary(uniqueKeysWithValues:
                model.files.indices.filter { model.clusters.reach[$0] != .applied }.map { (model.files[$0].path, $0) })
        }
        let results = Locked<[(findings: [Finding], seconds: Double)]>(Array(repeating: ([], 0), count: rules.count))
        // the costly rules first, so that no core is left alone with one at the end (each rule's findings keep its place)
        let order = rules.indices.sorted { (heavyFirst[rules[$0].id] ?? Int.max, $0) < (heavyFirst[rules[$1].id] ?? Int.max, $1) }
        DispatchQueue.concurrentPerform(iterations: rules.count) { n in
            let i = order[n], rule = rules[i]
            let t0 = monotonicSeconds()
            var found = rule.check(RuleContext(rule: rule.id, model: model, suppressionsUsed: suppressionsUsed, registry: registry))
            if rule.scope != .everyFile {
                let unapplied = unappliedFiles.value
                if !unapplied.isEmpty { found = judgeUnapplied(found, scope: rule.scope, unapplied, model) }
            }
            let seconds = monotonicSeconds() - t0
            results.withLock { $0[i] = (found, seconds) }
        }
        let all = results.withLock { $0 }
        // variants of one written object (a base that builds patch differently) are judged each: a finding they share,
        // at the same place and in the same words, is one
        struct Key: Hashable { let rule: String, file: String, offset: Int, message: String, subject: String? }
        var seen = Set<Key>()
        let findings = all.flatMap(\.findings).filter { f in
            seen.insert(Key(rule: f.rule, file: f.file, offset: f.span.start.offset, message: f.message, subject: f.subject)).inserted
        }
        return (findings, zip(rules, all).map { ($0.id, $1.seconds) })
    }

    /// The rules that cost the most on large repositories (the 100,005-file bench fleet, `TAGWARDEN_TIMINGS=1`), in
    /// that order: they start first.
    static let heavyFirst: [String: Int] = Dictionary(uniqueKeysWithValues: [
        "object-duplicate", "marker-value-rejected", "automation-missing-path", "marker-image-mismatch", "kustomization-build-fails",
        "automation-invalid-template", "api-deprecated", "api-removed", "marker-digest-unavailable", "policy-crosses-environment",
        "image-floating-tag", "policy-unused", "object-invalid", "image-not-pinned", "policy-fragile-order", "policy-selects-nothing",
    ].enumerated().map { ($1, $0) })

    /// Findings in files that are not applied. One no cluster here reaches may be applied from outside: judged, as a
    /// warning that says so. One known not to be deployed is in no cluster: only what Flux's image automation reads
    /// there is judged (markers under the `update.path` of an automation a cluster applies as facts, other markers as
    /// warnings).
    /// `unapplied`: the files that are not applied, by path.
    static func judgeUnapplied(_ found: [Finding], scope: Rule.Scope, _ unapplied: [String: FileID], _ model: Model) -> [Finding] {
        found.compactMap { f in
            guard let file = unapplied[f.file] else { return f }
            // (image-automation-controller opens only the files that hold the `$imagepolicy` token: a template that does not
            // parse, without one, is no file it reads)
            if scope == .updatePaths, model.files[file].holdsMarkerToken, model.flux.covering(f.file).contains(where: { a in
                model.clusters.reach[model.objects[model.flux.automations[a].object].file] == .applied
            }) { return f }
            var f = f
            switch model.clusters.reach[file] {
            case .applied: break
            case .unreached: f.assume(model.clusters.unreachedPremise)
            case .assumed(let premise): f.assume(premise)
            case .notDeployed(let why):
                guard scope == .updatePaths else { return nil }
                f.assume("this file is not deployed: \(why)")
            }
            return f
        }
    }

    /// Catalogue severities, then the config's: a different severity, or the rule turned off.
    static func applySettings(_ findings: [Finding], config: Config) -> [Finding] {
        findings.compactMap { f in
            var f = f
            if config.rules[f.rule]?.enabled == false { return nil }
            if let s = config.rules[f.rule]?.severity { f.severity = s }
            else if let own = f.ruleSeverity { f.severity = own }
            else if let severity = Catalogue.severities[f.rule] { f.severity = severity }
            // what rests on an assumption is at most a warning, whatever the rule's severity
            if f.assumption != nil, f.severity == .error { f.severity = .warning }
            return f
        }
    }
}
