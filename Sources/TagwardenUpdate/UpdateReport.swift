import TagwardenBasics
import TagwardenModel

/// What an update did, or would do: the plan, and what became of it (files written, a commit, a push).
public struct UpdateReport: Sendable {
    public enum Mode: String, Sendable { case dryRun = "dry-run", write, commit }

    public let mode: Mode
    public let plan: UpdatePlan
    /// Files written (`--write`, or `--commit` on the branch checked out).
    public var written: [String] = []
    /// The commits made (`--commit`): by which automation, on which branch, and whether pushed.
    public var commits: [(automation: String, branch: String, commit: String, pushed: Bool)] = []
    /// The pull requests opened or updated (`--pull-request`): for which branch, its address, and whether made now.
    public var pullRequests: [(branch: String, url: String, created: Bool)] = []

    public init(mode: Mode, plan: UpdatePlan) {
        self.mode = mode
        self.plan = plan
    }

    public var isUpToDate: Bool { plan.files.isEmpty }

    /// A run that changes nothing, as its reports end: up to date only when nothing stood in the way — a policy that
    /// could not choose (an error) is no proof that its fields are current, and an automation not run or a change not
    /// written (a warning) is said beside it.
    /// (`place`: where the report lists them, "above" or "below").
    public func noChange(_ place: String) -> String {
        let errors = plan.errors.count, warnings = plan.warnings.count
        if errors > 0 { return "no change, and \(errors) error\(errors == 1 ? "" : "s") \(place): not known to be up to date" }
        if warnings > 0 { return "no change, and \(warnings) warning\(warnings == 1 ? "" : "s") \(place)" }
        return "up to date"
    }

    // MARK: text

    /// One line per automation: what it changes, or why it did not run.
    public func summary() -> [String] {
        var lines: [String] = []
        for a in plan.automations {
            let paths = a.paths.map { $0.isEmpty ? "." : "./" + $0 }.joined(separator: ", ")
            let cluster = a.cluster.map { " in cluster \($0)" } ?? ""
            if let why = a.skipped {
                lines.append("\(a.namespace)/\(a.name)\(cluster): not run: \(why)")
            } else if a.changes.isEmpty {
                lines.append("\(a.namespace)/\(a.name)\(cluster) (\(paths)): up to date, \(count(a.markers.count, "marker"))")
            } else {
                lines.append("\(a.namespace)/\(a.name)\(cluster) (\(paths)): \(count(a.changes.count, "change")) in \(count(a.rewrites.count, "file"))")
            }
        }
        if plan.automations.isEmpty { lines.append("no ImageUpdateAutomation in the repository: nothing to update") }
        return lines
    }

    /// Every marker under each automation's paths and what happens to it.
    public func explanation(_ model: Model) -> String {
        var out = ""
        for o in plan.policies {
            let p = model.flux.policies[o.policy]
            out += "ImagePolicy \(p.namespace ?? "")/\(p.name): "
            if let tag = o.tag {
                out += "selects \(tag)" + (o.digest.map { " (\($0))" } ?? "") + " of \(o.image ?? "")\n"
            } else {
                out += "selects nothing: \(o.error ?? "")\n"
            }
        }
        for a in plan.automations {
            out += "ImageUpdateAutomation \(a.namespace)/\(a.name)" + (a.cluster.map { " in cluster \($0)" } ?? "")
            if let why = a.skipped { out += ": not run: \(why)\n"; continue }
            out += " (update.path \(a.paths.map { $0.isEmpty ? "." : "./" + $0 }.joined(separator: ", ")))\n"
            if a.markers.isEmpty && a.unreadable.isEmpty { out += "  no marker Flux reads\n" }
            let changes = Dictionary(grouping: a.changes, by: { "\($0.file):\($0.line):\($0.column)" })
            for m in a.markers {
                let at = "\(m.file):\(m.line):\(m.column)"
                switch m.status {
                case .changed:
                    let c = changes[at]?.first
                    out += "  \(at) \(m.setter): changed \(c?.oldValue ?? "") -> \(c?.newValue ?? "")\n"
                case .current:
                    out += "  \(at) \(m.setter): already current\n"
                case .skipped(let why):
                    out += "  \(at) \(m.setter): skipped: \(why)\n"
                }
            }
            for u in a.unreadable { out += "  \(u.path): skipped: Flux cannot read the file (\(u.reason))\n" }
            switch a.message {
            case .success(let m)?: out += "  commit message:\n" + m.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") + "\n"
            case .failure(let e)?: out += "  commit message: \(e.message)\n"
            case nil: break
            }
        }
        return out
    }

    // MARK: JSON

