import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// A kustomize `images:` entry whose `name` matches no image of what it applies to: kustomize changes nothing,
/// silently (a typo in the name, a registry left out), and a marker on its `newTag` has Flux
/// update a tag that reaches no container.
public struct UnmatchedImageEntry: Sendable {
    /// The kustomization (or Flux Kustomization) of the entry.
    public var object: ObjectID
    public var name: Located
    /// The images the build has, nearest to the name first (up to three).
    public var nearest: [String]
    /// An image of the build that is the entry's image written another way (`nginx` for `docker.io/library/nginx`),
    /// which kustomize, comparing the text, does not match.
    public var spelledOtherwise: String?
}

extension Model {
    /// The entries of kustomizations (and of Flux Kustomizations' `spec.images`) that name no container image of the
    /// repository and match no image of their build: the files it takes (`BuildSets`), with the patch files of every
    /// kustomization in it; a Component's entries apply to the builds of the kustomizations that list it. A name
    /// matches an image as written (kustomize compares the text: `docker.io/library/nginx` is not `nginx`), an entry's
    /// `newName` in the build, or — for what Tagwarden does not read as an image (a custom resource's
    /// `containers`) — any text of a file of the build. A build that inflates charts, runs plugins,
    /// takes resources from outside the repository or names a path the repository lacks is not judged: its images
    /// cannot be known. An entry for an image the repository has elsewhere, but not in its build, is reported too
    /// (lloydchang/agentic-reconciliation-engine's `python` entry, whose build has none: another build's container has).
    static func unmatchedImageEntries(objects: Objects, files: Files, images: Table<ImageID, ImageUse>,
                                      graph: IncludeGraph, builds: LazyBuildSets) -> [UnmatchedImageEntry] {
        let suspects = objects.indices.filter { !objects[$0].kustomizeImages.isEmpty }
        guard !suspects.isEmpty else { return [] }
        // the names an entry renames: a build may have renamed such an image before an entry above looks for it
        var renamed = Set<String>()
        for k in suspects { for e in objects[k].kustomizeImages where e.newName != nil && e.newName != e.name.value { renamed.insert(e.name.value) } }
        // most entries name an image written in a file their kustomization's resources reach, which no entry renames:
        // settled by walking up from those files, without the build (the files where each name is written)
        var filesOfName: [String: [FileID]] = [:]
        for i in images.indices where images[i].origin != .kustomize { if let n = images[i].name { filesOfName[n, default: []].append(images[i].file) } }
        let built = builds.value
        // (made once an entry is not settled so: most runs never need them)
        lazy var imagesOfFile: [FileID: [ImageID]] = {
            var out: [FileID: [ImageID]] = [:]
            for i in images.indices where images[i].name != nil { out[images[i].file, default: []].append(i) }
            return out
        }()
        lazy var objectsOfFile: [FileID: [ObjectID]] = {
            var out: [FileID: [ObjectID]] = [:]
            for (i, o) in objects.withIDs where o.isKustomization { out[o.file, default: []].append(i) }
            return out
        }()
        var out: [UnmatchedImageEntry] = []
        for k in suspects {
            let o = objects[k]
            let dir = files[o.file].directory
            var roots: [String]
            if case .kustomization(let flux)? = o.flux {
                guard let p = flux.path.flatMap(normalizePath) else { continue }
                roots = [p]
            } else if o.isKustomization {
                roots = o.kind == "Component" ? graph.includers(of: dir).map(graph.directory(of:)) : [dir]
            } else {
                continue   // a HelmRelease's post-renderer: the chart's output
            }
            if o.flux == nil, o.kind != "Component", o.kustomizeImages.allSatisfy({ e in
                !renamed.contains(e.name.value) && (filesOfName[e.name.value] ?? []).contains { graph.reaches(k, from: files[$0].path) }
            }) { continue }
            var taken = roots.count == 1 ? built.files(under: roots[0]) : Set<FileID>()
            if roots.count > 1 { for r in roots { taken.formUnion(built.files(under: r)) } }
            guard !taken.isEmpty, let known = knownBuild(taken, after: { $0 == k || roots.contains(files[objects[$0].file].directory) },
                                                         objects: objects, objectsOfFile: objectsOfFile, files: files, built: built) else { continue }
            taken = known
            // the names the images have when they reach this kustomization: the renaming entries of the kustomizations on
            // the way apply first, the innermost first
            /// Where file f has an image or an `images:` entry's name that Tagwarden read.
            func readPlaces(_ f: FileID) -> Set<Int> {
                Set((imagesOfFile[f] ?? []).map { images[$0].span.start.offset }
                    + (objectsOfFile[f] ?? []).flatMap { objects[$0].kustomizeImages.map(\.name.span.start.offset) })
            }
            let renamers = taken.flatMap { objectsOfFile[$0] ?? [] }.filter { j in
                j != k && objects[j].kind != "Component" && objects[j].kustomizeImages.contains { $0.newName != nil }
            }.map { j in (object: j, builds: built.files(under: files[objects[j].file].directory)) }
                .sorted { $0.builds.count < $1.builds.count }
            var names = Set<String>(), normalized: [String: String] = [:], texts: [String] = []
            for f in taken {
                for i in imagesOfFile[f] ?? [] where images[i].origin != .kustomize {
                    let img = images[i]
                    var name = img.name!
                    for r in renamers where r.builds.contains(f) {
                        for e in objects[r.object].kustomizeImages where e.name.value == name { name = e.newName ?? name }
                    }
                    names.insert(name)
                    if name == img.name { texts.append(img.text) }   // (as written, where no entry below renamed it)
                    if let n = name == img.name ? img.normalizedName : ImageReference.normalizeName(name) { normalized[n] = min(normalized[n] ?? name, name) }
                }
            }
            // an entry's `newName` is an image of the build for the entries applied after it: those of the kustomizations
            // this one builds on, and the later ones of its own list (kustomize applies a list's entries in order)
            for j in taken.flatMap({ objectsOfFile[$0] ?? [] }) where j != k {
                names.formUnion(objects[j].kustomizeImages.compactMap(\.newName))
            }
            for image in o.kustomizeImages {
                // (the new name of an entry that matches nothing names nothing of the build: alokhom/flux's tekton entries)
                var matchesNothing = false
                defer { if !matchesNothing, let n = image.newName { names.insert(n) } }
                let entry = image.name
                guard !names.contains(entry.value) else { continue }
                // kustomize matches the entry's name against the whole reference: a name written with its tag
                // (swaptacular's `source-controller:v1.6.2`) matches the image written so
                if let slash = entry.value.lastIndex(of: "/") ?? entry.value.indices.first,
                   entry.value[slash...].contains(where: { $0 == ":" || $0 == "@" }),
                   texts.contains(where: { KustomizeImageEntry.nameMatches(entry.value, reference: $0) }) { continue }
                // text Tagwarden does not read as an image may hold it (the entry's own file aside), as a whole name: not
                // where it read an image or an entry's name, which the names above account for
                let needle = Array(entry.value.utf8)
                if needle.isEmpty || taken.contains(where: { f in
                    f != o.file && Model.holdsImageName(files[f].bytes, needle, except: readPlaces(f))
                }) { continue }
                var prev: [Int] = [], cur: [Int] = []
                let nearest = names.map { name -> (Int, String) in
                    let (x, y) = (Array(entry.value.utf8), Array(name.utf8))
                    return (Suggester.distance(x, y, atMost: max(x.count, y.count), &prev, &cur) ?? Int.max, name)
                }.sorted { $0 < $1 }.prefix(3).map(\.1)
                matchesNothing = true
                out.append(UnmatchedImageEntry(object: k, name: entry, nearest: nearest,
                                               spelledOtherwise: ImageReference.normalizeName(entry.value).flatMap { normalized[$0] }))
            }
        }
        return out
    }

