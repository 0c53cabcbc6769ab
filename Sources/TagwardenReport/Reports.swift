import TagwardenBasics
import TagwardenYAML
import TagwardenModel
import TagwardenLint
/// Reports are pure functions of an AuditReport.
public enum ReportFormat: String, Sendable, CaseIterable {
    case text, json, sarif, github, markdown, gitlab, junit
}

public enum Reports {
    public static let toolName = "tagwarden"
    public static let informationURI = "https://github.com/tagwarden/tagwarden"

    public static func render(_ r: AuditReport, format: ReportFormat, color: Bool = false, quiet: Bool = false) -> String {
        switch format {
        case .text: return text(r, color: color, quiet: quiet)
        case .json: return json(r).serialized(pretty: true) + "\n"
        case .sarif: return sarif(r).serialized(pretty: true) + "\n"
        case .github: return github(r)
        case .markdown: return markdown(r)
        case .gitlab: return gitlab(r).serialized(pretty: true) + "\n"
        case .junit: return junit(r)
        }
    }

    // MARK: text

    static func environmentLines(_ model: EnvironmentModel) -> [String] {
        model.environments.map { e in
            // the tag rules in force and where they come from (`tagwarden env` has every setting's origin)
            var parts: [String] = [], origins = Set<String>()
            func add(_ part: String, _ key: String) {
                parts.append(part)
                if let o = e.origin[key] { origins.insert(o) }
            }
            if let p = e.tagPrefix { add("prefix \(p)", "tagPrefix") }
            if e.tagPattern != nil { add("tag pattern", "tagPattern") }
            if e.requireDigest { add("digests required", "requireDigest") }
            if e.requireReview { add("review required", "requireReview") }
            return "  \(e.name): " + (parts.isEmpty ? "no tag rules" : parts.joined(separator: ", "))
                + (origins.isEmpty ? "" : " (" + origins.sorted().joined(separator: "; ") + ")")
        }
    }

    public static func text(_ r: AuditReport, color: Bool, quiet: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = ""
        if !quiet {
            var what = "\(r.source.kind.rawValue) \(r.source.root)"
            if let rev = r.source.rev { what += " at \(rev.prefix(12))" }
            if let base = r.source.base { what += " (new since \(base.prefix(12)))" }
            out += "tagwarden \(Version.current): \(visible(what))\n"
            out += "environments: \(visible(r.environments.source))\n"
            for l in environmentLines(r.environments) { out += visible(l) + "\n" }
            if !r.flux.isEmpty { out += "flux: \(visible(r.flux))\n" }
            if let applied = r.applied { out += "applied: \(visible(applied))\n" }
            out += "\n"
        }
        var lines: [String: LineIndex] = [:]
        for f in r.findings {
            let sev: String
            switch f.severity {
            case .error: sev = paint("error", "1;31")
            case .warning: sev = paint("warning", "1;33")
            case .note: sev = paint("note", "1;36")
            }
            let new = f.isNew == true ? " (new)" : ""
            // a line that starts with `::` would be a workflow command in a GitHub Actions log
            let file = f.file.hasPrefix("::") ? "./" + visible(f.file) : visible(f.file)
            out += paint("\(file):\(f.span.start.line):\(f.span.start.column):", "1") + " \(sev)[\(f.rule)]: \(visible(f.message))\(new)\n"
            if let bytes = r.sources[f.file], f.span.start.offset > 0 || f.span.end.offset > 0 || f.rule != "file-skipped" {
                if lines[f.file] == nil { lines[f.file] = LineIndex(bytes) }
                let line = lines[f.file]!.text(bytes, line: f.span.start.line)
                if !line.isEmpty {
                    let gutter = "\(f.span.start.line)"
                    let endCol = f.span.end.line == f.span.start.line ? f.span.end.column : Int.max
                    let shown = excerpt(line, from: f.span.start.column, to: endCol)
                    out += " \(gutter) | \(shown.text)\n"
                    let pad = String(repeating: " ", count: shown.caret)
                    out += " \(String(repeating: " ", count: gutter.count)) | \(pad)" + paint("^" + String(repeating: "~", count: shown.length - 1), "1;32") + "\n"
                }
            }
        }
        if !quiet || !r.findings.isEmpty {
            let s = r.summary
            out += (r.findings.isEmpty ? "" : "\n")
                + "\(count(s.errors, "error")), \(count(s.warnings, "warning")), \(count(s.notes, "note"))"
                + " in \(count(s.files, "file")) (\(count(s.documents, "document")), \(count(s.images, "image")), \(count(s.markers, "marker")))\n"
        }
        return out
    }

