import TagwardenBasics

extension Model {
    /// Whether policy object `p` is deployed by a build that takes file `f` (a marker's), to choose the marker's own among
    /// several policies of one name: a variant of a patched base policy (`EffectiveObjects`) is its builds', known by
    /// their root kustomizations (the file's are found up its `resources:` chains, or from a patch file, up from the
    /// kustomizations that apply it); another is a cluster's, where a cluster of this repository applies both files.
    /// Where nothing tells, every policy may be.
    static func deployedTogether(objects: Objects, files: Files, graph: IncludeGraph, clusters: Clusters,
                                 rootPaths: [ObjectID: [String]]) -> (FileID, ObjectID) -> Bool {
        let memo = IncludeGraph.Memo<String, [ObjectID]>(cycle: [])
        /// The paths of the root kustomizations of the builds that take `path`, or apply it as a patch.
        func tops(_ path: String) -> Set<String> {
            var out = Set(graph.tops(of: path, memo: memo))
            for k in graph.patchedBy[path] ?? [] {
                let dir = graph.directory(of: k)
                if graph.isIncluded(dir) { out.formUnion(graph.tops(of: dir, memo: memo)) } else { out.insert(k) }
            }
            return Set(out.map { files[objects[$0].file].path })
        }
        return { f, p in
            if let roots = rootPaths[p] { return !tops(files[f].path).isDisjoint(with: roots) }
            let mine = clusters.of(f)
            return mine.isEmpty || !Set(mine).isDisjoint(with: clusters.of(objects[p].file))
        }
    }
}
