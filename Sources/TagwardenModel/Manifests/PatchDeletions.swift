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
            let selectors = steps.early.compactMap { $0.deletes ? $0.selector : nil }
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

    /// For each kustomization that changes resources, the targets of its patches that may delete or rename what they
    /// select (`Model.identityPatches`, `Patch.mayChangeIdentity`). Nil for one with Components, or whose patches may
    /// rename by option (`allowNameChange`, `allowKindChange`), or whose patch has no target read.
    static func identityPatches(objects: Objects, stepsOf: [ObjectID: EffectiveObjects.Steps]) -> [ObjectID: [EffectiveObjects.Selector]?] {
        var out: [ObjectID: [EffectiveObjects.Selector]?] = [:]
        for (k, o) in objects.withIDs where o.isKustomization && o.kustomizeChangesResources {
            guard let steps = stepsOf[k], steps.components.isEmpty, !steps.renamesByOption else { out[k] = .some(nil); continue }
            let changing = (steps.early + steps.late).filter(\.mayChangeIdentity)
            out[k] = .some(changing.contains { $0.selector == nil } ? nil : changing.compactMap(\.selector))
        }
        return out
    }
}
