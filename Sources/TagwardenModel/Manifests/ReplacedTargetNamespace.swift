import TagwardenBasics
import TagwardenYAML

extension Model {
    /// The `spec.targetNamespace` that a kustomization's `replacements:` copy into the Flux Kustomizations of its build:
    /// a template's way of giving each app the namespace of its directory,
    ///
    /// ```yaml
    /// namespace: observability
    /// resources: [namespace.yaml, grafana.yaml]       # a Namespace, and Flux Kustomizations without targetNamespace
    /// replacements:
    ///   - source: {kind: Namespace, fieldPath: metadata.name}
    ///     targets: [{select: {kind: Kustomization, group: kustomize.toolkit.fluxcd.io}, fieldPaths: [spec.targetNamespace]}]
    /// ```
    ///
    /// kustomize runs a kustomization's replacements after its other transformers, so the source is the one Namespace
    /// of the build under the name its `namespace:` gives it. A replacement that sets `spec.targetNamespace` from
    /// anything else (another kind or field, a rejection, two Namespaces) leaves the targets' namespace not known:
    /// Object → why, for the objects whose Flux Kustomizations those are.
    static func replaceTargetNamespaces(_ objects: inout Objects, files: Files, graph: IncludeGraph, builds: LazyBuildSets,
                                        replacements: ReplacementEntries) -> [ObjectID: String] {
        var unknown: [ObjectID: String] = [:]   // Flux Kustomization → why its targetNamespace is not known
        // the objects a replacement reads or writes, by file: Flux Kustomizations, Namespaces, kustomizations that set one
        var relevant: [FileID: [ObjectID]]?
        for k in replacements.keys.sorted() {
            let kustomization = objects[k]
            let setters = replacements[k]!.flatMap { targetNamespaceSetters($0.entry, in: $0.file) }
            guard !setters.isEmpty else { continue }
            if relevant == nil {
                relevant = [:]
                for (i, o) in objects.withIDs where o.isFluxKustomization || o.kind == "Namespace" || o.kustomizeNamespace != nil {
                    relevant![o.file, default: []].append(i)
                }
            }
            let built = builds.files(under: graph.directory(of: k))
            let inBuild = built.sorted().flatMap { relevant![$0] ?? [] }
            let replacing = "the replacements: of \(files[kustomization.file].path)"
            for replacement in setters {
                let value = replacement.value(objects: objects, inBuild: inBuild, kustomization: k)
                for t in inBuild where objects[t].isFluxKustomization && replacement.selects(objects[t]) {
                    let target = objects[t]
                    guard var spec = target.fluxKustomization else { continue }
                    switch value {
                    case .success(let namespace):
                        spec.targetNamespace = namespace
                        objects[t] = target.replacingFlux(.kustomization(spec))
                        unknown[t] = nil
                    case .failure(let why):
                        unknown[t] = "\(replacing) may set the targetNamespace of Flux Kustomization \(target.name ?? ""), which Tagwarden does not follow (\(why.why))"
                    }
                }
            }
        }
        guard !unknown.isEmpty else { return [:] }
        // the objects those Kustomizations build (the files under their paths)
        var out: [ObjectID: String] = [:]
        var byFile: [FileID: String] = [:]
        for t in unknown.keys.sorted() {
            let why = unknown[t]!
            guard let path = objects[t].fluxKustomization?.path.flatMap({ Model.normalizePath($0) }) else { continue }
            for f in builds.files(under: path) where byFile[f] == nil { byFile[f] = why }
        }
        for (i, o) in objects.withIDs { if let why = byFile[o.file] { out[i] = why } }
        return out
    }

    /// One replacement that sets `spec.targetNamespace`: its source and which objects its targets select.
    struct TargetNamespaceReplacement {
        var sourceKind: String?, sourceName: String?, sourceField: String
        var selectKind: String?, selectGroup: String?, selectName: String?, selectNamespace: String?
        var rejects: Bool

        func selects(_ o: ManifestObject) -> Bool {
            (selectKind ?? o.kind) == o.kind && (selectGroup ?? o.group) == o.group && (selectName.map { $0 == o.name } ?? true)
                && (selectNamespace.map { $0 == o.declaredNamespace } ?? true)
        }

