import TagwardenBasics
import TagwardenYAML

/// A patch kustomize refuses to apply, so the whole build fails.
public struct PatchFailure: Sendable {
    /// The kustomization whose build fails.
    public let kustomization: ObjectID
    /// Where the patch says what kustomize cannot do: the strategic-merge patch's name, the JSON patch's `path`.
    public let file: FileID
    public let span: SourceSpan
    /// What kustomize cannot do, with its own words in parentheses.
    public let problem: String
}

/// A patch kustomize cannot read as either kind of patch (`EffectiveObjects.refusal`) fails every build of its
/// kustomization. Otherwise the patches of a kustomization that kustomize refuses are judged only where the build is known: its resources are all
/// files of the repository, read, with no Helm chart, generator plugin or remote resource among them
/// (`BuildSets.resourceBuild(of:)`), kustomize does not refuse one of its kustomizations already (`refused`: a resource it
/// cannot take, `Model.missingResources`), and nothing the build runs before the patch may change what it needs.
///
/// - A strategic-merge patch without a `target` patches the object of its own kind and name: when no resource of the
///   build is that object, kustomize fails ("no resource matches strategic merge patch"). Not judged where a Flux
///   Kustomization adds a Component that brings resources (`spec.components`). The apiVersion and kind are
///   compared exactly, as kustomize does; a name matches if it is the patch's or a part of it (a `namePrefix` further
///   down may have renamed the object); the namespace as `namespaceMatches` says.
/// - A JSON patch (RFC 6902) is applied to its one target: an operation fails on a path whose parent the object does not
///   have, and `remove` on a path it does not have (`JSON.firstFailure`). Judged when the target names one object of the build by kind and
///   name, no other patch of the build (a Component's that a Flux Kustomization adds included) may select it first, and the path stays clear of what kustomize's own
///   transformers write (metadata, labels, selectors, namespaces).
enum PatchTargets {
    /// Whether a strategic-merge patch without a `target`, for namespace `wanted` (its own, `default` when it has none),
    /// may patch object `o`: kustomize matches the object's namespace as written or as the kustomizations below the
    /// patching one set it (`below`), not as the patching one's own `namespace:` sets it later (barkardk/gitops-demo's
    /// overlay patch without a namespace, for a Deployment written in namespace nginx, matches nothing). A namespace
    /// written with `${…}` may be any.
    static func namespaceMatches(_ wanted: String?, _ o: ManifestObject, below: [String]) -> Bool {
        let wanted = wanted ?? "default"
        let written = o.declaredNamespace ?? "default"
        if written == wanted || written.contains("$") || wanted.contains("$") { return true }
        return below.contains { $0 == wanted || $0.contains("$") }
    }

    static func failures(objects: Objects, files: Files, builds: LazyBuildSets, stepsOf: [ObjectID: EffectiveObjects.Steps],
                         writtenName: [ObjectID: String], refused: Set<ObjectID>) -> [PatchFailure] {
        let fluxComponents = Self.fluxComponents(objects: objects, builds: builds)
        let kustomizations = stepsOf.keys.sorted()
        let built = builds.value, objectsOfFile = builds.objectsOfFile
        // each kustomization judged on its own, on all cores (an overlay fleet has thousands), in the order of their IDs
        return concurrentMap(kustomizations.count, chunkSize: 16, makeState: {}) { _, n in
            failures(of: kustomizations[n], objects: objects, files: files, builds: built, objectsOfFile: objectsOfFile,
                     fluxComponents: fluxComponents, stepsOf: stepsOf, writtenName: writtenName, refused: refused)
        }.flatMap { $0 }
    }

