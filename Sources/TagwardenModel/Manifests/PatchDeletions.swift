import TagwardenBasics

extension Model {
    /// The objects that every kustomization naming their file deletes with one of its own patches: a strategic merge
    /// with `$patch: delete`, by its kind, name and namespace or by a `target` that selects the object. kustomize runs
    /// a kustomization's patches before its namespace and name affixes, so the object is selected as written; it is not
    /// in the build, nor in any build above. The image-automation kinds are followed whole by `EffectiveObjects`.
    static func deletedByPatches(objects: Objects, files: Files, graph: IncludeGraph,
                                 stepsOf: [ObjectID: EffectiveObjects.Steps]) -> Set<ObjectID> {
        var deleting: [ObjectID: [EffectiveObjects.Selector]] = [:]
        for (k, steps) in stepsOf {
            let selectors = steps.early.compactMap { p -> EffectiveObjects.Selector? in
                let y = p.text.yaml
                guard y.nodes[p.root].kind == .mapping, y.string(p.root, "$patch") == "delete", let s = p.selector else { return nil }
                return s
            }
            if !selectors.isEmpty { deleting[k] = selectors }
        }
        guard !deleting.isEmpty else { return [] }
        var out = Set<ObjectID>()
        for (i, o) in objects.withIDs where !o.isKustomization && !EffectiveObjects.kinds.contains(o.kind) {
            let naming = graph.includers(of: files[o.file].path)
            let deleted = !naming.isEmpty && naming.allSatisfy { k in (deleting[k] ?? []).contains { $0.selectsAsWritten(o, in: files[o.file].yaml) } }
            if deleted { out.insert(i) }
        }
        return out
    }
}