    /// "1 file", "2 files".
    static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    // MARK: json

    static func objectJSON(_ o: ObjectRef?) -> JSON {
        guard let o else { return .null }
        return .object([("apiVersion", .string(o.apiVersion)), ("kind", .string(o.kind)),
                        ("namespace", o.namespace.map(JSON.string) ?? .null), ("name", o.name.map(JSON.string) ?? .null)])
    }

    public static func json(_ r: AuditReport) -> JSON {
        let s = r.summary
        var findings: [JSON] = []
        for f in r.findings {
            var kv: [(String, JSON)] = [
                ("rule", .string(f.rule)), ("severity", .string(f.severity.rawValue)), ("message", .string(f.message)),
                ("file", .string(f.file)), ("line", .int(f.span.start.line)), ("column", .int(f.span.start.column)),
                ("endLine", .int(f.span.end.line)), ("endColumn", .int(f.span.end.column)),
                ("environment", f.environment.map(JSON.string) ?? .null), ("object", objectJSON(f.object)),
                ("fingerprint", .string(f.fingerprint)),
            ]
            if let isNew = f.isNew { kv.append(("new", .bool(isNew))) }
            if let premise = f.assumption { kv.append(("assumption", .string(premise))) }
            findings.append(.object(kv))
        }
        return .object([
            ("version", .int(1)),
            ("tool", .object([("name", .string(toolName)), ("version", .string(Version.current))])),
            ("source", .object([("kind", .string(r.source.kind == .directory ? "worktree" : r.source.kind.rawValue)),
                                ("root", .string(r.source.root)),
                                ("rev", r.source.rev.map(JSON.string) ?? .null),
                                ("base", r.source.base.map(JSON.string) ?? .null)])),
            ("summary", .object([("files", .int(s.files)), ("documents", .int(s.documents)), ("images", .int(s.images)),
                                 ("markers", .int(s.markers)),
                                 ("findings", .object([("error", .int(s.errors)), ("warning", .int(s.warnings)), ("note", .int(s.notes))]))])),
            ("findings", .array(findings)),
        ])
    }

    /// Indices of `findings`, errors first, then warnings, then notes, each in report order: what a report that
    /// cannot hold them all keeps.
    static func mostSevereFirst(_ findings: [Finding]) -> [Int] {
        findings.indices.sorted { a, b in
            let x = findings[a].severity, y = findings[b].severity
            return x != y ? x > y : a < b
        }
    }

    /// "3 errors, 1 warning" for the findings not in `except`.
    static func severityCounts(_ findings: [Finding], except: Set<Int>) -> String {
        var left: [Severity: Int] = [:]
        for i in findings.indices where !except.contains(i) { left[findings[i].severity, default: 0] += 1 }
        return [Severity.error, .warning, .note].compactMap { s in left[s].map { count($0, s.rawValue) } }.joined(separator: ", ")
    }

    // MARK: sarif

    static func sarifLevel(_ s: Severity) -> String { s.rawValue }

    /// Results one SARIF run may hold for GitHub code scanning (GitHub documents 25,000 results per run).
    static let sarifResultLimit = 25_000

