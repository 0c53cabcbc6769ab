import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
extension Model {
    /// Marks the container images whose written tag never runs: the kustomize base/overlay layout, where a base
    /// says `image: ghcr.io/acme/web` (or `:latest`) and every overlay that builds it sets the tag with an
    /// `images:` entry. Such an image is `retagged` when its file is a resource of some kustomization and every
    /// way up from there to a build that deploys it passes an entry that sets its tag or digest. Entries apply as
    /// kustomize applies them: at each kustomization, those of the Components it lists and then its own, one after
    /// another, each to the image's name at that point (a `newName` before an entry for the old name makes that entry
    /// miss); a Flux Kustomization's `spec.images` after the kustomization at its `path`. A build deploys where a
    /// kustomization is included by none (`kubectl apply -k`), or where a Flux Kustomization's `path` builds it.
    /// A file in a directory without a kustomization file is built by the kustomization Flux generates for the
    /// nearest `path` above it (no kustomization file on the way): its Flux Kustomizations' `spec.images` alone
    /// decide.
    /// A patch that writes a container's image replaces it like an entry that sets its tag. When some patch of the
    /// repository may touch container lists, each base container is followed through the patches of every
    /// kustomization on the way (its Components' first, then its `patchesStrategicMerge`, `patches` and
    /// `patchesJson6902`; a Flux Kustomization's `spec.patches` after the `patches` of the kustomization at its
    /// `path`), by its place in its list (`ContainerPlace`): a strategic merge names containers and moves them, a JSON
    /// patch names a place. A HelmRelease's `spec.values` image is followed by the path of its tag (`writesValues`).
    /// One from a values file that one `valuesFrom` entry reads is followed from the kustomization that generates its
    /// ConfigMap, by the order of the release's sources (`ValuesOrder`): the entries as patches change them, the values
    /// the kustomizations on the way generate for the later ones, and the release's `spec.values` as written and
    /// patched; whether the file's field runs is decided where each build ends.
    /// Targets select as for the effective objects, by the workload's written name, its namespace, labels and
    /// annotations. Held to `kubectl kustomize` by `scripts/kustomize-vs-tagwarden/run`.
    /// `namespaces`: each object's namespace as the cluster gets it (a kustomization's `namespace:`), which a patch's
    /// target or own namespace matches as well as the one written.
    /// `stepsOf`: the kustomizations' patches, as `EffectiveObjects.readAllSteps` read them.
    static func markRetagged(_ images: inout Table<ImageID, ImageUse>, objects: Objects, files: Files, graph: IncludeGraph,
                             namespaces: Table<ObjectID, String?>, builds: LazyBuildSets, stepsOf: [ObjectID: EffectiveObjects.Steps],
                             refused: Set<ObjectID> = []) {
        let followsPatches = anyPatchTouchesContainers(stepsOf)
        // a values file's field: later sources replace it with no patch at all (an overlay's generator merges a key)
        let followsValuesFiles = images.contains { $0.valuesFromEntry != nil }
        guard followsPatches || followsValuesFiles || objects.contains(where: { $0.kustomizeImages.contains { $0.setsTag || $0.newName != nil } }) else { return }
        let (components, fluxBuilders) = componentsAndFluxBuilders(objects: objects, files: files)
        // (an entry whose name carries the tag matches the whole reference: `Needs.writtenSuffix`)
        let entryNamesCarryTags = objects.contains { $0.kustomizeImages.contains { KustomizeImageEntry.kustomizeName(of: $0.name.value) != $0.name.value } }
        /// The object an image is written in, followed through patches: its container and where that stands at this
        /// point of a build, or for a HelmRelease's values image the path of its tag under `spec.values` (which
        /// `images:` entries do not touch). nil where no patch may touch it.
        struct Me: Hashable {
            let object: ObjectID
            var place: ContainerPlace?
            var values: [String]?
            var order: ValuesOrder?
            /// An image that an `images:` entry of this kustomization makes: its build applies the entries after it
            /// (a later entry of the same name sets the tag again), and the ways up from it the rest (a Flux
            /// Kustomization's `spec.images`, the overlays' entries).
            var entryOf: ObjectID?
            /// Where that entry's name is written in the kustomization's file.
            var entryAt: Int?
            /// An image that an `images:` entry of this kustomize Component makes: a kustomization that lists it applies
            /// its Components' entries in order, then its own (kustomize runs a kustomization's Components before its
            /// own transformers), so after this one only the entries of the Components it lists later, and its own.
            var entryOfComponent: ObjectID?
        }
        /// For a release's image from a values file: the `valuesFrom` entry that reads it; the release's entries as the
        /// patches so far leave them; for each entry whose values the kustomizations so far generate, whether they set
        /// the field, and which kustomization generates them; and what sets the field in the release's `spec.values`
        /// (the release as written, or the kustomization of a patch), if anything does.
        struct ValuesOrder: Hashable {
            let entry: String
            /// The kustomization that generates the file's key.
            let origin: ObjectID
            var list: [String]
            var generated: [String: Setter] = [:]
            var valuesSetBy: ObjectID?
            /// The build has passed `origin` (below it, the file is not yet in the ConfigMap).
            var reached = false
            /// The kustomization whose generator gives the file's key another file (or, `behavior: replace`, none).
            var regeneratedBy: ObjectID?
            /// The kustomization whose patch last took the entry away (nil once one puts it back).
            var droppedBy: ObjectID?
            /// A patch changed the entries in a way not followed (an entry's own fields, `move`, `copy`).
            var unknown = false
            struct Setter: Hashable { let sets: Bool, by: ObjectID }
            /// Whether the field runs as the file writes it: the build reads the file, and no later source sets the field.
            var runs: Bool { unknown || reached && overrider == nil }
            /// What keeps the field from running as written: the `spec.values` that sets it, what replaces the file, else
            /// the kustomization that generates the first later entry that sets it; nil when nothing does.
            var overrider: ObjectID? {
                if let valuesSetBy { return valuesSetBy }
                if let regeneratedBy { return regeneratedBy }
                guard let at = list.lastIndex(of: entry) else { return droppedBy }
                return list[(at + 1)...].lazy.compactMap { generated[$0] }.first(where: \.sets)?.by
            }
        }
        let fileAt = followsValuesFiles ? builds.value.fileAt : [:]   // the values files the generators on the way make
        let fluxRetags = fluxBuilders.values.contains { $0.contains { b in
            !objects[b].kustomizeImages.isEmpty || objects[b].fluxKustomization?.components.isEmpty == false || (followsPatches && SourceText.contains("patches", in: files[objects[b].file].bytes[objects[b].byteRange]))
        } }
        // directories with a kustomization file
        let kustomizationDirs = fluxRetags ? Set(objects.lazy.filter { $0.isKustomization && Extractor.isKustomizationPath(files[$0.file].path) }
            .map { files[$0.file].directory }) : []
        let listsOf = followsPatches ? containerLists(images) : [:]
        // each chunk of the images follows its own from the images as written, with memos of its own: the chunks are
        // fixed, whatever the cores, and so is what each remembers
        let written = images
        @Sendable func follow(_ chosen: ArraySlice<ImageID>) -> [(ImageID, Retagging)] {
            // (a kustomization that `readAllSteps` did not read has no patches)
            func steps(_ k: ObjectID) -> EffectiveObjects.Steps { stepsOf[k] ?? EffectiveObjects.Steps() }
            /// The patches of kustomization k (with those of Flux Kustomization `builder`, when it builds k) that select
            /// object o, in kustomize's order.
            func patches(_ k: ObjectID, builder: ObjectID?, _ o: ObjectID) -> [EffectiveObjects.Patch] {
                let own = steps(k)
                var all: [EffectiveObjects.Patch] = []
                for dir in own.components { if let c = components[dir] { all += steps(c).early + steps(c).late } }
                all += own.early
                if let builder { all += steps(builder).early }
                all += own.late
                return all.filter { selects($0, o) }
            }
            /// What those patches do to workload o's containers.
            struct EditsKey: Hashable { let kustomization: ObjectID, builder: ObjectID?, object: ObjectID }
            var editsOf: [EditsKey: [ContainerEdit]] = [:]
            func edits(_ k: ObjectID, builder: ObjectID?, _ o: ObjectID) -> [ContainerEdit] {
                let key = EditsKey(kustomization: k, builder: builder, object: o)
                if let known = editsOf[key] { return known }
                let w = objects[o]
                let out = patches(k, builder: builder, o).flatMap { ContainerEdit.read($0.text.yaml, root: $0.root, kind: w.kind, group: w.group) }
                editsOf[key] = out
                return out
            }
            /// Whether those patches write HelmRelease o's values at `path`.
            struct ValuesKey: Hashable { let kustomization: ObjectID, builder: ObjectID?, object: ObjectID, path: [String] }
            var writesOf: [ValuesKey: Bool] = [:]
            func writesValues(_ k: ObjectID, builder: ObjectID?, _ o: ObjectID, _ path: [String]) -> Bool {
                let key = ValuesKey(kustomization: k, builder: builder, object: o, path: path)
                if let known = writesOf[key] { return known }
                let out = patches(k, builder: builder, o).contains { valuesPatchSets($0.text.yaml, root: $0.root, path) != nil }
                writesOf[key] = out
                return out
            }
            /// The `valuesFrom` entries of `list` whose values kustomization k generates, in release o's namespace: whether
            /// each sets the field at `path` (a later generator of the same key replaces the earlier's file); and the
            /// ConfigMaps whose earlier keys a `behavior: replace` drops.
            var fileSets: [String: Bool] = [:]
            var treeOf: [FileID: YAMLFile] = [:]   // each values file parsed once, for all the fields asked of it
            func generated(_ k: ObjectID, _ o: ObjectID, _ path: [String]) -> (keys: [String: Bool], replaced: [String]) {
                var out: [String: Bool] = [:], replaced: [String] = []
                let dir = files[objects[k].file].directory
                let namespace = namespaces[o] ?? objects[o].declaredNamespace
                // entries with a `targetPath` set that one value from whatever the key holds
                let targeted: [(name: String, key: String, id: String, sets: Bool)] = {
                    guard case .helmRelease(let spec)? = objects[o].flux else { return [] }
                    return spec.valuesFrom.compactMap { ref in
                        guard ref.kind == "ConfigMap", let target = ref.targetPath else { return nil }
                        let segments = target.split(separator: ".").map(String.init)
                        return (ref.name, ref.valuesKey, ref.id, segments.count <= path.count && zip(segments, path).allSatisfy { $0 == $1 })
                    }
                }()
                for g in objects[k].configMapGenerators {
                    if let written = g.namespace ?? objects[k].kustomizeNamespace, let namespace, written != namespace { continue }
                    if g.replaces { replaced.append("ConfigMap/" + g.name + "/") }
                    for key in g.files.map(\.key) + g.literalKeys {
                        for t in targeted where t.name == g.name && t.key == key { out[t.id] = t.sets }
                    }
                    for file in g.files {
                        let id = HelmReleaseSpec.ValuesReference.id(kind: "ConfigMap", name: g.name, valuesKey: file.key)
                        guard let p = normalizePath(Sources.join(dir, file.path)), let f = fileAt[p] else { continue }
                        let key = "\(f) " + path.joined(separator: "\u{0}")
                        if fileSets[key] == nil {
                            if treeOf[f] == nil { treeOf[f] = files[f].yaml }
                            fileSets[key] = valuesFileSets(treeOf[f]!, path)
                        }
                        out[id] = fileSets[key]!
                    }
                }
                return (out, replaced)
            }
            /// Whether release o's own `spec.values` sets the field at `path` (a null there too: Helm then drops it).
            func releaseValuesSet(_ o: ObjectID, _ path: [String]) -> Bool {
                let y = files[objects[o].file].yaml
                guard let values = ValuesFiles.releaseValues(objects[o], in: y), y.nodes[values].kind == .mapping else { return false }
                return valuesNodeSets(y, values, path, nullSets: true)
            }
            /// Workload o's labels and annotations, read when a target selects by them.
            var metadataOf: [ObjectID: (labels: [String: String], annotations: [String: String])] = [:]
            func metadata(_ o: ObjectID) -> (labels: [String: String], annotations: [String: String]) {
                if let known = metadataOf[o] { return known }
                let read = EffectiveObjects.labelsAndAnnotations(objects[o], in: files[objects[o].file].yaml)
                metadataOf[o] = read
                return read
            }
            /// Whether patch p selects workload o, by its written name, its namespace (written, or as the builds set it),
            /// labels and annotations.
            func selects(_ p: EffectiveObjects.Patch, _ o: ObjectID) -> Bool {
                let w = objects[o]
                return p.selector?.selects(w, name: w.name, namespace: namespaces[o] ?? w.declaredNamespace, firstName: w.name, firstNamespace: w.declaredNamespace,
                                           labels: metadata(o).labels, annotations: metadata(o).annotations) ?? false
            }
            /// What the image followed needs from an entry (`KustomizeImageEntry.Needs`): set for each image below.
            var needs = KustomizeImageEntry.Needs()
            var generatedOf: [String: [ObjectID]] = [:]   // (`generatedBuilders`)
            /// The Flux Kustomizations whose generated kustomization takes kustomization k's directory (a `path` above it
            /// with no kustomization file on the way): they apply their Components' entries and `spec.images` after k.
            func generatedAbove(_ k: ObjectID) -> [ObjectID] { fluxRetags ? generatedBuilders(graph.directory(of: k)) : [] }
            /// What kustomization k (built by Flux Kustomization `builder`, if one builds it) leaves of the image called
            /// `name`: nil when a patch replaces its image or an entry sets its tag (kustomize runs the patches first),
            /// else its name after the entries and its container's place after the patches.
            func applied(_ k: ObjectID, _ name: String, _ me: Me?, builder: ObjectID? = nil) -> (name: String, me: Me?)? {
                var me = me
                if let m = me, let path = m.values {
                    // kustomize's `images:` entries do not reach a release's values
                    guard var order = m.order else { return writesValues(k, builder: builder, m.object, path) ? nil : (name, me) }
                    // a values file's: the patches may change the release's sources and its `spec.values`, and the
                    // kustomization generate values for later entries; whether the field runs is decided where the build ends
                    for p in patches(k, builder: builder, m.object) {
                        if let list = valuesFrom(p.text.yaml, root: p.root, over: order.list) {
                            if list.contains("?") { order.unknown = true } else { order.list = list }
                            order.droppedBy = order.list.contains(order.entry) ? nil : k
                        }
                        if let sets = valuesPatchSets(p.text.yaml, root: p.root, path) { order.valuesSetBy = sets ? k : nil }
                    }
                    var made = generated(k, m.object, path)
                    if k == order.origin {
                        order.reached = true
                    } else if order.reached {
                        // above the kustomization that generates the file, another generator of its key replaces it
                        let sourcePrefix = String(order.entry[...(order.entry.lastIndex(of: "/")!)])
                        if made.keys[order.entry] != nil || made.replaced.contains(sourcePrefix) { order.regeneratedBy = order.regeneratedBy ?? k }
                    }
                    made.keys[order.entry] = nil
                    for prefix in made.replaced { order.generated = order.generated.filter { !$0.key.hasPrefix(prefix) } }
                    for (id, sets) in made.keys { order.generated[id] = .init(sets: sets, by: k) }
                    me?.order = order
                    return (name, me)
                }
                if let m = me, var place = m.place {
                    for e in edits(k, builder: builder, m.object) { if !place.apply(e) { return nil } }
                    me?.place = place
                }
                let list = me?.entryOf == k ? objects[k].kustomizeImages.filter { $0.name.span.start.offset > me!.entryAt! } : me?.entryOfComponent.flatMap { entries(k, builder: builder, after: $0) } ?? entries(k, builder: builder)
                guard var after = KustomizeImageEntry.apply(list, to: name, needs: needs) else { return nil }
                if let builder {
                    guard let flux = KustomizeImageEntry.apply(objects[builder].kustomizeImages, to: after, needs: needs) else { return nil }
                    after = flux
                }
                return (after, me)
            }
            /// The entries kustomization k applies, in order: its Components' (as it lists them; then those Flux Kustomization
            /// `builder` adds with `spec.components`, which Flux appends to the list), then its own.
            var entriesOf: [ObjectID: [KustomizeImageEntry]] = [:]
            func entries(_ k: ObjectID, builder: ObjectID? = nil) -> [KustomizeImageEntry] {
                if let builder, !components.isEmpty {
                    let added = fluxComponentEntries(builder)
                    if !added.isEmpty { return componentEntries(k) + added + objects[k].kustomizeImages }
                }
                if let known = entriesOf[k] { return known }
                let all = componentEntries(k) + objects[k].kustomizeImages
                entriesOf[k] = all
                return all
            }
            /// The entries of the Components kustomization k lists.
            func componentEntries(_ k: ObjectID) -> [KustomizeImageEntry] { listedComponents(k).flatMap { objects[$0].kustomizeImages } }
            func listedComponents(_ k: ObjectID) -> [ObjectID] {
                guard !components.isEmpty else { return [] }
                let dir = files[objects[k].file].directory
                return objects[k].kustomizeResources.compactMap { r in normalizePath(Sources.join(dir, r)).flatMap { components[$0] } }
            }
            /// The entries kustomization k applies after those of Component c, which it lists; nil where it does not list c.
            func entries(_ k: ObjectID, builder: ObjectID?, after c: ObjectID) -> [KustomizeImageEntry]? {
                let listed = listedComponents(k)
                guard let at = listed.firstIndex(of: c) else { return nil }
                return listed[(at + 1)...].flatMap { objects[$0].kustomizeImages } + (builder.map(fluxComponentEntries) ?? []) + objects[k].kustomizeImages
            }
            /// The entries of the Components Flux Kustomization b adds at its `path` (`spec.components`).
            func fluxComponentEntries(_ b: ObjectID) -> [KustomizeImageEntry] {
                guard !components.isEmpty, let spec = objects[b].fluxKustomization else { return [] }
                return spec.componentDirectories.flatMap { components[$0].map { objects[$0].kustomizeImages } ?? [] }
            }
            /// Whether a build that ends with `me` deploys the written tag: for a values file's field, whether no later
            /// source of the release replaced it.
            func asWritten(_ me: Me?) -> Bool { me?.order?.runs ?? true }
            /// Whether a build that ends with `me` reads a values file's field and replaces it (a build that does not read
            /// the file neither deploys nor replaces it).
            func replaces(_ me: Me?) -> Bool { me?.order.map { $0.reached && !$0.runs } ?? false }
            struct Key: Hashable { let kustomization: ObjectID, name: String, me: Me?, needs: KustomizeImageEntry.Needs }
            let memo = IncludeGraph.Memo<Key, Bool>(cycle: false)   // a cycle of kustomizations deploys nothing more
            /// Whether some build through kustomization k deploys the image, called `name` when it reaches k, with the
            /// tag its manifest writes.
            func writtenTagRuns(_ k: ObjectID, _ name: String, _ me: Me?, _ depth: Int) -> Bool {
                // a build kustomize refuses deploys nothing (DTS-STN/passport-status-gitops's local overlay)
                if refused.contains(k) { return false }
                return memo.value(Key(kustomization: k, name: name, me: me, needs: needs)) {
                    let builders = fluxBuilders[graph.directory(of: k)] ?? [], parents = graph.parents(of: k, depth: depth)
                    if builders.contains(where: { applied(k, name, me, builder: $0).map { asWritten($0.me) } ?? false }) { return true }
                    guard let (after, next) = applied(k, name, me) else { return false }
                    if parents.isEmpty, builders.isEmpty, case let generated = generatedAbove(k), !generated.isEmpty {
                        return asWritten(next) && generated.contains { !fluxReplaces($0, after, next) }
                    }
                    if parents.isEmpty { return builders.isEmpty && asWritten(next) }
                    return parents.contains { writtenTagRuns($0, after, next, depth + 1) }
                }
            }
            /// Whether some build through kustomization k sets the tag of the image called `name` there.
            func sets(_ k: ObjectID, _ name: String, _ me: Me?, _ depth: Int = 0) -> Bool {
                guard let (after, next) = applied(k, name, me) else { return true }
                let builders = fluxBuilders[graph.directory(of: k)] ?? [], parents = graph.parents(of: k, depth: depth)
                if builders.contains(where: { applied(k, name, me, builder: $0).map { replaces($0.me) } ?? true }) { return true }
                if parents.isEmpty, builders.isEmpty { return replaces(next) || generatedAbove(k).contains { fluxReplaces($0, after, next) } }
                return parents.contains { sets($0, after, next, depth + 1) }
            }
            /// How the messages name a build by its Flux Kustomization.
            func rootName(_ b: ObjectID) -> String { "Flux Kustomization \(objects[b].name ?? "") (\(files[objects[b].file].path))" }
            /// The roots of the builds through kustomization k that deploy the image, called `name` there, with the tag its
            /// manifest writes: the Flux Kustomizations that build them (by name), else the root kustomizations' directories.
            /// `paths` gathers the files that tell those builds' environments: the root kustomization's, its Flux
            /// Kustomizations'.
            func writtenTagRoots(_ k: ObjectID, _ name: String, _ me: Me?, _ depth: Int, into roots: inout [String], paths: inout Set<String>,
                                 rootFiles: inout Set<FileID>) {
                guard !refused.contains(k), let (after, next) = applied(k, name, me) else { return }
                let dir = graph.directory(of: k)
                let builders = fluxBuilders[dir] ?? [], parents = graph.parents(of: k, depth: depth)
                for b in builders where applied(k, name, me, builder: b).map({ asWritten($0.me) }) ?? false {
                    let root = rootName(b)
                    if !roots.contains(root) { roots.append(root) }
                    paths.formUnion([files[objects[k].file].path, files[objects[b].file].path])
                    rootFiles.insert(objects[b].file)
                }
                if parents.isEmpty, builders.isEmpty, asWritten(next) {
                    let generated = generatedAbove(k)
                    for g in generated where !fluxReplaces(g, after, next) {
                        let root = rootName(g)
                        if !roots.contains(root) { roots.append(root) }
                        paths.formUnion([files[objects[k].file].path, files[objects[g].file].path])
                        rootFiles.insert(objects[g].file)
                    }
                    if generated.isEmpty, !roots.contains(dir + "/") { roots.append(dir + "/") }
                    if generated.isEmpty {
                        paths.insert(files[objects[k].file].path)
                        rootFiles.insert(objects[k].file)
                    }
                }
                for p in parents { writtenTagRoots(p, after, next, depth + 1, into: &roots, paths: &paths, rootFiles: &rootFiles) }
            }
            /// The roots of every build through kustomization k, whatever they make of the image: named as `writtenTagRoots`
            /// names them.
            func allRoots(_ k: ObjectID, _ depth: Int, into roots: inout Set<String>) {
                guard depth <= IncludeGraph.maxDepth else { return }
                let dir = graph.directory(of: k)
                let builders = fluxBuilders[dir] ?? [], parents = graph.parents(of: k, depth: depth)
                for b in builders { roots.insert(rootName(b)) }
                if parents.isEmpty, builders.isEmpty {
                    let generated = generatedAbove(k)
                    for g in generated { roots.insert(rootName(g)) }
                    if generated.isEmpty { roots.insert(dir + "/") }
                }
                for p in parents { allRoots(p, depth + 1, into: &roots) }
            }
            /// Whether Flux Kustomization b, building a directory without a kustomization file, replaces the image called
            /// `name`: an entry of its `spec.images` sets its tag, or one of its `spec.patches` writes its container's.
            func fluxReplaces(_ b: ObjectID, _ name: String, _ me: Me?) -> Bool {
                if let me, let path = me.values {
                    return steps(b).early.contains { selects($0, me.object) && valuesPatchSets($0.text.yaml, root: $0.root, path) != nil }
                }
                if KustomizeImageEntry.apply(fluxComponentEntries(b) + objects[b].kustomizeImages, to: name, needs: needs) == nil { return true }
                guard let me, var place = me.place else { return false }
                let w = objects[me.object]
                for p in steps(b).early where selects(p, me.object) {
                    for e in ContainerEdit.read(p.text.yaml, root: p.root, kind: w.kind, group: w.group) { if !place.apply(e) { return true } }
                }
                return false
            }
            /// The Flux Kustomizations whose generated kustomization takes `path`: those of the nearest directory above it
            /// that is a `path`, with no kustomization file from the file's directory up to it.
            /// (Only asked when some Flux Kustomization has `spec.images` or `spec.patches`; one answer per directory.)
            func generatedBuilders(_ path: String) -> [ObjectID] {
                let start = Path.dirname(path)
                if let known = generatedOf[start] { return known }
                var dir = start, found: [ObjectID] = []
                while !kustomizationDirs.contains(dir) {
                    if let builders = fluxBuilders[dir] { found = builders; break }
                    if dir.isEmpty { break }
                    dir = Path.dirname(dir)
                }
                generatedOf[start] = found
                return found
            }
            func start(_ img: ImageUse) -> Me? {
                if let path = img.valuesPath, let o = img.object, let entry = img.valuesFromEntry, case .helmRelease(let spec)? = objects[o].flux {
                    guard let origin = img.environmentObject, objects[origin].isKustomization else { return nil }
                    var order = ValuesOrder(entry: entry, origin: origin, list: spec.valuesFrom.map(\.id))
                    if releaseValuesSet(o, path) { order.valuesSetBy = o }
                    return Me(object: o, values: path, order: order)
                }
                if followsPatches, let path = img.valuesPath, let o = img.object { return Me(object: o, values: path) }
                guard followsPatches, let o = img.object, let slot = img.containerSlot, let cut = slot.firstIndex(of: "/"),
                      let place = Int(slot[slot.index(after: cut)...]), let names = listsOf[o]?[String(slot[..<cut])] else { return nil }
                return Me(object: o, place: ContainerPlace(list: String(slot[..<cut]), names: names, at: place), values: nil)
            }
            /// The nearest kustomizations (or Flux Kustomizations) that set the tag on each way up from `queue`.
            func nearestSetters(_ queue: [Key], _ found: [ObjectID] = []) -> [ObjectID] {
                var by = found, seen = Set<Key>(), queue = queue
                func add(_ k: ObjectID) { if !by.contains(k) { by.append(k) } }
                while let at = queue.popLast() {
                    guard seen.insert(at).inserted else { continue }
                    guard let (after, next) = applied(at.kustomization, at.name, at.me) else {
                        add(at.kustomization)
                        continue
                    }
                    let builders = fluxBuilders[graph.directory(of: at.kustomization)] ?? [], parents = graph.parents(of: at.kustomization, depth: 0)
                    for b in builders {
                        // a values file's field that a later source replaces: what replaces it
                        if let order = applied(at.kustomization, at.name, at.me, builder: b)?.me?.order {
                            if order.reached, let o = order.overrider { add(o) }
                        } else {
                            add(b)
                        }
                    }
                    if parents.isEmpty, builders.isEmpty, let order = next?.order, order.reached, let o = order.overrider { add(o) }
                    if parents.isEmpty, builders.isEmpty { for g in generatedAbove(at.kustomization) where fluxReplaces(g, after, next) { add(g) } }
                    queue += parents.map { Key(kustomization: $0, name: after, me: next, needs: needs) }
                }
                return by
            }
            var out: [(ImageID, Retagging)] = []
            /// The builds of image `name` (`me`) from kustomizations `includers` up: nil where each deploys the tag as
            /// written; else the builds that do, or the nearest kustomizations (or Flux Kustomizations) on each way up
            /// that set it.
            func retagging(_ name: String, _ me: Me?, from includers: [ObjectID]) -> Retagging? {
                if includers.contains(where: { writtenTagRuns($0, name, me, 0) }) {
                    // some builds set the tag and some do not: the finding names those that deploy it as written
                    guard includers.contains(where: { sets($0, name, me) }) else { return nil }
                    var roots: [String] = [], paths = Set<String>(), rootFiles = Set<FileID>()
                    for k in includers { writtenTagRoots(k, name, me, 0, into: &roots, paths: &paths, rootFiles: &rootFiles) }
                    // the builds that replace or drop the tag may be those same builds, taking it another way too
                    var every = Set<String>()
                    for k in includers { allRoots(k, 0, into: &every) }
                    return Retagging(writtenTagDeployedBy: roots.sorted(), writtenTagRootPaths: paths.sorted(), writtenTagRootFiles: rootFiles.sorted(),
                                     retaggedOnlyWithin: every.isSubset(of: roots))
                }
                let by = nearestSetters(includers.map { Key(kustomization: $0, name: name, me: me, needs: needs) })
                // (no build that kustomize does not refuse takes it: as written, which the rules judge with the refusal)
                if by.isEmpty, !refused.isEmpty { return nil }
                return Retagging(by: by.sorted())
            }
            /// Follows image i, `img` as written: lent by the table, not copied (a copy retains and releases all it holds).
            func followImage(_ i: ImageID, _ img: ImageUse) {
                if img.origin == .kustomize {
                    // an entry's image: from its own kustomization, past the entries that made it; a Component's from the
                    // kustomizations that list it, past the entries up to its own
                    needs = KustomizeImageEntry.Needs()
                    guard let k = img.object, let name = img.name else { return }
                    if objects[k].kind == "Component" {
                        let listing = graph.parents(of: k, depth: 0)
                        guard !listing.isEmpty, let r = retagging(name, Me(object: k, entryOfComponent: k), from: listing) else { return }
                        out.append((i, r))
                    } else if let r = retagging(name, Me(object: k, entryOf: k, entryAt: img.entryNameOffset ?? Int.max), from: [k]) {
                        out.append((i, r))
                    }
                    return
                }
                if img.invalid != nil {
                    // a reference that does not parse runs nowhere an entry gives it a name or tag that does
                    guard let wants = KustomizeImageEntry.Needs(invalid: img.text) else { return }
                    needs = wants
                } else {
                    needs = KustomizeImageEntry.Needs()
                }
                if entryNamesCarryTags, let name = img.name, img.text.hasPrefix(name) { needs.writtenSuffix = String(img.text.dropFirst(name.count)) }
                var me = start(img)
                // a values file's image is followed from the kustomization that generates its ConfigMap: the builds that read it
                let generator = me?.order?.origin
                // a container of a patch file replaces the one its kustomization's build holds, and that kustomization's
                // entries apply to it then (kustomize runs the patches first): followed from there, not through its own patch
                // (so does one of a patch written inline in a kustomization: its own entries apply to it, as
                // `kubectl kustomize` has it: anthony-spruyt/spruyt-labs)
                let inline = img.origin == .container && generator == nil ? img.object.flatMap { objects[$0].isKustomization ? $0 : nil } : nil
                let patching = inline.map { [$0] } ?? (img.origin == .container && generator == nil && !graph.isIncluded(files[img.file].path)
                    ? graph.patchedBy[files[img.file].path] : nil)
                if patching != nil { me = nil }
                if patching == nil, let name = img.name ?? (me?.values != nil ? img.text : nil), generator == nil, !graph.isIncluded(files[img.file].path) {
                    guard fluxRetags else { return }
                    let builders = generatedBuilders(files[img.file].path)
                    if !builders.isEmpty, builders.allSatisfy({ fluxReplaces($0, name, me) }) {
                        out.append((i, Retagging(by: builders.sorted())))
                    }
                    return
                }
                // (a values file's: from the release, so that the kustomizations below the generator apply too; from the
                // generator when the release is no resource, a patch file that the generator's kustomization applies)
                let home = generator != nil ? files[objects[img.object!].file].path : files[img.file].path
                guard let name = img.name ?? (me?.values != nil ? img.text : nil),
                      let includers = patching ?? (graph.isIncluded(home) ? graph.includers(of: home) : generator.map({ [$0] })) else { return }
                if let r = retagging(name, me, from: includers) { out.append((i, r)) }
            }
            written.rows.withUnsafeBufferPointer { rows in
                for i in chosen { followImage(i, rows[i.index]) }
            }
            return out
        }
        // (the images of an `images:` entry of a kustomization that sets a tag: an overlay may set it again; not the
        // containers of a HelmRelease's post-renderers, text no kustomization rewrites: `markRetaggedByPostRenderers`)
        let chosen = images.indices.filter {
            images[$0].origin == .container && images[$0].object.map { objects[$0].kind != "HelmRelease" } != false || images[$0].inContainerList
                || images[$0].origin == .kustomize && (images[$0].tag != nil || images[$0].digest != nil)
                    && images[$0].object.map { objects[$0].isKustomization } == true
                || images[$0].invalid == nil && (images[$0].valuesFromEntry != nil || (followsPatches && images[$0].valuesPath != nil))
        }
        for (i, r) in concurrentChunks(chosen.count, chunkSize: max(64, chosen.count / 16), { follow(chosen[$0]) }) {
            if let by = r.by { images[i].retaggedBy = by } else {
                images[i].writtenTagDeployedBy = r.writtenTagDeployedBy
                images[i].writtenTagRootPaths = r.writtenTagRootPaths
                images[i].writtenTagRootFiles = r.writtenTagRootFiles
                images[i].writtenTagRetaggedOnlyWithin = r.retaggedOnlyWithin
            }
        }
    }