    /// Marks the images (a container's, a release's values') of a kustomization's inline patches whose target is of a
    /// kind its build does not have (a patch copied from another app, say): kustomize applies such a patch to nothing,
    /// so its image deploys nothing, like an `images:` entry that matches nothing. Only the kind is compared, and only
    /// where the build can be known (`BuildSets.resourceBuild`); a Component's patches apply to other builds and are
    /// left alone.
    /// `stepsOf`: the kustomizations' patches, as `EffectiveObjects.readAllSteps` read them.
    static func markPatchesOfNothing(_ images: inout Table<ImageID, ImageUse>, objects: Objects, files: Files, builds: LazyBuildSets,
                                     stepsOf: [ObjectID: EffectiveObjects.Steps]) {
        markPatchFilesOfNothing(&images, objects: objects, files: files, builds: builds, stepsOf: stepsOf)
        let patchImages = images.indices.filter { i in
            guard [.container, .helmImage, .helmParts].contains(images[i].origin), let k = images[i].object else { return false }
            return objects[k].isKustomization && objects[k].kind != "Component" && images[i].file == objects[k].file
        }
        guard !patchImages.isEmpty else { return }
        var kindsOf: [ObjectID: Set<String>?] = [:]   // kustomization → the kinds of its build; nil when it cannot be known
        for i in patchImages {
            let k = images[i].object!
            if kindsOf[k] == nil {
                kindsOf[k] = builds.resourceBuild(of: k).map { b in
                    Set(b.objects.map { objects[$0].kind } + (b.configMaps.isEmpty ? [] : ["ConfigMap"]) + (b.unknowns.contains(.secrets) ? ["Secret"] : []))
                }
            }
            guard let kinds = kindsOf[k] ?? nil, let steps = stepsOf[k] else { continue }
            let at = images[i].span.start.offset
            guard let patch = (steps.early + steps.late).first(where: { p in
                guard p.text.file == images[i].file, p.text.lines != nil else { return false }
                let span = p.text.span(p.root)
                return span.start.offset <= at && at <= span.end.offset
            }), let kind = patch.selector?.kind else { continue }
            if !kinds.contains(kind) { images[i].deploysNothing = true }
        }
    }