    /// The patches of kustomization `k` that kustomize refuses (`failures`).
    private static func failures(of k: ObjectID, objects: Objects, files: Files, builds: BuildSets, objectsOfFile: [FileID: [ObjectID]],
                                 fluxComponents: [String: [ObjectID]], stepsOf: [ObjectID: EffectiveObjects.Steps],
                                 writtenName: [ObjectID: String], refused: Set<ObjectID>) -> [PatchFailure] {
        let o = objects[k], steps = stepsOf[k]!
        guard o.isKustomization, o.kind == "Kustomization", Extractor.isKustomizationPath(files[o.file].path) else { return [] }
        if let (span, problem) = steps.refused {
            return [PatchFailure(kustomization: k, file: o.file, span: span, problem: problem)]
        }
        guard !(steps.early.isEmpty && steps.late.isEmpty) else { return [] }
        guard let build = builds.resourceBuild(of: k, objectsOfFile: objectsOfFile), build.kustomizations.allSatisfy({ !refused.contains($0) })
        else { return [] }
        // a Component a Flux Kustomization adds may bring the patch's object (not judged), or patch it first
        let added = fluxComponents[files[o.file].directory] ?? []
        if added.contains(where: { !objects[$0].kustomizeResources.isEmpty }) { return [] }
        func name(_ i: ObjectID) -> String? { writtenName[i] ?? objects[i].name }
        return strategicMergeFailures(k, steps: steps, build: build, objects: objects, files: files, name: name)
            + jsonFailures(k, steps: steps, build: build, added: added, objects: objects, files: files, stepsOf: stepsOf, name: name)
    }

    /// Kustomization `k`'s strategic-merge patches without a target whose object is no resource of its build.
    private static func strategicMergeFailures(_ k: ObjectID, steps: EffectiveObjects.Steps, build: BuildSets.ResourceBuild, objects: Objects,
                                               files: Files, name: (ObjectID) -> String?) -> [PatchFailure] {
        var out: [PatchFailure] = []
        for p in steps.early where p.targetless {
            let y = p.text.yaml
            guard let kind = p.selector?.kind, let wanted = p.selector?.exactName, !wanted.contains("$"),
                  let api = y.string(p.root, "apiVersion") else { continue }
            if kind == "Secret", build.unknowns.contains(.secrets) { continue }
            // kustomize compares the group, version and kind exactly
            let below = build.kustomizations.filter { $0 != k }.compactMap { objects[$0].kustomizeNamespace }
            let held = holds(build.objects, kind: kind, apiVersion: api, named: wanted, namespace: p.selector?.exactNamespace,
                             below: below, objects: objects, name: name)
                || (kind == "ConfigMap" && api == "v1" && build.configMaps.contains(where: wanted.contains))
            guard !held else { continue }
            let at = y.get(p.root, "metadata", "name") ?? y.get(p.root, "kind") ?? p.root
            let namespace = p.selector?.exactNamespace.flatMap { $0 == "default" ? nil : $0 + "/" } ?? ""
            // the same kind and name in another namespace or version (Eitan1112/local-cluster-flux's patch without a
            // namespace, for a HelmRelease in namespace podinfo); else a kind the build lacks that a HelmRelease may render
            let near = build.objects.first { i in objects[i].kind == kind && name(i) == wanted }
            let why: String
            if let near, objects[near].apiVersion != api {
                why = "; the build's \(kind) \(wanted) is \(objects[near].apiVersion))"
            } else if let near {
                why = namespaceAdvice(near, named: wanted, by: "patch", namespace: p.selector?.exactNamespace, objects: objects, files: files)
            } else if build.objects.contains(where: { objects[$0].kind == "HelmRelease" }), kind != "HelmRelease" {
                why = "; the objects a HelmRelease renders are not resources of the build: a release's spec.postRenderers patch them)"
            } else {
                why = ")"
            }
            out.append(PatchFailure(kustomization: k, file: p.text.file, span: p.text.span(at),
                                    problem: "its strategic-merge patch is for \(api) \(kind) \(namespace)\(wanted), which no resource of the build is "
                                        + "(no resource matches strategic merge patch" + why))
        }
        return out
    }

