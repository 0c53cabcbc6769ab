import TagwardenBasics
import TagwardenRegex
import TagwardenYAML

/// The image-automation objects (ImagePolicies, ImageRepositories, ImageUpdateAutomations) as the builds that deploy
/// them make them: kustomize's patches (`patchesStrategicMerge`, `patches`, `patchesJson6902`, a file's or written
/// inline; with or without a `target`) and those of the Components a kustomization lists, followed along every chain
/// of kustomizations from the object's file to a root (a kustomization nothing includes, or one a Flux Kustomization's
/// `path` builds), in kustomize's order — at each kustomization its Components' patches, its strategic-merge patches
/// and `patches`, then its `namespace`, `namePrefix` and `nameSuffix`, then its JSON 6902 patches — and then the
/// `spec.patches` and `targetNamespace` of each Flux Kustomization that builds the root.
///
/// Only the fields the rules read are followed: `metadata.name`, `namespace`, `labels` and `annotations`, and the
/// specs Tagwarden extracts. A value a patch supplies keeps its own place (`Located.file`), so a finding about it
/// points at the patch. Builds that make the object alike share one variant; each other variant is another object.
struct EffectiveObjects {
    /// One object as some of its builds deploy it.
    struct Variant: Sendable {
        var object: ManifestObject
        var namespace: String?
        /// The files that say where the builds deploy it (the root kustomization, the Flux Kustomization), for its
        /// environment.
        var roots: [String]
    }

    /// The state of an object along a build.
    struct State: Equatable {
        var name: String?
        var namespace: String?
        /// The name and namespace kustomize keeps as the object's first (`previousNames`), which a `target` matches
        /// as well as the current ones: kept the first time a `namespace`, a `namePrefix` or `nameSuffix`, or a JSON
        /// patch under `patches:` changes the object (one under `patchesJson6902` keeps none); nil until then.
        var first: (name: String?, namespace: String?)?
        var originalName: String? { first.map { $0.name } ?? name }
        var originalNamespace: String? { first.map { $0.namespace } ?? namespace }

        mutating func keepFirst() { if first == nil { first = (name, namespace) } }

        static func == (a: State, b: State) -> Bool {
            a.name == b.name && a.namespace == b.namespace && a.labels == b.labels && a.annotations == b.annotations
                && (a.box === b.box || a.box.same(as: b.box))
                && a.patched == b.patched && a.deleted == b.deleted && a.first?.name == b.first?.name && a.first?.namespace == b.first?.namespace
        }
        var labels: [String: String]
        var annotations: [String: String]
        /// The spec, shared by the states copied from one another until one changes it: a build copies its state at
        /// each step, and a spec is most of a state.
        var spec: Spec {
            get { box.spec }
            set { box = SpecBox(newValue) }
        }
        private var box: SpecBox

        /// Changes the spec when it is a policy's (a repository's, an automation's), in place.
        mutating func policy(_ change: (inout ImagePolicySpec) -> Void) {
            guard box.kind == .policy else { return }
            if !isKnownUniquelyReferenced(&box) { box = SpecBox(copying: box) }
            box.policy(change)
        }

        mutating func repository(_ change: (inout ImageRepositorySpec) -> Void) {
            guard box.kind == .repository else { return }
            if !isKnownUniquelyReferenced(&box) { box = SpecBox(copying: box) }
            box.repository(change)
        }

        mutating func automation(_ change: (inout AutomationSpec) -> Void) {
            guard box.kind == .automation else { return }
            if !isKnownUniquelyReferenced(&box) { box = SpecBox(copying: box) }
            box.automation(change)
        }

        init(name: String?, namespace: String?, labels: [String: String], annotations: [String: String], spec: Spec) {
            self.name = name
            self.namespace = namespace
            self.labels = labels
            self.annotations = annotations
            box = SpecBox(spec)
        }
        /// Some patch (or Flux's substitution) changed it.
        var patched = false
        /// A `$patch: delete` removed it from the build.
        var deleted = false
    }

    /// A state's spec, kept by kind so that a patch changes its fields in place.
    final class SpecBox {
        enum Kind { case policy, repository, automation }
        let kind: Kind
        private(set) var policy: ImagePolicySpec?
        private(set) var repository: ImageRepositorySpec?
        private(set) var automation: AutomationSpec?

        init(_ spec: Spec) {
            switch spec {
            case .policy(let p): kind = .policy; policy = p
            case .repository(let r): kind = .repository; repository = r
            case .automation(let a): kind = .automation; automation = a
            }
        }

        init(copying other: SpecBox) {
            kind = other.kind
            policy = other.policy
            repository = other.repository
            automation = other.automation
        }

        func policy(_ change: (inout ImagePolicySpec) -> Void) { change(&policy!) }
        func repository(_ change: (inout ImageRepositorySpec) -> Void) { change(&repository!) }
        func automation(_ change: (inout AutomationSpec) -> Void) { change(&automation!) }

        var spec: Spec {
            switch kind {
            case .policy: .policy(policy!)
            case .repository: .repository(repository!)
            case .automation: .automation(automation!)
            }
        }

        func same(as other: SpecBox) -> Bool {
            policy == other.policy && repository == other.repository && automation == other.automation
        }
    }

    enum Spec: Equatable {
        case policy(ImagePolicySpec), repository(ImageRepositorySpec), automation(AutomationSpec)
    }

    /// A patch's YAML, and where its values stand in the repository.
    final class PatchText: Sendable {
        let yaml: YAMLFile
        let file: FileID
        /// A literal block's lines in the kustomization that holds it.
        let lines: BlockLines?
        /// A patch written in another kind of string: every value points at the string.
        let whole: SourceSpan?

        init(yaml: YAMLFile, file: FileID, lines: BlockLines?, whole: SourceSpan?) {
            self.yaml = yaml
            self.file = file
            self.lines = lines
            self.whole = whole
        }

        func span(_ n: Int) -> SourceSpan {
            if let whole { return whole }
            return lines?.span(yaml.nodes[n].span) ?? yaml.nodes[n].span
        }

        func located(_ n: Int) -> Located {
            Located(value: yaml.value(n), span: span(n), type: yaml.resolvedType(n), file: file)
        }
    }

