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
    /// A kustomization's patch that writes a container's image replaces it like an entry that sets its tag
    /// (`imageReplacements`): a strategic merge names the container, a JSON patch its place in the list. Held to
    /// `kubectl kustomize` by `scripts/kustomize-vs-tagwarden/run`.
    static func markRetagged(_ images: inout [ImageUse], objects: [ManifestObject], files: [FileFacts], includedBy: [String: [Int]]) {
        let replacing = imageReplacements(images, objects: objects, files: files)
        guard !replacing.isEmpty || objects.contains(where: { $0.kustomizeImages.contains(where: \.setsTag) }) else { return }
        /// The workload container the image being judged is in (by name and by slot), when some patch replaces a
        /// container's image.
        var me: [Replacement] = []
        /// What kustomization k leaves of the image called `name`: nil when a patch of k replaces its image or an
        /// entry sets its tag (kustomize runs the patches first), else its name after the entries.
        func applied(_ k: Int, _ name: String) -> String? {
            if !me.isEmpty, let replaced = replacing[k], me.contains(where: replaced.contains) { return nil }
            return KustomizeImageEntry.apply(entries(k), to: name)
        }
        var components: [String: Int] = [:]      // directory → the kustomize Component there
        var fluxBuilders: [String: [Int]] = [:]  // directory → the Flux Kustomizations whose path it is
        for (i, o) in objects.enumerated() {
            if o.isKustomization, o.kind == "Component", Extractor.isKustomizationName(Path.basename(files[o.file].path)) {
                components[Path.dirname(files[o.file].path)] = i
            }
            if case .kustomization(let k)? = o.flux, let p = k.path.flatMap(normalizePath) { fluxBuilders[p, default: []].append(i) }
        }
        /// The entries kustomization k applies, in order: its Components' (as it lists them), then its own.
        var entriesOf: [Int: [KustomizeImageEntry]] = [:]
        func entries(_ k: Int) -> [KustomizeImageEntry] {
            if let known = entriesOf[k] { return known }
            var all: [KustomizeImageEntry] = []
            if !components.isEmpty {
                let dir = Path.dirname(files[objects[k].file].path)
                for r in objects[k].kustomizeResources {
                    if let p = normalizePath(Sources.join(dir, r)), let c = components[p] { all += objects[c].kustomizeImages }
                }
            }
            all += objects[k].kustomizeImages
            entriesOf[k] = all
            return all
        }
        struct Key: Hashable { let kustomization: Int, name: String, container: [Replacement] }
        var memo: [Key: Bool] = [:]
        /// Whether some build through kustomization k deploys the image, called `name` when it reaches k, with the
        /// tag its manifest writes.
        func writtenTagRuns(_ k: Int, _ name: String, _ depth: Int) -> Bool {
            let key = Key(kustomization: k, name: name, container: me)
            if let known = memo[key] { return known }
            memo[key] = false   // a cycle of kustomizations deploys nothing more
            let runs: Bool
            if let after = applied(k, name) {
                let dir = Path.dirname(files[objects[k].file].path)
                let builders = fluxBuilders[dir] ?? [], parents = includedBy[dir] ?? []
                if builders.contains(where: { KustomizeImageEntry.apply(objects[$0].kustomizeImages, to: after) != nil }) {
                    runs = true
                } else if parents.isEmpty {
                    runs = builders.isEmpty
                } else {
                    runs = depth > 64 || parents.contains { writtenTagRuns($0, after, depth + 1) }
                }
            } else {
                runs = false
            }
            memo[key] = runs
            return runs
        }
        /// Whether some build through kustomization k sets the tag of the image called `name` there.
        func sets(_ k: Int, _ name: String, _ depth: Int = 0) -> Bool {
            guard let after = applied(k, name) else { return true }
            let dir = Path.dirname(files[objects[k].file].path)
            if (fluxBuilders[dir] ?? []).contains(where: { KustomizeImageEntry.apply(objects[$0].kustomizeImages, to: after) == nil }) { return true }
            return depth < 64 && (includedBy[dir] ?? []).contains { sets($0, after, depth + 1) }
        }
        /// The roots of the builds through kustomization k that deploy the image, called `name` there, with the tag its
        /// manifest writes: the Flux Kustomizations that build them (by name), else the root kustomizations' directories.
        /// `paths` gathers the files that tell those builds' environments: the root kustomization's, its Flux
        /// Kustomizations'.
        func writtenTagRoots(_ k: Int, _ name: String, _ depth: Int, into roots: inout [String], paths: inout Set<String>) {
            guard depth < 64, let after = applied(k, name) else { return }
            let dir = Path.dirname(files[objects[k].file].path)
            let builders = fluxBuilders[dir] ?? [], parents = includedBy[dir] ?? []
            for b in builders where KustomizeImageEntry.apply(objects[b].kustomizeImages, to: after) != nil {
                let root = "Flux Kustomization \(objects[b].name ?? "") (\(files[objects[b].file].path))"
                if !roots.contains(root) { roots.append(root) }
                paths.formUnion([files[objects[k].file].path, files[objects[b].file].path])
            }
            if parents.isEmpty, builders.isEmpty {
                if !roots.contains(dir + "/") { roots.append(dir + "/") }
                paths.insert(files[objects[k].file].path)
            }
            for p in parents { writtenTagRoots(p, after, depth + 1, into: &roots, paths: &paths) }
        }
        /// The Flux Kustomizations whose generated kustomization takes `path`: those of the nearest directory above it
        /// that is a `path`, with no kustomization file from the file's directory up to it.
        /// (Only asked when some Flux Kustomization has `spec.images`; one answer per directory.)
        let fluxRetags = fluxBuilders.values.contains { $0.contains { !objects[$0].kustomizeImages.isEmpty } }
        // directories with a kustomization file
        let kustomizationDirs = fluxRetags ? Set(objects.lazy.filter { $0.isKustomization && Extractor.isKustomizationName(Path.basename(files[$0.file].path)) }
            .map { Path.dirname(files[$0.file].path) }) : []
        var generatedOf: [String: [Int]] = [:]
        func generatedBuilders(_ path: String) -> [Int] {
            let start = Path.dirname(path)
            if let known = generatedOf[start] { return known }
            var dir = start, found: [Int] = []
            while !kustomizationDirs.contains(dir) {
                if let builders = fluxBuilders[dir] { found = builders; break }
                if dir.isEmpty { break }
                dir = Path.dirname(dir)
            }
            generatedOf[start] = found
            return found
        }
        for i in images.indices where images[i].origin == .container && images[i].invalid == nil {
            let img = images[i]
            if let name = img.name, includedBy[files[img.file].path] == nil {
                guard fluxRetags else { continue }
                let builders = generatedBuilders(files[img.file].path)
                if !builders.isEmpty, builders.allSatisfy({ KustomizeImageEntry.apply(objects[$0].kustomizeImages, to: name) == nil }) {
                    images[i].retaggedBy = builders.sorted()
                }
                continue
            }
            guard let name = img.name, let includers = includedBy[files[img.file].path] else { continue }
            me = replacing.isEmpty ? [] : replacementKeys(img, objects: objects)
            if includers.contains(where: { writtenTagRuns($0, name, 0) }) {
                // some builds set the tag and some do not: the finding names those that deploy it as written
                if includers.contains(where: { sets($0, name) }) {
                    var roots: [String] = [], paths = Set<String>()
                    for k in includers { writtenTagRoots(k, name, 0, into: &roots, paths: &paths) }
                    images[i].writtenTagDeployedBy = roots.sorted()
                    images[i].writtenTagRootPaths = paths.sorted()
                }
                continue
            }
            // the kustomizations (or Flux Kustomizations) that set the tag: the nearest on each way up
            var by: [Int] = [], seen = Set<Key>(), queue = includers.map { Key(kustomization: $0, name: name, container: me) }
            while let at = queue.popLast() {
                guard seen.insert(at).inserted else { continue }
                guard let after = applied(at.kustomization, at.name) else {
                    if !by.contains(at.kustomization) { by.append(at.kustomization) }
                    continue
                }
                let dir = Path.dirname(files[objects[at.kustomization].file].path)
                by += (fluxBuilders[dir] ?? []).filter { !by.contains($0) }
                queue += (includedBy[dir] ?? []).map { Key(kustomization: $0, name: after, container: me) }
            }
            images[i].retaggedBy = by.sorted()
        }
    }

    /// A workload's container, by kind, written name and container: its name (as a strategic merge matches it), or
    /// `#` and its slot (`#containers/0`, as a JSON patch's path names it).
    struct Replacement: Hashable {
        let kind: String, name: String, container: String
    }

    /// The containers whose image each kustomization's patches replace:
    /// - an inline patch's: the workload of its `target` when that names one kind and one name, else (a strategic
    ///   merge) its own `kind` and `metadata.name`;
    /// - a strategic-merge patch file's (`patches[].path`, `patchesStrategicMerge`): its own workloads;
    /// - a JSON patch file's: the workload its `target` names.
    /// kustomize matches the names as written.
    static func imageReplacements(_ images: [ImageUse], objects: [ManifestObject], files: [FileFacts]) -> [Int: Set<Replacement>] {
        var out: [Int: Set<Replacement>] = [:]
        var patchFileOf: [String: [(kustomization: Int, written: String)]] = [:]   // patch file → the kustomizations that apply it
        for (k, o) in objects.enumerated() where o.isKustomization && !o.kustomizePatches.isEmpty {
            let dir = Path.dirname(files[o.file].path)
            for p in o.kustomizePatches { if let path = normalizePath(Sources.join(dir, p)) { patchFileOf[path, default: []].append((k, p)) } }
        }
        for img in images where img.origin == .container {
            guard let c = img.container.map({ $0 }) ?? img.containerSlot.map({ "#" + $0 }) else { continue }
            if let w = img.patchedWorkload, let o = img.object, objects[o].isKustomization {
                out[o, default: []].insert(Replacement(kind: w.kind, name: w.name, container: c))
            } else if !patchFileOf.isEmpty, let ks = patchFileOf[files[img.file].path] {
                if let o = img.object, let name = objects[o].name, img.container != nil {
                    for (k, _) in ks { out[k, default: []].insert(Replacement(kind: objects[o].kind, name: name, container: c)) }
                } else if img.object == nil {
                    for (k, written) in ks {
                        guard let w = files[objects[k].file].patchFileWorkloads[written] else { continue }
                        out[k, default: []].insert(Replacement(kind: w.kind, name: w.name, container: c))
                    }
                }
            }
        }
        return out
    }

    /// How patches name container image `img`: by its container's name and by its slot.
    static func replacementKeys(_ img: ImageUse, objects: [ManifestObject]) -> [Replacement] {
        guard let o = img.object, let name = objects[o].name else { return [] }
        var keys: [Replacement] = []
        if let c = img.container { keys.append(Replacement(kind: objects[o].kind, name: name, container: c)) }
        if let slot = img.containerSlot { keys.append(Replacement(kind: objects[o].kind, name: name, container: "#" + slot)) }
        return keys
    }
}