    /// Whether one of `candidates` is the object of `kind` and `apiVersion` that kustomize finds for a name and namespace
    /// (a targetless patch's, a generator's that merges): the namespace as `namespaceMatches` says, and a name that is
    /// `wanted` or a part of it (a `namePrefix` further down may have renamed the object); one named with `${…}` may be.
    static func holds(_ candidates: [ObjectID], kind: String, apiVersion: String, named wanted: String, namespace: String?, below: [String],
                      objects: Objects, name: (ObjectID) -> String?) -> Bool {
        candidates.contains { i in
            guard objects[i].kind == kind, objects[i].apiVersion == apiVersion,
                  namespaceMatches(namespace, objects[i], below: below) else { return false }
            guard let n = name(i), !n.contains("$") else { return true }
            return wanted.contains(n)
        }
    }

    /// The clause that closes a failure's kustomize message, for `near`, the build's object of the kind and name asked
    /// for in another namespace: which namespace it has, and what to write in the patch or generator (`by`) that asks
    /// for `namespace` (none is the default namespace).
    static func namespaceAdvice(_ near: ObjectID, named wanted: String, by: String, namespace: String?, objects: Objects, files: Files) -> String {
        let written = files[objects[near].file].path, kind = objects[near].kind
        let asked = namespace.flatMap { $0 == "default" ? nil : $0 }
        if let its = objects[near].declaredNamespace {
            return "; the build's \(kind) \(wanted) is in namespace \(its), as \(written) writes it, and the \(by) "
                + "\(asked.map { "names namespace \($0)" } ?? "names none"): give it `namespace: \(its)`)"
        }
        // a kustomization's own `namespace:` is set after its patches and generators
        return "; the build's \(kind) \(wanted) has no namespace when the \(by) runs, as \(written) writes it, and the \(by) "
            + "names namespace \(asked ?? "default"): remove it)"
    }

    /// Directory → the Components that the Flux Kustomizations whose `path` it is add to its kustomization (Flux
    /// appends `spec.components` to its `components:`): they run before its own patches and generators.
    static func fluxComponents(objects: Objects, builds: LazyBuildSets) -> [String: [ObjectID]] {
        var out: [String: [ObjectID]] = [:]
        for o in objects where o.isFluxKustomization {
            guard let spec = o.fluxKustomization, let path = spec.path else { continue }
            out[path, default: []] += spec.componentDirectories.compactMap { builds.value.kustomizationAt[$0] }
        }
        return out
    }