    public static func sarif(_ r: AuditReport) -> JSON {
        let rules = Catalogue.rules
        var index: [String: Int] = [:]
        var descriptors: [JSON] = []
        for (i, info) in rules.enumerated() {
            index[info.id] = i
            let help = "\(info.rationale)\n\nFix: \(info.fix)"
            descriptors.append(.object([
                ("id", .string(info.id)),
                ("name", .string(info.id.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined())),
                ("shortDescription", .object([("text", .string(info.summary))])),
                ("fullDescription", .object([("text", .string(String(info.rationale.prefix(1000))))])),
                ("help", .object([("text", .string(help)), ("markdown", .string("\(info.rationale)\n\n**Fix:** \(info.fix)"))])),
                // the rule's section of docs/rules.md (GitHub's anchor of its `## id` heading)
                ("helpUri", .string("\(informationURI)/blob/main/docs/rules.md#\(info.id)")),
                ("defaultConfiguration", .object([("level", .string(sarifLevel(info.severity)))])),
                ("properties", .object([("tags", .array([.string("gitops"), .string("flux")])), ("precision", .string("very-high"))])),
            ]))
        }
        // GitHub code scanning rejects a run of more than 25,000 results: keep the most severe, in report order
        var kept = r.findings
        var leftOut = ""
        if kept.count > sarifResultLimit {
            let chosen = Set(mostSevereFirst(r.findings).prefix(sarifResultLimit))
            kept = r.findings.indices.filter { chosen.contains($0) }.map { r.findings[$0] }
            leftOut = severityCounts(r.findings, except: chosen)
        }
        var invocation: [(String, JSON)] = [("executionSuccessful", .bool(true))]
        if !leftOut.isEmpty {
            invocation.append(("toolExecutionNotifications", .array([.object([
                ("level", .string("warning")),
                ("message", .object([("text", .string("\(r.findings.count) findings; this run holds the \(sarifResultLimit) most severe, "
                    + "as GitHub code scanning accepts no more: left out \(leftOut). The json format has them all."))])),
            ])])))
        }
        var results: [JSON] = []
        for f in kept {
            var region: [(String, JSON)] = [("startLine", .int(f.span.start.line)), ("startColumn", .int(f.span.start.column)),
                                            ("endLine", .int(max(f.span.end.line, f.span.start.line))),
                                            ("endColumn", .int(max(f.span.end.column, f.span.start.column + (f.span.end.line > f.span.start.line ? 0 : 1))))]
            if f.span.end.line > f.span.start.line { region[3] = ("endColumn", .int(max(1, f.span.end.column))) }
            var kv: [(String, JSON)] = [
                ("ruleId", .string(f.rule)),
            ]
            if let i = index[f.rule] { kv.append(("ruleIndex", .int(i))) }
            kv.append(contentsOf: [
                ("level", .string(sarifLevel(f.severity))),
                ("message", .object([("text", .string(f.message))])),
                ("locations", .array([.object([("physicalLocation", .object([
                    ("artifactLocation", .object([("uri", .string(uriEscape(f.file))), ("uriBaseId", .string("%SRCROOT%"))])),
                    ("region", .object(region)),
                ]))])])),
                ("partialFingerprints", .object([("primaryLocationLineHash", .string(f.fingerprint + ":1")),
                                                 ("tagwarden/v1", .string(f.fingerprint))])),
            ])
            var props: [(String, JSON)] = []
            if let e = f.environment { props.append(("environment", .string(e))) }
            if let isNew = f.isNew { props.append(("new", .bool(isNew))) }
            if !props.isEmpty { kv.append(("properties", .object(props))) }
            results.append(.object(kv))
        }
        var category = "tagwarden/"
        if r.source.kind == .diff { category = "tagwarden/pr/" }
        return .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([
                ("tool", .object([("driver", .object([
                    ("name", .string(toolName)), ("version", .string(Version.current)), ("semanticVersion", .string(Version.current)),
                    ("informationUri", .string(informationURI)), ("rules", .array(descriptors)),
                ]))])),
                ("automationDetails", .object([("id", .string(category))])),
                ("originalUriBaseIds", .object([("%SRCROOT%", .object([("uri", .string(fileURI(r.source.root)))]))])),
                ("columnKind", .string("unicodeCodePoints")),
                ("invocations", .array([.object(invocation)])),
                ("results", .array(results)),
            ])])),
        ])
    }

    static func uriEscape(_ path: String) -> String { percentEncoded(path, keeping: "/") }

    static func fileURI(_ root: String) -> String {
        "file://" + uriEscape(root.hasSuffix("/") ? root : root + "/")
    }

    // MARK: gitlab

    /// GitLab's Code Quality report (the `codequality` artifact its merge request widget reads): an array of issues,
    /// each with `description`, `check_name`, `fingerprint` (unique in the report: GitLab shows one issue per
    /// fingerprint), `severity` (error → critical, warning → major, note → info) and `location.path` with
    /// `location.lines.begin`.
    public static func gitlab(_ r: AuditReport) -> JSON {
        .array(r.findings.map { f in
            let severity = f.severity == .error ? "critical" : f.severity == .warning ? "major" : "info"
            return .object([
                ("description", .string(f.message)), ("check_name", .string(f.rule)), ("fingerprint", .string(f.fingerprint)),
                ("severity", .string(severity)),
                ("location", .object([("path", .string(f.file)), ("lines", .object([("begin", .int(f.span.start.line))]))])),
            ])
        })
    }

    // MARK: junit

    /// A JUnit XML report (GitLab's `artifacts:reports:junit`, Jenkins, Azure DevOps): one test case per finding, named
    /// by its place and classed by its rule; an error or a warning is a failure (its `type` the severity), a note a
    /// passing case with the note as its output. A run without findings is one passing case, so that the report is
    /// never empty. Repository text is escaped for XML 1.0, whose documents cannot hold most controls.
    public static func junit(_ r: AuditReport) -> String {
        let failures = r.findings.filter { $0.severity != .note }.count
        let tests = max(r.findings.count, 1)
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\""
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tagwarden\" \(counts)>\n"
            + "  <testsuite name=\"tagwarden\" \(counts) skipped=\"0\">\n"
        if r.findings.isEmpty {
            let s = r.summary
            let what = "no findings in \(count(s.files, "file")) (\(count(s.images, "image")), \(count(s.markers, "marker")))"
            out += "    <testcase classname=\"tagwarden\" name=\"audit\">\n      <system-out>\(xml(what))</system-out>\n    </testcase>\n"
        }
        for f in r.findings {
            let place = "\(f.file):\(f.span.start.line):\(f.span.start.column)"
            out += "    <testcase classname=\"\(xml("tagwarden." + f.rule))\" name=\"\(xml(place))\" file=\"\(xml(f.file))\" line=\"\(f.span.start.line)\">\n"
            let detail = xml("\(place): \(f.severity.rawValue)[\(f.rule)]: \(f.message)")
            if f.severity == .note {
                out += "      <system-out>\(detail)</system-out>\n"
            } else {
                out += "      <failure type=\"\(f.severity.rawValue)\" message=\"\(xml(f.message))\">\(detail)</failure>\n"
            }
            out += "    </testcase>\n"
        }
        return out + "  </testsuite>\n</testsuites>\n"
    }

    /// Text as XML 1.0 character data or an attribute value: the markup characters as entities; the controls XML cannot
    /// hold (all below U+0020 but tab, line feed and carriage return, and U+FFFE, U+FFFF) and the unsafe ones
    /// (`Escape.isUnsafe`) written as `Escape.text` writes them.
    static func xml(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default:
                if Escape.isUnsafe(c) || c.value == 0xFFFE || c.value == 0xFFFF { out += Escape.text(String(c)) } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    // MARK: github

    /// Workflow commands: `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`.
    public static func github(_ r: AuditReport) -> String {
        func prop(_ s: String) -> String {
            data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
        }
        // the runner reads %25, %0D and %0A back (and %3A, %2C in properties); any other control (ESC, BEL, NUL …)
        // is written as %XX, which the log shows as such, and a bidirectional control as U+FFFD
        func data(_ s: String) -> String {
            var out = ""
            for c in s.replacingOccurrences(of: "%", with: "%25").unicodeScalars {
                if c.value < 0x20 || c.value == 0x7F { out += "%" + hexDigits(c.value, width: 2, uppercase: true) }
                else if Escape.isUnsafe(c) { out += "\u{FFFD}" }
                else { out.unicodeScalars.append(c) }
            }
            return out
        }
        var out = ""
        for f in r.findings {
            let cmd = f.severity == .error ? "error" : f.severity == .warning ? "warning" : "notice"
            var props = "file=\(prop(f.file)),line=\(f.span.start.line),col=\(f.span.start.column)"
            if f.span.end.line >= f.span.start.line {
                props += ",endLine=\(f.span.end.line)"
                if f.span.end.line == f.span.start.line { props += ",endColumn=\(f.span.end.column)" }
            }
            props += ",title=\(prop("tagwarden " + f.rule))"
            out += "::\(cmd) \(props)::\(data(f.message))\n"
        }
        // a step shows the first 10 annotations of each kind and drops the rest without a word: say so
        let s = r.summary
        if max(s.errors, s.warnings, s.notes) > githubAnnotationsPerKind {
            out += "tagwarden: \(count(s.errors, "error")), \(count(s.warnings, "warning")), \(count(s.notes, "note")): GitHub shows the first "
                + "\(githubAnnotationsPerKind) of each kind of a step as annotations; this log has them all, and a SARIF upload shows them in code scanning\n"
        }
        return out
    }

    /// Annotations of one kind (error, warning, notice) GitHub Actions shows per step (actions/toolkit, problem-matchers.md).
    static let githubAnnotationsPerKind = 10

    // MARK: markdown

    public static func markdown(_ r: AuditReport) -> String {
        let s = r.summary
        var out = "### Tagwarden\n\n"
        if r.findings.isEmpty {
            out += "No findings in \(count(s.files, "file")) (\(count(s.images, "image")), \(count(s.markers, "marker"))).\n"
            return out
        }
        out += "**\(count(s.errors, "error")), \(count(s.warnings, "warning")), \(count(s.notes, "note"))** in \(count(s.files, "file")).\n\n"
        out += "| Severity | Rule | Location | Message |\n|---|---|---|---|\n"
        let rows = r.findings.map { f in
            let icon = f.severity == .error ? "🔴 error" : f.severity == .warning ? "🟡 warning" : "🔵 note"
            return "| \(icon) | `\(f.rule)` | \(Escape.markdown(f.file, limit: 300)):\(f.span.start.line):\(f.span.start.column) | "
                + "\(Escape.markdown(f.message, limit: 1000))\(f.isNew == true ? " *(new)*" : "") |\n"
        }
        // a PR comment holds 65,536 characters (a step summary 1 MiB): past that, the most severe rows are kept
        var room = markdownLimit - out.utf8.count - 200
        var shown = Set<Int>()
        for i in mostSevereFirst(r.findings) {
            guard rows[i].utf8.count <= room else { break }
            room -= rows[i].utf8.count
            shown.insert(i)
        }
        for i in rows.indices where shown.contains(i) { out += rows[i] }
        if shown.count < rows.count {
            out += "\n… and \(count(rows.count - shown.count, "more finding")) not shown (\(severityCounts(r.findings, except: shown))), "
                + "to fit a PR comment: the json and sarif reports have them all.\n"
        }
        // a pull request's check: the wiring its findings touch, when it is small enough to read and fits the comment
        if r.source.kind == .diff, let model = r.model {
            let files = Set(r.findings.map(\.file))
            let part = WiringGraph.build(model, findings: r.headFindings ?? r.findings).touching(files: files)
            if !part.nodes.isEmpty && part.nodes.count <= 60 {
                let block = "\n<details><summary>The wiring these findings touch</summary>\n\n```mermaid\n" + part.mermaid() + "```\n\n</details>\n"
                if out.utf8.count + block.utf8.count <= markdownLimit { out += block }
            }
        }
        return out
    }

    /// Characters a Markdown report may take: GitHub's limit for a PR comment, 65,536, with some room to spare.
    static let markdownLimit = 60_000
}

