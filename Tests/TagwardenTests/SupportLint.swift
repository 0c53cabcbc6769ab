import Testing
@testable import TagwardenBasics
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenModel
@testable import TagwardenLint

/// Lints `files` (path relative to the repository root → text) in-process, as `tagwarden audit` lints a working tree
/// that holds them and no history: the files its listing reads (manifest names, and YAML-looking names only when
/// they hold a marker), any other file only when a kustomization names it, `.tagwarden.yaml` as the config (unless
/// `config` is given) and never as a manifest, the strict or default `profile`. Files no cluster applies are judged as
/// warnings that say so; a repository that describes no cluster at all is linted, unless `asFound`, as its config would
/// declare one cluster that applies every file (`appliedEverywhere`), so that its findings are those of applied files.
func lintReport(_ files: [String: String], config: String? = nil, profile: String? = nil, asFound: Bool = false) throws -> AuditReport {
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
    snapshot.reader = TreeReader({ path in files[path].map { .success(Array($0.utf8)) } },
                                 holdsFiles: { dir in files.keys.contains { $0.hasPrefix(dir + "/") } })
    func audit(_ config: Config) throws -> AuditReport {
        try Linter.audit(AuditRequest(snapshot: snapshot, config: config, profile: profile)) { model in
            try History.stagingEvidence(repo: nil, tip: nil, model: model)
        }
    }
    let report = try audit(parsed)
    guard !asFound, let applied = appliedEverywhere(parsed, report.model) else { return report }
    return try audit(applied)
}

/// `config` with one cluster that applies every file (`clusters: [{name: applied, paths: ["**"]}]`, what a tenant
/// repository's config declares), when the repository `model` describes no cluster and the config declares none.
func appliedEverywhere(_ config: Config, _ model: Model?) -> Config? {
    guard config.clusters.isEmpty, model?.clusters.clusters.isEmpty == true else { return nil }
    var config = config
    config.clusters = [ClusterConfig(name: "applied", paths: ["**"], origin: "\(Config.fileName):1")]
    return config
}

/// The findings of `lintReport`, in the reports' order.
func lint(_ files: [String: String], config: String? = nil, profile: String? = nil, asFound: Bool = false) throws -> [Finding] {
    try lintReport(files, config: config, profile: profile, asFound: asFound).findings
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
