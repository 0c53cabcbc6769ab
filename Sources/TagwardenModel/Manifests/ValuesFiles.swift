import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// HelmRelease values kept outside the release, in a ConfigMap its `valuesFrom` names: a file that a kustomization's
/// `configMapGenerator` makes the ConfigMap of (a common layout: one base release, one values file per cluster), or
/// a ConfigMap written in the repository with the values in a literal block under the key; or, for a chart kept in
/// this repository (its `Chart.yaml` at the chart path of a GitRepository source), the files its
/// `chart.spec.valuesFiles` names. Their images are read as the release's `spec.values` are; a release without an
/// environment of its own takes that of the generating kustomization or of the ConfigMap.
enum ValuesFiles {
    /// The images, and the references with `${…}` that wait for substitution.
    static func images(objects: Objects, namespaces: Table<ObjectID, String?>, environments: Table<ObjectID, String?>, files: Files,
                       configMaps: [String: [ObjectID]], builds: LazyBuildSets,
                       reached: (FileID) -> Bool = { _ in true }) -> (images: [ImageUse], substitutable: [ImageUse]) {
        let releases = objects.indices.filter { if case .helmRelease? = objects[$0].flux { return true } else { return false } }
        guard !releases.isEmpty else { return ([], []) }
        // the ConfigMaps the kustomizations generate, by namespace and name (a generated ConfigMap lands in the
        // generator's namespace, else the kustomization's)
        var generated: [String: [(kustomization: ObjectID, generator: ManifestObject.ConfigMapGenerator)]] = [:]
        for k in objects.indices {
            for g in objects[k].configMapGenerators {
                generated[(g.namespace ?? objects[k].kustomizeNamespace ?? namespaces[k] ?? "") + "/" + g.name, default: []].append((k, g))
            }
        }
        let chartValues = releases.contains { r in
            if case .helmRelease(let spec)? = objects[r].flux { return !spec.valuesFiles.isEmpty || spec.chartPath != nil } else { return false }
        }
        guard !generated.isEmpty || !configMaps.isEmpty || chartValues else { return ([], []) }
        let built = builds.value
        var builds: [ObjectID: Set<FileID>] = [:]   // generating kustomization → the files its build takes
        var out: [ImageUse] = []
        var pending: [ImageUse] = []
        var seen = Set<String>()
        func name(_ r: ObjectID) -> String { (namespaces[r].map { $0 + "/" } ?? "") + (objects[r].name ?? "") }
        var chartReaders: [FileID: [ObjectID]] = [:]   // a chart values file → the releases that name it, in order
        // a generated values file, read once for its generator ("file generator"): how many releases' entries name it,
        // and where its images are in `out`
        var readers: [String: Int] = [:]
        var readAt: [String: (at: Int, count: Int)] = [:]
        var chartFiles: [FileID] = []
        var ownValues: [(file: FileID, release: ObjectID)] = []   // a chart's own values.yaml that its release does not list
        var fromValuesFrom: [ObjectID: [[String]]] = [:]   // release → the paths its `valuesFrom` entries set
        var unreadEntries: [ObjectID: [String]] = [:]   // release → its `valuesFrom` entries not read here ("Secret app-values")
        var configMapSets: [String: [[String]]?] = [:]   // "ConfigMap key" → the paths its values set (nil: they do not parse)
        // (each file parsed once, for all its readers and for what the releases that read it set)
        var parsedFiles: [FileID: YAMLFile] = [:]
        func parsed(_ f: FileID) -> YAMLFile {
            if let y = parsedFiles[f] { return y }
            let y = files[f].yaml
            parsedFiles[f] = y
            return y
        }
        for r in releases {
            guard case .helmRelease(let spec)? = objects[r].flux else { continue }
            let releaseName = "HelmRelease " + name(r)
            var chartDefaults: FileID?   // the chart's own values.yaml, where the release lists no values files
            // a chart in this repository: its values files are files of this tree
            if let chart = spec.chartPath.flatMap({ Model.normalizePath($0) }), built.fileAt[Sources.join(chart, "Chart.yaml")] != nil {
                // source-controller packages the chart with the listed files, merged, as its values.yaml: the chart's own
                // holds the defaults only when the release lists none (or lists it, and it is read below as listed)
                if spec.valuesFiles.isEmpty, let own = ["values.yaml", "values.yml"].lazy.compactMap({ built.fileAt[Sources.join(chart, $0)] }).first,
                   files[own].syntaxError == nil {
                    chartDefaults = own
                }
                for entry in spec.valuesFiles {
                    guard let p = Model.normalizePath(entry.value), let f = built.fileAt[p], files[f].syntaxError == nil,
                          seen.insert("\(f) release \(r)").inserted else { continue }
                    if chartReaders[f] == nil { chartFiles.append(f) }
                    chartReaders[f, default: []].append(r)
                }
            }
            // what the entries set, where each is read here (nil once one is not: a Secret, a ConfigMap made elsewhere)
            var entriesSet: [[String]]? = []
            for ref in spec.valuesFrom {
                guard ref.kind == "ConfigMap" else {
                    entriesSet = nil
                    unreadEntries[r, default: []].append("\(ref.kind) \(ref.name)")
                    continue
                }
                if let target = ref.targetPath { entriesSet?.append(target.split(separator: ".").map(String.init)); continue }
                let key = (namespaces[r] ?? "") + "/" + ref.name
                var isRead = false
                // a ConfigMap written in the repository, its values a literal block under the key; of several of one name (as
                // written: `${releaseName}-defaults` beside each app's release), those beside the release
                var candidates = configMaps[key] ?? []
                if candidates.count > 1 {
                    let dir = files[objects[r].file].directory
                    let beside = candidates.filter { files[objects[$0].file].directory == dir }
                    if !beside.isEmpty { candidates = beside }
                }
                for c in candidates {
                    guard let text = objects[c].configData?[ref.valuesKey] else { continue }
                    isRead = true
                    if entriesSet != nil {
                        // (parsed once, however many releases read it)
                        let paths = configMapSets["\(c) \(ref.valuesKey)"] ?? {
                            let y = YAMLFile(parsing: Array(text.utf8))
                            let made = y.error == nil ? y.documents.flatMap { setPaths(y, $0.root) } : nil
                            configMapSets["\(c) \(ref.valuesKey)"] = .some(made)
                            return made
                        }()
                        if let paths { entriesSet! += paths } else { entriesSet = nil }
                    }
                    guard seen.insert("\(c)").inserted else { continue }
                    let found = inline(configMap: c, key: ref.valuesKey, objects: objects, files: files, release: r, parsed: parsed)
                    let provenance = "values of \(releaseName), from ConfigMap \(ref.name)"
                    out += found.images.map { $0.with(provenance: provenance) }
                    pending += found.substitutable.map { $0.with(provenance: provenance) }
                }
                for (k, g) in generated[key] ?? [] {
                    // the kustomization that generates it builds the release
                    let dir = files[objects[k].file].directory
                    if builds[k] == nil { builds[k] = built.files(under: dir) }
                    guard builds[k]!.contains(objects[r].file) else { continue }
                    for file in g.files where file.key == ref.valuesKey {
                        guard let p = Model.normalizePath(Sources.join(dir, file.path)), let f = built.fileAt[p],
                              files[f].syntaxError == nil else { entriesSet = nil; continue }
                        let y = parsed(f)
                        guard y.error == nil else { entriesSet = nil; continue }
                        isRead = true
                        for doc in y.documents { entriesSet? += setPaths(y, doc.root) }
                        let reading = "\(f) \(k)"
                        readers[reading, default: 0] += 1
                        guard readers[reading]! == 1 else { continue }
                        let found = read(y, file: f, files: files, release: r, generator: k, entry: ref.id)
                        let provenance = "values of \(releaseName), from ConfigMap \(ref.name) that \(files[objects[k].file].path) generates"
                        readAt[reading] = (out.count, found.images.count)
                        out += found.images.map { $0.with(provenance: provenance) }
                        pending += found.substitutable.map { $0.with(provenance: provenance) }
                    }
                }
                if !isRead {
                    entriesSet = nil
                    unreadEntries[r, default: []].append("ConfigMap \(ref.name)")
                }
            }
            if let entriesSet, !entriesSet.isEmpty { fromValuesFrom[r] = entriesSet }
            // the chart's defaults are judged where what the release sets is known
            if let own = chartDefaults, entriesSet != nil { ownValues.append((own, r)) }
        }
        // a file that one entry of one release reads is followed through the builds by that entry (`Model.markRetagged`);
        // one that several read is judged as written
        for (reading, at) in readAt where readers[reading]! > 1 {
            for i in at.at..<(at.at + at.count) { out[i].valuesFromEntry = nil }
        }
        // read once for each environment of the releases that name it: one finding per field and environment, naming them
        func byEnvironment(_ releases: [ObjectID]) -> [[ObjectID]] {
            var groups: [(environment: String?, releases: [ObjectID])] = []
            for r in releases {
                if let g = groups.firstIndex(where: { $0.environment == environments[r] }) { groups[g].releases.append(r) }
                else { groups.append((environments[r], [r])) }
            }
            return groups.map(\.releases)
        }
        /// A chart file's image kept only by releases in files no cluster here applies, where the chart file itself is
        /// applied (through a release of another environment): its findings assume those releases are applied from outside
        /// (Fabdev10/gitops-lab's `blog-app/blog-app` beside the applied `dev/blog-app`). The values file's own reach says the rest.
        func unappliedReleases(_ img: inout ImageUse, _ keeping: [ObjectID], chartFile f: FileID) {
            guard reached(f), let r = keeping.first, keeping.allSatisfy({ !reached(objects[$0].file) }) else { return }
            let premise = "no cluster in this repository applies \(files[objects[r].file].path), which holds HelmRelease \(name(r))"
            img.premise = img.premise.map { $0 + "; " + premise } ?? premise
        }
        // a listed file's field runs where the release sets it nowhere later: in a file listed after it, a `valuesFrom`
        // entry (which Helm merges over the chart's values, the listed files among them) or `spec.values`
        for f in chartFiles {
            let y = parsed(f)
            guard y.error == nil else { continue }
            var later: [ObjectID: [[String]]] = [:]
            for r in chartReaders[f]! {
                later[r] = settings(of: r, listedAfter: f, objects: objects, files: files, built: built, parsed: parsed) + (fromValuesFrom[r] ?? [])
            }
            for group in byEnvironment(chartReaders[f]!) {
                // helm-controller reads these from the source: no post-build substitution reaches a `${…}` in them, and
                // what the chart's templates make of one is not judged
                let found = releaseValues(y, file: f, path: files[f].path, release: group[0], environmentObject: nil, valuesRoot: true)
                for var img in found.images {
                    let path = img.valuesPath
                    img.valuesPath = nil   // (where a listed file's field lands is settled here, not by the builds above the release)
                    let keeping = path.map { p in group.filter { r in !later[r]!.contains { $0.count <= p.count && Array(p.prefix($0.count)) == $0 } } } ?? group
                    guard !keeping.isEmpty else {
                        var overridden = img.with(provenance: "values of the chart values file that every release listing it overrides")
                        overridden.overriddenByReleases = true
                        out.append(overridden)
                        continue
                    }
                    let names = keeping.map(name)
                    let who = names.count == 1
                        ? "HelmRelease \(names[0]), from the chart values file its chart.spec.valuesFiles names"
                        : "HelmReleases " + names.prefix(3).joined(separator: ", ") + (names.count > 3 ? " and \(names.count - 3) more" : "")
                            + ", from the chart values file their chart.spec.valuesFiles name"
                    img = img.with(provenance: "values of " + who)
                    unappliedReleases(&img, keeping, chartFile: f)
                    // Helm merges a release's valuesFrom entries over the listed files: one not read here may set the field
                    let unread = keeping.flatMap { r in (unreadEntries[r] ?? []).map { "\($0) of HelmRelease \(name(r))" } }
                    if path != nil, !unread.isEmpty {
                        img.premise = "assuming the valuesFrom entries not read here (\(unread.prefix(3).joined(separator: ", "))"
                            + (unread.count > 3 ? " and \(unread.count - 3) more" : "") + ") do not set \(path!.joined(separator: "."))"
                    }
                    out.append(img)
                }
            }
        }
        // the chart's own defaults, where a release (its values and the files it lists) does not set the field: one
        // finding per field and environment, naming the releases that keep the default
        var releasesOf: [FileID: [ObjectID]] = [:]
        for (f, r) in ownValues { releasesOf[f, default: []].append(r) }
        for f in releasesOf.keys.sorted() {
            let y = parsed(f)
            guard y.error == nil else { continue }
            var sets: [ObjectID: [[String]]] = [:]
            for r in releasesOf[f]! { sets[r] = settings(of: r, objects: objects, files: files, built: built, parsed: parsed) + (fromValuesFrom[r] ?? []) }
            func keeps(_ r: ObjectID, _ path: [String]) -> Bool {
                !sets[r]!.contains { $0.count <= path.count && Array(path.prefix($0.count)) == $0 }
            }
            for group in byEnvironment(releasesOf[f]!) {
                let found = releaseValues(y, file: f, path: files[f].path, release: group[0], environmentObject: nil, valuesRoot: true)
                for img in found.images {
                    guard let path = img.valuesPath else { continue }   // (a field under a list: where it lands is the chart's)
                    let keepingReleases = group.filter { keeps($0, path) }
                    let keeping = keepingReleases.map(name)
                    guard !keeping.isEmpty else {
                        // every release sets the field: read all the same, so that a marker on it belongs to it and not to
                        // an image of its own that would be judged as deployed (`Model.adoptMarkedValues` keeps it only then)
                        var overridden = img.with(provenance: "the default in the chart's own values.yaml, which every release overrides")
                        overridden.overriddenByReleases = true
                        out.append(overridden)
                        continue
                    }
                    let who = keeping.count == 1 ? "HelmRelease \(keeping[0]) does" : "HelmReleases " + keeping.prefix(3).joined(separator: ", ")
                        + (keeping.count > 3 ? " and \(keeping.count - 3) more" : "") + " do"
                    var kept = img.with(provenance: "the default in the chart's own values.yaml, which \(who) not override")
                    unappliedReleases(&kept, keepingReleases, chartFile: f)
                    // (a component that every release keeping the default turns off in its values: thaynes43's minio)
                    let off = keepingReleases.map { disabling($0, path, objects: objects, parsed: parsed) }
                    if let first = off.first, let key = first, off.allSatisfy({ $0 == key }) { kept.disabledBy = kept.disabledBy ?? key }
                    out.append(kept)
                }
            }
        }
        return (out, pending)
    }

