import TagwardenPolicy

extension PolicyDefinition {
    public init(spec: ImagePolicySpec, repository: ImageRepositorySpec?) {
        self.init(choice: Self.choice(of: spec), pattern: spec.pattern?.value, extract: spec.extract?.value, hasFilter: spec.hasFilterTags,
                  exclusionList: repository?.exclusionList?.map(\.value), image: repository?.image?.value)
    }

    /// The policy's choice: semver wins over alphabetical, which wins over numerical; the others are ignored, as in Flux.
    /// (Inlinable: a caller that has the spec in a policy reads its fields, not a copy of the whole spec.)
    @inlinable public static func choice(of spec: ImagePolicySpec) -> Choice? {
        if let r = spec.semverRange { return .semver(r.value) }
        if spec.hasAlphabetical { return .alphabetical(spec.alphabeticalOrder?.value ?? "") }
        if spec.hasNumerical { return .numerical(spec.numericalOrder?.value ?? "") }
        return nil
    }
}
