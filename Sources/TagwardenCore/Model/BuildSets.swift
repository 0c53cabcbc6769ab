/// Which files a kustomize build of a directory takes (a Flux Kustomization's `path`, an overlay): the
/// kustomization file there, what its `resources` and `components` name, followed through further
/// kustomization files, and the files its `configMapGenerator` and patches read; a directory without one gives every manifest under it (a subdirectory with a
/// kustomization file by that file), as the kustomization Flux generates does.
struct BuildSets {
    let files: [FileFacts]
    var kustomizationAt: [String: Int] = [:]   // directory → its kustomization object
    let objects: [ManifestObject]
    var fileAt: [String: Int] = [:]
    /// File indices in path byte order: the files under a directory are one run of it.
    let byPath: [Int]

    init(objects: [ManifestObject], files: [FileFacts]) {
        self.objects = objects
        self.files = files
        for (i, o) in objects.enumerated() where o.isKustomization && Extractor.isKustomizationName(Model.basename(files[o.file].path)) {
            kustomizationAt[Model.dirname(files[o.file].path)] = i
        }
        for (i, f) in files.enumerated() { fileAt[f.path] = i }
        byPath = files.indices.sorted { SourceText.byteLess(files[$0].path, files[$1].path) }
    }

    /// Whether the repository has a file under `dir`.
    func hasFiles(under dir: String) -> Bool {
        let prefix = dir.isEmpty ? "" : dir + "/"
        let lo = firstPath(from: prefix)
        return lo < byPath.count && files[byPath[lo]].path.utf8.starts(with: prefix.utf8)
    }

    /// The position in `byPath` of the first path not before `prefix`.
    private func firstPath(from prefix: String) -> Int {
        var lo = 0, hi = byPath.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if SourceText.byteLess(files[byPath[mid]].path, prefix) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    func files(under dir: String) -> Set<Int> {
        var out = Set<Int>()
        var visited = Set<String>()
        add(dir, &out, &visited, depth: 0)
        return out
    }

    /// `depth` bounds a chain of kustomizations that include each other's directories (kustomize has no limit;
    /// a generated chain of thousands would otherwise exhaust the stack).
    private func add(_ dir: String, _ out: inout Set<Int>, _ visited: inout Set<String>, depth: Int) {
        guard depth < 256, visited.insert(dir).inserted else { return }
        if let k = kustomizationAt[dir] {
            out.insert(objects[k].file)
            for r in objects[k].kustomizeResources where !Extractor.isRemote(r) {
                guard let p = Model.normalizePath(Sources.join(dir, r)) else { continue }
                if let f = fileAt[p] { out.insert(f) } else { add(p, &out, &visited, depth: depth + 1) }
            }
            // the files a configMapGenerator turns into ConfigMaps are part of the build's output too, and its patches
            for g in objects[k].configMapGenerators {
                for entry in g.files {
                    if let p = Model.normalizePath(Sources.join(dir, entry.path)), let f = fileAt[p] { out.insert(f) }
                }
            }
            for patch in objects[k].kustomizePatches {
                if let p = Model.normalizePath(Sources.join(dir, patch)), let f = fileAt[p] { out.insert(f) }
            }
            return
        }
        let prefix = dir.isEmpty ? "" : dir + "/"
        for i in byPath[firstPath(from: prefix)...] {
            let f = files[i]
            guard f.path.utf8.starts(with: prefix.utf8) else { break }
            guard Sources.isManifestName(f.path) else { continue }
            // a file in a subdirectory that has its own kustomization: that directory as the kustomization builds it
            var sub = Model.dirname(f.path)
            var governed = false
            while sub.count > dir.count {
                if kustomizationAt[sub] != nil {
                    add(sub, &out, &visited, depth: depth + 1)
                    governed = true
                    break
                }
                sub = Model.dirname(sub)
            }
            if !governed { out.insert(i) }
        }
    }
}

/// The `BuildSets` of one model build, made when a step first asks: namespaces, substitution and values files share
/// it, and most repositories need none.
final class LazyBuildSets {
    private let objects: [ManifestObject]
    private let files: [FileFacts]
    private var made: BuildSets?

    init(objects: [ManifestObject], files: [FileFacts]) {
        self.objects = objects
        self.files = files
    }

    private var under: [String: Set<Int>] = [:]

    var value: BuildSets {
        if let made { return made }
        let b = BuildSets(objects: objects, files: files)
        made = b
        return b
    }

    /// `BuildSets.files(under:)`, each directory built once for all the steps that ask.
    func files(under dir: String) -> Set<Int> {
        if let known = under[dir] { return known }
        let set = value.files(under: dir)
        under[dir] = set
        return set
    }
}