    /// The paths of the values release `r` sets whole (a scalar, a list, a null: anything but a mapping, which Helm
    /// merges key by key), in its `spec.values` and the values files its chart lists (those after `listed`, when given).
    private static func settings(of r: ObjectID, listedAfter listed: FileID? = nil, objects: Objects, files: Files, built: BuildSets,
                                 parsed: (FileID) -> YAMLFile) -> [[String]] {
        var out: [[String]] = []
        let release = parsed(objects[r].file)
        if release.error == nil, objects[r].document < release.documents.count,
           let values = release.get(release.documents[objects[r].document].root, "spec", "values") {
            out += setPaths(release, values)
        }
        if case .helmRelease(let spec)? = objects[r].flux {
            var past = listed == nil
            for entry in spec.valuesFiles {
                guard let p = Model.normalizePath(entry.value), let f = built.fileAt[p] else { continue }
                guard past else { past = f == listed; continue }
                let y = parsed(f)
                for doc in y.documents where y.error == nil { out += setPaths(y, doc.root) }
            }
        }
        return out
    }

    /// The key of release r's `spec.values` that turns off the component of the field at `path` (`X.enabled: false` for
    /// a mapping X above it), if any.
    private static func disabling(_ r: ObjectID, _ path: [String], objects: Objects, parsed: (FileID) -> YAMLFile) -> String? {
        let y = parsed(objects[r].file)
        guard let values = releaseValues(objects[r], in: y) else { return nil }
        for depth in 1..<max(path.count, 1) {
            guard let node = valuesNode(y, values, at: path.prefix(depth)) else { return nil }
            if Extractor.disables(y, node) { return path.prefix(depth).joined(separator: ".") + ".enabled" }
        }
        return nil
    }

