import TagwardenPolicy

extension PolicyDefinition {
    /// Semver wins over alphabetical, which wins over numerical: the others are ignored, as in Flux.
    public init(spec: ImagePolicySpec, repository: ImageRepositorySpec?) {
        var choice: Choice?
        if let r = spec.semverRange { choice = .semver(r.value) }
        else if spec.hasAlphabetical { choice = .alphabetical(spec.alphabeticalOrder?.value ?? "") }
        else if spec.hasNumerical { choice = .numerical(spec.numericalOrder?.value ?? "") }
        self.init(choice: choice, pattern: spec.pattern?.value, extract: spec.extract?.value, hasFilter: spec.hasFilterTags,
                  exclusionList: repository?.exclusionList?.map(\.value), image: repository?.image?.value)
    }
}