    /// Marks the images of a patch file (a document of it) that selects no object of the build of any kustomization that
    /// applies it: its `target`, or without one its own kind and name, matches none (andreyolv/pikakube's `labelSelector:
    /// env=dev` over a Deployment labelled otherwise), so kustomize patches nothing with it. A name matches one it
    /// holds where a kustomization below sets a name affix, a namespace only for a patch without a target
    /// (`PatchTargets.namespaceMatches`), labels and annotations are
    /// compared only where no kustomization below sets them, and a build that cannot be known is taken to be selected.
    private static func markPatchFilesOfNothing(_ images: inout Table<ImageID, ImageUse>, objects: Objects, files: Files, builds: LazyBuildSets,
                                                stepsOf: [ObjectID: EffectiveObjects.Steps]) {
        struct Document: Hashable { let file: FileID, start: Int, end: Int }
        // (only patches with images matter: a file that holds none is passed over before its builds are looked at)
        let patchFiles = Set(stepsOf.values.lazy.flatMap { $0.early + $0.late }.filter { $0.text.lines == nil }.map(\.text.file))
        guard !patchFiles.isEmpty else { return }
        let withImages = Set(images.rows.lazy.map(\.file).filter(patchFiles.contains))
        guard !withImages.isEmpty else { return }
        var selectsNothing: [Document: Bool] = [:]   // a patch file's document → whether every kustomization applying it patches nothing
        for k in stepsOf.keys.sorted() where objects[k].kind != "Component" {
            let steps = stepsOf[k]!
            let filePatches = (steps.early + steps.late).filter { $0.text.lines == nil && $0.text.file != objects[k].file && withImages.contains($0.text.file) }
            guard !filePatches.isEmpty else { continue }
            let build = builds.resourceBuild(of: k)
            // what the kustomizations below change before this one's patches: names (affixes) and labels
            let below = build?.kustomizations.filter { $0 != k } ?? []
            let renamed = below.contains { objects[$0].kustomizeNamePrefix != nil || objects[$0].kustomizeNameSuffix != nil }
            let relabeled = below.contains { !(stepsOf[$0]?.labels.isEmpty ?? true) || !(stepsOf[$0]?.annotations.isEmpty ?? true) }
            let namespacesBelow = below.compactMap { objects[$0].kustomizeNamespace }
            for p in filePatches {
                let span = p.text.span(p.root)
                let doc = Document(file: p.text.file, start: span.start.offset, end: span.end.offset)
                guard let b = build, let sel = p.selector, let kind = sel.kind else { selectsNothing[doc] = false; continue }
                let none = !b.objects.contains { i in
                    let o = objects[i]
                    guard o.kind == kind, sel.group.map({ $0 == o.group }) ?? true else { return false }
                    if let wanted = sel.exactName, let name = o.name, !name.contains("$"), renamed ? !wanted.contains(name) : wanted != name { return false }
                    if p.targetless, !PatchTargets.namespaceMatches(sel.exactNamespace, o, below: namespacesBelow) { return false }
                    guard sel.labels != nil || sel.annotations != nil, !relabeled else { return true }
                    let (labels, annotations) = EffectiveObjects.labelsAndAnnotations(o, in: files[o.file].yaml)
                    return (sel.labels?.matches(labels) ?? true) && (sel.annotations?.matches(annotations) ?? true)
                }
                selectsNothing[doc] = (selectsNothing[doc] ?? true) && none
            }
        }
        let dead = selectsNothing.filter(\.value).map(\.key)
        guard !dead.isEmpty else { return }
        let byFile = Dictionary(grouping: dead, by: \.file)
        for i in images.indices {
            guard let docs = byFile[images[i].file] else { continue }
            let at = images[i].span.start.offset
            if docs.contains(where: { $0.start <= at && at <= $0.end }) {
                images[i].deploysNothing = true
            }
        }
    }

