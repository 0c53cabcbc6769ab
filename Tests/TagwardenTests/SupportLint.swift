import Testing
@testable import TagwardenBasics
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenModel
@testable import TagwardenLint

/// Lints `files` (path relative to the repository root → text) in-process, as `tagwarden audit` lints a working tree
/// that holds them and no history: the files its listing reads (manifest names, and YAML-looking names only when
/// they hold a marker), any other file only when a kustomization names it, `.tagwarden.yaml` as the config (unless
/// `config` is given) and never as a manifest, the strict or default `profile`.
func lintReport(_ files: [String: String], config: String? = nil, profile: String? = nil) throws -> AuditReport {
    let configText = config ?? files[Config.fileName]
    var parsed = Config()
    if let configText { parsed = try Config.parse(Array(configText.utf8), path: Config.fileName, knownRules: Catalogue.ids) }
    let listed = files.keys.filter { path in
        guard path != Config.fileName else { return false }
        if Sources.isManifestName(path) { return true }
        return Sources.isUnreadYAMLName(path) && files[path]!.contains("$imagepolicy")
    }
    // the listing's order: each directory's entries by their bytes
    let sorted = listed.sorted { a, b in
        a.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            .lexicographicallyPrecedes(b.split(separator: "/", omittingEmptySubsequences: false).map(String.init)) { SourceText.byteLess($0, $1) }
    }
    var snapshot = SourceSnapshot(kind: .worktree, root: "/example", rev: nil,
                                  files: sorted.map { SourceFile(path: $0, bytes: Array(files[$0]!.utf8)) }, skipped: [])
    snapshot.reader = TreeReader { path in files[path].map { .success(Array($0.utf8)) } }
    return try Linter.audit(AuditRequest(snapshot: snapshot, config: parsed, profile: profile)) { model in
        try History.stagingEvidence(repo: nil, tip: nil, model: model)
    }
}

/// The findings of `lintReport`, in the reports' order.
func lint(_ files: [String: String], config: String? = nil, profile: String? = nil) throws -> [Finding] {
    try lintReport(files, config: config, profile: profile).findings
}

extension Finding {
    /// `rule file:line:column`: what the CLI tests read from a JSON report's findings.
    var rendered: String { "\(rule) \(position)" }
    /// `file:line:column` of the finding's start.
    var position: String { "\(file):\(line):\(column)" }
    var line: Int { span.start.line }
    var column: Int { span.start.column }
}

extension Array where Element == Finding {
    /// `rule file:line:column` of every finding.
    var rendered: [String] { map(\.rendered) }
}