    /// The objects a patch changes: kustomize's `target`, or a strategic-merge patch's own kind and name.
    struct Selector: Sendable {
        var group: String?, version: String?, kind: String?
        /// kustomize reads `name` and `namespace` as regular expressions of the whole name.
        var name: GoRegex?, namespace: GoRegex?
        /// A name or namespace with no regular-expression syntax, or a strategic-merge patch's own when it has no
        /// target: compared as they are.
        var exactName: String?, exactNamespace: String?
        var labels: LabelSelector?, annotations: LabelSelector?

        func selects(_ o: ManifestObject, _ s: State) -> Bool {
            selects(o, name: s.name, namespace: s.namespace, firstName: s.originalName, firstNamespace: s.originalNamespace,
                    labels: s.labels, annotations: s.annotations)
        }

        /// Whether it selects object `o` as written: its own name and namespace, and the labels and annotations of its
        /// document `y`, read only when the selector asks for them.
        func selectsAsWritten(_ o: ManifestObject, in y: @autoclosure () -> YAMLFile) -> Bool {
            var read: (labels: [String: String], annotations: [String: String])?
            func metadata() -> (labels: [String: String], annotations: [String: String]) {
                if read == nil { read = EffectiveObjects.labelsAndAnnotations(o, in: y()) }
                return read!
            }
            return selects(o, name: o.name, namespace: o.declaredNamespace, firstName: o.name, firstNamespace: o.declaredNamespace,
                           labels: metadata().labels, annotations: metadata().annotations)
        }

        /// `first…`: the name and namespace kustomize kept as the object's first, which a target matches too.
        func selects(_ o: ManifestObject, name current: String?, namespace currentNamespace: String?, firstName: String?, firstNamespace: String?,
                     labels objectLabels: @autoclosure () -> [String: String], annotations objectAnnotations: @autoclosure () -> [String: String]) -> Bool {
            if let group, group != o.group { return false }
            if let version, version != Substring(o.apiVersion.split(separator: "/").last ?? "") { return false }
            if let kind, kind != o.kind { return false }
            // kustomize matches the name (and namespace) an object was written with or has now
            if let exactName, exactName != firstName, exactName != current { return false }
            if let exactNamespace, exactNamespace != (firstNamespace ?? "default"), exactNamespace != (currentNamespace ?? "default") { return false }
            if let name, !(firstName.map(name.matches) ?? false), !(current.map(name.matches) ?? false) { return false }
            if let namespace, !namespace.matches(firstNamespace ?? "default"), !namespace.matches(currentNamespace ?? "default") { return false }
            if let labels, !labels.matches(objectLabels()) { return false }
            if let annotations, !annotations.matches(objectAnnotations()) { return false }
            return true
        }
    }

    struct Patch: Sendable {
        var selector: Selector?
        /// What it does to an image-automation object, read once from its YAML (none when it selects another kind).
        var edits: [Edit]
        /// Its YAML and the document's root: what it does to a workload's containers is read from them when asked
        /// (`Model.markRetagged`).
        var text: PatchText
        var root: Int
        /// Written under `patches:` (kustomize's PatchTransformer, which Flux's `spec.patches` use too): a JSON patch
        /// there keeps the object's first name and namespace before it applies.
        var keepsFirst = false
        /// A strategic-merge patch without a `target`: it patches the object of its own kind and name, which the build
        /// must hold.
        var targetless = false

        /// A strategic merge with `$patch: delete`: what it selects leaves the build.
        var deletes: Bool { text.yaml.nodes[root].kind == .mapping && text.yaml.string(root, "$patch") == "delete" }

        /// It may take what it selects out of the build or give it another identity: it deletes it, or it is a JSON patch
        /// that writes its name, namespace, kind or apiVersion (or the whole object, or its metadata).
        var mayChangeIdentity: Bool {
            let y = text.yaml
            switch y.nodes[root].kind {
            case .mapping:
                return deletes
            case .sequence:
                return y.childNodes(root).contains { op in
                    [y.string(op, "path"), y.string(op, "from")].contains { path in
                        guard let path else { return false }
                        let keys = EffectiveObjects.pointer(path)
                        return keys.count <= 1 ? keys.isEmpty || ["", "metadata", "kind", "apiVersion"].contains(keys[0])
                            : keys[0] == "metadata" && (keys[1] == "name" || keys[1] == "namespace")
                    }
                }
            default:
                return true
            }
        }
    }

    /// A kustomization's patches in the order kustomize applies them.
    struct Steps: Sendable {
        /// `patchesStrategicMerge`, then `patches`: before the namespace and the name affixes.
        var early: [Patch] = []
        /// `patchesJson6902`: after them.
        var late: [Patch] = []
        /// `components:`, as normalised directories, in order.
        var components: [String] = []
        /// A patch's `options` let it change the name or kind of what it selects (`allowNameChange`, `allowKindChange`).
        var renamesByOption = false
        /// `commonLabels` and `labels[].pairs`, `commonAnnotations`: set on every object after the name affixes.
        var labels: [String: String] = [:]
        var annotations: [String: String] = [:]
        /// The first `patches:` entry kustomize refuses to configure, whatever the build holds: where its `patch` or
        /// `path` is written, and why.
        var refused: (span: SourceSpan, problem: String)?
    }

    static let kinds: Set<String> = ["ImagePolicy", "ImageRepository", "ImageUpdateAutomation"]

    /// The labels a kustomization at `root` sets on every object of its build: `commonLabels`, then each `labels[].pairs`.
    static func kustomizeLabels(_ y: YAMLFile, _ root: Int) -> [String: String] {
        var out: [String: String] = [:]
        scalarPairs(y, y.get(root, "commonLabels"), into: &out)
        if let list = y.get(root, "labels") { for item in y.childNodes(list) { scalarPairs(y, y.get(item, "pairs"), into: &out) } }
        return out
    }

    /// The scalar values of mapping `n`, by key, into `map`.
    static func scalarPairs(_ y: YAMLFile, _ n: Int?, into map: inout [String: String]) {
        guard let n, y.nodes[n].kind == .mapping else { return }
        for (k, v) in y.pairs(n) where y.nodes[v].kind == .scalar && !y.isNull(v) { map[y.value(k)] = y.value(v) }
    }

