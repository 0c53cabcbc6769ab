/// The clusters a repository describes and what each applies. A cluster is the chain of builds from its root Flux
/// Kustomizations through every Flux Kustomization their builds reach. The roots are flux bootstrap's `flux-system`
/// Kustomizations, whose `path` builds their own file; a repository without them is applied from outside, and its
/// roots are the Kustomizations no other one builds, each with the directory it is in. A file that no cluster's builds take is not
/// deployed: Flux's image automation still reads it, but its objects are in no cluster. A repository that holds no Flux
/// Kustomization building its own files (an application repository applied from elsewhere) has no clusters, and every
/// file counts as applied.
public struct Clusters: Sendable {
    public struct Cluster: Sendable {
        /// The directory that names it: the path its bootstrap Kustomization builds, else the directory of its roots.
        public var name: String
        /// Its root Flux Kustomizations, and every Flux Kustomization it applies (object indices, in order).
        public var roots: [Int]
        public var kustomizations: [Int]
        /// The files it applies, in path order.
        public var files: [Int]
        /// The Flux it runs, and where that was read; nil when its files do not say.
        public var flux: FluxVersion?
        public var fluxOrigin: String?
        /// The image-automation kinds its Flux components define (CustomResourceDefinitions), with the versions they serve.
        public var servedImageAPIs: [String: [String]] = [:]
    }

    public private(set) var clusters: [Cluster] = []
    /// File → the clusters that apply it (empty when there are no clusters).
    private var ofFile: [[Int]] = []
    /// File → the Flux Kustomizations of this repository whose build takes it.
    public private(set) var kustomizationsOfFile: [Int: [Int]] = [:]
    /// Flux Kustomizations of the repository that no cluster applies (where flux bootstrap's are here, those it does
    /// not reach).
    public private(set) var unapplied: [Int] = []
    /// Every Flux installation the repository holds, wherever it is: version and where it was read.
    public private(set) var installations: [(version: FluxVersion, origin: String)] = []

    /// Whether any cluster applies `file`; true for every file of a repository without clusters.
    public func applies(_ file: Int) -> Bool { clusters.isEmpty || !ofFile[file].isEmpty }

    /// The clusters that apply `file`.
    public func of(_ file: Int) -> [Int] { clusters.isEmpty ? [] : ofFile[file] }

