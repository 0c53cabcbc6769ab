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
}

public struct AuditReport: Sendable {
    public var source: SourceInfo
    public var summary: Summary
    public var findings: [Finding]
    public var environments: EnvironmentModel
    /// The Flux the repository runs, for the text report's header (`Model.fluxHeader`).
    public var flux = ""
    /// Source bytes by file, for the text report's excerpts.
    public var sources: [String: [UInt8]]
    /// The model the findings came from (a caller may exit without tearing it down).
    public var model: Model?
    /// Seconds each rule took (for `TAGWARDEN_TIMINGS=1`).
    public var ruleTimings: [(rule: String, seconds: Double)] = []
}

public struct AuditRequest: Sendable {
    public var snapshot: SourceSnapshot
    public var config: Config
    public var profile: String?
    /// Report only findings under this relative path ("" or nil: everything). Resolution always uses the whole tree.
    public var reportPrefix: String?

    public init(snapshot: SourceSnapshot, config: Config, profile: String? = nil, reportPrefix: String? = nil) {
        self.snapshot = snapshot
        self.config = config
        self.profile = profile
        self.reportPrefix = reportPrefix
    }
}

/// Source → Model → rules → findings, in one pass.
public enum Engine {
    public static func audit(_ request: AuditRequest) -> AuditReport {
        let (model, skipped) = buildModel(request)
        return finish(request, model: model, skipped: skipped)
    }

    /// The same, with the promotion rules' evidence, which needs the model to know where staging lives.
    public static func audit(_ request: AuditRequest, evidence: (Model) throws -> PromotionEvidence?) throws -> AuditReport {
        var (model, skipped) = buildModel(request)
        Timings.mark("model")
        model.evidence = try evidence(model)
        Timings.mark("history")
        return finish(request, model: model, skipped: skipped)
    }

    /// The directories of Helm charts (holding a `Chart.yaml`), each with its trailing slash ("" for the root).
    static func chartDirectories(_ paths: [String]) -> [String] {
        paths.compactMap { p in p == "Chart.yaml" ? "" : p.hasSuffix("/Chart.yaml") ? String(p.dropLast("Chart.yaml".count)) : nil }
    }

    static func buildModel(_ request: AuditRequest) -> (Model, [SkippedFile]) {
        let config = request.config
        let ignore = config.ignore.map(Glob.init)
        var skipped = request.snapshot.skipped
        var files: [SourceFile] = []
        files.reserveCapacity(request.snapshot.files.count)
        // a Helm chart's templates are Go templates that render to YAML, not YAML: one note per chart
        let charts = chartDirectories(request.snapshot.files.map(\.path))
        var templates = [Int](repeating: 0, count: charts.count)
        var policyCharts = Set<Int>()   // charts whose templates make ImagePolicies
        // what the run parses in all: each byte of YAML costs some fifteen in the model
        let inputBudget = config.maxInputSize ?? Config.defaultMaxInputSize
        var input = 0
        /// Takes a file into the model's input: ignored, chart templates, other encodings and binary content first.
        func admit(_ f: SourceFile) {
            if let rel = config.relative(f.path), ignore.contains(where: { $0.matches(rel) }) { return }
            if !charts.isEmpty, let c = charts.firstIndex(where: { f.path.hasPrefix($0 + "templates/") }) {
                templates[c] += 1
                if SourceText.contains("ImagePolicy", in: f.bytes[...]) { policyCharts.insert(c) }
                return
            }
            var f = f
            switch SourceText.utf8(fromBOMEncoded: f.bytes) {
            case .success(let utf8)?:
                f.bytes = utf8
            case .failure(let e)?:
                // kustomize would refuse it too, but a file that cannot be read is never passed over in silence
                skipped.append(SkippedFile(path: f.path, reason: "cannot be read: it starts with a \(e.encoding) byte order mark but is not "
                                           + "valid \(e.encoding) at byte \(e.offset)", severity: .error))
                return
            case nil:
                break
            }
            if let nul = SourceText.firstNUL(f.bytes) {
                skipped.append(SkippedFile(path: f.path, reason: "binary content (a NUL byte at offset \(nul))"))
                return
            }
            guard input + f.bytes.count <= inputBudget else {
                skipped.append(SkippedFile(path: f.path, reason: "the run's input budget (maxInputSize, \(ByteCount.formatSize(inputBudget))) is spent: "
                                           + "not read; raise maxInputSize in .tagwarden.yaml, or ignore generated files", severity: .error))
                return
            }
            input += f.bytes.count
            files.append(f)
        }
        for f in request.snapshot.files { admit(f) }
        func build() -> Model {
            Model.build(files, config: config, profile: request.profile, remoteURLs: request.snapshot.remoteURLs,
                        policyCharts: policyCharts.sorted().map { charts[$0].isEmpty ? "." : String(charts[$0].dropLast()) })
        }
        var model = build()
        // kustomize reads every file a build names as YAML, whatever its name (`app.json`, `app.txt`): such files,
        // which the listing passed over, join the input, and the model is built again (only then)
        if let reader = request.snapshot.reader {
            let named = model.unlistedResources
            if !named.isEmpty {
                for path in named {
                    if let i = files.firstIndex(where: { $0.path == path }) {
                        files[i].namedByBuild = true   // listed for its markers only (`app.yaml.tpl`): a manifest now
                        continue
                    }
                    switch reader.read(path) {
                    case .success(let bytes)?: admit(SourceFile(path: path, bytes: bytes, namedByBuild: true))
                    case .failure(let e)?: skipped.append(SkippedFile(path: path, reason: e.message, severity: .error, damaged: e.isDamage))
                    case nil: break
                    }
                }
                model = build()
            }
        }
        for (c, n) in zip(charts, templates) where n > 0 {
            skipped.append(SkippedFile(path: c + "Chart.yaml", reason: "the chart's templates (\(n) file\(n == 1 ? "" : "s") under \(c)templates/) "
                + "are Helm templates, not YAML: not linted"))
        }
        skipped.removeAll { s in config.relative(s.path).map { rel in ignore.contains { $0.matches(rel) } } ?? false }
        return (model, skipped)
    }

