import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// Which files a kustomize build of a directory takes (a Flux Kustomization's `path`, an overlay): the
/// kustomization file there, what its `resources` and `components` name, followed through further
/// kustomization files, and the files its `configMapGenerator` and patches read; a directory without one gives every manifest under it (a subdirectory with a
/// kustomization file by that file), as the kustomization Flux generates does. A kustomization file that holds no
/// kustomization (empty, or only comments) is still its directory's: Flux builds nothing there, and kustomize refuses a
/// build that takes the directory ("kustomization.yaml is empty").
struct BuildSets {
    let files: Files
    var kustomizationAt = StringMap<ObjectID>()   // directory → its kustomization object
    /// Directory → its kustomization file that holds no kustomization: empty, or one kustomize refuses (a Flux
    /// Kustomization written into `kustomization.yaml`): it builds nothing there either.
    var emptyKustomizationAt = StringMap<FileID>()
    let objects: Objects
    var fileAt = StringMap<FileID>()
    /// File indices in path byte order: the files under a directory are one run of it.
    let byPath: [FileID]
    /// Each file's position in `byPath`.
    let rank: Table<FileID, Int>
    /// Each kustomization's `resources` (and `bases`, `components`) as normalised paths (`Model.resolvedResources`).
    let resources: [ObjectID: [String]]

    init(objects: Objects, files: Files, resources: [ObjectID: [String]]) {
        self.objects = objects
        self.files = files
        self.resources = resources
        kustomizationAt.reserveCapacity(resources.count)
        fileAt.reserveCapacity(files.count)
        for (i, o) in objects.withIDs where o.isKustomization && Extractor.isKustomizationPath(files[o.file].path) {
            kustomizationAt[files[o.file].directory] = i
        }
        for i in files.indices { fileAt[files[i].path] = i }
        for f in files.indices where (files[f].path.hasBytesSuffix("ustomization.yaml") || files[f].path.hasBytesSuffix("ustomization.yml")
            || files[f].path.hasBytesSuffix("Kustomization")) && Extractor.isKustomizationPath(files[f].path) {
            let dir = files[f].directory
            if kustomizationAt[dir] == nil { emptyKustomizationAt[dir] = f }
        }
        // a snapshot from git's index or a walk is most often in path order already
        let sorted = files.indices.dropFirst().allSatisfy { !SourceText.byteLess(files[$0].path, files[$0.advanced(by: -1)].path) }
        byPath = sorted ? Array(files.indices) : files.indices.sorted { SourceText.byteLess(files[$0].path, files[$1].path) }
        var rank = Table<FileID, Int>(repeating: 0, count: files.count)
        for (k, f) in byPath.enumerated() { rank[f] = k }
        self.rank = rank
    }