    /// A JSON patch's path (RFC 6901): its keys, `~1` and `~0` read as `/` and `~`.
    static func pointer(_ raw: String) -> [String] {
        raw.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            String($0).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    /// A name with no regular-expression syntax (letters, digits, `-`): kustomize's target of it selects that name
    /// alone.
    static func isPlainName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { c in (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 45 }
    }

    /// Per object that its builds deploy otherwise than it is written (patched, renamed, substituted, or differently
    /// by different builds): its variants, the first of which replaces it.
    /// `builds`: its index of paths finds patch files.
    /// Whether some kustomization or Flux Kustomization may patch: its text has `patches` (`patchesStrategicMerge`,
    /// `patchesJson6902`).
    static func patches(_ o: ManifestObject, files: Files) -> Bool {
        (o.isKustomization || o.isFluxKustomization) && SourceText.contains("patches", in: files[o.file].bytes[o.byteRange])
    }

    /// The steps of every kustomization with patches, and of those that may be Components or set labels, when some
    /// kustomization patches: read in parallel (each reads its own files: the YAML parse is most of this), and apart
    /// from the rest of `resolve`, so that a model can read them while it does other work.
    static func readAllSteps(objects: Objects, files: Files, fileAt: StringMap<FileID>) -> [ObjectID: Steps] {
        let patched = Set(objects.indices.filter { patches(objects[$0], files: files) })
        guard !patched.isEmpty else { return [:] }
        let reading = objects.indices.filter { k in
            let text = files[objects[k].file].bytes[objects[k].byteRange]
            return patched.contains(k) || (objects[k].isKustomization && (SourceText.contains("components", in: text)
                || SourceText.contains("abels", in: text) || SourceText.contains("commonAnnotations", in: text)))
        }
        @Sendable func yaml(_ f: FileID) -> YAMLFile { files[f].yaml }
        let read = concurrentChunks(reading.count, chunkSize: max(1, reading.count / 16)) { range in
            range.map { n in readSteps(reading[n], objects: objects, files: files, fileAt: fileAt, yaml: yaml) }
        }
        return Dictionary(uniqueKeysWithValues: zip(reading, read))
    }

    /// `stepsOf`: what `readAllSteps` read.
    /// `kustomizationAt`: directory → the kustomization there (`BuildSets`).
    static func resolve(objects: Objects, files: Files, graph: IncludeGraph, clusters: Clusters, kustomizationAt: StringMap<ObjectID>,
                        writtenName: [ObjectID: String], nonResources: Set<ObjectID>, stepsOf: [ObjectID: Steps],
                        variables: @escaping @Sendable (ObjectID) -> ((String) -> Envsubst.Value)? = { _ in nil }) -> [ObjectID: [Variant]] {
        // without patches, only builds that name or place a base differently, or substitute its fields, make variants
        guard !stepsOf.isEmpty || objects.contains(where: { o in
            o.kustomizeNamePrefix != nil || o.kustomizeNameSuffix != nil || o.kustomizeNamespace != nil
                || (o.isFluxKustomization && o.fluxKustomization.map { $0.postBuild?.isActive == true || $0.namePrefix != nil || $0.nameSuffix != nil } == true)
        }) else { return [:] }
        /// The image-automation objects' files keep their tree (`Extractor`); another is parsed again.
        @Sendable func yaml(_ f: FileID) -> YAMLFile { files[f].yaml }
        /// Directory → the Flux Kustomizations whose `path` it is; directory of a Component → the Flux Kustomizations
        /// that list it in `spec.components` (relative to their `path`: Flux appends them to the `components:` of the
        /// kustomization at the path); Flux Kustomization → its `spec.components`, as directories, in order.
        let (fluxAt, fluxComponentAt, fluxComponents) = {
            var fluxAt: [String: [ObjectID]] = [:]
            var fluxComponentAt: [String: [ObjectID]] = [:], fluxComponents: [ObjectID: [String]] = [:]
            for (i, o) in objects.withIDs {
                if let k = o.fluxKustomization, k.source?.isGitRepository ?? true, let p = k.path {
                    fluxAt[p, default: []].append(i)
                    for dir in k.componentDirectories {
                        fluxComponentAt[dir, default: []].append(i)
                        fluxComponents[i, default: []].append(dir)
                    }
                }
            }
            return (fluxAt, fluxComponentAt, fluxComponents)
        }()
        @Sendable func steps(_ k: ObjectID) -> Steps { stepsOf[k] ?? Steps() }
        // labels and annotations are read only when some patch selects by them
        func bySelector(_ p: Patch) -> Bool { p.selector?.labels != nil || p.selector?.annotations != nil }
        let bySelectors = stepsOf.values.contains { $0.early.contains(where: bySelector) || $0.late.contains(where: bySelector) }
        @Sendable func metadata(_ i: ObjectID) -> ([String: String], [String: String]) {
            let o = objects[i]
            guard bySelectors else { return (o.labels, [:]) }
            return labelsAndAnnotations(o, in: yaml(o.file))
        }

        // each object's builds, in parallel: they read what is above and write nothing shared
        @Sendable func variants(_ i: ObjectID) -> [Variant]? {
            let o = objects[i]
            guard let initial = Spec(o.flux) else { return nil }
            let written = writtenName[i] ?? o.name
            let (labels, annotations) = metadata(i)
            let start = State(name: written, namespace: o.declaredNamespace, labels: labels, annotations: annotations, spec: initial)
            var results: [(state: State, roots: [String])] = []
            /// The state a build leaves: `roots` say where it is deployed from.
            func finish(_ s: State, roots: [String]) { results.append((s, roots)) }
            /// Flux's post-build substitution by Flux Kustomization `flux`: its variables as `variables` reads them (its
            /// inline values, the ConfigMaps here, its parents' values), else its inline ones; a variable only a source
            /// not here may set is not known.
            func substituted(_ s: State, by flux: ObjectID) -> State {
                guard let post = objects[flux].fluxKustomization?.postBuild, post.isActive, !o.substitutionDisabled else { return s }
                var s = s
                let lookup = variables(flux) ?? { v in post.substitute[v].map { .defined($0) } ?? (post.substituteFrom.isEmpty ? .undefined : .unknown) }
                s.substitute { text in Envsubst.expand(text, lookup)?.text }
                return s
            }
            /// What kustomization k (reached from `child`) does, in kustomize's order; with `flux`, as the root of that
            /// Flux Kustomization, whose generated additions are its `spec.components` after the kustomization's own,
            /// its `spec.patches` after the kustomization's, and its `targetNamespace`, `namePrefix` and `nameSuffix`
            /// in place of the kustomization's.
            func step(_ k: ObjectID, from child: String, _ state: State, flux: ObjectID?) -> State {
                var s = state
                let st = steps(k)
                let components = st.components + (flux.flatMap { fluxComponents[$0] } ?? [])
                let after = components.firstIndex(of: child).map { $0 + 1 } ?? 0
                for c in components[after...] {
                    guard let ck = kustomizationAt[c] else { continue }
                    for p in steps(ck).early + steps(ck).late { apply(p, to: &s, o) }
                }
                for p in st.early { apply(p, to: &s, o) }
                if let flux { for p in steps(flux).early { apply(p, to: &s, o) } }
                let kz = objects[k]
                let target = flux.flatMap { objects[$0].fluxKustomization?.targetNamespace }.flatMap { $0.isEmpty ? nil : $0 }
                if let ns = target ?? kz.kustomizeNamespace, !ns.isEmpty {
                    s.keepFirst()
                    s.namespace = ns
                }
                let fluxSpec = flux.flatMap { objects[$0].fluxKustomization }
                let prefix = fluxSpec?.namePrefix ?? kz.kustomizeNamePrefix, suffix = fluxSpec?.nameSuffix ?? kz.kustomizeNameSuffix
                if let name = s.name, prefix != nil || suffix != nil {
                    s.keepFirst()
                    s.name = (prefix ?? "") + name + (suffix ?? "")
                }
                // kustomize's label and annotation transformers, before the JSON 6902 patches
                if !st.labels.isEmpty { s.labels.merge(st.labels) { _, new in new } }
                if !st.annotations.isEmpty { s.annotations.merge(st.annotations) { _, new in new } }
                for p in st.late { apply(p, to: &s, o) }
                return s
            }
            /// A Flux Kustomization that generates its kustomization (none at its path, or one above `path`): the
            /// generated one takes what was built, then its own components, `spec.patches`, `targetNamespace` and name
            /// affixes.
            func generated(_ state: State, flux: ObjectID, from child: String) -> State {
                var s = state
                let components = fluxComponents[flux] ?? []
                let after = components.firstIndex(of: child).map { $0 + 1 } ?? 0
                for c in components[after...] {
                    guard let ck = kustomizationAt[c] else { continue }
                    for p in steps(ck).early + steps(ck).late { apply(p, to: &s, o) }
                }
                for p in steps(flux).early { apply(p, to: &s, o) }
                let spec = objects[flux].fluxKustomization
                if let t = spec?.targetNamespace, !t.isEmpty { s.namespace = t }
                if let name = s.name, spec?.namePrefix != nil || spec?.nameSuffix != nil {
                    s.keepFirst()
                    s.name = (spec?.namePrefix ?? "") + name + (spec?.nameSuffix ?? "")
                }
                return s
            }
            func climb(_ k: ObjectID, from child: String, _ state: State, depth: Int) {
                let kz = objects[k]
                let path = files[kz.file].path
                let dir = Path.dirname(path)
                // as the root of each Flux Kustomization whose path it is
                let here = fluxAt[dir] ?? []
                for f in here { finish(substituted(step(k, from: child, state, flux: f), by: f), roots: [path, files[objects[f].file].path]) }
                let s = step(k, from: child, state, flux: nil)
                // a Component that Flux Kustomizations list: taken by the kustomization at each one's path
                for f in fluxComponentAt[dir] ?? [] {
                    guard let p = objects[f].fluxKustomization?.path else { continue }
                    if let root = kustomizationAt[p] {
                        let r = step(root, from: dir, s, flux: f)
                        finish(substituted(r, by: f), roots: [files[objects[root].file].path, files[objects[f].file].path])
                    } else {
                        finish(substituted(generated(s, flux: f, from: dir), by: f), roots: [path, files[objects[f].file].path])
                    }
                }
                let parents = graph.parents(of: k, depth: depth)
                if parents.isEmpty, fluxComponentAt[dir] == nil {
                    // Flux Kustomizations whose generated kustomization takes this one
                    let above = (clusters.kustomizationsOfFile[kz.file] ?? []).filter { !here.contains($0) }
                    for f in above { finish(substituted(generated(s, flux: f, from: dir), by: f), roots: [path, files[objects[f].file].path]) }
                    if here.isEmpty && above.isEmpty { finish(s, roots: [path]) }
                }
                for p in parents { climb(p, from: dir, s, depth: depth + 1) }
            }
            let path = files[o.file].path
            let including = graph.includers(of: path)
            if including.isEmpty {
                let flux = clusters.kustomizationsOfFile[o.file] ?? []
                for f in flux { finish(substituted(generated(start, flux: f, from: path), by: f), roots: [path, files[objects[f].file].path]) }
                if flux.isEmpty { finish(start, roots: [path]) }
            } else {
                for k in including { climb(k, from: path, start, depth: 0) }
            }
            // an object every build deploys alike, unpatched and under its name, is as written (and as
            // `resolveNamespaces` places it)
            guard results.contains(where: \.state.patched) || results.contains(where: { $0.state != results[0].state })
                    || results.first?.state.name != o.name else { return nil }
            // builds that make the object alike deploy one object
            var groups: [(state: State, roots: [String])] = []
            for r in results where !r.state.deleted {
                var key = r.state
                key.patched = false
                key.first = nil
                if let g = groups.firstIndex(where: { $0.state == key }) {
                    for root in r.roots where !groups[g].roots.contains(root) { groups[g].roots.append(root) }
                } else {
                    groups.append((key, r.roots))
                }
            }
            // every build deletes it (`$patch: delete`): no variant, and the object is not deployed
            return groups.map { g in
                Variant(object: o.effective(name: g.state.name, labels: o.kind == "ImagePolicy" ? g.state.labels : o.labels, flux: g.state.spec.flux),
                        namespace: g.state.namespace, roots: g.roots)
            }
        }
        let candidates = objects.indices.filter { objects[$0].group == FluxAPIs.group && kinds.contains(objects[$0].kind) && !nonResources.contains($0) }
        let found = concurrentChunks(candidates.count, chunkSize: max(1, candidates.count / 16)) { range in
            range.compactMap { n in variants(candidates[n]).map { (candidates[n], $0) } }
        }
        return Dictionary(found, uniquingKeysWith: { a, _ in a })
    }

    /// Object `o`'s `metadata.labels` and `metadata.annotations` (scalar values), read from its file's tree `y`: what
    /// a patch's `labelSelector` and `annotationSelector` compare.
    static func labelsAndAnnotations(_ o: ManifestObject, in y: YAMLFile) -> (labels: [String: String], annotations: [String: String]) {
        var labels: [String: String] = [:], annotations: [String: String] = [:]
        guard o.document < y.documents.count, let meta = y.get(y.documents[o.document].root, "metadata") else { return (labels, annotations) }
        for (key, into) in [("labels", 0), ("annotations", 1)] {
            guard let map = key == "labels" ? y.get(meta, "labels") : y.get(meta, "annotations") else { continue }
            for (k, v) in y.pairs(map) where y.nodes[v].kind == .scalar && !y.isNull(v) {
                if into == 0 { labels[y.value(k)] = y.value(v) } else { annotations[y.value(k)] = y.value(v) }
            }
        }
        return (labels, annotations)
    }

    /// Why kustomize's PatchTransformer refuses a patch, whatever it selects: it reads the text as a strategic-merge
    /// patch (resources: each with a kind, and a `metadata.name` unless the kind is a `…List`) and as a JSON patch (a
    /// list of operations), and takes it only when exactly one reading holds. A mapping that is no resource is neither
    /// ("unable to parse SM or JSON patch"); text with no document but comments is both, empty. Nil where it takes it,
    /// or where that is not judged here (more documents, a list, blank text).
    static func refusal(_ t: PatchText) -> String? {
        let y = t.yaml
        if y.documents.isEmpty {
            guard y.bytes.contains(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }) else { return nil }
            return "its patch under patches: holds nothing but comments, which kustomize reads as an empty strategic-merge patch "
                + "and as an empty JSON patch alike (illegally qualifies as both an SM and JSON patch)"
        }
        guard y.documents.count == 1, case let r = y.documents[0].root, y.nodes[r].kind == .mapping else { return nil }
        func scalar(_ n: Int?) -> String { n.flatMap { y.nodes[$0].kind == .scalar && !y.isNull($0) ? y.value($0) : nil } ?? "" }
        let kind = scalar(y.get(r, "kind")), name = scalar(y.get(r, "metadata", "name"))
        guard let lacks = kind.isEmpty ? "kind" : name.isEmpty && !kind.hasBytesSuffix("List") ? "metadata.name" : nil else { return nil }
        return "its patch under patches: has no \(lacks), so kustomize reads it as neither a strategic-merge patch (a resource, "
            + "with a kind and a metadata.name) nor a JSON patch (a list of operations), whatever its target selects "
            + "(unable to parse SM or JSON patch)"
    }