    static func finish(_ request: AuditRequest, model: Model, skipped: [SkippedFile]) -> AuditReport {
        let config = request.config
        var (findings, timings) = runRules(model)
        Timings.mark("rules")

        var charts: [String]?
        for f in model.files {
            if let e = f.syntaxError {
                var end = e.position
                end.column += 1
                end.offset = min(end.offset + 1, f.bytes.count)
                findings.append(Finding(rule: "yaml-syntax", severity: .error, message: "YAML syntax error: \(e.message)",
                                        file: f.path, span: SourceSpan(start: e.position, end: end), subject: e.message))
            }
            for d in f.duplicateKeys {
                let message = d.key == d.firstKey
                    ? "duplicate key '\(d.key)' (first at line \(d.firstLine)): YAML keys must be unique, and kubectl and kustomize reject the file"
                    : "key '\(d.key)' is the key '\(d.firstKey)' (line \(d.firstLine)) once Go reads the YAML: kubectl, Helm and Flux's controllers keep one of the two values and drop the other without a word"
                findings.append(Finding(rule: "yaml-syntax", severity: .error, message: message, file: f.path, span: d.span))
            }
            for r in f.goRefusals {
                findings.append(Finding(rule: "yaml-syntax", severity: .error, message: r.message, file: f.path, span: r.span))
            }
            // Helm reads a chart's own files with go-yaml, which takes the later merge; kustomize reads the rest
            if !f.duplicateMergeKeys.isEmpty {
                let dirs = charts ?? chartDirectories(model.files.map(\.path))
                charts = dirs
                for d in f.duplicateMergeKeys where !dirs.contains(where: { f.path.hasPrefix($0) }) {
                    findings.append(Finding(rule: "yaml-syntax", severity: .error,
                                            message: "a second merge key '<<' in one mapping (first at line \(d.firstLine)): kustomize, which Flux's kustomize-controller runs, refuses the file; merge a list instead, `<<: [*a, *b]`",
                                            file: f.path, span: d.span))
                }
            }
        }
        let origin = SourcePosition(offset: 0, line: 1, column: 1)
        for s in skipped {
            var f = Finding(rule: "file-skipped", severity: s.severity, message: "skipped: \(s.reason)", file: s.path,
                            span: SourceSpan(start: origin, end: origin), subject: s.reason)
            if s.severity != .note { f.ruleSeverity = s.severity }
            findings.append(f)
        }
        findings = applySettings(findings, config: config)
        findings = applySuppressions(findings, model: model, config: config)
        if let prefix = request.reportPrefix, !prefix.isEmpty, prefix != "." {
            findings.removeAll { !($0.file == prefix || $0.file.hasPrefix(prefix + "/")) }
        }
        findings.sort(by: Engine.order)
        var sources: [String: [UInt8]] = [:]
        let withFindings = Set(findings.map(\.file))
        for f in model.files where withFindings.contains(f.path) { sources[f.path] = f.bytes }
        assignFingerprints(&findings, sources: sources)

        // the summary counts what is reported on: the files under PATH
        let prefix = request.reportPrefix ?? ""
        let inScope = model.files.map { prefix.isEmpty || prefix == "." || $0.path == prefix || $0.path.hasPrefix(prefix + "/") }
        var summary = Summary(files: inScope.filter { $0 }.count,
                              documents: zip(model.files, inScope).reduce(0) { $0 + ($1.1 ? $1.0.documents : 0) },
                              images: model.images.filter { inScope[$0.file] && $0.substitution?.isRepeat != true }.count,
                              markers: model.markers.filter { inScope[$0.file] }.count)
        for f in findings {
            switch f.severity {
            case .error: summary.errors += 1
            case .warning: summary.warnings += 1
            case .note: summary.notes += 1
            }
        }
        let snap = request.snapshot
        Timings.mark("findings")
        return AuditReport(source: SourceInfo(kind: snap.kind, root: snap.root, rev: snap.rev, base: nil),
                           summary: summary, findings: findings, environments: model.environments, flux: model.fluxHeader,
                           sources: sources, model: model, ruleTimings: timings)
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
        out.findings = head.findings.compactMap { f in
            var f = f
            f.isNew = !known.contains(f.fingerprint)
            if all || f.isNew == true || alwaysIn.contains(f.file) { return f }
            return nil
        }
        if !all { for i in out.findings.indices { out.findings[i].isNew = nil } }
        out.source.base = base?.source.rev
        var s = out.summary
        s.errors = out.findings.filter { $0.severity == .error }.count
        s.warnings = out.findings.filter { $0.severity == .warning }.count
        s.notes = out.findings.filter { $0.severity == .note }.count
        out.summary = s
        return out
    }