    static func build(objects: [ManifestObject], files: [FileFacts], builds: LazyBuildSets, ignoring nonResources: Set<Int>) -> Clusters {
        var out = Clusters()
        var kustomizations: [Int] = []
        var objectsOfFile: [Int: [Int]] = [:]   // the objects that say what a cluster runs or reads, by file
        for (i, o) in objects.enumerated() {
            switch o.flux {
            case .kustomization(let k)? where k.path != nil && !nonResources.contains(i):
                kustomizations.append(i)
                objectsOfFile[o.file, default: []].append(i)
            case .fluxInstance?, .helmRelease?:
                objectsOfFile[o.file, default: []].append(i)
            default:
                if o.definition?.group == FluxAPIs.group || (o.kind == "Namespace" && o.labels["app.kubernetes.io/part-of"] == "flux") {
                    objectsOfFile[o.file, default: []].append(i)
                }
            }
        }
        out.installations = installations(objectsOfFile.keys.sorted(), objects: objects, objectsOfFile: objectsOfFile, files: files)
        guard !kustomizations.isEmpty else { return out }
        var built: [Int: Set<Int>] = [:]   // Kustomization → the files its path builds
        for k in kustomizations {
            guard case .kustomization(let spec)? = objects[k].flux, let path = spec.path.flatMap(Model.normalizePath) else { continue }
            let set = builds.files(under: path)
            built[k] = set
            for f in set { out.kustomizationsOfFile[f, default: []].append(k) }
        }
        // paths that build nothing here (another repository's, or missing): no cluster of this repository
        guard built.values.contains(where: { !$0.isEmpty }) else { return out }
        func file(_ k: Int) -> Int { objects[k].file }
        func buildsItself(_ k: Int) -> Bool { built[k]?.contains(file(k)) ?? false }
        func clusterName(_ k: Int) -> String {
            if buildsItself(k), case .kustomization(let spec)? = objects[k].flux, let p = spec.path.flatMap(Model.normalizePath) { return p }
            return Model.dirname(files[file(k)].path)
        }
        let roots = kustomizations.filter { k in (out.kustomizationsOfFile[file(k)] ?? []).allSatisfy { $0 == k } }
        var index: [String: Int] = [:]
        var sets: [Set<Int>] = [], members: [Set<Int>] = []
        var reached = Set<Int>()
        func apply(_ root: Int) {
            let name = clusterName(root)
            let c: Int
            if let known = index[name] { c = known } else {
                c = out.clusters.count
                index[name] = c
                out.clusters.append(Cluster(name: name, roots: [], kustomizations: [], files: []))
                sets.append([])
                members.append([])
            }
            out.clusters[c].roots.append(root)
            var queue = [root]
            func take(_ f: Int) {
                if sets[c].insert(f).inserted { for j in objectsOfFile[f] ?? [] where built[j] != nil { queue.append(j) } }
            }
            // applied from outside, with the directory it is in (what bootstrap's path builds, when it is not here)
            if !buildsItself(root) { for f in builds.files(under: Model.dirname(files[file(root)].path)) { take(f) } }
            while let k = queue.popLast() {
                guard members[c].insert(k).inserted else { continue }
                reached.insert(k)
                take(file(k))
                for f in built[k] ?? [] { take(f) }
            }
        }
        // flux bootstrap's Kustomizations build their own files: where the repository has them, they are its clusters,
        // and a Kustomization none of them reaches is applied by no cluster
        let bootstrapped = roots.filter(buildsItself)
        if !bootstrapped.isEmpty {
            for r in bootstrapped { apply(r) }
        } else {
            for r in roots { apply(r) }
            // Kustomizations that only build each other: the first of each such ring stands for its root
            for k in kustomizations where !reached.contains(k) { apply(k) }
        }
        out.unapplied = kustomizations.filter { !reached.contains($0) }
        // a chart kept here that an applied HelmRelease installs: helm-controller reads its values files
        var fileAt: [String: Int] = [:]
        for c in sets.indices {
            for f in sets[c] {
                for o in objectsOfFile[f] ?? [] {
                    guard case .helmRelease(let h)? = objects[o].flux, let chart = h.chartPath.flatMap(Model.normalizePath) else { continue }
                    if fileAt.isEmpty { for (i, facts) in files.enumerated() { fileAt[facts.path] = i } }
                    for name in ["values.yaml", "values.yml"] + h.valuesFiles.map(\.value) {
                        let p = name.hasPrefix("values.y") && !name.contains("/") ? Sources.join(chart, name) : name
                        if let n = Model.normalizePath(p), let f = fileAt[n] { sets[c].insert(f) }
                    }
                }
            }
        }
        out.ofFile = Array(repeating: [], count: files.count)
        for c in out.clusters.indices {
            out.clusters[c].kustomizations = members[c].sorted()
            out.clusters[c].files = sets[c].sorted { SourceText.byteLess(files[$0].path, files[$1].path) }
            for f in out.clusters[c].files { out.ofFile[f].append(c) }
            let own = installations(out.clusters[c].files, objects: objects, objectsOfFile: objectsOfFile, files: files)
            if let first = own.first {
                out.clusters[c].flux = first.version
                let others = Set(own.map(\.version)).subtracting([first.version])
                out.clusters[c].fluxOrigin = first.origin + (others.isEmpty ? "" : "; it also holds Flux " + others.map(\.description).sorted().joined(separator: ", "))
            } else if Set(out.installations.map(\.version)).count == 1, let only = out.installations.first {
                out.clusters[c].flux = only.version
                out.clusters[c].fluxOrigin = only.origin + ", the repository's only Flux installation"
            }
            for f in out.clusters[c].files {
                for o in objectsOfFile[f] ?? [] {
                    if let d = objects[o].definition, d.group == FluxAPIs.group { out.clusters[c].servedImageAPIs[d.kind] = d.served }
                }
            }
        }
        return out
    }