    /// Reads kustomization (or Flux Kustomization) `k`'s patches and components.
    static func readSteps(_ k: ObjectID, objects: Objects, files: Files, fileAt: StringMap<FileID>,
                          yaml: (FileID) -> YAMLFile) -> Steps {
        var steps = Steps()
        let o = objects[k]
        let y = yaml(o.file)
        guard o.document < y.documents.count else { return steps }
        let root = y.documents[o.document].root
        let dir = files[o.file].directory
        func text(inline n: Int) -> PatchText? {
            guard y.nodes[n].kind == .scalar else { return nil }
            let content = Array(y.value(n).utf8)
            let inner = YAMLFile(parsing: content)
            guard inner.error == nil else { return nil }
            if y.nodes[n].style == .literal, let lines = BlockLines(file: y.bytes, header: y.nodes[n].span.start, content: content) {
                return PatchText(yaml: inner, file: o.file, lines: lines, whole: nil)
            }
            return PatchText(yaml: inner, file: o.file, lines: nil, whole: y.nodes[n].span)
        }
        func text(path: String) -> PatchText? {
            guard let p = Model.normalizePath(Sources.join(dir, path)), let f = fileAt[p] else { return nil }
            let py = yaml(f)
            return py.error == nil ? PatchText(yaml: py, file: f, lines: nil, whole: nil) : nil
        }
        func selector(_ t: Int?) -> Selector? {
            guard let t, y.nodes[t].kind == .mapping else { return nil }
            func str(_ key: StaticString) -> String? {
                guard let n = y.get(t, key), y.nodes[n].kind == .scalar, !y.isNull(n), !y.value(n).isEmpty else { return nil }
                return y.value(n)
            }
            // a name without regular-expression syntax matches itself only: compared, not compiled
            func literal(_ s: String?) -> String? { s.flatMap { isPlainName($0) ? $0 : nil } }
            func regex(_ s: String?) -> GoRegex? { s.flatMap { literal($0) == nil ? try? GoRegex("^(?:" + $0 + ")$") : nil } }
            // kustomize refuses a target whose name is no regular expression: such a patch changes nothing here
            let nothing = "\u{0}"
            func exact(_ s: String?) -> String? { s.flatMap { literal($0) ?? (regex($0) == nil ? nothing : nil) } }
            let name = str("name"), namespace = str("namespace")
            return Selector(group: str("group"), version: str("version"), kind: str("kind"), name: regex(name),
                            namespace: regex(namespace), exactName: exact(name), exactNamespace: exact(namespace), labels: str("labelSelector").flatMap(LabelSelector.init),
                            annotations: str("annotationSelector").flatMap(LabelSelector.init))
        }
        /// Every document of a patch: a list is a JSON patch, a mapping a strategic-merge one.
        func add(_ t: PatchText?, target: Selector?, into list: inout [Patch], json: Bool? = nil, patchesField: Bool = false) {
            guard let t else { return }
            for d in t.yaml.documents {
                let r = d.root
                let isList = t.yaml.nodes[r].kind == .sequence
                guard isList || t.yaml.nodes[r].kind == .mapping else { continue }
                if let json, json != isList { continue }
                var sel = target
                // a JSON patch without a target: kustomize refuses it
                if sel == nil, isList { continue }
                let targetless = sel == nil
                if targetless {
                    // a strategic-merge patch without a target patches the object of its own kind, name and namespace
                    // (none is the default namespace)
                    let api = t.yaml.string(r, "apiVersion") ?? ""
                    let meta = t.yaml.get(r, "metadata")
                    sel = Selector(group: ManifestObject.group(of: api), kind: t.yaml.string(r, "kind"),
                                   exactName: meta.flatMap { t.yaml.string($0, "name") },
                                   exactNamespace: meta.flatMap { t.yaml.string($0, "namespace") } ?? "default")
                }
                // what it does is read for the objects it may select: a workload's patch has no edits here
                let reads = sel?.kind.map(kinds.contains) ?? true
                list.append(Patch(selector: sel, edits: reads ? edits(t, root: r, json: isList) : [], text: t, root: r,
                                  keepsFirst: patchesField && isList, targetless: targetless))
            }
        }
        if o.isKustomization {
            if let list = y.get(root, "patchesStrategicMerge") {
                for item in y.childNodes(list) where y.nodes[item].kind == .scalar {
                    // kustomize reads an entry with a line break as the patch itself, else as a file
                    let v = y.value(item)
                    add(v.contains("\n") ? text(inline: item) : text(path: v), target: nil, into: &steps.early, json: false)
                }
            }
            if let list = y.get(root, "patches") {
                // an entry written as a string (a file's name, as `patchesStrategicMerge` takes them): kustomize refuses
                // the kustomization (dadurex/engineering-thesis-deployments)
                if steps.refused == nil, y.nodes[list].kind == .sequence,
                   let entry = y.childNodes(list).first(where: { y.nodes[$0].kind == .scalar && !y.isNull($0) }) {
                    let text = y.value(entry), firstLine = text.prefix { $0 != "\n" }
                    let written = firstLine.count < text.count ? firstLine + "…" : firstLine
                    steps.refused = (y.nodes[entry].span, "its patches: entry '\(written)' is a string, where kustomize takes a patch: "
                                     + "a mapping with `path:` or `patch:` (invalid Kustomization: json: cannot unmarshal string into Go struct "
                                     + "field Kustomization.patches of type types.Patch)")
                }
                for item in y.childNodes(list) where y.nodes[item].kind == .mapping {
                    if let options = y.get(item, "options"), ["allowNameChange", "allowKindChange"].contains(where: { y.string(options, $0) == "true" }) {
                        steps.renamesByOption = true
                    }
                    let t = y.get(item, "patch").flatMap { text(inline: $0) } ?? y.string(item, "path").flatMap { text(path: $0) }
                    if steps.refused == nil, let t, let at = y.get(item, "patch") ?? y.get(item, "path"), let problem = refusal(t) {
                        steps.refused = (y.nodes[at].span, problem)
                    }
                    add(t, target: selector(y.get(item, "target")), into: &steps.early, patchesField: true)
                }
            }
            if let list = y.get(root, "patchesJson6902") {
                for item in y.childNodes(list) where y.nodes[item].kind == .mapping {
                    let t = y.get(item, "patch").flatMap { text(inline: $0) } ?? y.string(item, "path").flatMap { text(path: $0) }
                    add(t, target: selector(y.get(item, "target")), into: &steps.late, json: true)
                }
            }
            steps.labels = kustomizeLabels(y, root)
            scalarPairs(y, y.get(root, "commonAnnotations"), into: &steps.annotations)
            if let list = y.get(root, "components") {
                steps.components = y.childNodes(list).compactMap { n in
                    guard y.nodes[n].kind == .scalar, !Extractor.isRemote(y.value(n)) else { return nil }
                    return Model.normalizePath(Sources.join(dir, y.value(n)))
                }
            }
        } else if let list = y.get(root, "spec", "patches") {
            // Flux Kustomization: inline patches only
            for item in y.childNodes(list) where y.nodes[item].kind == .mapping {
                add(y.get(item, "patch").flatMap { text(inline: $0) }, target: selector(y.get(item, "target")), into: &steps.early,
                    patchesField: true)
            }
        }
        return steps
    }

