import TagwardenBasics

extension Model {
    /// Flux Kustomizations whose `postBuild` a kustomization's strategic-merge patch file sets, as the build that applies
    /// them makes them: a cluster's `flux-system` Kustomization given its cluster's variables by a patch beside it
    /// (`patches: [{path: postBuild.yaml}]`), which the Kustomization's own file does not show. The patch's
    /// `substitute` values are merged over the target's, its `substituteFrom` list replaces the target's (a custom
    /// resource's lists have no merge key). A target is a Flux Kustomization of the patch's name (and namespace, when
    /// the patch gives one) in the patching kustomization's build.
    static func patchPostBuilds(_ objects: inout Objects, files: Files, graph: IncludeGraph) {
        let patchers = patchUsers(objects: objects, files: files)
        guard !patchers.isEmpty else { return }
        var patches: [(patch: ObjectID, kustomizations: [ObjectID])] = []
        for (p, o) in objects.withIDs where o.isFluxKustomization && o.fluxKustomization?.postBuild != nil {
            if let users = patchers[files[o.file].path] { patches.append((p, users)) }
        }
        guard !patches.isEmpty else { return }
        let patchFiles = Set(patches.map { objects[$0.patch].file })
        for (t, target) in objects.withIDs where target.isFluxKustomization && !patchFiles.contains(target.file) {
            guard var spec = target.fluxKustomization else { continue }
            var changed = false
            for (p, users) in patches {
                let patch = objects[p]
                guard patch.name == target.name, patch.declaredNamespace == nil || patch.declaredNamespace == target.declaredNamespace,
                      let post = patch.fluxKustomization?.postBuild,
                      users.contains(where: { builds($0, file: target.file, files: files, graph: graph) }) else { continue }
                var merged = spec.postBuild ?? FluxKustomizationSpec.PostBuild()
                merged.substitute.merge(post.substitute) { _, new in new }
                if !post.substituteFrom.isEmpty { merged.substituteFrom = post.substituteFrom }
                spec.postBuild = merged
                changed = true
            }
            if changed { objects[t] = target.replacingFlux(.kustomization(spec)) }
        }
    }

    /// Whether kustomization `k`'s build takes `file`: up the `resources:` chains from the file (or its directory).
    private static func builds(_ k: ObjectID, file: FileID, files: Files, graph: IncludeGraph) -> Bool {
        let path = files[file].path
        var open = graph.includers(of: path) + graph.includers(of: Path.dirname(path))
        var seen: Set<ObjectID> = []
        while let next = open.popLast() {
            if next == k { return true }
            guard seen.insert(next).inserted, seen.count < 256 else { continue }
            open += graph.parents(of: next, depth: 0)
        }
        return false
    }
}
