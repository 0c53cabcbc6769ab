import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
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
    /// File → the Flux Kustomizations of this repository whose build takes it (a patch's Kustomization that sets `path`
    /// among them: the patched one, as its build applies it).
    public private(set) var kustomizationsOfFile: [Int: [Int]] = [:]
    /// Flux Kustomizations of the repository that no cluster applies (where flux bootstrap's are here, those it does
    /// not reach).
    public private(set) var unapplied: [Int] = []
    /// Files of Flux's own components (flux bootstrap's `gotk-components.yaml`: its flux-system Namespace carries
    /// `app.kubernetes.io/part-of: flux`), whose images flux writes, not the team.
    public private(set) var componentFiles: Set<Int> = []
    /// Every Flux installation the repository holds, wherever it is: version and where it was read.
    public private(set) var installations: [(version: FluxVersion, origin: String)] = [] {
        didSet { only = Set(installations.map(\.version)).count == 1 ? installations.first : nil }
    }
    /// The repository's Flux when all its installations are of one version.
    public private(set) var only: (version: FluxVersion, origin: String)?

    /// Whether any cluster applies `file`; true for every file of a repository without clusters.
    public func applies(_ file: Int) -> Bool { clusters.isEmpty || !ofFile[file].isEmpty }

    /// The clusters that apply `file`.
    public func of(_ file: Int) -> [Int] { clusters.isEmpty ? [] : ofFile[file] }

    /// `nonResources` are objects of patch files: a Flux Kustomization there that sets `path` is the patched
    /// Kustomization as the build that patches it applies it (a cluster's bootstrap Kustomization completed per cluster).
    static func build(objects: [ManifestObject], files: [FileFacts], builds: LazyBuildSets, ignoring nonResources: Set<Int>) -> Clusters {
        var out = Clusters()
        var kustomizations: [Int] = []
        var objectsOfFile: [Int: [Int]] = [:]   // the objects that say what a cluster runs or reads, by file
        for (i, o) in objects.enumerated() {
            switch o.flux {
            case .kustomization(let k)? where k.path != nil:
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
        for (f, os) in objectsOfFile where os.contains(where: { objects[$0].kind == "Namespace" }) { out.componentFiles.insert(f) }
        guard !kustomizations.isEmpty else { return out }
        func spec(_ k: Int) -> FluxKustomizationSpec? { objects[k].fluxKustomization }
        // a path written with `${…}` is another path in each build that applies the Kustomization: the variables of the
        // Kustomization that builds its file (`substitute`) make it
        func path(_ k: Int, _ variables: [String: String]) -> String? {
            guard let raw = spec(k)?.path else { return nil }
            guard raw.containsBytes("${") else { return Model.normalizePath(raw) }
            guard !variables.isEmpty, let made = Envsubst.expand(raw, { variables[$0].map { .defined($0) } ?? .undefined }),
                  !made.text.containsBytes("${") else { return nil }
            return Model.normalizePath(made.text)
        }
        var built: [Int: Set<Int>] = [:]   // Kustomization → the files its path as written builds
        for k in kustomizations {
            guard let p = path(k, [:]) else { continue }
            let set = builds.files(under: p)
            built[k] = set
            for f in set { out.kustomizationsOfFile[f, default: []].append(k) }
        }
        // paths that build nothing here (another repository's, or missing): no cluster of this repository
        guard built.values.contains(where: { !$0.isEmpty }) else { return out }
        func file(_ k: Int) -> Int { objects[k].file }
        func buildsItself(_ k: Int) -> Bool { built[k]?.contains(file(k)) ?? false }
        func clusterName(_ k: Int) -> String {
            if buildsItself(k), let p = path(k, [:]) { return p }
            return Path.dirname(files[file(k)].path)
        }
        var includers: [Int: Set<Int>] = [:]   // file → the Kustomizations whose build as written takes it
        for (k, set) in built { for f in set { includers[f, default: []].insert(k) } }
        // (a patch's Kustomization is a root only as flux bootstrap's, completed by the patch)
        let roots = kustomizations.filter { k in
            (includers[file(k)] ?? []).allSatisfy { $0 == k } && (!nonResources.contains(k) || buildsItself(k))
        }
        var index: [String: Int] = [:]
        var sets: [Set<Int>] = [], members: [Set<Int>] = []
        let fileCount = files.count
        var done = Set<String>()   // cluster, Kustomization and the path it builds there
        var reached = Set<Int>()
        func apply(_ root: Int) {
            let name = clusterName(root)
            let c: Int
            if let known = index[name] { c = known } else {
                c = out.clusters.count
                index[name] = c
                out.clusters.append(Cluster(name: name, roots: [], kustomizations: [], files: []))
                sets.append(Set(minimumCapacity: min(fileCount, 1024)))
                members.append([])
            }
            out.clusters[c].roots.append(root)
            // each Kustomization with the variables of the one whose build takes its file
            var queue: [(k: Int, variables: [String: String])] = [(root, [:])]
            func take(_ f: Int, by variables: [String: String]) {
                if sets[c].insert(f).inserted || !variables.isEmpty {
                    for j in objectsOfFile[f] ?? [] where spec(j) != nil { queue.append((j, variables)) }
                }
            }
            // applied from outside, with the directory it is in (what bootstrap's path builds, when it is not here)
            if !buildsItself(root) { for f in builds.files(under: Path.dirname(files[file(root)].path)) { take(f, by: [:]) } }
            while let (k, variables) = queue.popLast() {
                guard let p = path(k, variables), done.insert("\(c) \(k) \(p)").inserted else { continue }
                members[c].insert(k)
                reached.insert(k)
                sets[c].insert(file(k))
                let set = p == path(k, [:]) ? built[k] ?? [] : builds.files(under: p)
                if p != path(k, [:]) { for f in set { out.kustomizationsOfFile[f, default: []].append(k) } }
                let own = spec(k)?.postBuild?.substitute ?? [:]
                for f in set { take(f, by: own) }
            }
        }
        // flux bootstrap's Kustomizations build their own files: where the repository has them, they are its clusters,
        // and a Kustomization none of them reaches is applied by no cluster
        let bootstrapped = roots.filter(buildsItself)
        if !bootstrapped.isEmpty {
            for r in bootstrapped { apply(r) }
            // a cluster directory beside theirs (clusters/staging next to a bootstrapped clusters/production) whose
            // Kustomizations nothing here applies is a cluster bootstrapped without its sync in the repository
            let parents = Set(bootstrapped.map { Path.dirname(clusterName($0)) })
            for r in roots where !reached.contains(r) && !nonResources.contains(r) && built[r] != nil
                && parents.contains(Path.dirname(Path.dirname(files[file(r)].path))) {
                apply(r)
            }
        } else {
            for r in roots { apply(r) }
            // Kustomizations that only build each other: the first of each such ring stands for its root
            for k in kustomizations where !reached.contains(k) && built[k] != nil { apply(k) }
        }
        out.unapplied = kustomizations.filter { !reached.contains($0) && !nonResources.contains($0) }
        for c in out.clusters.indices { out.clusters[c].kustomizations = members[c].sorted() }
        // a chart kept here that an applied HelmRelease installs: helm-controller reads its values files
        var fileAt: [String: Int] = [:]
        let informative = objectsOfFile.keys.sorted()   // the few files whose objects say what a cluster runs or reads
        for c in sets.indices {
            for f in informative where sets[c].contains(f) {
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
            let rank = builds.value.rank
            out.clusters[c].files = sets[c].sorted { rank[$0] < rank[$1] }
            for f in out.clusters[c].files { out.ofFile[f].append(c) }
            let own = installations(informative.filter(sets[c].contains), objects: objects, objectsOfFile: objectsOfFile, files: files)
            if let first = own.first {
                out.clusters[c].flux = first.version
                let others = Set(own.map(\.version)).subtracting([first.version])
                out.clusters[c].fluxOrigin = first.origin + (others.isEmpty ? "" : "; it also holds Flux " + others.map(\.description).sorted().joined(separator: ", "))
            } else if let only = out.only {
                out.clusters[c].flux = only.version
                out.clusters[c].fluxOrigin = only.origin + ", the repository's only Flux installation"
            }
            for f in informative where sets[c].contains(f) {
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
        if let only = clusters.only { return [FluxRun(version: only.version, cluster: nil, origin: only.origin)] }
        return [FluxRun(version: .current, cluster: nil, origin: nil)]
    }

    /// The oldest Flux that runs `file`'s objects: what version-dependent checks of one answer (a policy's tag parsing)
    /// follow. (`fluxRuns`, without building them: every policy of a fleet asks.)
    public func fluxVersion(ofFile file: Int) -> FluxVersion {
        if let v = config.fluxVersion { return v }
        var oldest: FluxVersion?
        for c in clusters.of(file) {
            let v = clusters.clusters[c].flux ?? .current
            if oldest == nil || v < oldest! { oldest = v }
        }
        return oldest ?? clusters.only?.version ?? .current
    }

    /// What the report's header says of the repository's Flux, in one line: the versions of its clusters and where they
    /// come from, and, where nothing names one, that current Flux is assumed (said once, here and in `tagwarden env`).
    public var fluxHeader: String {
        let assume = "current Flux (\(FluxVersion.current)) assumed; set fluxVersion in \(Config.fileName) to name yours"
        if let v = config.fluxVersion { return "\(v) (fluxVersion in \(config.path ?? Config.fileName))" }
        if clusters.clusters.isEmpty {
            let versions = Set(clusters.installations.map(\.version))
            if let only = clusters.only { return "\(only.version) (\(only.origin))" }
            return versions.isEmpty ? "version unknown: \(assume)"
                : "several installations, of no cluster here (\(versions.map(\.description).sorted().joined(separator: ", "))): \(assume)"
        }
        var byVersion: [FluxVersion?: [Clusters.Cluster]] = [:]
        for c in clusters.clusters { byVersion[c.flux, default: []].append(c) }
        func named(_ cs: [Clusters.Cluster]) -> String {
            let names = cs.map { $0.name.isEmpty ? "." : $0.name }
            return (cs.count == 1 ? "cluster " : "\(cs.count) clusters: ") + names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
        }
        var parts: [String] = []
        let known = byVersion.compactMap { entry in entry.key.map { ($0, entry.value) } }.sorted { $0.0 < $1.0 }
        for (v, cs) in known {
            let origin = byVersion.count == 1 && cs.count == 1 ? " (\(cs[0].fluxOrigin ?? ""))" : ""
            parts.append("\(v) in \(named(cs))\(origin)")
        }
        if let unknown = byVersion[nil] { parts.append("version unknown in \(named(unknown)): \(assume)") }
        return parts.joined(separator: "; ")
    }

    /// `tagwarden env`'s account of each cluster: its Flux and where that was read, its roots, what it applies.
    public var clusterLines: [String] {
        var out: [String] = []
        func name(_ k: Int) -> String { "\(objectNamespace[k].map { $0 + "/" } ?? "")\(objects[k].name ?? "") (\(path(objects[k].file)))" }
        for c in clusters.clusters {
            let version = config.fluxVersion.map { "Flux \($0) (fluxVersion in \(config.path ?? Config.fileName))" }
                ?? c.flux.map { "Flux \($0) (\(c.fluxOrigin ?? ""))" } ?? "Flux version unknown: current Flux (\(FluxVersion.current)) assumed"
            out.append("cluster \(c.name.isEmpty ? "." : c.name): \(version)")
            out.append("  applied from: " + c.roots.map(name).joined(separator: ", "))
            out.append("  applies: \(c.files.count) file\(c.files.count == 1 ? "" : "s") through \(c.kustomizations.count) Flux Kustomization\(c.kustomizations.count == 1 ? "" : "s")")
        }
        if !clusters.unapplied.isEmpty {
            out.append("Flux Kustomizations no cluster applies: " + clusters.unapplied.prefix(10).map(name).joined(separator: ", ")
                       + (clusters.unapplied.count > 10 ? " and \(clusters.unapplied.count - 10) more" : ""))
        }
        if clusters.clusters.isEmpty {
            out.append("no Flux Kustomization here builds this repository's files: every file counts as applied (Flux \(fluxHeader))")
        } else {
            let unapplied = files.indices.filter { !clusters.applies($0) }.count
            out.append("\(unapplied) file\(unapplied == 1 ? " is" : "s are") applied by no cluster: objects there are not judged, markers only under an update.path")
        }
        return out
    }

    /// `tagwarden env --applied`: each file, with the clusters and Flux Kustomizations that apply it (none: not applied).
    public var appliedLines: [String] {
        files.indices.map { f in
            guard !clusters.clusters.isEmpty else { return "\(files[f].path)  applied (no cluster is described here)" }
            let cs = clusters.of(f).map { clusters.clusters[$0].name }.map { $0.isEmpty ? "." : $0 }
            guard !cs.isEmpty else { return "\(files[f].path)  not applied" }
            let ks = (clusters.kustomizationsOfFile[f] ?? []).map { "\(objectNamespace[$0].map { $0 + "/" } ?? "")\(objects[$0].name ?? "")" }
            return "\(files[f].path)  cluster \(cs.joined(separator: ", "))" + (ks.isEmpty ? "" : " by \(ks.joined(separator: ", "))")
        }
    }
}