    /// Applies patch `p` to the state of object `o`, if it selects it.
    static func apply(_ p: Patch, to s: inout State, _ o: ManifestObject) {
        guard !s.deleted, p.selector?.selects(o, s) ?? true else { return }
        s.patched = true
        if p.keepsFirst { s.keepFirst() }
        for e in p.edits { s.perform(e) }
    }

    /// One change a patch makes to the fields Tagwarden reads.
    struct Edit: Sendable {
        enum Kind: Sendable {
            /// A scalar now stands at the path; a mapping does (merged into what is there); a list does; nothing does;
            /// the object leaves the build (`$patch: delete`).
            case set(Located), present(SourceSpan, file: FileID), list([Located]), clear, delete
        }
        var path: [String]
        /// `path` joined with `/`, for the spec's fields.
        var joined: String
        var kind: Kind

        init(_ path: [String], _ kind: Kind, joined: String? = nil) {
            self.path = path
            self.joined = joined ?? path.joined(separator: "/")
            self.kind = kind
        }
    }

    /// What a patch document does: a JSON patch's operations (`add` and `replace` put a value in place of what is
    /// there, `remove` removes it), or a strategic merge of its labels, annotations and spec (a null removes a field,
    /// `$patch: replace` and `$patch: delete` do what kustomize does).
    static func edits(_ t: PatchText, root r: Int, json: Bool) -> [Edit] {
        let y = t.yaml
        var out: [Edit] = []
        func assign(_ path: [String], _ n: Int, replace: Bool, joined: String? = nil) {
            let joined = joined ?? path.joined(separator: "/")
            switch y.nodes[n].kind {
            case .scalar:
                out.append(Edit(path, y.isNull(n) ? .clear : .set(t.located(n)), joined: joined))
            case .mapping:
                let directive = y.string(n, "$patch")
                if replace || directive == "replace" { out.append(Edit(path, .clear, joined: joined)) }
                if directive == "delete" { out.append(Edit(path, .clear, joined: joined)); return }
                out.append(Edit(path, .present(t.span(n), file: t.file), joined: joined))
                for (k, v) in y.pairs(n) {
                    let key = y.value(k)
                    if key != "$patch" { assign(path + [key], v, replace: false, joined: joined + "/" + key) }
                }
            case .sequence:
                out.append(Edit(path, .list(y.childNodes(n).compactMap { y.nodes[$0].kind == .scalar ? t.located($0) : nil }), joined: joined))
            default:
                break
            }
        }
        if json {
            for op in y.childNodes(r) where y.nodes[op].kind == .mapping {
                guard let kind = y.string(op, "op"), let raw = y.string(op, "path") else { continue }
                let path = pointer(raw)
                switch kind {
                case "add", "replace":
                    if let v = y.get(op, "value") { assign(Array(path), v, replace: true) }
                case "remove":
                    out.append(Edit(Array(path), .clear))
                default:
                    continue
                }
            }
        } else if y.string(r, "$patch") == "delete" {
            out.append(Edit([], .delete))
        } else {
            if let meta = y.get(r, "metadata") {
                if let n = y.get(meta, "labels") { assign(["metadata", "labels"], n, replace: false) }
                if let n = y.get(meta, "annotations") { assign(["metadata", "annotations"], n, replace: false) }
            }
            if let spec = y.get(r, "spec") { assign(["spec"], spec, replace: false) }
        }
        return out
    }
}