    /// Directory → the kustomize Component there; directory → the Flux Kustomizations whose path it is.
    static func componentsAndFluxBuilders(objects: Objects, files: Files) -> (components: [String: ObjectID], fluxBuilders: [String: [ObjectID]]) {
        var components: [String: ObjectID] = [:], fluxBuilders: [String: [ObjectID]] = [:]
        for (i, o) in objects.withIDs {
            if o.isKustomization, o.kind == "Component", Extractor.isKustomizationPath(files[o.file].path) {
                components[files[o.file].directory] = i
            }
            if case .kustomization(let k)? = o.flux, let p = k.path { fluxBuilders[p, default: []].append(i) }
        }
        return (components, fluxBuilders)
    }

    /// The container lists of the workloads, as written: names by place.
    static func containerLists(_ images: Table<ImageID, ImageUse>) -> [ObjectID: [String: [String?]]] {
        var listsOf: [ObjectID: [String: [String?]]] = [:]
        for i in images.indices where images[i].origin == .container {
            guard let o = images[i].object, let slot = images[i].containerSlot, let cut = slot.firstIndex(of: "/"),
                  let place = Int(slot[slot.index(after: cut)...]) else { continue }
            let list = String(slot[..<cut])
            var names = listsOf[o]?[list] ?? []
            while names.count <= place { names.append(nil) }
            names[place] = images[i].container
            listsOf[o, default: [:]][list] = names
        }
        return listsOf
    }

