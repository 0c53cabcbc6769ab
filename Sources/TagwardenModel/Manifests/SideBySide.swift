import TagwardenBasics

/// The kustomize builds that take a file's resources side by side, read from the parts of the model they need: the
/// model's build asks before the Model is whole (which builds kustomize refuses for a resource taken twice decides
/// the environments a shared base is deployed in), and the rules ask the Model (`Model.sideBySide`).
package struct SideBySide {
    let objects: Objects
    let files: Files
    let graph: IncludeGraph
    let generatedBuilds: [String: FileID]
    let kustomizationDirectories: StringSet
    let identityPatches: [ObjectID: [EffectiveObjects.Selector]?]

    /// The kustomize builds that accumulate file `f`'s resources, as written, side by side with others: a kustomization
    /// file that lists it, and the kustomization Flux generates at a `path` that takes it itself (no kustomization file
    /// from its directory up to the `path`); and so on up through each kustomization that passes its resources on
    /// unchanged, whose directory the builds above take (a stale bootstrap's `./clusters` generated build taking
    /// `clusters/flux-system` and `clusters/gke`, each with bootstrap's sync). Two resources of one identity in one such
    /// build fail it. A kustomization's `namespace:` gives every resource it passes on that namespace (a Namespace that
    /// name), which `given` carries: two that the builds below gave one namespace meet above (macula-io's apps that
    /// each set `namespace: macula` over a Namespace of their own); a resource of a kind kustomize takes for
    /// cluster-scoped (`kustomizeClusterScoped`) passes it unchanged.
    /// `object`: the resource of `f` asked about, which a kustomization whose patches delete or rename only others passes on.
    func builds(of f: FileID, kind: String? = nil, object: ObjectID? = nil) -> [Model.SideBySideBuild] {
        let clusterScoped = kind.map(Model.kustomizeClusterScoped.contains) ?? false
        var out: [Model.SideBySideBuild] = []
        var visited = Set<String>()
        func take(_ path: String, depth: Int, given: String?) {
            guard depth <= IncludeGraph.maxDepth, visited.insert(path + "\u{0}" + (given ?? "")).inserted else { return }
            for k in graph.includers(of: path) {
                out.append(Model.SideBySideBuild(file: objects[k].file, generatedAt: nil, given: given))
                // its `namespace:` gives them one before its name affixes rename them (GizmoTickler/fos1's dev overlay,
                // `namespace: default` and `namePrefix: dev-` over a base of Namespaces); above it they have other names
                guard passesResourcesUnchanged(k, object: object, affixes: false) else { continue }
                let next = clusterScoped ? given : objects[k].kustomizeNamespace ?? given
                if !clusterScoped, objects[k].kustomizeNamespace != nil {
                    out.append(Model.SideBySideBuild(file: objects[k].file, generatedAt: nil, given: next, afterNamespace: true))
                }
                if passesResourcesUnchanged(k, object: object) { take(graph.directory(of: k), depth: depth + 1, given: next) }
            }
            guard !generatedBuilds.isEmpty, !path.isEmpty else { return }
            for dir in Model.generatedBuilds(taking: path, generatedBuilds: generatedBuilds, kustomizationDirectories: kustomizationDirectories) {
                out.append(Model.SideBySideBuild(file: generatedBuilds[dir]!, generatedAt: dir, given: given))
            }
        }
        // (a Namespace meets others by the name it has: as written, until a `namespace:` renames it; another resource by the
        // namespace it is written with, which a `namespace:` below that sets the same one leaves as it was: willnotcy/Hephaestus's
        // base and overlay IngressRoutes of one namespace, which kustomize refuses)
        take(files[f].path, depth: 0, given: object.flatMap(writtenNamespace))
        return out
    }

    /// The directories whose builds take object `i` and pass it on as written (their `namespace:` and name affixes
    /// aside, which the object's namespace and `BuiltNames` follow): each kustomization from its file up that changes
    /// nothing else of what it may be (`passesResourcesUnchanged`), and the `path`s of the kustomizations Flux generates
    /// that take it or such a directory.
    func directoriesPassingOn(_ i: ObjectID) -> Set<String> {
        var out = Set<String>(), visited = Set<String>()
        func take(_ path: String, depth: Int) {
            guard depth <= IncludeGraph.maxDepth, visited.insert(path).inserted else { return }
            for k in graph.includers(of: path) where passesResourcesUnchanged(k, object: i, affixes: false) {
                let dir = graph.directory(of: k)
                out.insert(dir)
                take(dir, depth: depth + 1)
            }
            guard !generatedBuilds.isEmpty, !path.isEmpty else { return }
            out.formUnion(Model.generatedBuilds(taking: path, generatedBuilds: generatedBuilds, kustomizationDirectories: kustomizationDirectories))
        }
        take(files[objects[i].file].path, depth: 0)
        return out
    }

    /// Whether every build that takes object `i` passes it through a patch that selects it and may rename it, move it to
    /// another namespace or delete it (a JSON6902 `replace` of `/metadata/name`, kreativmonkey/homelab-gitops's database
    /// Secrets): no build applies it by the name it is written with.
    func renamedByPatch(_ i: ObjectID) -> Bool {
        func everyWay(_ path: String, depth: Int) -> Bool {
            guard depth <= IncludeGraph.maxDepth else { return false }
            let includers = graph.includers(of: path)
            return !includers.isEmpty && includers.allSatisfy { k in patchesIdentity(k, of: i) || everyWay(graph.directory(of: k), depth: depth + 1) }
        }
        return everyWay(files[objects[i].file].path, depth: 0)
    }

    /// The namespace with which object `i` meets others as written: a Namespace's name, none for a kind kustomize takes
    /// for cluster-scoped, else the namespace written.
    func writtenNamespace(_ i: ObjectID) -> String? {
        let o = objects[i]
        return o.kind == "Namespace" ? o.name : Model.kustomizeClusterScoped.contains(o.kind) ? nil : o.declaredNamespace
    }

    /// Whether kustomization `k` passes its resources on with the names they are written with (its `namespace:` aside,
    /// which `sideBySideBuilds` follows): no name affix (with `affixes`: kustomize adds them after the namespace),
    /// Component, replacement, transformer, generator or chart that could rename or remove one, and no patch that could
    /// (for `object`, none that selects it; without, none at all: a strategic-merge patch of a Deployment's containers
    /// passes every resource on).
    func passesResourcesUnchanged(_ k: ObjectID, object: ObjectID? = nil, affixes: Bool = true) -> Bool {
        let o = objects[k]
        guard !affixes || (o.kustomizeNamePrefix == nil && o.kustomizeNameSuffix == nil),
              o.kustomizeConfigFiles.isEmpty && o.kustomizeUnknowns.isEmpty else { return false }
        guard o.kustomizeChangesResources else { return true }
        guard case let targets?? = identityPatches[k] else { return false }
        guard let object else { return targets.isEmpty }
        return !patchesIdentity(k, of: object)
    }

    /// Whether a patch of kustomization `k` that may rename, move or delete what it selects (`Model.identityPatches`)
    /// selects object `i` as written.
    func patchesIdentity(_ k: ObjectID, of i: ObjectID) -> Bool {
        guard case let targets?? = identityPatches[k] else { return false }
        let r = objects[i]
        return targets.contains { $0.selectsAsWritten(r, in: files[r.file].yaml) }
    }

    /// The builds kustomize refuses because they take one resource twice, by pair of files: the objects taken twice; and
    /// every build that takes such a pair (a kustomization that passes its resources up unchanged, and the one above it).
    /// (`given`: the namespace, or a Namespace's name, the builds below gave the two.)
    func duplicateIDs(variantOf: [ObjectID: ObjectID], resources: [ObjectID: [String]], kustomizationAt: StringMap<ObjectID>) -> DuplicateIDs {
        // the objects of each identity, as written (not the variants other builds make of an object): kind, apiVersion
        // (kustomize's ResId holds group and version: `v1` and `v1beta2` of one kind are two resources to it),
        // namespace and name (a name or namespace with `${…}` is another per build); every Namespace with every other,
        // which a `namespace:` below a build may rename (USA-RedDragon/home-cluster-flux's vaultwarden, named mosquitto)
        struct Identity: Hashable { let kind: String, apiVersion: String, namespace: String? }
        var names: [String] = [], identities: [Identity] = [], written: [ObjectID] = []
        for i in objects.indices {
            let o = objects[i]
            guard let name = o.name, !o.isKustomization, o.kind != "List", variantOf[i] == nil, !name.containsBytes("${"),
                  !(o.declaredNamespace?.containsBytes("${") ?? false) else { continue }
            names.append(o.kind == "Namespace" ? "" : name)
            identities.append(Identity(kind: o.kind, apiVersion: o.apiVersion, namespace: o.declaredNamespace))
            written.append(i)
        }
        let again = Model.entriesSharingKey(names: names, keys: identities).map { $0.map { written[$0] } }
        // each object taken twice, with the one before it in a build they share; then one finding per build and pair of
        // files, at the first such object of the file (a stale bootstrap's build takes a whole gotk-components.yaml twice)
        var pairs: [DuplicateIDs.Pair: [(object: ObjectID, other: ObjectID, given: String?)]] = [:]
        var refused = Set<Model.SideBySideBuild>()
        for all in again {
            let ordered = all.map { builds(of: objects[$0].file, kind: objects[$0].kind, object: $0) }
            let taking = ordered.map(Set.init)
            for (n, i) in all.enumerated() {
                guard let earlier = (0..<n).first(where: { !taking[$0].isDisjoint(with: taking[n]) }) else { continue }
                let both = taking[n].intersection(taking[earlier])
                refused.formUnion(both)
                // the first build from the file up that takes both fails (a kustomization's `namespace:` that gives them
                // one identity, after it took them: Jojoooo1/fluxcd-and-k8s's environments/dev/flux renames the base's
                // Namespace flux), and every build above with it
                let at = ordered[n].first(where: both.contains)!
                pairs[DuplicateIDs.Pair(build: at.build, file: objects[i].file, otherFile: objects[all[earlier]].file), default: []]
                    .append((i, all[earlier], at.given))
            }
        }
        var throughTwo: [DuplicateIDs.Pair: (String, String)] = [:]
        for twice in takenTwiceByGeneratedBuilds(resources: resources, kustomizationAt: kustomizationAt) {
            let build = Model.SideBySideBuild(file: generatedBuilds[twice.generatedAt]!, generatedAt: twice.generatedAt, given: nil)
            for i in written where graph.includers(of: files[objects[i].file].path).contains(where: { graph.directory(of: $0) == twice.directory }) {
                let o = objects[i], given = writtenNamespace(i)
                let pair = DuplicateIDs.Pair(build: build, file: o.file, otherFile: o.file)
                if pairs[pair] == nil { throughTwo[pair] = twice.through }
                pairs[pair, default: []].append((i, i, given))
                refused.insert(Model.SideBySideBuild(file: build.file, generatedAt: twice.generatedAt, given: given))
            }
        }
        return DuplicateIDs(pairs: pairs, refused: refused, throughTwo: throughTwo)
    }

    /// The kustomization directories that a kustomization Flux generates takes twice: it takes the first kustomization
    /// directory on each way down from its path (and does not descend into it); followed down through kustomizations that
    /// pass every resource on as it is (no `namespace:` either, which would give them another identity), two of them may
    /// reach one directory (LFS269's instavote: `path: ./deploy/vote`, which holds base/ and dev/, whose kustomization
    /// includes ../base). With the two it takes that lead there. (Only where some kustomization names a resource outside
    /// its own directory, as an overlay names its base: without, no two ways down meet.)
    func takenTwiceByGeneratedBuilds(resources: [ObjectID: [String]], kustomizationAt: StringMap<ObjectID>) -> [TakenTwice] {
        guard !generatedBuilds.isEmpty else { return [] }
        // the generated builds that take a directory (`Model.generatedBuilds(taking:)`, which turns on its parent only:
        // asked once for the siblings a generated build takes together)
        var above: [String: [String]] = [:]
        func generatedTaking(_ dir: String) -> [String] {
            let parent = Path.dirname(dir)
            if let known = above[parent] { return known }
            let gs = Model.generatedBuilds(taking: dir, generatedBuilds: generatedBuilds, kustomizationDirectories: kustomizationDirectories)
            above[parent] = gs
            return gs
        }
        // where two ways down can meet: a generated build that takes a kustomization naming a resource outside its
        // directory, which the build takes too, or which another kustomization it takes names (most repositories have none,
        // and multi-environment ones name each base from one overlay per build: they pay for nothing more)
        var candidates = Set<String>()
        for (k, paths) in resources {
            let dir = graph.directory(of: k)
            let outside = paths.filter { !Model.holds(dir, $0) }
            guard !outside.isEmpty else { continue }
            for g in generatedTaking(dir) where !candidates.contains(g) && outside.contains(where: { p in
                Model.holds(g, p) || graph.includers(of: p).contains { $0 != k && Model.holds(g, graph.directory(of: $0)) }
            }) {
                candidates.insert(g)
            }
        }
        var out: [TakenTwice] = []
        for g in candidates.sorted() {
            // the kustomization directories it takes, in path order
            let dirs = kustomizationAt.keys.filter { Model.holds(g, $0) && $0 != g && generatedTaking($0).contains(g) }.sorted()
            var reachedFrom: [String: String] = [:]   // directory → the first taken directory that leads to it
            func mark(_ dir: String, from top: String, depth: Int) {
                if let first = reachedFrom[dir] {
                    if first != top, !out.contains(where: { $0.generatedAt == g && $0.directory == dir }) {
                        out.append(TakenTwice(generatedAt: g, directory: dir, through: (first, top)))
                    }
                    return
                }
                reachedFrom[dir] = top
                guard depth < IncludeGraph.maxDepth, let k = kustomizationAt[dir], passesResourcesUnchanged(k),
                      objects[k].kustomizeNamespace == nil else { return }
                for p in resources[k] ?? [] where kustomizationAt[p] != nil { mark(p, from: top, depth: depth + 1) }
            }
            for dir in dirs { mark(dir, from: dir, depth: 0) }
        }
        return out
    }

    /// A kustomization directory that the kustomization Flux generates at `generatedAt` takes twice, and the two
    /// directories it takes that lead to it.
    struct TakenTwice {
        let generatedAt: String
        let directory: String
        let through: (String, String)
    }
}

