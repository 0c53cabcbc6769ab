import TagwardenBasics
import TagwardenYAML

extension Model {
    /// A file that the kustomization Flux generates at a Flux Kustomization's `path` takes, and that kustomize's
    /// resource reader refuses. kustomize-controller's generator walks the path, adds each directory that holds a
    /// kustomization file (without walking into it) and each `.yaml` or `.yml` file, and decodes every such file as
    /// Kubernetes objects first: one that does not decode fails the whole build ("failed to decode Kubernetes YAML from
    /// …"), so the Kustomization applies nothing.
    public struct GeneratedBuildRefusal: Sendable {
        public let file: FileID
        /// The `path` of the generated kustomization, and the file of its first Flux Kustomization.
        public let path: String
        public let builder: FileID
        /// Where the refused document begins, what it lacks, and kustomize's words for it.
        public let span: SourceSpan
        public let why: String
        public let kustomizeSays: String
    }

    /// The files of this repository that a generated build (`generatedBuilds`) takes and kustomize's reader refuses (a
    /// Helm values file, a chart's `Chart.yaml`, a document without `kind` or `metadata.name`), with each generated
    /// build that takes them, in the order Flux's walk meets them. Files source-controller or the config leave out are
    /// not in the artifact and not judged; nor are files Tagwarden skipped (a chart's templates), whose text it does
    /// not read. A `.sourceignore` below the root that leaves a refused file out (`readIgnoreFile`: Jacob-Roberts/homelab's
    /// `kubernetes/.sourceignore`) keeps it out of the artifact too.
    static func generatedBuildRefusals(objects: Objects, files: Files, generatedBuilds: [String: FileID],
                                       kustomizationDirectories: StringSet, reach: Table<FileID, Clusters.Reach>,
                                       rootIgnore: String? = nil, readIgnoreFile: ((String) -> String?)? = nil) -> [GeneratedBuildRefusal] {
        guard !generatedBuilds.isEmpty else { return [] }
        // how many documents of each file hold objects, and whether one of them lacks what kustomize needs: a file whose
        // every document is an object with a kind and a name is read no further (a file's objects are in document order)
        var objectDocuments = Table<FileID, Int32>(repeating: 0, count: files.count)
        var lastDocument = Table<FileID, Int32>(repeating: -1, count: files.count)
        var incomplete = Table<FileID, Bool>(repeating: false, count: files.count)
        for o in objects {
            if lastDocument[o.file] != Int32(o.document) { objectDocuments[o.file] += 1; lastDocument[o.file] = Int32(o.document) }
            if o.kind.isEmpty || (o.name ?? "").isEmpty && !o.kind.hasBytesSuffix("List") { incomplete[o.file] = true }
        }
        var out: [GeneratedBuildRefusal] = []
        for f in files.indices {
            let path = files[f].path
            guard files[f].syntaxError != nil || incomplete[f] || Int(objectDocuments[f]) < files[f].documents,
                  Model.decodedByGenerator(path), !Extractor.isKustomizationPath(path) else { continue }
            if case .notDeployed = reach[f] { continue }
            let builds = Model.generatedBuilds(taking: path, generatedBuilds: generatedBuilds, kustomizationDirectories: kustomizationDirectories)
            guard !builds.isEmpty, let refused = Model.refusedAsResources(files[f].yaml),
                  !ignoredBelowRoot(path, rootIgnore: rootIgnore, read: readIgnoreFile) else { continue }
            for p in builds {
                out.append(GeneratedBuildRefusal(file: f, path: p, builder: generatedBuilds[p]!, span: refused.span, why: refused.why,
                                                 kustomizeSays: refused.kustomizeSays))
            }
        }
        // filepath.Walk's order: by name within each directory
        return out.sorted { a, b in
            a.path != b.path ? a.path < b.path : files[a.file].path.split(separator: "/").lexicographicallyPrecedes(files[b.file].path.split(separator: "/"))
        }
    }

    /// Whether a `.sourceignore` in a directory above `path` (below the root), read with those above it as
    /// source-controller reads them all (the defaults, the root's, then each directory's from the root down), leaves it
    /// out of the artifact.
    static func ignoredBelowRoot(_ path: String, rootIgnore: String?, read: ((String) -> String?)?) -> Bool {
        guard let read else { return false }
        var dirs: [String] = []
        var dir = Path.dirname(path)
        while !dir.isEmpty { dirs.append(dir); dir = Path.dirname(dir) }
        let nested = dirs.reversed().compactMap { d in read(d + "/.sourceignore").map { (d, $0) } }
        guard !nested.isEmpty else { return false }
        var ignore = SourceIgnore.defaults
        if let rootIgnore { ignore.add(text: rootIgnore, origin: ".sourceignore") }
        for (d, text) in nested { ignore.add(text: text, origin: d + "/.sourceignore", domain: d) }
        return ignore.excluding(path) != nil
    }

