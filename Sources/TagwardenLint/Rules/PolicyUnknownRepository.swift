import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let policyUnknownRepository = Rule("policy-unknown-repository") { c in
        let m = c.model
        var out: [Finding] = []
        var suggesters: [String?: Suggester] = [:]   // by the namespace asked for
        // the ImageRepositories' names by namespace, and by the name their file gives them (kustomize renamed them)
        var namesIn: [String?: [String]] = [:]
        var renamedFrom: [String: [RepositoryID]] = [:]
        for (r, repo) in m.flux.repositories.withIDs {
            namesIn[repo.namespace, default: []].append(repo.name)
            if let written = m.writtenName[repo.object] { renamedFrom[written, default: []].append(r) }
        }
        /// the names a reference into `namespace` may mean: those in it, and those whose namespace nothing sets
        func names(in namespace: String?) -> [String] {
            guard let namespace else { return m.flux.repositories.map(\.name) }
            return (namesIn[namespace] ?? []) + (namesIn[nil] ?? [])
        }
        for (p, policy) in m.flux.policies.withIDs where !m.flux.nonResources.contains(policy.object) {
            guard let ref = policy.spec.repositoryName else {
                out.append(c.finding("policy \(m.policyName(p)) has no imageRepositoryRef.name",
                                     policy: p, span: m.objects[policy.object].kindSpan))
                continue
            }
            let targetNamespace = policy.spec.repositoryNamespace ?? policy.namespace
            guard let r = policy.repository else {
                if suggesters[targetNamespace] == nil {
                    suggesters[targetNamespace] = Suggester(names(in: targetNamespace))
                }
                var hint = suggesters[targetNamespace]!.nearest(ref.value).map { ": did you mean '\($0)'?" } ?? ""
                // renamed by kustomize, which rewrites no reference to an ImageRepository
                if let renamed = renamedFrom[ref.value]?.lazy.map({ m.flux.repositories[$0] })
                    .first(where: { FluxIndex.sameNamespace($0.namespace, targetNamespace) }) {
                    hint = ": kustomize's namePrefix/nameSuffix renames ImageRepository \(ref.value) to \(renamed.name) "
                        + "(\(m.files[m.objects[renamed.object].file].path)) and does not rewrite imageRepositoryRef; name '\(renamed.name)'"
                }
                out.append(c.finding("no ImageRepository \(targetNamespace ?? "<no namespace>")/\(ref.value) in the repository\(hint)",
                                     policy: p, at: ref))
                continue
            }
            let repo = m.flux.repositories[r]
            // a reference written with `${…}`: which namespace it names is the build's to say, not judged here
            if policy.spec.repositoryNamespace?.containsBytes("${") == true { continue }
            guard let from = policy.namespace, let to = repo.namespace, from != to else { continue }
            guard let selectors = repo.spec.accessSelectors else {
                out.append(c.finding("ImageRepository \(to)/\(repo.name) has no accessFrom, so policy \(m.policyName(p)) in namespace \(from) may not use it",
                                     policy: p, at: ref))
                continue
            }
            // the API server labels every Namespace with its name (Flux's own accessFrom example selects by it), whether the
            // Namespace is defined here or elsewhere; the other labels of one defined elsewhere are not known here
            let defined = m.namespaceLabels[from]
            let labels = defined ?? ["kubernetes.io/metadata.name": from]
            // (or as a build that applies the Namespace labels it: kustomize's `labels:`, Flux's `commonMetadata`)
            if !selectors.contains(where: { FluxIndex.matches($0, labels, orAsLabelled: m.namespaceAddedLabels[from] ?? []) }) {
                var f = c.finding("the accessFrom of ImageRepository \(to)/\(repo.name) does not admit namespace \(from) (labels \(labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")))",
                                  policy: p, at: ref)
                if defined == nil {
                    f.assume("no Namespace \(from) is defined in this repository: assuming it has no label but the one the API server gives it")
                }
                out.append(f)
            }
        }
        return out
    }
}