    /// Release `r`'s `spec.values` in `y`, its file's tree.
    static func releaseValues(_ r: ManifestObject, in y: YAMLFile) -> Int? {
        guard y.error == nil, r.document < y.documents.count else { return nil }
        return y.get(y.documents[r.document].root, "spec", "values")
    }

    /// The node at key `path` below values node `n` (aliases followed), nil where a key is missing.
    static func valuesNode(_ y: YAMLFile, _ n: Int, at path: ArraySlice<String>) -> Int? {
        var n = y.resolved(n)
        for key in path {
            guard let next = y.pairs(n).first(where: { y.value($0.key) == key })?.value else { return nil }
            n = y.resolved(next)
        }
        return n
    }

    /// The paths values node `n` sets whole (a scalar, a list, a null: anything but a mapping, which Helm merges key by
    /// key).
    private static func setPaths(_ y: YAMLFile, _ n: Int) -> [[String]] {
        var out: [[String]] = []
        func walk(_ n: Int, _ path: [String], depth: Int) {
            let n = y.resolved(n)
            guard y.nodes[n].kind == .mapping, depth < 64 else { out.append(path); return }
            for (k, v) in y.pairs(n) { walk(v, path + [y.value(k)], depth: depth + 1) }
        }
        walk(n, [], depth: 0)
        return out.filter { !$0.isEmpty }
    }