    /// What `markRetagged` found for one image: the kustomizations that set its tag, or the builds that deploy its
    /// written tag where others set it.
    struct Retagging: Sendable {
        var by: [ObjectID]?
        var writtenTagDeployedBy: [String] = []
        var writtenTagRootPaths: [String] = []
        var writtenTagRootFiles: [FileID] = []
        var retaggedOnlyWithin = false
    }

    /// What patch document `root` of `y` does to the field at `path` of a HelmRelease's `spec.values`: true when it
    /// gives the field a value (or writes a scalar or a list over a mapping around it), false when it takes it away
    /// (a null, a JSON `remove`, a mapping around it replaced by one without it), nil when it does not touch it.
    static func valuesPatchSets(_ y: YAMLFile, root: Int, _ path: [String]) -> Bool? {
        if y.nodes[root].kind == .sequence {
            var out: Bool?
            for op in y.childNodes(root) where y.nodes[op].kind == .mapping {
                guard let action = y.string(op, "op"), ["add", "replace", "remove"].contains(action), let p = y.string(op, "path") else { continue }
                let segments = EffectiveObjects.pointer(p)
                guard segments.count >= 2, segments[0] == "spec", segments[1] == "values" else {
                    // the whole spec
                    if segments == ["spec"] {
                        out = action == "remove" ? false : y.get(op, "value").flatMap { y.get($0, "values") }.map { valuesNodeSets(y, $0, path) } ?? false
                    }
                    continue
                }
                let rest = Array(segments.dropFirst(2))
                guard rest.count <= path.count, zip(rest, path).allSatisfy({ $0 == $1 }) else { continue }
                if action == "remove" { out = false; continue }
                // a null put in `spec.values` is Helm's way of dropping the field: it replaces the file's too
                out = y.get(op, "value").map { valuesNodeSets(y, $0, Array(path.dropFirst(rest.count)), nullSets: true) } ?? false
            }
            return out
        }
        guard y.nodes[root].kind == .mapping, let spec = y.get(root, "spec"), y.nodes[spec].kind == .mapping,
              var n = y.pairs(spec).first(where: { y.value($0.key) == "values" })?.value else { return nil }
        for (at, key) in path.enumerated() {
            if y.isNull(n) { return false }   // kustomize deletes the field
            guard y.nodes[n].kind == .mapping else { return true }
            if y.string(n, "$patch") == "delete" { return false }
            if y.string(n, "$patch") == "replace" { return valuesNodeSets(y, n, Array(path[at...])) }
            guard let child = y.pairs(n).first(where: { y.value($0.key) == key })?.value else { return nil }
            n = child
        }
        return !y.isNull(n)
    }

