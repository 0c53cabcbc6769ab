import TagwardenBasics
import TagwardenYAML

/// A `spec.path` that a patch gives a Flux Kustomization in a build that takes it: a shared base's placeholder path
/// (`./kubernetes/apps/overlays/replace-me`) that each cluster's overlay replaces with its own
/// (rejdeboer/mmo-deployment's `clusters/staging`). The path as written is then not what that build deploys.
struct PatchedFluxPath: Sendable {
    var kustomization: ObjectID
    /// The kustomization (or Flux Kustomization, by its `spec.patches`) whose patch it is.
    var by: ObjectID
    /// The path the patch writes, where it writes it; nil when it is not a plain string (a whole `spec`, a `move`).
    var path: Located?
}

/// A Flux Kustomization's `path` that holds no manifest here, where it is written: in the Kustomization's file, or in
/// the patch that sets it.
public struct EmptyFluxPath: Sendable {
    public let kustomization: ObjectID
    /// As Flux reads it: from the source's root.
    public let path: String
    public let file: FileID
    public let span: SourceSpan
    /// Set by a patch of a build that takes the Kustomization, whose file holds it.
    public let patched: Bool
}

extension Model {
    /// The Flux Kustomizations whose `spec.path` every build that takes them replaces with a patch file's: the file
    /// holds a Flux Kustomization of their name and namespace that sets `path`, and every chain of kustomizations up
    /// from their file passes through one that applies it (flux2-multi-tenancy's `tenants/base` sync with `path: ./`,
    /// which each cluster's overlay patches). Their path as written is built by nothing; the patch's Kustomization,
    /// which the walk meets in the patching build, stands for them. `nonResources`: the objects of patch files.
    static func pathsPatchedEverywhere(objects: Objects, files: Files, graph: IncludeGraph, nonResources: Set<ObjectID>) -> Set<ObjectID> {
        struct Identity: Hashable { let name: String, namespace: String? }
        var patching: [Identity: Set<ObjectID>] = [:]   // → the kustomizations whose patch files set its path
        for p in nonResources where objects[p].fluxKustomization?.path != nil {
            guard let name = objects[p].name else { continue }
            for k in graph.patchedBy[files[objects[p].file].path] ?? [] {
                patching[Identity(name: name, namespace: objects[p].declaredNamespace), default: []].insert(k)
            }
        }
        guard !patching.isEmpty else { return [] }
        let builtAt = writtenFluxPaths(objects)
        var out = Set<ObjectID>()
        for (i, o) in objects.withIDs where o.isFluxKustomization && o.fluxKustomization?.path != nil && !nonResources.contains(i) {
            guard let name = o.name, let by = patching[Identity(name: name, namespace: o.declaredNamespace)],
                  graph.everyWayUp(from: files[o.file].path, passesThrough: by, unlessBuiltAt: builtAt) else { continue }
            out.insert(i)
        }
        return out
    }

    /// The plain paths that kustomizations' patches written in their own file (`patches:` entries with `patch:`) give the
    /// Flux Kustomizations of their builds: a cluster's overlay that replaces a shared base's placeholder path
    /// (Syntax3rror404/infra's JSON patch of `/spec/path`), which the clusters' walk builds in the clusters that apply the
    /// overlay. Read before the clusters (`readAllSteps` runs beside them), and only where a kustomization's text may hold
    /// such a patch.
    static func inlinePatchedFluxPaths(objects: Objects, files: Files, graph: IncludeGraph, builds: LazyBuildSets) -> [PatchedFluxPath] {
        let candidates = objects.indices.filter { k in
            guard objects[k].isKustomization else { return false }
            let text = files[objects[k].file].bytes[objects[k].byteRange]
            return SourceText.contains("patch", in: text)
                && (SourceText.contains("/spec/path", in: text) || SourceText.contains("kustomize.toolkit.fluxcd.io", in: text))
        }
        guard !candidates.isEmpty, objects.contains(where: \.isFluxKustomization) else { return [] }
        let fileAt = builds.value.fileAt
        var stepsOf: [ObjectID: EffectiveObjects.Steps] = [:]
        for k in candidates {
            var steps = EffectiveObjects.readSteps(k, objects: objects, files: files, fileAt: fileAt, yaml: { files[$0].yaml })
            // (a patch file's Flux Kustomization is the patched one as the build applies it: the walk meets it there)
            steps.early.removeAll { $0.text.file != objects[k].file }
            steps.late.removeAll { $0.text.file != objects[k].file }
            stepsOf[k] = steps
        }
        return patchedFluxPaths(objects: objects, files: files, graph: graph, builds: builds, stepsOf: stepsOf).filter { $0.path != nil }
    }