extension EffectiveObjects.Spec {
    init?(_ flux: FluxSpec?) {
        switch flux {
        case .imagePolicy(let p)?: self = .policy(p)
        case .imageRepository(let r)?: self = .repository(r)
        case .automation(let a)?: self = .automation(a)
        default: return nil
        }
    }

    var flux: FluxSpec {
        switch self {
        case .policy(let p): .imagePolicy(p)
        case .repository(let r): .imageRepository(r)
        case .automation(let a): .automation(a)
        }
    }
}

extension EffectiveObjects.State {
    mutating func perform(_ e: EffectiveObjects.Edit) {
        switch e.kind {
        case .set(let v): set(e.path, e.joined, v)
        case .present(let span, let file): present(e.joined, span, file: file)
        case .clear: clear(e.path, e.joined)
        case .delete: deleted = true
        case .list(let items):
            if e.joined == "spec/exclusionList", case .repository(var r) = spec {
                r.exclusionList = items
                spec = .repository(r)
            }
        }
    }

    /// Flux's post-build substitution of the name, namespace and a policy's or repository's values that hold `${…}`: `expand` gives what
    /// Flux makes of a text, nil when that cannot be known here (the text is then left as written).
    mutating func substitute(_ expand: (String) -> String?) {
        func made(_ text: String?) -> String? {
            guard let text, text.containsBytes("${"), let new = expand(text), new != text else { return nil }
            patched = true
            return new
        }
        func field(_ v: inout Located?) {
            if let new = made(v?.value) { v!.value = new }
        }
        if let new = made(name) { name = new }
        if let new = made(namespace) { namespace = new }
        switch spec {
        case .policy(var p):
            field(&p.repositoryName); field(&p.pattern); field(&p.extract); field(&p.semverRange)
            field(&p.alphabeticalOrder); field(&p.numericalOrder)
            if let new = made(p.repositoryNamespace) { p.repositoryNamespace = new }
            spec = .policy(p)
        case .repository(var r):
            field(&r.image); field(&r.interval)
            spec = .repository(r)
        case .automation:
            // an automation's `update.path` is judged per Flux Kustomization that substitutes it, where the finding
            // can say how (`Substitution`)
            break
        }
    }

