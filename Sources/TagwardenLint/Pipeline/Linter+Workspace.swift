import TagwardenModel

/// The audit of a workspace's snapshot: the linter's request, with staging's history for the promotion rules.
extension Workspace {
    public func request(_ snapshot: SourceSnapshot, profile: String?) -> AuditRequest {
        AuditRequest(snapshot: snapshot, config: config, profile: profile, reportPrefix: prefix)
    }

    /// Audits a snapshot; in a git repository the promotion rules get staging's history from `tip`.
    /// `registry`: what the registries say, for `audit --registry`.
    public func audit(_ snapshot: SourceSnapshot, profile: String?, historyFrom tip: String?,
                      registry: (Model) throws -> RegistryFacts? = { _ in nil }) throws -> AuditReport {
        try Linter.audit(request(snapshot, profile: profile), evidence: { model in try History.stagingEvidence(repo: repo, tip: tip, model: model, progress: historyProgress) },
                         registry: registry)
    }
}