    static func order(_ a: Finding, _ b: Finding) -> Bool {
        if a.file != b.file { return SourceText.byteLess(a.file, b.file) }
        if a.span.start.line != b.span.start.line { return a.span.start.line < b.span.start.line }
        if a.span.start.column != b.span.start.column { return a.span.start.column < b.span.start.column }
        if a.rule != b.rule { return a.rule < b.rule }
        return a.message < b.message
    }

    static func runRules(_ model: Model) -> ([Finding], [(rule: String, seconds: Double)]) {
        let disabled = Set(model.config.rules.filter { $0.value.enabled == false }.map(\.key))
        let rules = Rule.all.filter { !disabled.contains($0.id) }
        final class Results: @unchecked Sendable {
            var items: [[Finding]] = []
            var seconds: [Double] = []
        }
        let results = Results()
        let unapplied = Set(model.files.indices.filter { !model.clusters.applies($0) }.map { model.files[$0].path })
        results.items = Array(repeating: [], count: rules.count)
        results.seconds = Array(repeating: 0, count: rules.count)
        results.items.withUnsafeMutableBufferPointer { buf in
            results.seconds.withUnsafeMutableBufferPointer { secs in
                nonisolated(unsafe) let out = buf
                nonisolated(unsafe) let time = secs
                DispatchQueue.concurrentPerform(iterations: rules.count) { i in
                    let t0 = monotonicSeconds()
                    out[i] = rules[i].check(model)
                    // objects of files no cluster applies are in no cluster; of those files, Flux's automation reads only
                    // the ones under an update.path
                    if !unapplied.isEmpty {
                        out[i].removeAll { f in unapplied.contains(f.file) && (!rules[i].everyFile || model.flux.covering(f.file).isEmpty) }
                    }
                    time[i] = monotonicSeconds() - t0
                }
            }
        }
        return (results.items.flatMap { $0 }, zip(rules, results.seconds).map { ($0.id, $1) })
    }

