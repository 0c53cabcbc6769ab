import TagwardenBasics

/// The names kustomize gives an object in the builds that take its file, for rules that compare objects across
/// builds (`object-duplicate`): each chain of `resources:` around the name, its kustomizations' `namePrefix` and
/// `nameSuffix` (`outer-inner-name-inner-outer`; not for Namespaces and CustomResourceDefinitions), and for a
/// Namespace the `namespace:` of the outermost kustomization that sets one (kustomize's namespace transformer
/// renames Namespace objects: onedr0p's `name: _` in each app directory). Flux Kustomizations' own `namePrefix`,
/// `nameSuffix` and `targetNamespace` are not followed here.
public final class BuiltNames {
    let model: Model
    /// Whether any kustomization renames: else every object keeps its name.
    let renames: Bool
    struct Way: Hashable { var prefix: String, suffix: String, namespace: String }
    let memo = IncludeGraph.Memo<ObjectID, [Way]>(cycle: [])

    public init(_ model: Model) {
        self.model = model
        renames = model.objects.contains { $0.kustomizeNamePrefix != nil || $0.kustomizeNameSuffix != nil || $0.kustomizeNamespace != nil }
    }

    /// The ways from kustomization k outwards: the prefix and suffix each adds, and the namespace it sets.
    func ways(_ k: ObjectID, _ depth: Int) -> [Way] {
        memo.value(k) {
            let o = model.objects[k]
            let own = Way(prefix: o.kustomizeNamePrefix ?? "", suffix: o.kustomizeNameSuffix ?? "", namespace: o.kustomizeNamespace ?? "")
            var result: [Way] = []
            for p in model.graph.parents(of: k, depth: depth) {
                for outer in ways(p, depth + 1) {
                    let w = Way(prefix: outer.prefix + own.prefix, suffix: own.suffix + outer.suffix,
                                namespace: outer.namespace.isEmpty ? own.namespace : outer.namespace)
                    if !result.contains(w) { result.append(w) }
                }
            }
            // a top, or only cycles above
            return result.isEmpty ? [own] : result
        }
    }

    /// The one name object i has in the builds that take its file (its written name where none does); nil where it has
    /// none, or the builds name it differently. (The one name, not a list: a one-name array for each object cost an
    /// allocation, and the object's fields are read in place, not copied with the whole object.)
    public func name(of i: ObjectID) -> String? {
        guard let name = model.writtenName[i] ?? model.objects[i].name else { return nil }
        // a name Flux's post-build substitution made (`${cluster_name}-updates`, each variable known here): the name of
        // the build that made it, which the effective objects hold (one variant per build)
        if name.containsBytes("${"), let made = model.objects[i].name, !made.containsBytes("${") { return made }
        let includers = renames ? model.graph.includers(of: model.path(model.objects[i].file)) : []
        guard !includers.isEmpty else { return model.objects[i].name ?? name }
        let kind = model.objects[i].kind
        let isNamespace = kind == "Namespace" && model.objects[i].group.isEmpty
        var found: String?
        for k in includers {
            for w in ways(k, 0) {
                let made = isNamespace ? (w.namespace.isEmpty ? name : w.namespace)
                    : kind == "CustomResourceDefinition" ? name : w.prefix + name + w.suffix
                if found == nil { found = made } else if made != found { return nil }
            }
        }
        return found
    }
}
