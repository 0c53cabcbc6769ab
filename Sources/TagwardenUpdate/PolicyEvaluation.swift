import TagwardenBasics
import TagwardenPolicy
import TagwardenModel

/// What one ImagePolicy selects from its tag source: Flux's `status.latestRef`, or why there is none.
public struct PolicyOutcome: Sendable, Equatable {
    /// The policy (`Model.flux.policies` index).
    public let policy: PolicyID
    /// Its ImageRepository's `spec.image`, as written.
    public let image: String?
    public let tag: String?
    /// The selected tag's digest, when the policy reflects digests (`digestReflectionPolicy` `IfNotPresent` or
    /// `Always`) and the source gives it; nil otherwise.
    public let digest: String?
    /// Why the policy selects nothing (Flux's message where Flux has one); nil when it selects a tag.
    public let error: String?
    /// Why this run leaves the policy's fields alone though the policy may select a tag (`--image` names other
    /// images; `--partial` and the tag list has none of its image): a note, not an error.
    public var leftAlone: String? = nil
    /// Whether it selects nothing because the tag source has no tags of its image.
    public var noTags = false
    /// The ImageRepository it read: the policy's own, or the one a cluster's build pairs it with.
    public var repository: RepositoryID? = nil
    /// Why the registry gave no tag list for its image, when that is why it selects nothing.
    public var unreadable: String? = nil
}

/// Every ImagePolicy of the Model evaluated against a tag source, as image-reflector-controller evaluates it.
public enum PolicyEvaluation {
    /// Every policy, evaluated on all cores (each compiles its patterns); the tags are read first, once per image.
    /// `only` (normalised names): the images whose tags are read; the others' policies are left alone.
    public static func evaluate(_ model: Model, tags source: some TagSource, only: Set<String>? = nil) throws -> [PolicyOutcome] {
        var tags: [String: [TagRecord]] = [:]
        var unreadable: [String: String] = [:]
        var images: [String] = []
        // (an image whose variables are not known here is no registry's)
        let resolvable = model.flux.repositories.filter { r in
            r.unresolvedVariables.isEmpty && (only == nil || r.spec.image.map { only!.contains(ImageReference.normalizeName($0.value) ?? $0.value) } == true)
        }
        for r in resolvable { if let image = r.spec.image?.value, !images.contains(image) { images.append(image) } }
        source.prefetch(images)
        for r in resolvable {
            guard let image = r.spec.image?.value, tags[image] == nil, unreadable[image] == nil else { continue }
            // one registry that cannot be read fails its policies, as an ImageRepository that cannot scan does in Flux
            do {
                if let records = try source.tags(of: image) { tags[image] = records }
            } catch let e as TagwardenError {
                unreadable[image] = e.message
            }
        }
        let known = KnownTags(entries: tags)
        let count = model.flux.policies.count
        var outcomes = concurrentChunks(count, chunkSize: 64) { range in
            range.map { n in let p = PolicyID(n); return (try? evaluate(model, policy: p, tags: known)) ?? PolicyOutcome(policy: p, image: nil, tag: nil, digest: nil, error: "no tags") }
        }
        // a policy that a cluster's build pairs with another build of its ImageRepository (a shared base each cluster
        // substitutes) selects from that cluster's repository too
        var paired = Set<[Int]>()
        for (p, policy) in model.flux.policies.withIDs {
            guard let linked = policy.repository else { continue }
            for c in model.clusters(deploying: policy.object) {
                guard let own = model.repository(of: p, in: c), own != linked, paired.insert([p.index, own.index]).inserted else { continue }
                outcomes.append((try? evaluate(model, policy: p, repository: own, tags: known))
                                ?? PolicyOutcome(policy: p, image: nil, tag: nil, digest: nil, error: "no tags"))
            }
        }
        for k in outcomes.indices {
            if let only, !only.contains(outcomes[k].image.map { ImageReference.normalizeName($0) ?? $0 } ?? "") {
                outcomes[k].leftAlone = "left alone: --image names other images than \(outcomes[k].image ?? "this policy's")"
            }
            if let image = outcomes[k].image, let why = unreadable[image] {
                outcomes[k] = PolicyOutcome(policy: outcomes[k].policy, image: image, tag: nil, digest: nil, error: "cannot read the tags of \(image): \(why)",
                                            repository: outcomes[k].repository, unreadable: why)
            }
        }
        // a digest the listing did not give is asked of the source, once per image and tag (a registry: one HEAD)
        var wanted: [(image: String, tag: String)] = []
        var seen: Set<String> = []
        for o in outcomes where o.error == nil && o.digest == nil && model.flux.policies[o.policy].spec.reflectsDigests {
            if let image = o.image, let tag = o.tag, seen.insert(image + "\n" + tag).inserted { wanted.append((image, tag)) }
        }
        source.prefetchDigests(wanted)
        var asked: [String: String?] = [:]
        for k in outcomes.indices {
            let o = outcomes[k]
            guard o.error == nil, o.digest == nil, let image = o.image, let tag = o.tag, model.flux.policies[o.policy].spec.reflectsDigests else { continue }
            let key = image + "\n" + tag
            if asked[key] == nil { asked[key] = .some(try source.digest(of: image, tag: tag)) }
            if let digest = asked[key]!, ImageReference.checkDigest(digest) == nil {
                outcomes[k] = PolicyOutcome(policy: o.policy, image: image, tag: tag, digest: digest, error: nil, repository: o.repository)
            } else {
                let spec = model.flux.policies[o.policy].spec
                outcomes[k] = PolicyOutcome(policy: o.policy, image: image, tag: nil, digest: nil,
                                            error: "digestReflectionPolicy \(spec.digestReflection ?? "") needs the digest of tag \(tag), "
                                                + "which the tag source does not give", repository: o.repository)
            }
        }
        return outcomes
    }