        /// The namespace the replacement copies, or why it is not known.
        /// `inBuild`: the Namespaces and kustomizations of kustomization k's build (with its Flux Kustomizations).
        func value(objects: Objects, inBuild: [ObjectID], kustomization k: ObjectID) -> Result<String, Model.NotKnown> {
            guard !rejects else { return .failure(.init("its targets reject some objects")) }
            guard sourceKind == "Namespace", sourceField == "metadata.name" else {
                return .failure(.init("its source is \(sourceKind ?? "any kind")'s \(sourceField)"))
            }
            // kustomize's namespace transformer names the build's Namespaces after the kustomization's `namespace:`;
            // one set below it is not followed here
            let own = objects[k].kustomizeNamespace
            let namespaces = inBuild.filter { objects[$0].kind == "Namespace" }
            let inner = inBuild.contains { $0 != k && objects[$0].isKustomization && objects[$0].kustomizeNamespace != nil }
            guard own != nil || !inner else { return .failure(.init("a kustomization of its build sets namespace:")) }
            let names = namespaces.map { own ?? objects[$0].name ?? "" }.filter { sourceName == nil || $0 == sourceName }
            guard names.count == 1, let name = names.first, !name.isEmpty else {
                return .failure(.init("its build has \(names.count) Namespaces it could copy"))
            }
            return .success(name)
        }
    }

    struct NotKnown: Error { let why: String; init(_ why: String) { self.why = why } }

    /// Each kustomization's `replacements:` entries, inline or in the files `path:` names, with the file that holds each:
    /// read once for the steps that look into them (target namespaces, image fields).
    typealias ReplacementEntries = [ObjectID: [(entry: Int, file: YAMLFile)]]

    static func replacementEntries(_ objects: Objects, files: Files, fileAt: StringMap<FileID>) -> ReplacementEntries {
        var out: ReplacementEntries = [:]
        for (k, kustomization) in objects.withIDs where kustomization.kustomizeUnknowns.contains(.replacements) {
            let y = files[kustomization.file].yaml
            guard kustomization.document < y.documents.count, let list = y.get(y.documents[kustomization.document].root, "replacements")
            else { continue }
            let dir = files[kustomization.file].directory
            var entries: [(entry: Int, file: YAMLFile)] = []
            for entry in y.childNodes(list) {
                if let path = y.string(entry, "path") {
                    guard let full = normalizePath(Sources.join(dir, path)), let f = fileAt[full] else { continue }
                    let file = files[f].yaml
                    for document in file.documents {
                        let root = document.root
                        for e in file.nodes[root].kind == .sequence ? Array(file.childNodes(root)) : [root] { entries.append((e, file)) }
                    }
                } else {
                    entries.append((entry, y))
                }
            }
            out[k] = entries
        }
        return out
    }

    /// Replacement `entry`'s targets that set `spec.targetNamespace`, each with the entry's source.
    static func targetNamespaceSetters(_ entry: Int, in y: YAMLFile) -> [TargetNamespaceReplacement] {
        guard let targets = y.get(entry, "targets") else { return [] }
        let source = y.get(entry, "source")
        return y.childNodes(targets).compactMap { target in
            guard let paths = y.get(target, "fieldPaths"),
                  y.childNodes(paths).contains(where: { y.value($0) == "spec.targetNamespace" }) else { return nil }
            let select = y.get(target, "select")
            return TargetNamespaceReplacement(
                sourceKind: source.flatMap { y.string($0, "kind") }, sourceName: source.flatMap { y.string($0, "name") },
                sourceField: source.flatMap { y.string($0, "fieldPath") } ?? "metadata.name",
                selectKind: select.flatMap { y.string($0, "kind") }, selectGroup: select.flatMap { y.string($0, "group") },
                selectName: select.flatMap { y.string($0, "name") }, selectNamespace: select.flatMap { y.string($0, "namespace") },
                rejects: y.get(target, "reject") != nil)
        }
    }
}