    /// The build's files with the patch files its kustomizations name (whose images an `images:` entry changes too), or
    /// nil when what it makes cannot be known. The `transformers:` of the kustomizations that apply the entry (`after`:
    /// its own, the one at the root of the build) run after it, as kustomize runs them after its builtin transformers:
    /// they do not change what it matches (deelaa-marketplace's ReplacementTransformer).
    private static func knownBuild(_ taken: Set<FileID>, after: (ObjectID) -> Bool, objects: Objects, objectsOfFile: [FileID: [ObjectID]],
                                   files: Files, built: BuildSets) -> Set<FileID>? {
        var all = taken
        for f in taken {
            for o in objectsOfFile[f] ?? [] {
                let unknowns = objects[o].kustomizeUnknowns
                if unknowns.contains(.resources) || unknowns.contains(.transformers) && !after(o) { return nil }
                let dir = files[f].directory
                // a `configurations:` file that gives the images transformer fields of its own (a Provider's
                // `spec/package`, gadgetmg/home's crd-configurations Component), or one not read, may let an entry match
                // what is no container image
                for c in objects[o].kustomizeConfigFiles {
                    guard let p = normalizePath(Sources.join(dir, c)), let cf = built.fileAt[p],
                          !SourceText.contains("images", in: files[cf].bytes) else { return nil }
                }
                for r in objects[o].kustomizeResources {
                    guard let p = normalizePath(Sources.join(dir, r)), built.fileAt[p] != nil || built.hasFiles(under: p) else { return nil }
                }
                for r in objects[o].kustomizePatches {
                    guard let p = normalizePath(Sources.join(dir, r)), let pf = built.fileAt[p] else { return nil }
                    all.insert(pf)
                }
            }
        }
        return all
    }
}

extension Model {
    /// Whether `text` holds `name` as kustomize matches an image name: the whole value of a field whose key ends with
    /// `image` (kustomize's transformer writes containers' `image`, and a `configurations:` file's field specs name such
    /// fields), followed by a tag, a digest or the value's end (`redis` is not in `bitnami/redis` or `redis-exporter`,
    /// nor in `component: redis`). `read`: offsets to pass over.
    static func holdsImageName(_ text: [UInt8], _ name: [UInt8], except read: Set<Int> = []) -> Bool {
        func isNameByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x2F || b == 0x2D || b == 0x5F
        }
        /// Whether the value at `at` is an image field's: `image: `, `initImage: "`, `"image": `.
        func isImageValue(_ at: Int) -> Bool {
            var i = at - 1
            while i >= 0, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\""), UInt8(ascii: "'")].contains(text[i]) { i -= 1 }
            guard i >= 0, text[i] == UInt8(ascii: ":") else { return false }
            i -= 1
            if i >= 0, text[i] == UInt8(ascii: "\"") { i -= 1 }
            let end = i + 1
            while i >= 0, isNameByte(text[i]), text[i] != UInt8(ascii: "/") { i -= 1 }
            return String(decoding: text[(i + 1)..<end], as: UTF8.self).lowercased().hasSuffix("image")
        }
        return text.withUnsafeBytes { h in
            name.withUnsafeBytes { n in
                var from = 0
                while let at = SourceText.find(h, n, from: from) {
                    from = at + 1
                    if read.contains(at) || !isImageValue(at) { continue }
                    let end = at + name.count
                    guard end < text.count else { return true }
                    let next = text[end]
                    if isNameByte(next) { continue }
                    if next == UInt8(ascii: ":") {
                        // a tag follows; `name:` then a blank or the line's end is a key
                        if end + 1 < text.count, ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(text[end + 1]) { return true }
                        continue
                    }
                    return true
                }
                return false
            }
        }
    }
}