    /// Whether values node n, put in place, holds a value at `path` below it (or a scalar or list over a mapping on the
    /// way); `nullSets`: a null counts (in values Helm merges, a null drops the field: it replaces an earlier source's).
    static func valuesNodeSets(_ y: YAMLFile, _ n: Int, _ path: [String], nullSets: Bool = false) -> Bool {
        var n = n
        for key in path {
            guard y.nodes[n].kind == .mapping else { return nullSets || !y.isNull(n) }
            guard let child = y.pairs(n).first(where: { y.value($0.key) == key })?.value else { return false }
            n = child
        }
        return nullSets || !y.isNull(n)
    }

    /// Whether a values file (its documents that are mappings) sets the field at `path`.
    static func valuesFileSets(_ y: YAMLFile, _ path: [String]) -> Bool {
        y.error == nil && y.documents.contains { y.nodes[$0.root].kind == .mapping && valuesNodeSets(y, $0.root, path, nullSets: true) }
    }

    /// The `valuesFrom` entries (`ValuesReference.id`) of a HelmRelease after patch document `root` of `y`, from
    /// `list`: a strategic merge's `spec.valuesFrom` replaces the list (a custom resource's lists have no merge keys); a
    /// JSON patch adds, replaces or removes the list or an entry. An entry whose own fields change, or that a `move` or
    /// `copy` targets, is `?`. nil when the patch leaves them.
    static func valuesFrom(_ y: YAMLFile, root: Int, over list: [String]) -> [String]? {
        func entry(_ n: Int) -> String? {
            guard y.nodes[n].kind == .mapping, let kind = y.string(n, "kind"), let name = y.string(n, "name") else { return nil }
            return HelmReleaseSpec.ValuesReference.id(kind: kind, name: name, valuesKey: y.string(n, "valuesKey") ?? "values.yaml",
                                                      targetPath: y.string(n, "targetPath"))
        }
        func entries(_ n: Int?) -> [String] {
            guard let n, y.nodes[n].kind == .sequence else { return [] }
            return y.childNodes(n).compactMap(entry)
        }
        if y.nodes[root].kind == .sequence {
            var list = list, changed = false
            for op in y.childNodes(root) where y.nodes[op].kind == .mapping {
                guard let action = y.string(op, "op"), action != "test", let p = y.string(op, "path") else { continue }
                let segments = EffectiveObjects.pointer(p), value = y.get(op, "value")
                // an entry moved or copied from the list: not followed
                if let from = y.string(op, "from").map(EffectiveObjects.pointer), from.count >= 2, from[0] == "spec", from[1] == "valuesFrom" {
                    changed = true
                    list.append("?")
                    continue
                }
                guard segments.first == "spec", segments.count == 1 || segments[1] == "valuesFrom" else { continue }
                changed = true
                switch segments.count {
                case 1: list = action == "remove" ? [] : entries(value.flatMap { y.get($0, "valuesFrom") })
                case 2: list = action == "remove" ? [] : entries(value)
                default:
                    let at = segments[2] == "-" ? list.count : Int(segments[2]) ?? -1
                    guard at >= 0, at <= list.count else { continue }
                    if segments.count > 3 || action == "move" || action == "copy" {
                        if at < list.count { list[at] = "?" }   // the entry changes: it reads something else
                    } else if action == "add" {
                        if let e = value.flatMap(entry) { list.insert(e, at: at) }
                    } else if at < list.count {
                        if action == "replace", let e = value.flatMap(entry) { list[at] = e } else { list.remove(at: at) }
                    }
                }
            }
            return changed ? list : nil
        }
        guard y.nodes[root].kind == .mapping, let spec = y.get(root, "spec"), y.nodes[spec].kind == .mapping,
              let from = y.pairs(spec).first(where: { y.value($0.key) == "valuesFrom" })?.value else { return nil }
        return entries(from)
    }

