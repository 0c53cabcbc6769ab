import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
public struct Finding: Sendable {
    public var rule: String
    public var severity: Severity
    public var message: String
    /// Relative to the repository root, `/`-separated.
    public var file: String
    public var span: SourceSpan
    public var environment: String?
    public var object: ObjectRef?
    /// A severity the rule chose for this finding, below its default (`api-deprecated` for a removal far ahead); the
    /// config's severity for the rule still wins.
    public var ruleSeverity: Severity?
    /// What the finding is about when its span does not say it alone (the environment a policy crosses into, the text
    /// a substitution made of a reference): part of its fingerprint.
    public var subject: String?
    public var fingerprint = ""
    /// For `check --base --all`: whether the base lacked this finding.
    public var isNew: Bool?

    public init(rule: String, severity: Severity, message: String, file: String, span: SourceSpan,
                environment: String? = nil, object: ObjectRef? = nil, subject: String? = nil) {
        self.subject = subject
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
    /// It judges what Flux's image automation reads in every file under `update.path`, applied or not (the marker
    /// rules); the other rules judge objects, and only those of files some cluster of the repository applies.
    public let everyFile: Bool
    public let check: @Sendable (Model) -> [Finding]

    public init(_ id: String, everyFile: Bool = false, check: @escaping @Sendable (Model) -> [Finding]) {
        self.id = id
        self.everyFile = everyFile
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
        .objectInvalid, .imageEntryUnmatched, .markerDigestStale, .markerMixedPolicies, .apiDeprecated,
    ]
}