/// Resources that one kustomize build takes twice, which it refuses ("may not add resource with an already registered
/// id", "namespace transformation produces ID conflict"): by build and pair of files, the objects so taken; and every
/// build refused so.
public struct DuplicateIDs: Sendable {
    /// A build, a file and another file that it takes side by side.
    public struct Pair: Hashable, Sendable { public let build: Model.SideBySideBuild, file: FileID, otherFile: FileID }
    public var pairs: [Pair: [(object: ObjectID, other: ObjectID, given: String?)]] = [:]
    public var refused = Set<Model.SideBySideBuild>()
    /// Of the pairs of a file with itself, the two resources of the build through which it takes the file.
    public var throughTwo: [Pair: (String, String)] = [:]
}

extension Model {
    /// The positions of the entries that share a key (`keys[n]`, of an object named `names[n]`): each group of more than
    /// one, in the order given. Entries are sorted by name first (one string hashed each, where a key of several strings
    /// hashes them all); a name's few entries are then told apart by their keys, and a name that many have through a
    /// dictionary of its keys, so that no name is quadratic. (Names and keys in arrays of their own: an array of tuples
    /// copied a whole entry each time one of its fields was read.)
    public static func entriesSharingKey<Key: Hashable>(names: [String], keys: [Key]) -> [[Int]] {
        var lastOfName = StringMap<Int>()
        lastOfName.reserveCapacity(names.count)
        var sharedAt = StringMap<Int>()   // a name that more than one entry has → its list in `shared`
        var shared: [[Int]] = []
        for n in names.indices {
            guard let previous = lastOfName.updateValue(n, forKey: names[n]) else { continue }
            if let at = sharedAt[names[n]] { shared[at].append(n) } else {
                sharedAt[names[n]] = shared.count
                shared.append([previous, n])
            }
        }
        var groups: [[Int]] = []
        for list in shared {
            if list.count <= 8 {
                var taken = [Bool](repeating: false, count: list.count)
                for a in list.indices where !taken[a] {
                    var group = [list[a]]
                    for b in (a + 1)..<list.count where !taken[b] && keys[list[b]] == keys[list[a]] {
                        group.append(list[b])
                        taken[b] = true
                    }
                    if group.count > 1 { groups.append(group) }
                }
            } else {
                var order: [Key] = [], byKey: [Key: [Int]] = [:]
                for n in list {
                    if byKey[keys[n]] == nil { order.append(keys[n]) }
                    byKey[keys[n], default: []].append(n)
                }
                for k in order where byKey[k]!.count > 1 { groups.append(byKey[k]!) }
            }
        }
        return groups
    }
}