    /// Whether some patch may touch a workload's container lists or a HelmRelease's values: one whose text mentions
    /// containers or values. Only then are containers followed through patches.
    static func anyPatchTouchesContainers(_ stepsOf: [ObjectID: EffectiveObjects.Steps]) -> Bool {
        var seen = Set<ObjectIdentifier>()
        return stepsOf.values.contains { st in
            (st.early + st.late).contains { p in
                guard seen.insert(ObjectIdentifier(p.text)).inserted else { return false }
                // (a `$patch: delete` of the whole workload takes its containers too)
                return SourceText.contains("ontainers", in: p.text.yaml.bytes) || SourceText.contains("values", in: p.text.yaml.bytes)
                    || SourceText.contains("$patch", in: p.text.yaml.bytes)
            }
        }
    }
}

extension Model {
    /// For a base image whose tag every build replaces (`retaggedBy`): whether each of those kustomizations replaces it
    /// with a value that carries a `$imagepolicy` marker of its own — an `images:` entry's, an image its patches
    /// write (inline or in its patch files), or one of the values files it generates for a release — so Flux's updates
    /// reach the builds through them.
    public func overridesCarryMarkers(_ i: ImageID) -> Bool {
        guard let name = images[i].normalizedName ?? markedRepository(i).flatMap(ImageReference.normalizeName) else { return false }
        return images[i].retaggedBy.allSatisfy { k in
            let dir = directory(objects[k].file)
            let patchFiles = Set(objects[k].kustomizePatches.compactMap { Model.normalizePath(Sources.join(dir, $0)) })
            return images.indices.contains { j in
                guard j != i, !images[j].markers.isEmpty,
                      (images[j].object == k && images[j].valuesFromEntry == nil) || patchFiles.contains(path(images[j].file))
                        || (images[j].valuesFromEntry != nil && images[j].environmentObject == k) else { return false }
                let other = images[j].normalizedName ?? markedRepository(j).flatMap(ImageReference.normalizeName)
                return other == nil || other == name
            }
        }
    }
}
