extension Model {
    /// Marks the container images whose written tag never runs: the kustomize base/overlay layout, where a base
    /// says `image: ghcr.io/acme/web` (or `:latest`) and every overlay that builds it sets the tag with an
    /// `images:` entry. Such an image is `retagged` when its file is a resource of some kustomization and every
    /// way up from there to a build that deploys it passes a kustomization that retags its name — by its own
    /// `images:`, or by a Component it lists. A build deploys where a kustomization is included by none (`kubectl
    /// apply -k`), or where a Flux Kustomization's `path` builds it, unless every such Flux Kustomization retags the
    /// name in its `spec.images`. Names match as kustomize matches them: the entry's `name` is the image's name as
    /// written. Patches that replace the image are not followed: an image they replace is judged as written.
    static func markRetagged(_ images: [ImageUse], objects: [ManifestObject], files: [FileFacts], includedBy: [String: [Int]]) {
        guard objects.contains(where: { !$0.kustomizeRetags.isEmpty }) else { return }
        var components: [String: Int] = [:]      // directory → the kustomize Component there
        var fluxBuilders: [String: [Int]] = [:]  // directory → the Flux Kustomizations whose path it is
        for (i, o) in objects.enumerated() {
            if o.isKustomization, o.kind == "Component", Extractor.isKustomizationName(basename(files[o.file].path)) {
                components[dirname(files[o.file].path)] = i
            }
            if case .kustomization(let k)? = o.flux, let p = k.path.flatMap(normalizePath) { fluxBuilders[p, default: []].append(i) }
        }
        /// The names kustomization k retags: its own entries' and those of the Components it lists (gathered once).
        var retagNames: [Int: [String]] = [:]
        func retags(_ k: Int, _ name: String) -> Bool {
            if let names = retagNames[k] { return names.contains(name) }
            var names = objects[k].kustomizeRetags
            if !components.isEmpty {
                let dir = dirname(files[objects[k].file].path)
                for r in objects[k].kustomizeResources {
                    if let p = normalizePath(Sources.join(dir, r)), let c = components[p] { names += objects[c].kustomizeRetags }
                }
            }
            retagNames[k] = names
            return names.contains(name)
        }
        struct Key: Hashable { let kustomization: Int, name: String }
        var memo: [Key: Bool] = [:]
        /// Whether some build through kustomization k deploys `name` with the tag its manifest writes.
        func writtenTagRuns(_ k: Int, _ name: String, _ depth: Int) -> Bool {
            if retags(k, name) { return false }
            let key = Key(kustomization: k, name: name)
            if let known = memo[key] { return known }
            memo[key] = false   // a cycle of kustomizations deploys nothing more
            let dir = dirname(files[objects[k].file].path)
            let parents = includedBy[dir] ?? []
            let runs: Bool
            if let builders = fluxBuilders[dir], !builders.allSatisfy({ objects[$0].kustomizeRetags.contains(name) }) {
                runs = true
            } else if parents.isEmpty {
                runs = fluxBuilders[dir] == nil
            } else {
                runs = depth > 64 || parents.contains { writtenTagRuns($0, name, depth + 1) }
            }
            memo[key] = runs
            return runs
        }
        for img in images where img.origin == .container && img.invalid == nil {
            guard let name = img.name, let includers = includedBy[files[img.file].path],
                  !includers.contains(where: { writtenTagRuns($0, name, 0) }) else { continue }
            // the kustomizations (or Flux Kustomizations) that set the tag: the nearest on each way up
            var by: [Int] = [], seen = Set<Int>(), queue = includers
            while let k = queue.popLast() {
                guard seen.insert(k).inserted else { continue }
                if retags(k, name) { by.append(k); continue }
                let dir = dirname(files[objects[k].file].path)
                by += (fluxBuilders[dir] ?? []).filter { !by.contains($0) }
                queue += includedBy[dir] ?? []
            }
            img.retaggedBy = by.sorted()
        }
    }
}