    /// The Flux versions that `files` install: a Namespace labelled `app.kubernetes.io/part-of: flux` with its
    /// `app.kubernetes.io/version` (flux bootstrap's `gotk-components.yaml`), or a FluxInstance's distribution version.
    static func installations(_ files: [Int], objects: [ManifestObject], objectsOfFile: [Int: [Int]], files facts: [FileFacts])
        -> [(version: FluxVersion, origin: String)] {
        var out: [(version: FluxVersion, origin: String)] = []
        for f in files {
            for o in objectsOfFile[f] ?? [] {
                let obj = objects[o]
                if obj.kind == "Namespace", let v = obj.labels["app.kubernetes.io/version"], let version = FluxVersion.parse(v) {
                    out.append((version, "app.kubernetes.io/version \(v) of Namespace \(obj.name ?? "") in \(facts[f].path)"))
                } else if case .fluxInstance(let v?)? = obj.flux, let version = FluxVersion.parse(v.value) {
                    out.append((version, "FluxInstance \(obj.name ?? "") in \(facts[f].path), distribution \(v.value)"))
                }
            }
        }
        return out
    }
}

/// A Flux that runs a file's objects: its version, and where Tagwarden has it from.
public struct FluxRun: Sendable {
    public var version: FluxVersion
    /// The cluster it runs in (an index into `Clusters.clusters`), when the repository describes clusters.
    public var cluster: Int?
    /// Where the version comes from; nil when nothing says, and current Flux is assumed.
    public var origin: String?
}

extension Model {
    /// The Flux of each cluster that applies `file`: `fluxVersion` of the config overrides all; a cluster whose files
    /// do not say runs current Flux. A file of no cluster runs the repository's Flux when it holds one installation.
    public func fluxRuns(ofFile file: Int) -> [FluxRun] {
        if let v = config.fluxVersion { return [FluxRun(version: v, cluster: nil, origin: "fluxVersion in \(config.path ?? Config.fileName)")] }
        let applying = clusters.of(file)
        if !applying.isEmpty {
            return applying.map { c in
                FluxRun(version: clusters.clusters[c].flux ?? .current, cluster: c, origin: clusters.clusters[c].fluxOrigin)
            }
        }
        if Set(clusters.installations.map(\.version)).count == 1, let only = clusters.installations.first {
            return [FluxRun(version: only.version, cluster: nil, origin: only.origin)]
        }
        return [FluxRun(version: .current, cluster: nil, origin: nil)]
    }

    /// The oldest Flux that runs `file`'s objects: what version-dependent checks of one answer (a policy's tag parsing)
    /// follow.
    public func fluxVersion(ofFile file: Int) -> FluxVersion {
        fluxRuns(ofFile: file).map(\.version).min() ?? .current
    }

    /// What the report's header and `tagwarden env` say of the repository's Flux: one line per cluster (or one for the
    /// repository), and whether current Flux is assumed anywhere.
    public var fluxSummary: (lines: [String], assumed: Bool) {
        if let v = config.fluxVersion { return (["Flux \(v) (fluxVersion in \(config.path ?? Config.fileName))"], false) }
        var lines: [String] = []
        var assumed = false
        for c in clusters.clusters {
            let name = c.name.isEmpty ? "." : c.name
            if let v = c.flux {
                lines.append("cluster \(name): Flux \(v) (\(c.fluxOrigin ?? ""))")
            } else {
                lines.append("cluster \(name): Flux version unknown")
                assumed = true
            }
        }
        if clusters.clusters.isEmpty {
            let versions = Set(clusters.installations.map(\.version))
            if versions.count == 1, let only = clusters.installations.first {
                lines.append("Flux \(only.version) (\(only.origin))")
            } else {
                for i in clusters.installations { lines.append("Flux \(i.version) (\(i.origin))") }
                assumed = true
            }
        }
        return (lines, assumed)
    }
}