    /// Catalogue severities, then the config's: a different severity, or the rule turned off.
    static func applySettings(_ findings: [Finding], config: Config) -> [Finding] {
        findings.compactMap { f in
            var f = f
            if config.rules[f.rule]?.enabled == false { return nil }
            if let s = config.rules[f.rule]?.severity { f.severity = s }
            else if let own = f.ruleSeverity { f.severity = own }
            else if let severity = Catalogue.severities[f.rule] { f.severity = severity }
            return f
        }
    }

    /// `# tagwarden:ignore RULE reason` on the finding's line or the line above. A suppression that
    /// suppresses nothing is reported itself.
    static func applySuppressions(_ findings: [Finding], model: Model, config: Config) -> [Finding] {
        var byFile: [String: [Suppression]] = [:]
        for f in model.files where !f.suppressions.isEmpty { byFile[f.path] = f.suppressions }
        if byFile.isEmpty { return findings }
        var used = Set<String>()
        var out = findings.filter { f in
            guard let list = byFile[f.file] else { return true }
            for s in list where s.rules.contains(f.rule) && (s.line == f.span.start.line || s.line + 1 == f.span.start.line) {
                used.insert("\(f.file)\u{0}\(s.line)\u{0}\(f.rule)")
                return false
            }
            return true
        }
        if config.rules["suppression-unused"]?.enabled == false { return out }
        let severity = config.rules["suppression-unused"]?.severity ?? .note
        for (path, list) in byFile {
            for s in list {
                if s.rules.isEmpty {
                    out.append(Finding(rule: "suppression-unused", severity: severity,
                                       message: "tagwarden:ignore names no rule: write '# tagwarden:ignore RULE reason'",
                                       file: path, span: s.span))
                }
                for r in s.rules where !used.contains("\(path)\u{0}\(s.line)\u{0}\(r)") {
                    let message: String
                    if !Catalogue.ids.contains(r) {
                        let hint = Suggest.nearest(r, in: Array(Catalogue.ids)).map { " (did you mean '\($0)'?)" } ?? ""
                        message = "tagwarden:ignore names an unknown rule '\(r)'\(hint)"
                    } else {
                        message = "tagwarden:ignore \(r) suppresses nothing on this line or the next: remove it"
                    }
                    out.append(Finding(rule: "suppression-unused", severity: severity, message: message, file: path, span: s.span))
                }
            }
        }
        return out
    }

    /// A fingerprint that ignores line numbers and everything a finding's message says about the rest of the
    /// repository: the rule, the file, the object (kind, namespace, name), the offending text (the finding's span,
    /// blanks removed) and the finding's subject when the span does not say it alone, plus an occurrence count for
    /// identical keys. So a finding keeps its fingerprint when lines are inserted above it, or when a change elsewhere
    /// (a Flux upgrade bumping versions and labels, another policy that changes a "did you mean") changes its message.
    static func assignFingerprints(_ findings: inout [Finding], sources: [String: [UInt8]]) {
        var seen: [UInt64: Int] = [:]
        for i in findings.indices {
            let f = findings[i]
            var h = FNV1a()
            h.add(f.rule)
            h.add(0)
            h.add(f.file)
            h.add(0)
            if let o = f.object {
                h.add(o.kind)
                h.add(UInt8(ascii: "/"))
                h.add(o.namespace ?? "")
                h.add(UInt8(ascii: "/"))
                h.add(o.name ?? "")
            }
            h.add(0)
            if let bytes = sources[f.file] {
                let lo = min(f.span.start.offset, bytes.count), hi = min(max(f.span.end.offset, lo), bytes.count)
                for b in bytes[lo..<hi] where b != 32 && b != 9 && b != 10 && b != 13 { h.add(b) }
            }
            h.add(0)
            h.add(f.subject ?? "")
            let key = h.value
            let n = seen[key, default: 0]
            seen[key] = n + 1
            findings[i].fingerprint = hex64(fnv1a("\(key)\u{0}\(n)"))
        }
    }

    /// 64-bit FNV-1a, fed piece by piece.
    struct FNV1a {
        var value: UInt64 = 0xcbf29ce484222325
        mutating func add(_ b: UInt8) {
            value ^= UInt64(b)
            value = value &* 0x100000001b3
        }
        mutating func add(_ s: String) {
            for b in s.utf8 { add(b) }
        }
    }

    static func fnv1a(_ s: String) -> UInt64 {
        var h = FNV1a()
        h.add(s)
        return h.value
    }

    static func hex64(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
