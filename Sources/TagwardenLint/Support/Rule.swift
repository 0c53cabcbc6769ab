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
    /// The premise the finding rests on that is an assumption, not a fact read from the repository or the config (the
    /// Flux version, whether the file is applied): its message names it, and its severity is at most a warning.
    public var assumption: String?
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

    /// The finding rests on `premise`, an assumption: its message says so, in parentheses, and its severity is capped.
    public mutating func assume(_ premise: String) {
        message += " (\(premise))"
        assumption = assumption.map { $0 + "; " + premise } ?? premise
    }
}

/// A rule: its id (its default severity, texts and examples live in `rules/<id>.yaml`, embedded in the binary), which
/// files its findings may be in, and its check over the Model. Every rule is declared in its own file under
/// `Sources/TagwardenLint/Rules`, as a static property of `Rule`; `scripts/gen-catalogue` registers them (`Rule.all`).
public struct Rule: Sendable {
    /// Which findings of the rule are kept, by the file they are in.
    public enum Scope: Sendable {
        /// Findings in files some cluster of the repository applies; in files no cluster here reaches, as warnings that
        /// say so; none in files known not to be deployed.
        case appliedFiles
        /// Also findings in files under an image automation's `update.path` that hold the `$imagepolicy` token, applied
        /// or not: what Flux's image automation reads (the marker rules, `yaml-syntax`). In other files that are not
        /// applied, as warnings that say why.
        case updatePaths
        /// Findings in any file read (or not read: `file-skipped`).
        case everyFile
    }

    public let id: String
    public let scope: Scope
    /// It runs after the other rules' findings are matched with the suppressions, and judges the suppressions.
    public let judgesSuppressions: Bool
    let check: @Sendable (RuleContext) -> [Finding]

    public init(_ id: String, scope: Scope = .appliedFiles, judgesSuppressions: Bool = false,
                check: @escaping @Sendable (RuleContext) -> [Finding]) {
        self.id = id
        self.scope = scope
        self.judgesSuppressions = judgesSuppressions
        self.check = check
    }
}
