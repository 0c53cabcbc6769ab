public struct Finding: Sendable {
    public var rule: String
    public var severity: Severity
    public var message: String
    /// Relative to the repository root, `/`-separated.
    public var file: String
    public var span: SourceSpan
    public var environment: String?
    public var object: ObjectRef?
    public var fingerprint = ""
    /// For `check --base --all`: whether the base lacked this finding.
    public var isNew: Bool?

    public init(rule: String, severity: Severity, message: String, file: String, span: SourceSpan,
                environment: String? = nil, object: ObjectRef? = nil) {
        self.rule = rule
        self.severity = severity
        self.message = message
        self.file = file
        self.span = span
        self.environment = environment
        self.object = object
    }
}

/// A rule: an id (its severity, texts and examples live in `rules/<id>.yaml`) and a check over the Model.
public struct Rule: Sendable {
    public let id: String
    public let check: @Sendable (Model) -> [Finding]

    public init(_ id: String, check: @escaping @Sendable (Model) -> [Finding]) {
        self.id = id
        self.check = check
    }

    /// Every rule that reads the Model. `yaml-syntax`, `file-skipped` and `suppression-unused` are
    /// produced by the engine itself.
    public static let all: [Rule] = [
        .imageInvalidReference, .imageMissingTag, .imageLatestTag, .imageFloatingTag, .imageTagNotString,
        .imageNotPinned, .imageEnvPrefix, .imageTagPattern, .promotionUntestedDigest, .promotionRebuiltArtifact,
        .markerMalformed, .markerUnknownPolicy, .markerImageMismatch, .markerWrongForm, .markerEnvMismatch, .markerContested, .markerIgnored,
        .markerOverridden,
        .policyInvalidRegex, .policyCrossesEnvironment, .policySelectsNothing, .policyUnknownRepository, .policyUnused,
        .objectDuplicate, .automationUnknownSource, .automationMissingPath, .automationDirectPush, .automationInvalidTemplate,
        .apiRemoved, .policyInvalidSemver, .markerValueRejected, .policyFragileOrder, .markerDigestUnavailable,
        .objectInvalid, .imageEntryUnmatched, .markerDigestStale, .markerMixedPolicies,
    ]
}