    /// Tags already read from a source.
    struct KnownTags: TagSource, Sendable {
        let entries: [String: [TagRecord]]
        func tags(of image: String) throws -> [TagRecord]? { entries[image] }
    }

    /// Policy `p` evaluated on the tags of `repository` (its own by default: another is one a cluster's build pairs it with).
    static func evaluate(_ model: Model, policy p: PolicyID, repository: RepositoryID? = nil, tags source: some TagSource) throws -> PolicyOutcome {
        let policy = model.flux.policies[p]
        let read = repository ?? policy.repository
        func failed(_ image: String?, _ why: String) -> PolicyOutcome {
            PolicyOutcome(policy: p, image: image, tag: nil, digest: nil, error: why, repository: read)
        }
        guard let r = read else { return failed(nil, "its ImageRepository is not in the repository") }
        let repository = model.flux.repositories[r].spec
        guard let image = repository.image?.value else { return failed(nil, "its ImageRepository has no spec.image") }
        let unresolved = model.flux.repositories[r].unresolvedVariables
        guard unresolved.isEmpty else { return failed(image, Model.unresolvedImage(image, variables: unresolved)) }
        guard let records = try source.tags(of: image) else {
            var none = failed(image, "the tag source has no tags of \(image)")
            none.noTags = true
            return none
        }
        let evaluator: PolicyEvaluator
        do {
            // (the pattern as the Model compiled it, once for the policies that share it)
            evaluator = try PolicyEvaluator(PolicyDefinition(spec: policy.spec, repository: repository), compiled: policy.regex)
        } catch {
            return failed(image, error.message)
        }
        let result = evaluator.evaluate(records.map(\.tag))
        guard let tag = result.selected else { return failed(image, result.error ?? "no tag selected") }
        guard policy.spec.reflectsDigests else { return PolicyOutcome(policy: p, image: image, tag: tag, digest: nil, error: nil, repository: r) }
        // without the digest here, the caller asks the source for it
        let digest = records.first(where: { $0.tag == tag && $0.digest != nil })?.digest
        return PolicyOutcome(policy: p, image: image, tag: tag, digest: digest, error: nil, repository: r)
    }
}
