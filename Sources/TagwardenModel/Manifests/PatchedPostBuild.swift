import TagwardenBasics

extension Model {
    /// Flux Kustomizations whose `postBuild` a kustomization's strategic-merge patch file sets, as the build that applies
    /// them makes them: a cluster's `flux-system` Kustomization given its cluster's variables by a patch beside it
    /// (`patches: [{path: postBuild.yaml}]`), which the Kustomization's own file does not show. The patch's
    /// `substitute` values are merged over the target's, its `substituteFrom` list replaces the target's (a custom
    /// resource's lists have no merge key). A target is a Flux Kustomization of the patch's name (and namespace, when
    /// the patch gives one) in the patching kustomization's build; a base that several kustomizations patch is left as
    /// it is.
    static func patchPostBuilds(_ objects: inout Objects, files: Files, graph: IncludeGraph, builds: LazyBuildSets) {
        let patchers = graph.patchedBy
        guard !patchers.isEmpty else { return }
        var patches: [(patch: ObjectID, kustomizations: [ObjectID])] = []
        for (p, o) in objects.withIDs where o.isFluxKustomization && o.fluxKustomization?.postBuild != nil {
            if let users = patchers[files[o.file].path] { patches.append((p, users)) }
        }
        guard !patches.isEmpty else { return }
        let patchFiles = Set(patches.map { objects[$0.patch].file })
        for (t, target) in objects.withIDs where target.isFluxKustomization && !patchFiles.contains(target.file) {
            guard var spec = target.fluxKustomization else { continue }
            // the kustomizations whose build takes the target and patch it, and their patches
            var byUser: [ObjectID: [ObjectID]] = [:]
            for (p, users) in patches {
                let patch = objects[p]
                guard patch.name == target.name, patch.declaredNamespace == nil || patch.declaredNamespace == target.declaredNamespace else { continue }
                for k in users where builds.files(under: graph.directory(of: k)).contains(target.file) { byUser[k, default: []].append(p) }
            }
            // one base that several overlays patch each their own way (one per cluster) is one object here: its builds'
            // variables are theirs, which the topology reads per build (`Clusters`), not this object's
            guard byUser.count == 1, let (user, applying) = byUser.first else { continue }
            // in the order the kustomization lists them, each over the one before
            let dir = files[objects[user].file].directory
            let listed = objects[user].kustomizePatches.compactMap { Model.normalizePath(Sources.join(dir, $0)) }
            let ranked = applying.map { p in (p, listed.firstIndex(of: files[objects[p].file].path) ?? listed.count) }
            for (p, _) in ranked.sorted(by: { $0.1 < $1.1 }) {
                guard let post = objects[p].fluxKustomization?.postBuild else { continue }
                var merged = spec.postBuild ?? FluxKustomizationSpec.PostBuild()
                merged.substitute.merge(post.substitute) { _, new in new }
                if !post.substituteFrom.isEmpty { merged.substituteFrom = post.substituteFrom }
                spec.postBuild = merged
            }
            objects[t] = target.replacingFlux(.kustomization(spec))
        }
    }
}