    /// The `configMapGenerator`s with `behavior: merge` or `replace` whose ConfigMap no resource of the build below
    /// their kustomization is: kustomize looks it up by the generator's name and namespace (none is the default
    /// namespace: the kustomization's own `namespace:` comes after) among the resources' names and namespaces as
    /// written and as the kustomizations below set them, and fails ("does not exist; cannot merge or replace").
    /// Judged where the build is known (as for patches), the kustomization has no `components:` (a Component may bring
    /// the ConfigMap) and no Flux Kustomization adds any; a name matches if it is the generator's or a part of it (or
    /// the other way: a name affix below), and a ConfigMap another kustomization of the build generates matches by name.
    static func generatorFailures(objects: Objects, files: Files, builds: LazyBuildSets, writtenName: [ObjectID: String],
                                  refused: Set<ObjectID>) -> [PatchFailure] {
        // (read here, from the few kustomizations with generators, rather than by the extraction of every document)
        let changing: [(ObjectID, [ChangingGenerator])] = objects.indices.compactMap { k in
            guard objects[k].kind == "Kustomization", !objects[k].configMapGenerators.isEmpty else { return nil }
            let found = changingGenerators(objects[k], in: files[objects[k].file].yaml)
            return found.isEmpty ? nil : (k, found)
        }
        guard !changing.isEmpty else { return [] }
        let fluxComponents = Self.fluxComponents(objects: objects, builds: builds)
        var out: [PatchFailure] = []
        for (k, generators) in changing {
            let o = objects[k], path = files[o.file].path
            guard o.isKustomization, Extractor.isKustomizationPath(path), !refused.contains(k),
                  !SourceText.contains("components", in: files[o.file].bytes[o.byteRange]),
                  (fluxComponents[Path.dirname(path)] ?? []).isEmpty,
                  let build = builds.resourceBuild(of: k), build.kustomizations.allSatisfy({ !refused.contains($0) }) else { continue }
            let below = build.kustomizations.filter { $0 != k }
            let namespacesBelow = below.compactMap { objects[$0].kustomizeNamespace }
            let generatedBelow = Set(below.flatMap { objects[$0].configMapGenerators.map(\.name) })
            let configMaps = build.objects.filter { objects[$0].kind == "ConfigMap" && objects[$0].apiVersion == "v1" }
            func name(_ i: ObjectID) -> String? { writtenName[i] ?? objects[i].name }
            for g in generators {
                let wanted = g.name
                guard !wanted.contains("$"), !generatedBelow.contains(where: { wanted.contains($0) || $0.contains(wanted) }) else { continue }
                guard !holds(configMaps, kind: "ConfigMap", apiVersion: "v1", named: wanted, namespace: g.namespace, below: namespacesBelow,
                             objects: objects, name: name) else { continue }
                let why = configMaps.first(where: { name($0) == wanted }).map {
                    namespaceAdvice($0, named: wanted, by: "generator", namespace: g.namespace, objects: objects, files: files)
                } ?? ")"
                out.append(PatchFailure(kustomization: k, file: o.file, span: g.span,
                                        problem: "its configMapGenerator \(wanted) changes the ConfigMap \(wanted) of namespace \(g.namespace ?? "default") "
                                            + "(behavior: \(g.behavior)), which no resource of the build is (does not exist; cannot merge or replace" + why))
            }
        }
        return out
    }

    /// A `configMapGenerator` entry with `behavior: merge` or `replace`.
    struct ChangingGenerator {
        let name: String
        let namespace: String?
        let behavior: String
        /// where its name is written
        let span: SourceSpan
    }

    /// Kustomization `o`'s generators that change a ConfigMap below, read from its file's tree `y`; not one whose name
    /// an earlier generator of its own makes.
    static func changingGenerators(_ o: ManifestObject, in y: YAMLFile) -> [ChangingGenerator] {
        guard o.document < y.documents.count, let list = y.get(y.documents[o.document].root, "configMapGenerator") else { return [] }
        var made = Set<String>(), out: [ChangingGenerator] = []
        for g in y.childNodes(list) where y.nodes[g].kind == .mapping {
            guard let n = y.get(g, "name"), y.nodes[n].kind == .scalar, !y.isNull(n) else { continue }
            let name = y.value(n), behavior = y.string(g, "behavior") ?? "create"
            if behavior == "merge" || behavior == "replace", !made.contains(name) {
                out.append(ChangingGenerator(name: name, namespace: y.string(g, "namespace"), behavior: behavior, span: y.nodes[n].span))
            }
            made.insert(name)
        }
        return out
    }

