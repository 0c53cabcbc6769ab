import TagwardenBasics
import TagwardenPolicy
import TagwardenModel

/// What one ImagePolicy selects from its tag source: Flux's `status.latestRef`, or why there is none.
public struct PolicyOutcome: Sendable, Equatable {
    /// The policy (`Model.flux.policies` index).
    public let policy: Int
    /// Its ImageRepository's `spec.image`, as written.
    public let image: String?
    public let tag: String?
    /// The selected tag's digest, when the policy reflects digests (`digestReflectionPolicy` `IfNotPresent` or
    /// `Always`) and the source gives it; nil otherwise.
    public let digest: String?
    /// Why the policy selects nothing (Flux's message where Flux has one); nil when it selects a tag.
    public let error: String?
}

/// Every ImagePolicy of the Model evaluated against a tag source, as image-reflector-controller evaluates it.
public enum PolicyEvaluation {
    /// Every policy, evaluated on all cores (each compiles its patterns); the tags are read first, once per image.
    public static func evaluate(_ model: Model, tags source: some TagSource) throws -> [PolicyOutcome] {
        var tags: [String: [TagRecord]] = [:]
        for r in model.flux.repositories {
            guard let image = r.spec.image?.value, tags[image] == nil else { continue }
            if let records = try source.tags(of: image) { tags[image] = records }
        }
        let known = KnownTags(entries: tags)
        let count = model.flux.policies.count
        let outcomes = concurrentChunks(count, chunkSize: 64) { range in
            range.map { p in (try? evaluate(model, policy: p, tags: known)) ?? PolicyOutcome(policy: p, image: nil, tag: nil, digest: nil, error: "no tags") }
        }
        return outcomes
    }

    /// Tags already read from a source.
    struct KnownTags: TagSource, Sendable {
        let entries: [String: [TagRecord]]
        func tags(of image: String) throws -> [TagRecord]? { entries[image] }
    }

    static func evaluate(_ model: Model, policy p: Int, tags source: some TagSource) throws -> PolicyOutcome {
        let policy = model.flux.policies[p]
        func failed(_ image: String?, _ why: String) -> PolicyOutcome {
            PolicyOutcome(policy: p, image: image, tag: nil, digest: nil, error: why)
        }
        guard let r = policy.repository else { return failed(nil, "its ImageRepository is not in the repository") }
        let repository = model.flux.repositories[r].spec
        guard let image = repository.image?.value else { return failed(nil, "its ImageRepository has no spec.image") }
        guard let records = try source.tags(of: image) else { return failed(image, "the tag source has no tags of \(image)") }
        let evaluator: PolicyEvaluator
        do {
            evaluator = try PolicyEvaluator(PolicyDefinition(spec: policy.spec, repository: repository))
        } catch {
            return failed(image, error.message)
        }
        let result = evaluator.evaluate(records.map(\.tag))
        guard let tag = result.selected else { return failed(image, result.error ?? "no tag selected") }
        guard policy.spec.reflectsDigests else { return PolicyOutcome(policy: p, image: image, tag: tag, digest: nil, error: nil) }
        guard let digest = records.first(where: { $0.tag == tag && $0.digest != nil })?.digest else {
            return failed(image, "digestReflectionPolicy \(policy.spec.digestReflection ?? "") needs the digest of tag \(tag), "
                                 + "which the tag source does not give")
        }
        return PolicyOutcome(policy: p, image: image, tag: tag, digest: digest, error: nil)
    }
}