extension Reports {
    /// A character as the text report shows it: a tab as a blank, a control character (which could drive the
    /// terminal: a double-quoted YAML string can hold an escape), a bidirectional control or a line separator
    /// (`Escape.isUnsafe`) as U+FFFD, so that every character stays one column.
    static func visible(_ c: Unicode.Scalar) -> Unicode.Scalar {
        c == "\t" ? " " : Escape.isUnsafe(c) ? "\u{FFFD}" : c
    }

    static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { visible($0) != $0 }) else { return s }
        return String(String.UnicodeScalarView(s.unicodeScalars.map(visible)))
    }

    /// A source line as the text report shows it under a finding: one column per character (`visible`), and a
    /// line wider than `width` columns cut to a window that starts a little before the span, "…" marking each cut.
    /// Returns the text, the caret's 0-based column in it, and the underline's length (at least 1).
    static func excerpt(_ line: String, from startColumn: Int, to endColumn: Int, width: Int = 200) -> (text: String, caret: Int, length: Int) {
        let chars = line.unicodeScalars.map(visible)
        let start = min(max(0, startColumn - 1), chars.count)
        let end = max(min(endColumn - 1, chars.count), start + 1)
        var from = 0, to = chars.count
        if chars.count > width {
            from = max(0, min(start - 40, chars.count - width))
            to = min(chars.count, from + width)
        }
        var text = String.UnicodeScalarView()
        if from > 0 { text.append("…") }
        text.append(contentsOf: chars[from..<to])
        if to < chars.count { text.append("…") }
        let caret = start - from + (from > 0 ? 1 : 0)
        let length = max(1, min(end, to + (to < chars.count ? 0 : 1)) - start)
        return (String(text), caret, length)
    }
}