    /// The JSON patches of kustomization `k` whose one target lacks a path they need.
    private static func jsonFailures(_ k: ObjectID, steps: EffectiveObjects.Steps, build: BuildSets.ResourceBuild, added: [ObjectID], objects: Objects,
                                     files: Files, stepsOf: [ObjectID: EffectiveObjects.Steps], name: (ObjectID) -> String?) -> [PatchFailure] {
        let all = steps.early + steps.late
        var out: [PatchFailure] = []
        for (n, p) in all.enumerated() where p.text.yaml.nodes[p.root].kind == .sequence {
            guard let sel = p.selector, let kind = sel.kind, let wanted = sel.exactName, sel.name == nil, sel.namespace == nil,
                  sel.labels == nil, sel.annotations == nil else { continue }
            let sameKind = build.objects.filter { objects[$0].kind == kind }
            // one object by that name, and none that a name affix could turn into it
            let targets = sameKind.filter { name($0) == wanted }
            guard targets.count == 1, !sameKind.contains(where: { i in name(i).map { $0 != wanted && wanted.contains($0) } ?? true }) else { continue }
            let t = targets[0]
            if let g = sel.group, g != objects[t].group { continue }
            if let v = sel.version, v != Substring(objects[t].apiVersion.split(separator: "/").last ?? "") { continue }
            if let ns = sel.exactNamespace, ns != (objects[t].declaredNamespace ?? "default") { continue }
            // a patch that may select it earlier: one of a kustomization below, or before this one here
            func mayTouch(_ q: EffectiveObjects.Patch) -> Bool {
                guard let s = q.selector else { return true }
                return (s.kind.map { $0 == kind } ?? true) && (s.exactName.map { $0.contains(wanted) } ?? true)
            }
            let earlier = all[..<n].contains(where: mayTouch) || (build.kustomizations + added).contains { b in
                b != k && (stepsOf[b].map { ($0.early + $0.late).contains(where: mayTouch) } ?? false)
            }
            guard !earlier else { continue }
            let target = objects[t]
            let y = files[target.file].yaml
            guard target.document < y.documents.count, var doc = JSON(y, y.documents[target.document].root) else { continue }
            if let failure = JSON.firstFailure(of: p, on: &doc) {
                let namespace = target.declaredNamespace.map { $0 + "/" } ?? ""
                out.append(PatchFailure(kustomization: k, file: p.text.file, span: p.text.span(failure.node),
                                        problem: "its JSON patch \(failure.problem) of \(kind) \(namespace)\(wanted)"))
            }
        }
        return out
    }
}

/// A JSON patch's paths followed on the document kustomize patches: the object as `JSON`, every scalar a string.
extension JSON {
    /// The JSON document of YAML node `n`; nil for what a JSON patch cannot be followed through here: an alias, a
    /// merge key.
    init?(_ y: YAMLFile, _ n: Int, depth: Int = 0) {
        guard depth < 64 else { return nil }
        switch y.nodes[n].kind {
        case .scalar: self = .string(y.value(n))
        case .alias: return nil
        case .sequence:
            var items: [JSON] = []
            for c in y.childNodes(n) {
                guard let v = JSON(y, c, depth: depth + 1) else { return nil }
                items.append(v)
            }
            self = .array(items)
        case .mapping:
            var fields: [(String, JSON)] = []
            for (key, value) in y.pairs(n) {
                let name = y.value(key)
                guard name != "<<", let v = JSON(y, value, depth: depth + 1) else { return nil }
                if let i = fields.firstIndex(where: { $0.0 == name }) { fields[i].1 = v } else { fields.append((name, v)) }
            }
            self = .object(fields)
        }
    }

    /// Keys where kustomize's own transformers (namespace, name affixes, labels, annotations) write: a path through one
    /// is not judged.
    static let transformed: Set<String> = ["metadata", "labels", "annotations", "selector", "matchLabels", "namespace", "subjects"]