    /// `inlinePatchedFluxPaths` by Flux Kustomization: each path with the kustomization that patches it (a Flux
    /// Kustomization's `spec.patches` apply where it builds, not here). A cluster that takes the patching kustomization
    /// builds the patch's path in place of the one written; one that does not (a cluster applied from the base's own
    /// directory) builds the one written.
    static func inlinePatchedPaths(objects: Objects, files: Files, graph: IncludeGraph,
                                   builds: LazyBuildSets) -> [ObjectID: [(by: ObjectID, path: String)]] {
        var paths: [ObjectID: [(by: ObjectID, path: String)]] = [:]
        // (as written, `${…}` and all: the clusters' walk substitutes it as it does a path written in the Kustomization; of
        // one kustomization's patches, the last that sets the path)
        for p in inlinePatchedFluxPaths(objects: objects, files: files, graph: graph, builds: builds) where objects[p.by].isKustomization {
            guard let value = p.path?.value else { continue }
            if let at = paths[p.kustomization]?.firstIndex(where: { $0.by == p.by }) {
                paths[p.kustomization]![at].path = value
            } else {
                paths[p.kustomization, default: []].append((p.by, value))
            }
        }
        return paths
    }

    /// The empty paths of the Flux Kustomizations: of `written` (`unreadResources`), those no patch may set (the path
    /// a patch sets is the one the patching build deploys), and each plain path a patch sets that holds no manifest.
    static func emptyFluxPaths(written: [ObjectID], objects: Objects, files: Files, graph: IncludeGraph, builds: LazyBuildSets,
                               stepsOf: [ObjectID: EffectiveObjects.Steps], skipped: [SkippedFile], included: [String],
                               config: Config) -> [EmptyFluxPath] {
        let patched = stepsOf.isEmpty ? [] : patchedFluxPaths(objects: objects, files: files, graph: graph, builds: builds, stepsOf: stepsOf)
        let patchedKustomizations = Set(patched.map(\.kustomization))
        var out: [EmptyFluxPath] = written.compactMap { k -> EmptyFluxPath? in
            guard !patchedKustomizations.contains(k), let spec = objects[k].fluxKustomization, let path = spec.path,
                  let span = spec.pathSpan else { return nil }
            return EmptyFluxPath(kustomization: k, path: path, file: objects[k].file, span: span, patched: false)
        }
        guard !patched.isEmpty else { return out }
        let ignore = config.ignore.map(Glob.init), b = builds.value
        for p in patched {
            guard let set = p.path, let file = set.file,
                  holdsNoManifest(set.value, builds: b, notRead: { notRead($0, skipped: skipped, ignore: ignore, config: config, included: included) })
            else { continue }
            out.append(EmptyFluxPath(kustomization: p.kustomization, path: rootedPath(set.value), file: file, span: set.span, patched: true))
        }
        return out
    }

    /// The patches that may set the `spec.path` of a Flux Kustomization in the build of the kustomization (or of the
    /// Flux Kustomization, by its `spec.patches`) that holds them: a JSON patch operation on `/spec/path` or above it,
    /// or a strategic-merge patch whose `spec` has a `path`. `stepsOf`: the patches, as `EffectiveObjects.readAllSteps`
    /// read them.
    static func patchedFluxPaths(objects: Objects, files: Files, graph: IncludeGraph, builds: LazyBuildSets,
                                 stepsOf: [ObjectID: EffectiveObjects.Steps]) -> [PatchedFluxPath] {
        var out: [PatchedFluxPath] = []
        for k in stepsOf.keys.sorted() {
            let steps = stepsOf[k]!
            let setting = (steps.early + steps.late).compactMap { p in pathSetting(p).map { (p, $0) } }
            guard !setting.isEmpty else { continue }
            let dir = objects[k].isFluxKustomization ? objects[k].fluxKustomization?.path.flatMap(normalizePath) : graph.directory(of: k)
            guard let dir else { continue }
            for f in builds.files(under: dir).sorted() {
                for t in builds.objectsOfFile[f] ?? [] where t != k && objects[t].isFluxKustomization {
                    let o = objects[t]
                    for (p, paths) in setting where p.selector?.selectsAsWritten(o, in: files[o.file].yaml) ?? false {
                        out += paths.map { PatchedFluxPath(kustomization: t, by: k, path: $0) }
                    }
                }
            }
        }
        return out
    }

    /// What patch `p` writes at `spec.path`, if it may write there: each plain string it sets, nil for a value not
    /// read here. Nil when it does not touch the path.
    private static func pathSetting(_ p: EffectiveObjects.Patch) -> [Located?]? {
        let y = p.text.yaml
        switch y.nodes[p.root].kind {
        case .sequence:
            var out: [Located?] = []
            for op in y.childNodes(p.root) {
                guard let raw = y.string(op, "path"), y.string(op, "op") != "test" else { continue }
                let keys = EffectiveObjects.pointer(raw)
                guard keys.count <= 2, keys.elementsEqual(["spec", "path"].prefix(keys.count)) else { continue }
                let value = y.get(op, "value")
                out.append(keys.count == 2 && y.string(op, "op") != "remove" && value.map { y.nodes[$0].kind == .scalar } == true
                           ? p.text.located(value!) : nil)
            }
            return out.isEmpty ? nil : out
        case .mapping:
            guard let spec = y.get(p.root, "spec"), let path = y.get(spec, "path") else { return nil }
            return [y.nodes[path].kind == .scalar ? p.text.located(path) : nil]
        default:
            return nil
        }
    }
}