    /// The images of the values a ConfigMap holds in a literal block, as the release's, where they stand in its file.
    private static func inline(configMap c: ObjectID, key: String, objects: Objects, files: Files,
                               release: ObjectID, parsed: (FileID) -> YAMLFile) -> (images: [ImageUse], substitutable: [ImageUse]) {
        let f = objects[c].file
        let y = parsed(f)
        guard y.error == nil, objects[c].document < y.documents.count else { return ([], []) }
        let root = y.documents[objects[c].document].root
        guard let data = y.get(root, "data"), let node = y.pairs(data).first(where: { y.value($0.key) == key })?.value else { return ([], []) }
        let outer = Extractor(y: y, fileIndex: f, facts: FileFacts(path: files[f].path, bytes: []))
        guard let (values, map) = outer.embeddedYAML(node) else { return ([], []) }
        let found = releaseValues(values, file: f, path: files[f].path, release: release, environmentObject: c)
        return (map.adopt(found.images, object: release), map.adopt(found.substitutable, object: release))
    }

    /// The images of one values file, as the release's, each with the path of its field and the `valuesFrom` entry
    /// that reads it.
    private static func read(_ y: YAMLFile, file f: FileID, files: Files, release: ObjectID, generator: ObjectID, entry: String) -> (images: [ImageUse], substitutable: [ImageUse]) {
        let found = releaseValues(y, file: f, path: files[f].path, release: release, environmentObject: generator, valuesRoot: true)
        func placed(_ img: ImageUse) -> ImageUse {
            var img = img
            img.valuesFromEntry = img.valuesPath == nil ? nil : entry
            return img
        }
        return (found.images.map(placed), found.substitutable.map(placed))
    }

    /// A values document's images, read as `spec.values` of `release`; `valuesRoot`: keep each image's path from the
    /// document's root.
    private static func releaseValues(_ y: YAMLFile, file f: FileID, path: String, release: ObjectID, environmentObject: ObjectID?,
                                      valuesRoot: Bool = false) -> (images: [ImageUse], substitutable: [ImageUse]) {
        var ex = Extractor(y: y, fileIndex: f, facts: FileFacts(path: path, bytes: []))
        for doc in y.documents where y.nodes[doc.root].kind == .mapping {
            ex.helmValues(doc.root, object: release, depth: 0, path: valuesRoot ? [] : nil)
        }
        func placed(_ img: ImageUse) -> ImageUse {
            var img = img
            img.environmentObject = environmentObject
            return img
        }
        return (ex.facts.images.map(placed), ex.facts.substitutable.map(placed))
    }
}
