import TagwardenBasics

/// What includes what among the repository's kustomizations: each path (a file or a directory) → the kustomizations
/// whose `resources`, `bases` or `components` name it. Every walk up the builds (namespaces, names, environments,
/// effective objects, retagging, the tops of builds, transformers) goes through it, with one policy: a chain is
/// followed at most `maxDepth` kustomizations up (kustomize has no limit, but a generated chain of thousands would
/// exhaust the stack), and a kustomization met again on its own chain (a cycle, which kustomize refuses) adds nothing
/// (`Memo`). The walk down, from a directory to the files its build takes, is `BuildSets`'.
public struct IncludeGraph: Sendable {
    public static let maxDepth = 64
    public let includedBy: StringMap<[ObjectID]>
    /// Kustomization → its directory ("" for other objects), by object.
    private let directories: Table<ObjectID, String>
    /// Object → the kustomizations that include its directory (`includers(of: directory(of:))`), by object: asked on
    /// every step of every walk up, a read instead of two lookups by hash.
    private let parentsOf: Table<ObjectID, [ObjectID]>
    /// Patch file → the kustomizations that apply it (`patches:`, `patchesStrategicMerge:`; not Components').
    public let patchedBy: StringMap<[ObjectID]>

    /// `resources`: each kustomization's resources as normalised paths (`Model.resolvedResources`).
    init(resources: [ObjectID: [String]], objects: Objects, files: Files) {
        var includedBy = StringMap<[ObjectID]>(), directories = Table<ObjectID, String>(repeating: "", count: objects.count)
        for (k, paths) in resources.sorted(by: { $0.key < $1.key }) {
            for p in paths { includedBy[p, default: []].append(k) }
        }
        var patchedBy = StringMap<[ObjectID]>()
        for (k, o) in objects.withIDs where o.isKustomization {
            let dir = files[o.file].directory
            directories[k] = dir
            guard o.kind != "Component", Extractor.isKustomizationPath(files[o.file].path) else { continue }
            for p in o.kustomizePatches { if let path = Model.normalizePath(Sources.join(dir, p)) { patchedBy[path, default: []].append(k) } }
        }
        self.includedBy = includedBy
        self.directories = directories
        let atRoot = includedBy[""] ?? []
        parentsOf = Table(directories.lazy.map { $0.isEmpty ? atRoot : includedBy[$0] ?? [] })
        self.patchedBy = patchedBy
    }

    public var isEmpty: Bool { includedBy.isEmpty }

    /// The kustomizations that name `path`, reached `depth` kustomizations up a chain: none past `maxDepth`.
    public func includers(of path: String, depth: Int = 0) -> [ObjectID] {
        depth < Self.maxDepth ? includedBy[path] ?? [] : []
    }

    /// Whether some kustomization names `path`.
    public func isIncluded(_ path: String) -> Bool { includedBy[path] != nil }

    /// The directory of kustomization `k`.
    public func directory(of k: ObjectID) -> String { k.index < directories.count ? directories[k] : "" }

    /// The kustomizations that include kustomization `k`'s directory, `k` being `depth` up its chain.
    public func parents(of k: ObjectID, depth: Int) -> [ObjectID] {
        guard depth < Self.maxDepth else { return [] }
        return k.index < parentsOf.count ? parentsOf[k] : includedBy[""] ?? []
    }

    /// Whether some chain of kustomizations that takes `path` reaches kustomization `k`: its build takes the file.
    func reaches(_ k: ObjectID, from path: String) -> Bool {
        var seen = Set<ObjectID>()
        var queue = includers(of: path).map { ($0, 0) }
        while let (j, depth) = queue.popLast() {
            if j == k { return true }
            guard seen.insert(j).inserted else { continue }
            queue += parents(of: j, depth: depth + 1).map { ($0, depth + 1) }
        }
        return false
    }

    /// Whether every chain of kustomizations that takes `path` passes through one of `through`: some kustomization
    /// names it, and each that does is one of them or is built only from above (no `path` of `builtAt` is its
    /// directory) by chains that are.
    func everyWayUp(from path: String, passesThrough through: Set<ObjectID>, unlessBuiltAt builtAt: StringSet, depth: Int = 0) -> Bool {
        let naming = includers(of: path, depth: depth)
        return !naming.isEmpty && naming.allSatisfy { k in
            through.contains(k) || (!builtAt.contains(directory(of: k))
                && everyWayUp(from: directory(of: k), passesThrough: through, unlessBuiltAt: builtAt, depth: depth + 1))
        }
    }

    /// Values made once per key on walks up the graph: a key asked for again while its value is being made (a cycle)
    /// gets `cycle`.
    /// The kustomizations at the tops of the builds that take `key` (a file's path or a kustomization's directory):
    /// those up its `resources:` chains whose own directory no kustomization includes, each once, in the order found.
    public func tops(of key: String, memo: Memo<String, [ObjectID]>, depth: Int = 0) -> [ObjectID] {
        memo.value(key) {
            var out: [ObjectID] = []
            for k in includers(of: key, depth: depth) {
                let dir = directory(of: k)
                for t in isIncluded(dir) ? tops(of: dir, memo: memo, depth: depth + 1) : [k] where !out.contains(t) { out.append(t) }
            }
            return out
        }
    }

    public final class Memo<Key: Hashable, Value> {
        private var values: [Key: Value] = [:]
        private let cycle: Value

        public init(cycle: Value) { self.cycle = cycle }

        public func value(_ key: Key, _ make: () -> Value) -> Value {
            if let known = values[key] { return known }
            values[key] = cycle
            let made = make()
            values[key] = made
            return made
        }
    }
}
