import TagwardenBasics
import TagwardenYAML

extension Model {
    /// The labels builds add to the ImagePolicies and Namespaces they take, by object: a kustomization's `commonLabels`
    /// and `labels[].pairs`, which kustomize sets on every object of its build, and a Flux Kustomization's
    /// `commonMetadata.labels`, which kustomize-controller sets on every object it applies. One map per build that adds
    /// some: a base that several builds take may carry other labels in each. (What an automation's `policySelector` and
    /// an ImageRepository's `accessFrom` match is the object as applied, not as written.)
    static func labelsAddedByBuilds(objects: Objects, files: Files, builds: LazyBuildSets) -> [ObjectID: [[String: String]]] {
        guard objects.contains(where: { $0.kind == "ImagePolicy" || $0.kind == "Namespace" }) else { return [:] }
        var labelled: [FileID: [ObjectID]]?
        var out: [ObjectID: [[String: String]]] = [:]
        for o in objects where (o.isKustomization && o.kind != "Component") || o.isFluxKustomization {
            guard SourceText.contains("abels", in: files[o.file].bytes[o.byteRange]) else { continue }
            let y = files[o.file].yaml
            guard o.document < y.documents.count else { continue }
            let root = y.documents[o.document].root
            var added: [String: String] = [:]
            let dir: String
            if o.isKustomization {
                added = EffectiveObjects.kustomizeLabels(y, root)
                dir = files[o.file].directory
            } else {
                EffectiveObjects.scalarPairs(y, y.get(root, "spec", "commonMetadata", "labels"), into: &added)
                guard let path = o.fluxKustomization?.path.flatMap(normalizePath) else { continue }
                dir = path
            }
            guard !added.isEmpty else { continue }
            if labelled == nil {
                var byFile: [FileID: [ObjectID]] = [:]
                for (i, x) in objects.withIDs where x.kind == "ImagePolicy" || x.kind == "Namespace" { byFile[x.file, default: []].append(i) }
                labelled = byFile
            }
            for f in builds.files(under: dir) {
                for i in labelled![f] ?? [] where !(out[i]?.contains(added) ?? false) { out[i, default: []].append(added) }
            }
        }
        return out
    }
}