    /// Whether kustomize-controller's generator decodes the file at `path` when its walk meets it: a `.yaml` or `.yml` file.
    static func decodedByGenerator(_ path: String) -> Bool { path.hasBytesSuffix(".yaml") || path.hasBytesSuffix(".yml") }

    /// How many files the build Flux generates at `path` takes that were not read here (a chart's templates, counted by
    /// their one entry): Flux decodes them too, and what it makes of them is not known.
    public func unreadFiles(takenByGeneratedBuildAt path: String) -> Int {
        skipped.filter {
            Model.decodedByGenerator($0.path)
                && Model.generatedBuilds(taking: $0.path, generatedBuilds: generatedBuilds, kustomizationDirectories: kustomizationDirectories).contains(path)
        }.reduce(0) { $0 + $1.files }
    }

    /// The paths of the generated builds that take the file at `path` themselves: from its directory up, until a
    /// directory with a kustomization file, which the generator takes whole.
    static func generatedBuilds(taking path: String, generatedBuilds: [String: FileID], kustomizationDirectories: StringSet) -> [String] {
        var out: [String] = []
        var dir = Path.dirname(path)
        while !kustomizationDirectories.contains(dir) {
            if generatedBuilds[dir] != nil { out.append(dir) }
            if dir.isEmpty { break }
            dir = Path.dirname(dir)
        }
        return out
    }

    /// The first document of `y` that kustomize's resource reader (kyaml's `GetValidatedMetadata`) refuses, and its
    /// words: a scalar or a list, or a mapping with none of `apiVersion`, `kind` and `metadata` ("missing Resource
    /// metadata"), without a `kind` ("missing kind in object"), or, but for a List, without `metadata.name` ("missing
    /// metadata.name in object"); or YAML that does not parse. Empty documents and empty mappings are passed over.
    static func refusedAsResources(_ y: YAMLFile) -> (span: SourceSpan, why: String, kustomizeSays: String)? {
        if let e = y.error {
            return (SourceSpan(start: e.position, end: e.position), "it does not parse as YAML", "yaml: line \(e.position.line): \(e.message)")
        }
        func present(_ n: Int?) -> Bool {
            guard let n else { return false }
            switch y.nodes[n].kind {
            case .scalar: return !y.isNull(n)
            case .mapping, .sequence: return y.nodes[n].childCount > 0
            case .alias: return true
            }
        }
        func refusal(_ n: Int) -> (why: String, kustomizeSays: String)? {
            switch y.nodes[n].kind {
            case .scalar where y.isNull(n): return nil
            case .mapping where y.nodes[n].childCount == 0: return nil
            case .mapping: break
            default: return ("it is a \(y.nodes[n].kind == .sequence ? "list" : "scalar"), not an object", "missing Resource metadata")
            }
            let metadata = y.get(n, "metadata")
            guard present(y.get(n, "apiVersion")) || present(y.get(n, "kind")) || present(metadata) else {
                return ("it has no apiVersion, kind or metadata", "missing Resource metadata")
            }
            guard let kind = y.get(n, "kind").map(y.value), !kind.isEmpty else { return ("it has no kind", "missing kind in object") }
            if kind.hasBytesSuffix("List") {
                guard let items = y.get(n, "items"), y.nodes[items].kind == .sequence else { return nil }
                return y.childNodes(items).lazy.compactMap(refusal).first
            }
            // (a name that is a mapping or a list, a template's `{{ include … }}`, kyaml reads as none)
            let name = metadata.flatMap { y.nodes[$0].kind == .mapping ? y.get($0, "name") : nil }
            if let name, y.nodes[name].kind == .mapping || y.nodes[name].kind == .sequence {
                return ("its metadata.name is a \(y.nodes[name].kind == .mapping ? "mapping" : "list"), not a name", "missing metadata.name in object")
            }
            return name.map { y.nodes[$0].kind != .scalar || !y.isNull($0) && !y.value($0).isEmpty } == true ? nil
                : ("it has no metadata.name", "missing metadata.name in object")
        }
        for doc in y.documents {
            if let r = refusal(doc.root) { return (y.nodes[doc.root].span, r.why, r.kustomizeSays) }
        }
        return nil
    }
}