    /// A mapping now stands at `path`.
    mutating func present(_ joined: String, _ span: SourceSpan, file: FileID) {
        // by the path: each case changes the spec in place, when it is of the kind that has the field
        switch joined {
        case "spec/filterTags": policy { $0.hasFilterTags = true }
        case "spec/policy": policy { $0.policySpan = span; $0.policyFile = file }
        case "spec/policy/semver": policy { if $0.semverRange == nil { $0.semverRange = Located(value: "", span: span, type: .null, file: file) } }
        case "spec/policy/alphabetical": policy { $0.hasAlphabetical = true }
        case "spec/policy/numerical": policy { $0.hasNumerical = true }
        case "spec/git": automation { $0.hasGit = true }
        case "spec/git/checkout/ref": automation { $0.hasCheckoutRef = true }
        case "spec/policySelector": automation { if $0.policySelector == nil { $0.policySelector = [:] } }
        default: break
        }
    }

    /// A scalar now stands at `path`.
    mutating func set(_ path: [String], _ joined: String, _ v: Located) {
        if path.count == 3, path[0] == "metadata" {
            if path[1] == "labels" { labels[path[2]] = v.value } else if path[1] == "annotations" { annotations[path[2]] = v.value }
            return
        }
        if path.count == 2 && path[0] == "metadata" && path[1] == "name" { name = v.value; return }
        if path.count == 2 && path[0] == "metadata" && path[1] == "namespace" { namespace = v.value; return }
        if path.count == 4, path[0] == "spec", path[1] == "policySelector", path[2] == "matchLabels" {
            automation { $0.policySelector = ($0.policySelector ?? [:]).merging([path[3]: v.value]) { _, new in new } }
            return
        }
        switch joined {
        case "spec/interval":
            policy { $0.interval = v }
            repository { $0.interval = v }
            automation { $0.interval = v }
        case "spec/imageRepositoryRef/name": policy { $0.repositoryName = v }
        case "spec/imageRepositoryRef/namespace": policy { $0.repositoryNamespace = v.value }
        case "spec/filterTags/pattern": policy { $0.pattern = v }
        case "spec/filterTags/extract": policy { $0.extract = v }
        case "spec/policy/semver/range": policy { $0.semverRange = v }
        case "spec/policy/alphabetical/order": policy { $0.alphabeticalOrder = v }
        case "spec/policy/numerical/order": policy { $0.numericalOrder = v }
        case "spec/digestReflectionPolicy": policy { $0.digestReflectionField = v }
        case "spec/image": repository { $0.image = v }
        case "spec/timeout": repository { $0.timeout = v }
        case "spec/provider": repository { $0.provider = v.value }
        case "spec/secretRef/name": repository { $0.secretRef = v.value }
        case "spec/insecure": repository { $0.insecure = v.type == .bool && ["true", "True", "TRUE"].contains(v.value) }
        case "spec/sourceRef/kind": automation { $0.sourceKind = v.value }
        case "spec/sourceRef/name": automation { $0.sourceName = v }
        case "spec/sourceRef/namespace": automation { $0.sourceNamespace = v.value }
        case "spec/git/checkout/ref/branch": automation { $0.checkoutBranch = v.value }
        case "spec/git/push/branch": automation { $0.pushBranch = v }
        case "spec/git/push/refspec": automation { $0.pushRefspec = v.value }
        case "spec/git/commit/messageTemplate": automation { $0.messageTemplate = v }
        case "spec/git/commit/author/name": automation { $0.authorName = v.value }
        case "spec/git/commit/author/email": automation { $0.authorEmail = v.value }
        case "spec/update/path": automation { $0.updatePath = v }
        case "spec/update/strategy": automation { $0.strategy = v }
        default: break
        }
    }

