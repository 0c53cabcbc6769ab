import TagwardenModel

/// The audit of a workspace's snapshot: the linter's request, with staging's history for the promotion rules.
extension Workspace {
    public func request(_ snapshot: SourceSnapshot, profile: String?, sharing: SharedExtraction.Role? = nil) -> AuditRequest {
        AuditRequest(snapshot: snapshot, config: config, profile: profile, reportPrefix: prefix, sharing: sharing)
    }

    /// Audits a snapshot; in a git repository the promotion rules get staging's history from `tip`.
    /// `registry`: what the registries say, for `audit --registry`. `sharing`: another audit's facts to take, or this
    /// one's to offer.
    public func audit(_ snapshot: SourceSnapshot, profile: String?, historyFrom tip: String?, sharing: SharedExtraction.Role? = nil,
                      registry: (Model) throws -> RegistryFacts? = { _ in nil }) throws -> AuditReport {
        try Linter.audit(request(snapshot, profile: profile, sharing: sharing),
                         evidence: { model in try History.stagingEvidence(repo: repo, tip: tip, model: model, progress: historyProgress) },
                         registry: registry)
    }
}