    public func json(_ model: Model) -> JSON {
        func str(_ s: String?) -> JSON { s.map(JSON.string) ?? .null }
        let policies: [JSON] = plan.policies.map { o in
            let p = model.flux.policies[o.policy]
            // the clusters whose builds pair the policy with the repository it read
            let reading = o.repository.map { Set(model.clusters(deploying: model.flux.repositories[$0].object)) }
            let clusters = model.clusters(deploying: p.object).filter { reading?.contains($0) ?? true }
                .map { JSON.string(model.clusters.clusters[$0].displayName) }
            return .object([("namespace", str(p.namespace)), ("name", .string(p.name)), ("image", str(o.image)), ("tag", str(o.tag)),
                            ("digest", str(o.digest)), ("error", str(o.error)), ("clusters", .array(clusters))])
        }
        func change(_ c: SetterChange) -> JSON {
            .object([("file", .string(c.file)), ("line", .int(c.line)), ("column", .int(c.column)), ("setter", .string(c.setter)),
                     ("old", .string(c.oldValue)), ("new", .string(c.newValue)),
                     ("object", .object([("apiVersion", .string(c.object.apiVersion)), ("kind", .string(c.object.kind)),
                                         ("namespace", .string(c.object.namespace)), ("name", .string(c.object.name))]))])
        }
        let automations: [JSON] = plan.automations.map { a in
            .object([
                ("namespace", .string(a.namespace)), ("name", .string(a.name)), ("cluster", str(a.cluster)),
                ("paths", .array(a.paths.map { .string($0) })),
                ("skipped", str(a.skipped)),
                ("markers", .array(a.markers.map { m in
                    var status = "", reason: String?
                    switch m.status {
                    case .changed: status = "changed"
                    case .current: status = "current"
                    case .skipped(let why): status = "skipped"; reason = why
                    }
                    return .object([("file", .string(m.file)), ("line", .int(m.line)), ("column", .int(m.column)),
                                    ("setter", .string(m.setter)), ("status", .string(status)), ("reason", str(reason))])
                })),
                ("unreadable", .array(a.unreadable.map { .object([("file", .string($0.path)), ("reason", .string($0.reason))]) })),
                ("changes", .array(a.changes.map(change))),
                ("message", { switch a.message {
                    case .success(let m)?: return .string(m)
                    default: return .null
                } }()),
                ("messageError", { if case .failure(let e)? = a.message { return .string(e.message) }; return .null }()),
            ])
        }
        return .object([
            ("version", .int(1)), ("mode", .string(mode.rawValue)), ("upToDate", .bool(isUpToDate)),
            ("policies", .array(policies)), ("automations", .array(automations)),
            ("files", .array(plan.files.map { f in .object([("path", .string(f.path)), ("changes", .array(f.changes.map(change)))]) })),
            ("errors", .array(plan.errors.map { .string($0) })), ("warnings", .array(plan.warnings.map { .string($0) })),
            ("notes", .array(plan.notes.map { .string($0) })),
            ("written", .array(written.map { .string($0) })),
            ("commits", .array(commits.map { c in
                .object([("automation", .string(c.automation)), ("branch", .string(c.branch)), ("commit", .string(c.commit)),
                         ("pushed", .bool(c.pushed))])
            })),
            ("pullRequests", .array(pullRequests.map { p in
                .object([("branch", .string(p.branch)), ("url", .string(p.url)), ("created", .bool(p.created))])
            })),
        ])
    }

    // MARK: Markdown

    /// A summary for a pull request's body: the changes as a table, then errors and warnings.
    public func markdown() -> String {
        // what a registry or the repository controls, as text: no HTML, no Markdown, no line of its own
        func cell(_ s: String) -> String { Escape.markdown(s, limit: 300) }
        var out = "## Image updates\n\n"
        if isUpToDate && plan.errors.isEmpty && plan.warnings.isEmpty {
            out += "Everything is up to date.\n"
        } else if isUpToDate {
            let said = noChange("below")
            out += said.prefix(1).uppercased() + said.dropFirst() + ".\n"
        } else {
            out += "| File | Line | Setter | From | To |\n|---|---|---|---|---|\n"
            for c in plan.changes {
                out += "| \(cell(c.file)) | \(c.line) | \(cell(c.setter)) | \(cell(c.oldValue)) | \(cell(c.newValue)) |\n"
            }
        }
        for c in commits { out += "\nCommit `\(c.commit)` on \(cell(c.branch))\(c.pushed ? ", pushed" : "") (\(cell(c.automation))).\n" }
        for p in pullRequests { out += "\nPull request \(p.created ? "opened" : "updated") for \(cell(p.branch)): \(cell(p.url))\n" }
        if !plan.errors.isEmpty { out += "\n### Errors\n\n" + plan.errors.map { "- \(Escape.markdown($0, limit: 2000))\n" }.joined() }
        if !plan.warnings.isEmpty { out += "\n### Warnings\n\n" + plan.warnings.map { "- \(Escape.markdown($0, limit: 2000))\n" }.joined() }
        return out
    }

    func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
