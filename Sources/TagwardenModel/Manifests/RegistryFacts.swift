/// What the registries say about a repository's images, for the rules only a registry can judge (`audit --registry`):
/// whether each tag a manifest names exists and which digest it names, and which marked fields are behind what their
/// policy selects now. Gathered by the update engine (it speaks to registries); read by the linter's rules.
public struct RegistryFacts: Sendable {
    /// What the registry holds under a tag.
    public enum Tag: Sendable, Equatable {
        /// The tag names `digest` (an index's, for a multi-arch image); `platforms` are the digests of an index's
        /// manifests, when they were read.
        case present(digest: String?, mediaType: String?, platforms: [String])
        /// The registry answered that there is no such tag (or no such repository).
        case missing
    }

    /// A marked field whose value is not what its policy selects now.
    public struct Behind: Sendable, Equatable {
        public let file: String
        public let line: Int
        public let column: Int
        public let current: String
        public let selected: String
        /// The marker's `$imagepolicy` value.
        public let setter: String

        public init(file: String, line: Int, column: Int, current: String, selected: String, setter: String) {
            self.file = file
            self.line = line
            self.column = column
            self.current = current
            self.selected = selected
            self.setter = setter
        }
    }

    /// By `RegistryFacts.key(name:tag:)`: the tags that were asked and answered.
    public var tags: [String: Tag] = [:]
    public var behind: [Behind] = []
    /// What could not be checked, and why (a policy without tags): for notes, never findings.
    public var notes: [String] = []

    /// An image whose registry could not be asked: how many of its tags, whether its tag list (which its policies
    /// select from), and the first reason.
    public struct Unanswered: Sendable, Equatable {
        public var tags: Int
        public var listing: Bool
        public var why: String
        public init(tags: Int, listing: Bool = false, why: String) { self.tags = tags; self.listing = listing; self.why = why }
    }
    /// By normalised image name: the images whose registry refused or could not be reached (`registry-unreachable`).
    public var unreachable: [String: Unanswered] = [:]

    public init() {}

    /// An image's normalised name and a tag, as `tags` is keyed.
    public static func key(name: String, tag: String) -> String { name + ":" + tag }
}