    /// The first operation of patch `p` that kustomize's JSON patch library refuses on `doc`, applying those before it;
    /// nil when all apply, or when one cannot be followed (a `test`, `move` or `copy`, a negative index, a path through
    /// what transformers write). As kustomize v5.5 applies them: an operation whose parent path the object lacks (or
    /// holds a scalar at) fails; `remove` of a missing key or index fails; `replace` of a missing key adds it, of an
    /// index out of range fails; `add` at an index past the end fails.
    static func firstFailure(of p: EffectiveObjects.Patch, on doc: inout JSON) -> (node: Int, problem: String)? {
        let y = p.text.yaml
        for op in y.childNodes(p.root) {
            guard y.nodes[op].kind == .mapping, let kind = y.string(op, "op"), ["add", "remove", "replace"].contains(kind),
                  let pathNode = y.get(op, "path"), y.nodes[pathNode].kind == .scalar else { return nil }
            let raw = y.value(pathNode)
            let path = EffectiveObjects.pointer(raw)
            guard raw.hasPrefix("/"), !path.isEmpty, !path.contains(where: transformed.contains),
                  !path.contains(where: { Int($0).map { $0 < 0 } ?? false }) else { return nil }
            let key = path.last!
            guard let parent = doc.at(path.dropLast()), parent.isContainer else {
                return (pathNode, "cannot \(kind) \(raw): the object has no \(pointer(path.dropLast())) (\(kind) operation does not apply: doc is missing path)")
            }
            switch kind {
            case "remove":
                guard parent.has(key) else {
                    return (pathNode, "cannot remove \(raw): the object has no such "
                            + (parent.arrayValue != nil ? "item (Unable to access invalid index)" : "field (Unable to remove nonexistent key)"))
                }
                doc.set(path[...], nil)
            case "replace":
                if parent.arrayValue != nil, !parent.has(key) {
                    return (pathNode, "cannot replace \(raw): the list has no such item (replace operation does not apply: doc is missing key)")
                }
                guard let v = y.get(op, "value").flatMap({ JSON(y, $0) }) else { return nil }
                doc.set(path[...], v)
            default:
                guard parent.canAdd(key) else { return (pathNode, "cannot add \(raw): the list is shorter (Unable to access invalid index)") }
                guard let v = y.get(op, "value").flatMap({ JSON(y, $0) }) else { return nil }
                doc.set(path[...], v, insert: true)
            }
        }
        return nil
    }

    private static func pointer(_ keys: ArraySlice<String>) -> String {
        keys.isEmpty ? "root" : "/" + keys.joined(separator: "/")
    }

    private var isContainer: Bool {
        switch self {
        case .object, .array: return true
        default: return false
        }
    }

    /// The value at `path`, or nil if the document has none there.
    private func at(_ path: ArraySlice<String>) -> JSON? {
        guard let first = path.first else { return self }
        switch self {
        case .object: return self[first]?.at(path.dropFirst())
        case .array(let items):
            guard let i = Int(first), i >= 0, i < items.count else { return nil }
            return items[i].at(path.dropFirst())
        default: return nil
        }
    }

    /// Whether this object has `key`, or this array the index `key`.
    private func has(_ key: String) -> Bool {
        switch self {
        case .object: return self[key] != nil
        case .array(let items): return Int(key).map { $0 >= 0 && $0 < items.count } ?? false
        default: return false
        }
    }

    /// Whether `add` may write `key` here without failing (an array's index up to its length, or `-`).
    private func canAdd(_ key: String) -> Bool {
        switch self {
        case .object: return true
        case .array(let items): return key == "-" || (Int(key).map { $0 >= 0 && $0 <= items.count } ?? false)
        default: return false
        }
    }

    /// Sets (or with nil removes) the value at `path`; `insert`: an array's index takes a new item.
    private mutating func set(_ path: ArraySlice<String>, _ value: JSON?, insert: Bool = false) {
        guard let key = path.first else { return }
        let last = path.count == 1
        switch self {
        case .object(var fields):
            let i = fields.lastIndex { $0.0 == key }
            if last {
                if let i { if let value { fields[i].1 = value } else { fields.remove(at: i) } } else if let value { fields.append((key, value)) }
            } else if let i {
                fields[i].1.set(path.dropFirst(), value, insert: insert)
            }
            self = .object(fields)
        case .array(var items):
            let i = key == "-" ? items.count : Int(key) ?? -1
            guard i >= 0, i <= items.count else { return }
            if last {
                if insert { if let value { items.insert(value, at: i) } } else if i < items.count {
                    if let value { items[i] = value } else { items.remove(at: i) }
                }
            } else if i < items.count {
                items[i].set(path.dropFirst(), value, insert: insert)
            }
            self = .array(items)
        default: return
        }
    }
}