    /// Removes what stands at `path`.
    mutating func clear(_ path: [String], _ f: String) {
        if path.count == 3, path[0] == "metadata" {
            if path[1] == "labels" { labels[path[2]] = nil } else if path[1] == "annotations" { annotations[path[2]] = nil }
            return
        }
        if path.count == 2 && path[0] == "metadata" && path[1] == "labels" { labels = [:]; return }
        if path.count == 2 && path[0] == "metadata" && path[1] == "annotations" { annotations = [:]; return }
        if path.count == 2 && path[0] == "metadata" && path[1] == "namespace" { namespace = nil; return }
        switch spec {
        case .policy(var p):
            switch f {
            case "spec": p = ImagePolicySpec()
            case "spec/imageRepositoryRef": p.repositoryName = nil; p.repositoryNamespace = nil
            case "spec/imageRepositoryRef/name": p.repositoryName = nil
            case "spec/imageRepositoryRef/namespace": p.repositoryNamespace = nil
            case "spec/filterTags": p.hasFilterTags = false; p.pattern = nil; p.extract = nil
            case "spec/filterTags/pattern": p.pattern = nil
            case "spec/filterTags/extract": p.extract = nil
            case "spec/policy":
                p.policySpan = nil; p.policyFile = nil; p.semverRange = nil
                p.hasAlphabetical = false; p.alphabeticalOrder = nil; p.hasNumerical = false; p.numericalOrder = nil
            case "spec/policy/semver", "spec/policy/semver/range": p.semverRange = nil
            case "spec/policy/alphabetical": p.hasAlphabetical = false; p.alphabeticalOrder = nil
            case "spec/policy/alphabetical/order": p.alphabeticalOrder = nil
            case "spec/policy/numerical": p.hasNumerical = false; p.numericalOrder = nil
            case "spec/policy/numerical/order": p.numericalOrder = nil
            case "spec/digestReflectionPolicy": p.digestReflectionField = nil
            case "spec/interval": p.interval = nil
            default: return
            }
            spec = .policy(p)
        case .repository(var r):
            switch f {
            case "spec": r = ImageRepositorySpec()
            case "spec/image": r.image = nil
            case "spec/interval": r.interval = nil
            case "spec/timeout": r.timeout = nil
            case "spec/provider": r.provider = nil
            case "spec/secretRef", "spec/secretRef/name": r.secretRef = nil
            case "spec/exclusionList": r.exclusionList = nil
            case "spec/insecure": r.insecure = false
            default: return
            }
            spec = .repository(r)
        case .automation(var a):
            switch f {
            case "spec": a = AutomationSpec()
            case "spec/update": a.updatePath = nil; a.strategy = nil
            case "spec/update/path": a.updatePath = nil
            case "spec/update/strategy": a.strategy = nil
            case "spec/git/push", "spec/git/push/branch": a.pushBranch = nil
            case "spec/git/checkout/ref/branch": a.checkoutBranch = nil
            case "spec/git/commit/messageTemplate": a.messageTemplate = nil
            case "spec/policySelector": a.policySelector = nil
            case "spec/interval": a.interval = nil
            default: return
            }
            spec = .automation(a)
        }
    }
}

extension StringProtocol {
    var trimmedOfSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

/// A Kubernetes label selector in its string form (`app=web,tier!=db,env in (staging,production),!legacy`), as
/// kustomize's `labelSelector` and `annotationSelector` take it.
struct LabelSelector: Sendable {
    enum Requirement: Sendable {
        case equals(String, String), notEquals(String, String), isIn(String, Set<String>), notIn(String, Set<String>)
        case exists(String), absent(String)
    }
    var requirements: [Requirement] = []

    init?(_ text: String) {
        // split at commas outside parentheses
        var parts: [String] = []
        var depth = 0
        var current = ""
        for c in text {
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            if c == ",", depth == 0 { parts.append(current); current = "" } else { current.append(c) }
        }
        parts.append(current)
        for raw in parts {
            let p = raw.trimmedOfSpaces
            if p.isEmpty { continue }
            let words = p.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 3, words[1] == "in" || words[1] == "notin" {
                let open = p.firstIndex(of: "(").map { p.index(after: $0) } ?? p.endIndex
                let list = p[open...].prefix { $0 != ")" }
                let values = Set(list.split(separator: ",").map { $0.trimmedOfSpaces })
                requirements.append(words[1] == "in" ? .isIn(String(words[0]), values) : .notIn(String(words[0]), values))
            } else if let r = p.firstRange(of: "!=") {
                requirements.append(.notEquals(p[..<r.lowerBound].trimmedOfSpaces, p[r.upperBound...].trimmedOfSpaces))
            } else if let r = p.firstRange(of: "==") ?? p.firstRange(of: "=") {
                requirements.append(.equals(p[..<r.lowerBound].trimmedOfSpaces, p[r.upperBound...].trimmedOfSpaces))
            } else if p.hasPrefix("!") {
                requirements.append(.absent(p.dropFirst().trimmedOfSpaces))
            } else {
                requirements.append(.exists(p))
            }
        }
    }

    func matches(_ labels: [String: String]) -> Bool {
        requirements.allSatisfy { r in
            switch r {
            case .equals(let k, let v): labels[k] == v
            case .notEquals(let k, let v): labels[k] != v
            case .isIn(let k, let vs): labels[k].map(vs.contains) ?? false
            case .notIn(let k, let vs): !(labels[k].map(vs.contains) ?? false)
            case .exists(let k): labels[k] != nil
            case .absent(let k): labels[k] == nil
            }
        }
    }
}
