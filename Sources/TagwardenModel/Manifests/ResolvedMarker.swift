/// A `$imagepolicy` comment with what the repository makes of it: the policy it names, its environment, the
/// automations that apply it, or why Flux skips it. The comment's own fields (`file`, `span`, `scalar`, `context`,
/// `ref` …) read through it.
@dynamicMemberLookup
public final class ResolvedMarker: Sendable {
    /// The comment as written, where it stands.
    public let comment: MarkerComment
    /// The policy it names, if it exists.
    public let policy: PolicyID?
    /// When several environments define the policy it names, the field is in none of them, and the automations that
    /// update it do not settle which: all of them (`policy` is then nil), and the environments of those automations
    /// (nil for one of no environment).
    public let candidates: [PolicyID]
    public let updatingEnvironments: Set<String?>
    /// When every ImagePolicy of its name is in a file known not to be deployed: the first, and why its file is not
    /// (`policy` is then nil: Flux has no such policy).
    public let undeployed: (policy: PolicyID, why: String)?
    /// Its environment: its object's, else that of the release whose values hold the field, else its file's.
    public let environment: String?
    /// The ImageUpdateAutomations that apply it.
    public let automations: [AutomationID]
    /// Why Flux's image automation skips it though it is written where Flux reads markers (the file does not parse, it
    /// is outside every automation's `update.path`, no automation that updates it uses the policy); nil when an
    /// automation applies it, or the repository has none.
    public let skipped: String?

    init(_ comment: MarkerComment, _ info: FluxIndex.MarkerInfo) {
        self.comment = comment
        policy = info.policy
        candidates = info.candidates
        updatingEnvironments = info.updatingEnvironments
        undeployed = info.undeployed
        environment = info.environment
        automations = info.automations
        skipped = info.skipped
    }

    @inlinable public subscript<T>(dynamicMember path: KeyPath<MarkerComment, T>) -> T { comment[keyPath: path] }
}