    /// Whether the repository has a file under `dir`.
    func hasFiles(under dir: String) -> Bool {
        let prefix = dir.isEmpty ? "" : dir + "/"
        let lo = firstPath(from: prefix)
        return lo < byPath.count && SourceText.hasBytePrefix(files[byPath[lo]].path, prefix)
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

    func files(under dir: String) -> Set<FileID> {
        var out = Set<FileID>()
        var visited = StringSet()
        add(dir, &out, &visited, depth: 0)
        return out
    }

    /// The files of directory `dir` as a kustomization Flux generates there would take them, whatever kustomization file
    /// it holds: what `kubectl apply -f` of a directory whose kustomization file kustomize refuses applies, as far as it
    /// can be told.
    func generatedFiles(under dir: String) -> Set<FileID> {
        var out = Set<FileID>()
        var visited: StringSet = [dir]
        dirMode(dir, &out, &visited, depth: 0)
        return out
    }

    /// `depth` bounds a chain of kustomizations that include each other's directories, as `IncludeGraph` bounds the walks
    /// up.
    private func add(_ dir: String, _ out: inout Set<FileID>, _ visited: inout StringSet, depth: Int) {
        guard depth < IncludeGraph.maxDepth, visited.insert(dir).inserted else { return }
        if let k = kustomizationAt[dir] {
            add(kustomization: k, dir, &out, &visited, depth: depth)
        } else if let f = emptyKustomizationAt[dir] {
            out.insert(f)
        } else {
            dirMode(dir, &out, &visited, depth: depth)
        }
    }

    /// What kustomization `k` (of directory `dir`, already visited) builds.
    private func add(kustomization k: ObjectID, _ dir: String, _ out: inout Set<FileID>, _ visited: inout StringSet, depth: Int) {
        do {
            out.insert(objects[k].file)
            for p in resources[k] ?? [] {
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
        }
    }

    /// What a kustomization's build holds before its own patches apply: the objects of its resources and Components,
    /// followed through the kustomizations they name.
    struct ResourceBuild {
        var objects: [ObjectID] = []
        /// The kustomization and those below it.
        var kustomizations: [ObjectID] = []
        /// The names of the ConfigMaps their `configMapGenerator`s make.
        var configMaps: [String] = []
        /// What the kustomizations below do that Tagwarden does not follow, and the secrets the kustomization makes.
        var unknowns: ManifestObject.KustomizeUnknowns = []
    }

    /// Kustomization `k`'s `ResourceBuild`; nil when it cannot be known: a resource that is not a file read (remote,
    /// missing, skipped, unparsable) or a directory without a kustomization, a Helm chart or generator plugin, a List,
    /// or a kustomization below that changes fields Tagwarden does not follow (transformer plugins, `replacements`).
    /// `objectsOfFile`: the objects (not kustomizations) of each file (`LazyBuildSets.objectsOfFile`).
    func resourceBuild(of k: ObjectID, objectsOfFile: [FileID: [ObjectID]]) -> ResourceBuild? {
        var build = ResourceBuild()
        var visited = Set<ObjectID>()
        func visit(_ k: ObjectID, depth: Int) -> Bool {
            guard depth < IncludeGraph.maxDepth else { return false }
            guard visited.insert(k).inserted else { return true }
            let o = objects[k]
            let below: ManifestObject.KustomizeUnknowns = depth == 0 ? [.resources] : [.resources, .transformers, .replacements]
            // a resource that leaves the repository has no path here
            guard o.kustomizeUnknowns.isDisjoint(with: below), (resources[k]?.count ?? 0) == o.kustomizeResources.count else { return false }
            build.kustomizations.append(k)
            build.unknowns.formUnion(o.kustomizeUnknowns)
            build.configMaps += o.configMapGenerators.map(\.name)
            for p in resources[k] ?? [] {
                if let f = fileAt[p] {
                    guard files[f].syntaxError == nil else { return false }
                    for i in objectsOfFile[f] ?? [] {
                        guard objects[i].kind != "List" else { return false }
                        build.objects.append(i)
                    }
                } else if let sub = kustomizationAt[p] {
                    guard visit(sub, depth: depth + 1) else { return false }
                } else {
                    return false
                }
            }
            return true
        }
        return visit(k, depth: 0) ? build : nil
    }

    /// A directory without a kustomization: every manifest under it, as the kustomization Flux generates takes them.
    private func dirMode(_ dir: String, _ out: inout Set<FileID>, _ visited: inout StringSet, depth: Int) {
        let prefix = dir.isEmpty ? "" : dir + "/"
        var k = firstPath(from: prefix)
        // the directory of the last file taken, which no kustomization between it and `dir` governs: the files beside it
        // (next in path order) are taken without looking up again
        var free: String?
        while k < byPath.count {
            let i = byPath[k]
            let path = files[i].path
            guard SourceText.hasBytePrefix(path, prefix) else { break }
            k += 1
            guard Sources.isManifestName(path) else { continue }
            if let free, Path.isDirectlyIn(path, free) {
                out.insert(i)
                continue
            }
            // a file in a subdirectory that has its own kustomization: the shallowest such directory as its kustomization
            // builds it (Flux's walk adds it and goes no deeper), and the rest of its files (one run in path order) are
            // passed over
            var sub = files[i].directory
            var governing: (dir: String, kustomization: ObjectID?, empty: FileID?)?
            while sub.utf8.count > dir.utf8.count {
                let sk = kustomizationAt[sub]
                let empty = sk == nil && !emptyKustomizationAt.isEmpty ? emptyKustomizationAt[sub] : nil
                if sk != nil || empty != nil { governing = (sub, sk, empty) }
                sub = Path.dirname(sub)
            }
            if let (sub, sk, empty) = governing {
                if depth + 1 < IncludeGraph.maxDepth, visited.insert(sub).inserted {
                    if let sk { add(kustomization: sk, sub, &out, &visited, depth: depth + 1) } else if let empty { out.insert(empty) }
                }
                let under = sub + "/"
                while k < byPath.count, SourceText.hasBytePrefix(files[byPath[k]].path, under) { k += 1 }
            } else {
                out.insert(i)
                free = files[i].directory
            }
        }
    }
}

/// The `BuildSets` of one model build, which the clusters, namespaces, substitution and values files share, and the
/// directories they ask to be built, each built once.
final class LazyBuildSets {
    private let objects: Objects
    /// Made on another thread from the start, while the model's thread makes the include graph.
    private let made: Started<BuildSets>

    init(objects: Objects, files: Files, resources: [ObjectID: [String]]) {
        self.objects = objects
        made = Started { BuildSets(objects: objects, files: files, resources: resources) }
    }

    private var under: [String: Set<FileID>] = [:]

    var value: BuildSets { made.value }

    /// The objects of each file, kustomizations left out: what a build takes from a resource file
    /// (`BuildSets.resourceBuild`), made when first asked.
    private(set) lazy var objectsOfFile: [FileID: [ObjectID]] = {
        var out: [FileID: [ObjectID]] = [:]
        for (i, o) in objects.withIDs where !o.isKustomization { out[o.file, default: []].append(i) }
        return out
    }()

    /// `BuildSets.resourceBuild`, with the objects of each file made once.
    func resourceBuild(of k: ObjectID) -> BuildSets.ResourceBuild? { value.resourceBuild(of: k, objectsOfFile: objectsOfFile) }

    /// Builds each of `dirs` not built yet, on all cores: what `files(under:)` answers then. (One directory at a time
    /// each: a repository's few Flux Kustomizations may each build a third of it.)
    func prefetch(_ dirs: [String]) {
        let b = value
        let missing = Array(Set(dirs.filter { under[$0] == nil }))
        for (dir, set) in zip(missing, concurrentMap(missing.count, chunkSize: 1, makeState: {}) { _, i in b.files(under: missing[i]) }) {
            under[dir] = set
        }
    }

    /// `BuildSets.files(under:)`, each directory built once for all the steps that ask.
    func files(under dir: String) -> Set<FileID> {
        if let known = under[dir] { return known }
        let set = value.files(under: dir)
        under[dir] = set
        return set
    }
}
