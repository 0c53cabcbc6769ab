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
/// Kustomization building its own files (an application repository applied from elsewhere) has no clusters: whether its
/// files are applied is not known here, so each is one no cluster here reaches. The config's `clusters:` override what
/// is detected: the files their `paths` match are applied by them. Every file gets a `Reach`: applied, reached by no
/// cluster here (judged, at most as warnings), or known not to be deployed (syntax and marker rules only; what
/// source-controller leaves out of the artifact among them).
public struct Clusters: Sendable {
    /// What Tagwarden knows of whether a file is deployed.
    public enum Reach: Sendable, Equatable {
        /// A cluster here applies it, or the config declares one that does.
        case applied
        /// No cluster root here reaches it: something outside the repository may apply it (a `kubectl apply -k`, a
        /// cluster bootstrapped elsewhere). Its findings are at most warnings.
        case unreached
        /// It is known not to be deployed, and why (its directory's kustomization leaves it out; only a Flux
        /// Kustomization that is itself not deployed builds it): syntax and marker rules only.
        case notDeployed(String)
        /// Only clusters inferred from Kustomizations nothing here applies take it (`Cluster.inferred`): applied if
        /// something outside applies their roots, which the premise says. Its findings are at most warnings.
        case assumed(String)
    }

    public struct Cluster: Sendable {
        /// The directory that names it: the path its bootstrap Kustomization builds, else the directory of its roots.
        public var name: String
        /// How messages name it: `.` for the repository's root.
        public var displayName: String { name.isEmpty ? "." : name }
        /// Its root Flux Kustomizations, and every Flux Kustomization it applies (object indices, in order).
        public var roots: [ObjectID]
        public var kustomizations: [ObjectID]
        /// The files it applies, in path order.
        public var files: [FileID]
        /// The Flux it runs, and where that was read; nil when its files do not say.
        public var flux: FluxVersion?
        public var fluxOrigin: String?
        /// Why that version is an assumption though read here: the sync that applies the installation fails to build
        /// (`assumeFluxOfFailedSyncs`), so the cluster runs what it applied before. Nil when it is a fact.
        public var fluxPremise: String?
        /// The image-automation kinds its Flux components define (CustomResourceDefinitions), with the versions they serve.
        public var servedImageAPIs: [String: [String]] = [:]
        /// Its files define Flux's kinds (a CustomResourceDefinition of a `toolkit.fluxcd.io` group): the components
        /// installed here, whose image-automation kinds are only those `servedImageAPIs` names. False where a file of
        /// those definitions stops at a YAML error: the kinds after it are not read.
        public var definesFluxKinds = false
        /// The image-automation kinds whose controller a remote resource of its kustomizations installs (`imageKind`): what
        /// versions they serve is not written here.
        public var remoteImageKinds: Set<String> = []
        /// The FluxInstance sync that applies its path (`file:line`), for a cluster of flux-operator's.
        public var syncedBy: String?
        /// Where the config declares it (`file:line` of its `clusters:` entry); nil for a cluster only detected.
        public var declaredAt: String?
        /// Why it is a cluster when neither flux bootstrap's sync nor the config says so: its roots are Flux
        /// Kustomizations nothing here applies, taken to be applied from outside. Nil for a bootstrapped or declared one.
        public var inferred: String?
        /// The values the config gives its builds' variables (`substitute`).
        public var substitute: [String: String] = [:]
        /// For a cluster that another applies builds to through `spec.kubeConfig` (named `<that cluster> → Secret
        /// <namespace>/<name>`): those Flux Kustomizations, which stand in the other cluster's files.
        public var appliedThrough: [ObjectID] = []
    }

    /// A key no variable can have (Flux's names are `[_a-zA-Z][_a-zA-Z0-9]*`), set in a Kustomization's variables when a
    /// `substituteFrom` source is not held here: a variable none of the others defines is then not known, not empty.
    static let sourceNotHeld = "?"

    public private(set) var clusters = Table<ClusterID, Cluster>()
    /// File → the clusters that apply it (empty when there are no clusters).
    private var ofFile = Table<FileID, [ClusterID]>()
    /// File → the Flux Kustomizations of this repository whose build takes it (a patch's Kustomization that sets `path`
    /// among them: the patched one, as its build applies it).
    public private(set) var kustomizationsOfFile: [FileID: [ObjectID]] = [:]
    /// Flux Kustomizations of the repository that no cluster applies (where flux bootstrap's are here, those it does
    /// not reach).
    public private(set) var unapplied: [ObjectID] = []
    /// Files the clusters take only through a Flux Kustomization that does not apply them as they are here → the first
    /// such: a suspended one (`spec.suspend: true`), which applies no change of theirs, or one that reads another
    /// revision of this repository (`FluxKustomizationSpec.pinnedRevision`: a tag, a commit, another branch), which
    /// applies that revision of them, or whose GitRepository no file here defines (`sourceUndefined`).
    public private(set) var heldBackOnly: [FileID: ObjectID] = [:]
    /// Those of them that read another revision of this repository, or a GitRepository no file here defines.
    public private(set) var pinned: Set<ObjectID> = []
    /// Files of Flux's own components (flux bootstrap's `gotk-components.yaml`: its flux-system Namespace carries
    /// `app.kubernetes.io/part-of: flux`), whose images flux writes, not the team.
    public private(set) var componentFiles: Set<FileID> = []
    /// Every Flux installation the repository holds, wherever it is: version and where it was read.
    public private(set) var installations: [(version: FluxVersion, origin: String)] = [] {
        didSet { only = Set(installations.map(\.version)).count == 1 ? installations.first : nil }
    }
    /// The repository's Flux when all its installations are of one version.
    public private(set) var only: (version: FluxVersion, origin: String)?

    /// What a finding in a file no cluster here reaches says of it.
    public static let unreachedPremise = "no cluster in this repository applies this file"
    /// The Flux Kustomizations and FluxInstance syncs that read artifacts whose directories here are not known (an
    /// OCIRepository CI pushes, a FluxInstance's sync that places nothing), the first named: one of them may build a
    /// file no cluster here reaches. Nil when there are none.
    public private(set) var unreadArtifacts: String?
    /// The ResourceSets (the Flux Operator's) and GitOpsSets that a cluster here applies, or any where no cluster is
    /// described, whose templates make Flux Kustomizations: those are not read here, and one may build a file no cluster
    /// here reaches. Said as a clause that names the first; nil when there are none.
    public private(set) var unreadTemplates: String?
    /// What a finding in a file no cluster here reaches says of it in this repository.
    public var unreachedPremise: String {
        if let artifacts = unreadArtifacts { return "no cluster here is known to apply this file, but what artifacts hold is not read here: \(artifacts)" }
        if let templates = unreadTemplates {
            return "no cluster here is known to apply this file, but \(templates)"
        }
        return Clusters.unreachedPremise
    }

    /// Each file's `Reach`.
    public private(set) var reach = Table<FileID, Reach>()
    /// Files a kustomization names that are not resources of it → the kustomization files naming them: kustomize's own
    /// configuration (`transformers`, `configurations`, …), or data its generators and replacements read (`asData`).
    /// Part of that kustomization's build, applied with it.
    public private(set) var readBy: [String: [(kustomization: FileID, asData: Bool)]] = [:]


    /// The clusters that apply `file`.
    public func of(_ file: FileID) -> [ClusterID] { clusters.isEmpty ? [] : ofFile[file] }

    /// Whether `file` is assumed applied because a suspended Flux Kustomization is all that takes it (rather than
    /// because only inferred clusters do).
    public func isOnlySuspended(_ file: FileID) -> Bool {
        guard case .assumed = reach[file], let k = heldBackOnly[file], !pinned.contains(k) else { return false }
        return of(file).contains { clusters[$0].inferred == nil }
    }

    /// Whether `file` is assumed applied as it is here only because Flux Kustomizations that read another revision of
    /// this repository take it.
    public func isOnlyPinned(_ file: FileID) -> Bool {
        guard case .assumed = reach[file], let k = heldBackOnly[file], pinned.contains(k) else { return false }
        return of(file).contains { clusters[$0].inferred == nil }
    }

    /// `nonResources` are objects of patch files: a Flux Kustomization there that sets `path` is the patched
    /// Kustomization as the build that patches it applies it (a cluster's bootstrap Kustomization completed per cluster).
    /// `graph`: what each kustomization's `resources`, `bases` and `components` name. `pathPatched`: the Flux
    /// Kustomizations whose path as written no build takes; `patchedPaths`: the paths that inline patches of
    /// kustomizations give Flux Kustomizations, each built in the clusters that take the patching kustomization.
    static func build(objects: Objects, files: Files, builds: LazyBuildSets, graph: IncludeGraph,
                      ignoring nonResources: Set<ObjectID>, config: Config = Config(), sourceIgnore: String? = nil,
                      artifactSyncs: [Model.ArtifactSync] = [], pathPatched: Set<ObjectID> = [],
                      patchedPaths: [ObjectID: [(by: ObjectID, path: String)]] = [:]) -> Clusters {
        let leftOut = leftOut(objects: objects, files: files, builds: builds.value, graph: graph)
        // the files each declared cluster's paths take
        let declared: [[FileID]] = config.clusters.map { c in
            let globs = c.paths.map(Glob.init)
            return files.indices.filter { f in config.relative(files[f].path).map { matches(globs, $0) } ?? false }
        }
        var out = detect(objects: objects, files: files, builds: builds, graph: graph, ignoring: nonResources, config: config,
                         leftOut: leftOut, declared: declared, artifactSyncs: artifactSyncs, pathPatched: pathPatched,
                         patchedPaths: patchedPaths)
        let ignored = out.sourceIgnored(objects: objects, files: files, rootIgnore: sourceIgnore)
        out.judgeReach(objects: objects, files: files, leftOut: leftOut, declared: declared, sourceIgnored: ignored)
        out.unreadArtifacts = out.unreadArtifacts(objects: objects, files: files, artifactSyncs: artifactSyncs)
        out.unreadTemplates = out.unreadTemplates(objects: objects, files: files)
        return out
    }

    /// Whether a cluster here applies `file` (or, where no cluster is described, whether it may be applied from outside).
    private func isApplied(_ f: FileID) -> Bool {
        switch reach[f] { case .applied, .assumed: true; case .unreached: clusters.isEmpty; default: false }
    }

    /// The applied objects whose templates make Flux Kustomizations, said as a clause: "the Flux Kustomizations that
    /// ResourceSets make are not read here: " and the first, and how many more.
    private func unreadTemplates(objects: Objects, files: Files) -> String? {
        var kinds: [String] = [], sets: [ManifestObject] = []
        for o in objects {
            guard case .templatesOfKustomizations(let kind)? = o.flux, isApplied(o.file) else { continue }
            if !kinds.contains(kind) { kinds.append(kind) }
            sets.append(o)
        }
        guard let first = sets.first else { return nil }
        let named = "\(first.kind) " + (first.declaredNamespace.map { $0 + "/" } ?? "") + (first.name ?? "") + " in \(files[first.file].path)"
        return "the Flux Kustomizations that " + kinds.map { $0 + "s" }.joined(separator: " and ") + " make are not read here: " + named
            + (sets.count > 1 ? " and \(sets.count - 1) more" : "")
    }

    /// The Flux Kustomizations a cluster here applies (any that may be deployed, where no cluster is described), and the
    /// FluxInstance syncs in files that may be deployed, that read artifacts whose directories here are not known: the
    /// first, and how many more.
    private func unreadArtifacts(objects: Objects, files: Files, artifactSyncs: [Model.ArtifactSync]) -> String? {
        func mayBeDeployed(_ f: FileID) -> Bool { if case .notDeployed = reach[f] { false } else { true } }
        // (where no cluster is described, any Kustomization here may be applied from outside)
        var unknown: [String] = []
        for f in files.indices where mayBeDeployed(f) {
            for sync in files[f].fluxInstanceSyncs where !sync.isGit && !artifactSyncs.contains(where: { $0.file == f && $0.sync.path.span == sync.path.span }) {
                unknown.append("the FluxInstance sync at \(files[f].path):\(sync.path.span.start.line) of \(sync.kind) \(sync.url ?? sync.sourceName)")
            }
        }
        // (Flux's own manifests, whose artifact holds Flux, not this repository's files)
        let fluxManifests = Set(files.flatMap(\.fluxManifestRepositories))
        for o in objects where isApplied(o.file) {
            guard let k = o.fluxKustomization, k.path == nil, let path = k.artifactPath, let source = k.source,
                  !(source.kind == "OCIRepository" && fluxManifests.contains(source.name)) else { continue }
            unknown.append("\(files[o.file].path) builds ./\(path) of \(source.kind) \(source.name)")
        }
        guard let first = unknown.first else { return nil }
        return first + (unknown.count > 1 ? " and \(unknown.count - 1) more" : "")
    }

    /// Whether the repository's clusters exist and every root of each reads a GitRepository of this repository that has
    /// `spec.ignore` (flux bootstrap's with its own patterns): then no artifact is made without them.
    func readsOnlyIgnoringSources(objects: Objects) -> Bool {
        guard !clusters.isEmpty else { return false }
        var ignoring = Set<String>()
        for o in objects { if case .gitRepository(let spec)? = o.flux, spec.ignore != nil, let name = o.name { ignoring.insert(name) } }
        return clusters.allSatisfy { c in
            !c.roots.isEmpty && c.roots.allSatisfy { r in
                objects[r].fluxKustomization?.source.map { $0.isGitRepository && ignoring.contains($0.name) } ?? false
            }
        }
    }

    /// Files source-controller leaves out of every artifact it may make of this repository (`SourceIgnore`: its
    /// defaults, the root `.sourceignore`, then a GitRepository's `spec.ignore`): file → why. Any GitRepository here may
    /// be one of this repository (a second one whose `spec.ignore` takes back a directory `.sourceignore` drops), so a
    /// file is left out only when the artifact of each, and of one without `spec.ignore`, leaves it out.
    func sourceIgnored(objects: Objects, files: Files, rootIgnore: String?) -> [FileID: String] {
        var base = SourceIgnore.defaults
        if let rootIgnore { base.add(text: rootIgnore, origin: ".sourceignore") }
        var matchers = [base]
        // (the GitRepositories the clusters' roots read first: where each source leaves a file out, the reason given is
        // one of those, not another repository's that a Kustomization here also reads)
        let read = Set(clusters.flatMap(\.roots).compactMap { objects[$0].fluxKustomization?.source?.name })
        let sources = objects.compactMap { o -> (ManifestObject, String)? in
            if case .gitRepository(let spec)? = o.flux, let ignore = spec.ignore { (o, ignore) } else { nil }
        }
        for (o, ignore) in sources.filter({ read.contains($0.0.name ?? "") }) + sources.filter({ !read.contains($0.0.name ?? "") }) {
            var own = SourceIgnore()
            own.add(text: ignore, origin: "spec.ignore of GitRepository \(o.name ?? "") (\(files[o.file].path))")
            matchers.append(base.then(own))
        }
        // a source without spec.ignore is assumed only where one is: every cluster's roots read one with spec.ignore
        if matchers.count > 1, readsOnlyIgnoringSources(objects: objects) { matchers.removeFirst() }
        // on all cores, each chunk of files (in path order, which the matchers' memo of the last directory counts on)
        // with matchers of its own
        let each = matchers.map(SourceIgnore.Matcher.init)
        let excluded = concurrentMap(files.count, chunkSize: max(256, files.count / 16), makeState: { each }) { each, i -> String? in
            var why: String?
            for k in each.indices {
                guard let excluded = each[k].excluding(files[FileID(i)].path) else { return nil }
                if why == nil { why = excluded }
            }
            return why
        }
        var out: [FileID: String] = [:]
        for (i, why) in excluded.enumerated() {
            if let why { out[FileID(i)] = "source-controller leaves it out of the artifact (\(why))" }
        }
        return out
    }

    /// Whether one of `globs` matches `path` or a directory above it (`management` and `management/**` both take
    /// `management/apps/web.yaml`).
    static func matches(_ globs: [Glob], _ path: String) -> Bool {
        var p = path
        while !p.isEmpty {
            if globs.contains(where: { $0.matches(p) }) { return true }
            p = Path.dirname(p)
        }
        return false
    }

    /// Each file's `Reach`, once the clusters are known.
    private mutating func judgeReach(objects: Objects, files: Files, leftOut: [FileID: String], declared: [[FileID]],
                                     sourceIgnored: [FileID: String]) {
        let declaredFiles = Set(declared.joined())
        for o in objects where o.isKustomization {
            let dir = files[o.file].directory
            for (names, asData) in [(o.kustomizeConfigFiles, false), (files[o.file].kustomizeInputFiles, true)] {
                for name in names {
                    if let p = Model.normalizePath(Sources.join(dir, name)) { readBy[p, default: []].append((o.file, asData)) }
                }
            }
        }
        var memo: [FileID: Reach] = [:]
        func judged(_ f: FileID, depth: Int) -> Reach {
            if let known = memo[f] { return known }
            if declaredFiles.contains(f) { return .applied }
            if let why = sourceIgnored[f] { return .notDeployed(why) }
            if !clusters.isEmpty && !ofFile[f].isEmpty {
                // applied only by clusters inferred: from Kustomizations nothing here applies, or an artifact's sync
                if let first = ofFile[f].first, ofFile[f].allSatisfy({ clusters[$0].inferred != nil }) {
                    if ofFile[f].count == 1 { return .assumed(clusters[first].inferred! + "; declare it under clusters: in \(Config.fileName)") }
                    let names = ofFile[f].map { clusters[$0].displayName }
                    let synced = ofFile[f].filter { clusters[$0].syncedBy != nil }.count
                    let why = synced == 0 ? "are taken to be applied from outside this repository (nothing here applies their roots)"
                        : synced == ofFile[f].count ? "are taken to be what FluxInstance syncs of artifacts pushed from this repository apply "
                            + "(tagwarden env --applied names each premise)"
                        : "are inferred, not bootstrapped here (tagwarden env --applied names each premise)"
                    return .assumed("clusters \(names.joined(separator: ", ")) \(why); declare them under clusters: in \(Config.fileName)")
                }
                if let k = heldBackOnly[f], let premise = objects[k].fluxKustomization?.revisionPremise {
                    return .assumed("applied only through Flux Kustomization \(objects[k].name ?? "") (\(files[objects[k].file].path)), which "
                                    + premise)
                }
                if let k = heldBackOnly[f] {
                    return .assumed("applied only through Flux Kustomization \(objects[k].name ?? "") (\(files[objects[k].file].path)), which is "
                                    + "suspended: Flux applies no change while spec.suspend is true; declare its path under clusters: in "
                                    + "\(Config.fileName) if the cluster runs it")
                }
                return .applied
            }
            if let users = readBy[files[f].path]?.map(\.kustomization),
               users.contains(where: { !clusters.isEmpty && !ofFile[$0].isEmpty || declaredFiles.contains($0) }) {
                return .applied
            }
            if let why = leftOut[f] { return .notDeployed(why) }
            memo[f] = .unreached   // a Kustomization that builds its own file adds nothing
            // built only by Flux Kustomizations that are themselves not deployed
            var r = Reach.unreached
            if let builders = kustomizationsOfFile[f], let first = builders.first, depth < IncludeGraph.maxDepth,
               builders.allSatisfy({ if case .notDeployed = judged(objects[$0].file, depth: depth + 1) { true } else { false } }) {
                r = .notDeployed("only Flux Kustomization \(objects[first].name ?? "") of \(files[objects[first].file].path) builds it, "
                                 + "and that file is not deployed")
            }
            memo[f] = r
            return r
        }
        reach = files.indices.column { judged($0, depth: 0) }
    }

    /// Manifests that the kustomization of their own directory leaves out: it neither lists them nor names them
    /// anywhere outside a comment (a patch, a generator's file), and no other kustomization lists them. No build
    /// takes such a file; file → why.
    /// Whether `name` stands whole in a comment of `bytes`: after a `#` on its line, with no character of a file name
    /// right before or after it (`configs.yaml` is not in `- cluster-configs.yaml`).
    static func namedInComment(_ name: String, _ bytes: [UInt8]) -> Bool {
        func isNameByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x2D || b == 0x5F
        }
        let needle = Array(name.utf8)
        return bytes.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                var from = 0
                while let at = SourceText.find(h, n, from: from) {
                    from = at + 1
                    let end = at + needle.count
                    if at > 0, isNameByte(bytes[at - 1]) { continue }
                    if end < bytes.count, isNameByte(bytes[end]) { continue }
                    let lineStart = bytes[..<at].lastIndex(of: 10).map { $0 + 1 } ?? 0
                    if bytes[lineStart..<at].contains(UInt8(ascii: "#")) { return true }
                }
                return false
            }
        }
    }

    static func leftOut(objects: Objects, files: Files, builds: BuildSets, graph: IncludeGraph) -> [FileID: String] {
        guard !builds.kustomizationAt.isEmpty else { return [:] }
        // a Flux Kustomization that builds its own directory cannot be listed there (it would apply itself): it is
        // applied another way (`kubectl apply -f sync.yaml`), so it is not left out
        var selfSyncs = Set<FileID>()
        for o in objects {
            if let p = o.fluxKustomization?.path, Model.normalizePath(p) == files[o.file].directory { selfSyncs.insert(o.file) }
        }
        // the directories a Flux Kustomization's generated build takes whole
        let fluxPaths = Model.writtenFluxPaths(objects)
        var out: [FileID: String] = [:]
        // (the files come in path order: a directory's builder is looked up once for all its files)
        var builderOfDir: (dir: String, builder: (ObjectID, listsFiles: Bool)?)?
        for f in files.indices {
            let path = files[f].path
            guard Sources.isManifestName(path), !graph.isIncluded(path), !Extractor.isKustomizationPath(path),
                  !selfSyncs.contains(f) else { continue }
            let dir = Path.dirname(path)
            if builderOfDir?.dir != dir { builderOfDir = (dir, builder(of: dir, builds: builds, fluxPaths: fluxPaths)) }
            guard let (k, listsFiles) = builderOfDir?.builder, objects[k].file != f else { continue }
            // named in any field (a patch, a generator's file) is not left out; named only in a comment is commented out
            let kustomization = files[objects[k].file], name = Path.basename(path)
            if kustomization.kustomizationNames(file: name) { continue }
            let commented = Self.namedInComment(name, kustomization.bytes)
            let builds = listsFiles ? "which lists the files of \(Path.dirname(path)) one by one" : "which builds its directory"
            out[f] = commented ? "commented out of \(kustomization.path), \(builds)" : "\(kustomization.path), \(builds), does not list it"
        }
        return out
    }

    /// The kustomization that says which files of directory `dir` its build takes: the one in `dir`; else the nearest
    /// one above that lists files of `dir` one by one (`listsFiles`), when no Flux Kustomization's generated build takes
    /// `dir` whole (a `path` at `dir` or between).
    private static func builder(of dir: String, builds: BuildSets, fluxPaths: StringSet) -> (ObjectID, listsFiles: Bool)? {
        if let k = builds.kustomizationAt[dir] { return (k, false) }
        var up = dir
        while !up.isEmpty, !fluxPaths.contains(up) {
            up = Path.dirname(up)
            guard let k = builds.kustomizationAt[up] else { continue }
            let lists = builds.resources[k]?.contains { Path.dirname($0) == dir && builds.fileAt[$0] != nil } ?? false
            return lists ? (k, true) : nil
        }
        return nil
    }

    /// The clusters of the repository and what each applies, before each file's `Reach` is judged.
    private static func detect(objects: Objects, files: Files, builds: LazyBuildSets, graph: IncludeGraph, ignoring nonResources: Set<ObjectID>,
                               config: Config, leftOut: [FileID: String], declared: [[FileID]],
                               artifactSyncs: [Model.ArtifactSync], pathPatched: Set<ObjectID>,
                               patchedPaths: [ObjectID: [(by: ObjectID, path: String)]]) -> Clusters {
        var out = Clusters()
        var kustomizations: [ObjectID] = []
        var objectsOfFile: [FileID: [ObjectID]] = [:]   // the objects that say what a cluster runs or reads, by file
        for (i, o) in objects.withIDs {
            switch o.flux {
            case .kustomization(let k)?:
                // (one without a path here, of another repository or an artifact, is applied but roots nothing; nor does
                // one without a name, or in a file Go's YAML refuses, which no cluster can hold: giolekva/pcloud's Go
                // template of a Kustomization, `name: {{ .Name }}`, taken for a cluster of the whole repository)
                if k.path != nil, o.name != nil, files[o.file].goRefusals.isEmpty { kustomizations.append(i) }
                objectsOfFile[o.file, default: []].append(i)
            case .fluxInstance?, .helmRelease?:
                objectsOfFile[o.file, default: []].append(i)
            default:
                // (Flux 0.8's gotk-components.yaml labels its Namespace `app.kubernetes.io/instance: flux-system` and the
                // version, with no `part-of`)
                if o.definition?.group.hasBytesSuffix("toolkit.fluxcd.io") == true
                    || (o.kind == "Namespace" && (o.labels["app.kubernetes.io/part-of"] == "flux" || o.labels["app.kubernetes.io/instance"] == "flux-system"))
                    || (o.isKustomization && o.kustomizeResources.contains { Self.fluxRelease(installedBy: $0) != nil || Self.imageKind(installedBy: $0) != nil })
                    || Self.fluxRelease(readBy: o) != nil {
                    objectsOfFile[o.file, default: []].append(i)
                }
            }
        }
        // (and the flux-instance chart's values, which install the FluxInstance)
        for f in files.indices where (!files[f].fluxReleases.isEmpty || files[f].installsUnwrittenFlux) && objectsOfFile[f] == nil { objectsOfFile[f] = [] }
        out.installations = installations(objectsOfFile.keys.sorted(), objects: objects, objectsOfFile: objectsOfFile, files: files)
        for (f, os) in objectsOfFile where os.contains(where: { objects[$0].kind == "Namespace" }) { out.componentFiles.insert(f) }
        let synced = files.contains { $0.fluxInstanceSyncs.contains(where: \.isGit) } || !artifactSyncs.isEmpty
        guard !kustomizations.isEmpty || !config.clusters.isEmpty || synced else { return out }
        func spec(_ k: ObjectID) -> FluxKustomizationSpec? { objects[k].fluxKustomization }
        // a path written with `${…}` is another path in each build that applies the Kustomization: the variables of the
        // Kustomization that builds its file (`substitute`) make it
        // (a path every build that takes the Kustomization patches is built by none: the patch's Kustomization is)
        func path(_ k: ObjectID, _ variables: [String: String]) -> String? {
            guard !pathPatched.contains(k), let raw = spec(k)?.path else { return nil }
            return resolved(raw, variables)
        }
        func resolved(_ raw: String, _ variables: [String: String]) -> String? {
            guard raw.containsBytes("${") else { return Model.normalizePath(raw) }
            // (a variable no source here defines is empty, unless a source this repository does not hold may define it)
            let open = variables[Clusters.sourceNotHeld] != nil
            guard !variables.isEmpty, let made = Envsubst.expand(raw, { variables[$0].map { .defined($0) } ?? (open ? .unknown : .undefined) }),
                  !made.text.containsBytes("${") else { return nil }
            return Model.normalizePath(made.text)
        }
        // the directories Kustomization `k` builds at `p`: the directory, and the Components its `spec.components` add there
        func directories(_ k: ObjectID, at p: String) -> [String] {
            [p] + (spec(k)?.components ?? []).compactMap { Model.normalizePath(Sources.join(p, $0)) }
        }
        func build(_ k: ObjectID, at p: String) -> Set<FileID> {
            directories(k, at: p).reduce(into: Set<FileID>()) { $0.formUnion(builds.files(under: $1)) }
        }
        var built: [ObjectID: Set<FileID>] = [:]   // Kustomization → the files its path as written builds
        builds.prefetch(kustomizations.flatMap { k in path(k, [:]).map { directories(k, at: $0) } ?? [] })
        for k in kustomizations {
            guard let p = path(k, [:]) else { continue }
            let set = build(k, at: p)
            built[k] = set
            for f in set { out.kustomizationsOfFile[f, default: []].append(k) }
        }
        // paths that build nothing here (another repository's, or missing): no cluster of this repository
        guard built.values.contains(where: { !$0.isEmpty }) || !config.clusters.isEmpty || synced else { return out }
        func file(_ k: ObjectID) -> FileID { objects[k].file }
        // the kustomization files that hold Flux Kustomizations, which kustomize refuses, unless a kustomization lists the file itself
        let refusedKustomizationFiles = Set(kustomizations.map(file).filter { f in
            Extractor.isKustomizationPath(files[f].path) && graph.includedBy[files[f].path] == nil
        })
        // (one written into the kustomization file of its own path does not: kustomize refuses that build)
        func buildsItself(_ k: ObjectID) -> Bool { !refusedKustomizationFiles.contains(file(k)) && built[k]?.contains(file(k)) ?? false }
        /// flux bootstrap's sync: it builds its own file, or stands in `<path>/flux-system/`, as bootstrap writes it, which
        /// bootstrap applies itself (where the kustomization at `path` does not list `flux-system`, sulibot's production).
        func isBootstrapSync(_ k: ObjectID) -> Bool {
            isBootstrapLayout(k) || (buildsItself(k) && !buildingOtherSyncs.contains(k) && !insideBootstrapTree(k))
        }
        func isBootstrapLayout(_ k: ObjectID) -> Bool {
            let dir = files[file(k)].directory
            return Path.basename(dir) == "flux-system" && path(k, [:]).map { Path.dirname(dir) == $0 } == true && built[k]?.isEmpty == false
        }
        let bootstrapLayoutFiles = Set(kustomizations.filter(isBootstrapLayout).map(file))
        /// The Kustomizations that build bootstrap's syncs of other paths. They do not apply them: such a build takes two
        /// Kustomizations bootstrap names alike, and kustomize refuses it (a stale bootstrap at `./clusters` above
        /// `clusters/staging` and `clusters/gke`, Boshock/hp-thin). One not in bootstrap's layout itself (a CI fixture whose
        /// path is the repository's root, fmind-ai/fgentic's scripts/testdata) is no cluster's sync either.
        let buildingOtherSyncs = bootstrapLayoutFiles.isEmpty ? [] : Set(built.compactMap { k, set in
            set.contains { $0 != file(k) && bootstrapLayoutFiles.contains($0) } ? k : nil
        })
        /// The paths of bootstrap's syncs and of the Kustomizations their builds take. One that builds its own file inside
        /// them is a Kustomization that cluster's tree leaves out (an app's `ks.yaml` its parent kustomization lists only in
        /// a comment, unusualpseudo/homelab), not another cluster's sync.
        let bootstrapTreePaths: Set<String> = bootstrapLayoutFiles.isEmpty ? [] : {
            var out = Set<String>()
            for r in kustomizations where isBootstrapLayout(r) {
                if let p = path(r, [:]) { out.insert(p) }
                guard let set = built[r] else { continue }
                for k in kustomizations where k != r && set.contains(file(k)) { if let p = path(k, [:]) { out.insert(p) } }
            }
            return out
        }()
        func insideBootstrapTree(_ k: ObjectID) -> Bool {
            guard !bootstrapTreePaths.isEmpty, !isBootstrapLayout(k) else { return false }
            // (its file's directories, up to the root, looked up: a fleet's paths are thousands)
            var dir = files[file(k)].directory
            while !bootstrapTreePaths.contains(dir) {
                if dir.isEmpty { return false }
                dir = Path.dirname(dir)
            }
            return true
        }
        var entryPoints: [ObjectID: (name: String, files: Set<FileID>)] = [:]   // (`splitEntryPoints`)
        func clusterName(_ k: ObjectID) -> String {
            if isBootstrapSync(k), let p = path(k, [:]) { return p }
            if let own = entryPoints[k] { return own.name }
            return topKustomization(of: file(k)) ?? files[file(k)].directory
        }
        /// The directory of the one kustomization that includes file `f`, through the kustomizations above it, and that
        /// nothing includes: what applies it applies every root it takes, one cluster (werpo78/videorank-mlops-config's
        /// `clusters/dev/kustomization.yaml`, which lists `apps/` and `infrastructure/` roots: bootstrap's path to come).
        func topKustomization(of f: FileID) -> String? {
            var tops = Set<String>(), seen = Set<ObjectID>()
            var queue = graph.includers(of: files[f].path).map { ($0, 0) }
            while let (k, depth) = queue.popLast() {
                guard seen.insert(k).inserted else { continue }
                let parents = graph.parents(of: k, depth: depth + 1)
                if parents.isEmpty { tops.insert(graph.directory(of: k)) } else { queue += parents.map { ($0, depth + 1) } }
                if tops.count > 1 { return nil }
            }
            return tops.first
        }
        // a Kustomization's file → the Kustomizations whose build as written takes it (only those files are asked about)
        let kustomizationFiles = Set(kustomizations.map(file))
        var includers: [FileID: Set<ObjectID>] = [:]
        for (k, set) in built where !buildingOtherSyncs.contains(k) {
            for f in set where kustomizationFiles.contains(f) { includers[f, default: []].insert(k) }
        }
        // (a patch's Kustomization is a root only as flux bootstrap's, completed by the patch; one in a file its
        // directory's kustomization leaves out is applied by nothing, not the root of a cluster)
        let roots = kustomizations.filter { k in
            (includers[file(k)] ?? []).allSatisfy { $0 == k } && (!nonResources.contains(k) || buildsItself(k)) && leftOut[file(k)] == nil
        }
        /// Roots in one directory that no kustomization includes, which cannot be one cluster's: two of one namespace and
        /// name, or of GitRepositories that read one URL at different branches (phoenixtechnam/k8s-hosting-platform's
        /// k8s/base/flux: dev from main, staging from staging, production from stable). Each is then a cluster of its own,
        /// named after its file, that applies the directory's files but the other roots'. Roots that may be one
        /// cluster's stay one (Jackdstp/dstpflux's dev, staging and production overlays side by side in my-cluster).
        func splitEntryPoints() {
            var byDirectory: [String: [ObjectID]] = [:]
            for r in roots where !isBootstrapSync(r) && !buildsItself(r) && topKustomization(of: file(r)) == nil {
                byDirectory[files[file(r)].directory, default: []].append(r)
            }
            guard byDirectory.values.contains(where: { $0.count > 1 }) else { return }
            let gitSources = Model.GitSources(objects, files: files)
            /// The URL and branch root `r`'s GitRepository reads, where one GitRepository of its name does.
            func reads(_ r: ObjectID) -> (url: String, branch: String)? {
                guard let source = spec(r)?.source else { return nil }
                let found = gitSources.sources(kind: source.kind, name: source.name, namespace: source.namespace ?? objects[r].declaredNamespace)
                guard found.count == 1, let branch = found[0].branch else { return nil }
                return (found[0].url, branch)
            }
            for (dir, rs) in byDirectory where rs.count > 1 {
                let ids = rs.map { (objects[$0].declaredNamespace ?? "") + "/" + (objects[$0].name ?? "") }
                let sources = rs.compactMap(reads)
                let branchesOfURL = Dictionary(grouping: sources, by: \.url).mapValues { Set($0.map(\.branch)) }
                guard Set(ids).count < ids.count || branchesOfURL.values.contains(where: { $0.count > 1 }) else { continue }
                let rootFiles = Set(rs.map(file))
                let others = builds.files(under: dir).subtracting(rootFiles)
                for r in rs { entryPoints[r] = (files[file(r)].path, others.union([file(r)])) }
            }
        }
        splitEntryPoints()
        var index: [String: ClusterID] = [:]
        var sets = Table<ClusterID, Set<FileID>>(), members = Table<ClusterID, Set<ObjectID>>()
        let fileCount = files.count
        var done = Set<String>()   // cluster, Kustomization and the path it builds there
        var reached = Set<ObjectID>()
        var bootstrappedClusters = Set<ClusterID>()   // clusters with a root of flux bootstrap's
        // where a Kustomization is suspended or reads another revision of this repository, the files each cluster
        // applies through none (`live`), and for the others the first such Kustomization through which a cluster takes them
        func holdsBack(_ k: ObjectID) -> Bool { spec(k)?.suspended == true || spec(k)?.revisionPremise != nil }
        out.pinned = Set(kustomizations.filter { spec($0)?.revisionPremise != nil })
        let anyHeldBack = kustomizations.contains(where: holdsBack)
        var live = Table<ClusterID, Set<FileID>>()
        func cluster(named name: String) -> ClusterID {
            if let known = index[name] { return known }
            // (with the values the config gives its variables, which complete what its Kustomizations substitute)
            let c = out.clusters.add(Cluster(name: name, roots: [], kustomizations: [], files: [],
                                             substitute: config.clusters.first { $0.name == name }?.substitute ?? [:]))
            index[name] = c
            sets.append(Set(minimumCapacity: min(fileCount, 1024)))
            if anyHeldBack { live.append([]) }
            members.append([])
            return c
        }
        // the ConfigMaps of the repository, by name, found on first need
        var configMapsNamed: [String: [ObjectID]]?
        // clusters whose walk met several ConfigMaps of one name and took none, and what a first walk of each applied
        var undecided = Set<ClusterID>()
        var firstWalk: [ClusterID: Set<FileID>] = [:]
        /// The variables Kustomization k substitutes in cluster `c`: the ConfigMaps of its `substituteFrom` the repository
        /// holds (of several of one name, the one `c` applies, as far as its walk or a first one has gone; a later
        /// source wins), then `substitute` over all.
        func substitutes(_ k: ObjectID, in c: ClusterID) -> [String: String] {
            guard let post = spec(k)?.postBuild else { return [:] }
            var out: [String: String] = [:]
            for source in post.substituteFrom {
                // a Secret, which the repository does not show, may define any variable
                guard source.kind == "ConfigMap" else { out[Clusters.sourceNotHeld] = ""; continue }
                if configMapsNamed == nil {
                    configMapsNamed = [:]
                    for (i, o) in objects.withIDs where o.kind == "ConfigMap" && o.configData != nil { configMapsNamed![o.name ?? "", default: []].append(i) }
                }
                let namespace = objects[k].declaredNamespace
                let named = (configMapsNamed![source.name] ?? []).filter {
                    namespace == nil || objects[$0].declaredNamespace == nil || objects[$0].declaredNamespace == namespace
                }
                // one the repository does not hold (made in the cluster, by Terraform or an operator) may define any
                guard !named.isEmpty else { out[Clusters.sourceNotHeld] = ""; continue }
                let applied = named.filter { sets[c].contains(objects[$0].file) || firstWalk[c]?.contains(objects[$0].file) == true }
                if named.count > 1, applied.count != 1 { undecided.insert(c) }
                guard let m = applied.count == 1 ? applied[0] : named.count == 1 ? named[0] : nil, let data = objects[m].configData else { continue }
                out.merge(data) { $1 }
            }
            return out.merging(post.substitute) { $1 }
        }
        var walks: [ClusterID: [(roots: [ObjectID], files: Set<FileID>, variables: [String: String]?)]] = [:]
        // each cluster's Kustomizations whose path its variables or a patch make another, by the files they build there
        var substitutedBuilders: [ClusterID: [FileID: Set<ObjectID>]] = [:]
        // each cluster's Kustomizations that inline patches may give another path, walked at the one written (should
        // a patching kustomization be reached only later, the cluster is walked again: `undecided`)
        var walkedAsWritten: [ClusterID: Set<ObjectID>] = [:]
        /// The patches of Kustomization k's path that cluster c takes (on a second walk, those its first walk reached),
        /// the outermost where one patching kustomization builds another (kustomize applies its patch last).
        func patches(_ k: ObjectID, in c: ClusterID) -> [(by: ObjectID, path: String)] {
            // (of this repository's source only: biya-bi/nguiland-infra-engine patches a path in another repository)
            guard !patchedPaths.isEmpty, let all = patchedPaths[k], spec(k)?.path != nil else { return [] }
            let taken = all.filter { sets[c].contains(file($0.by)) || firstWalk[c]?.contains(file($0.by)) == true }
            guard Set(taken.map(\.by)).count > 1 else { return taken }
            return taken.filter { p in
                !taken.contains { q in q.by != p.by && builds.files(under: graph.directory(of: q.by)).contains(file(p.by)) }
            }
        }
        // builds a cluster's Kustomizations apply to another cluster (`spec.kubeConfig`), walked as that cluster's
        var remoteBuilds: [(by: ClusterID, kustomization: ObjectID, files: Set<FileID>, variables: [String: String])] = []
        // cluster `c` applies Kustomizations `roots` and the files `initial` (with `variables`, those of the Kustomization
        // that builds them, else the cluster's own), and what their builds reach
        func walk(_ c: ClusterID, roots: [ObjectID], files initial: Set<FileID>, variables initialVariables: [String: String]? = nil) {
            if firstWalk[c] == nil { walks[c, default: []].append((roots, initial, initialVariables)) }
            // each Kustomization with the variables of the one whose build takes its file, and the suspended one on the way
            let given = out.clusters[c].substitute
            var queue: [(k: ObjectID, variables: [String: String], suspended: ObjectID?)] = roots.map { ($0, given, nil) }
            func take(_ f: FileID, by variables: [String: String], through suspended: ObjectID?) {
                var new = sets[c].insert(f).inserted
                if anyHeldBack {
                    if let suspended {
                        if out.heldBackOnly[f] == nil { out.heldBackOnly[f] = suspended }
                    } else if live[c].insert(f).inserted {
                        new = true
                    }
                }
                // (a Flux Kustomization written into its directory's kustomization file is what kustomize reads as the
                // kustomization there, and refuses: a build that takes the directory applies nothing of it; one that nothing
                // here builds may still be applied by hand, `kubectl apply -f`, a root as any other)
                if new || !variables.isEmpty, !refusedKustomizationFiles.contains(f) {
                    for j in objectsOfFile[f] ?? [] where spec(j) != nil { queue.append((j, variables, suspended)) }
                }
            }
            func walkBuild(_ k: ObjectID, at p: String, suspended: ObjectID?) {
                guard done.insert("\(c) \(k) \(p) \(suspended == nil)").inserted else { return }
                members[c].insert(k)
                reached.insert(k)
                // its file is applied, and so are the other Kustomizations there (bootstrap's sync file holding a second)
                take(file(k), by: given, through: suspended)
                let set = p == path(k, [:]) ? built[k] ?? [] : build(k, at: p)
                if p != path(k, [:]) { for f in set { substitutedBuilders[c, default: [:]][f, default: []].insert(k) } }
                let own = given.merging(substitutes(k, in: c)) { $1 }
                // its build goes to the cluster its kubeConfig names, not to this one
                if spec(k)?.kubeConfig != nil {
                    remoteBuilds.append((c, k, set, own))
                    return
                }
                let through = suspended ?? (holdsBack(k) ? k : nil)
                for f in set { take(f, by: own, through: through) }
            }
            for f in initial { take(f, by: initialVariables ?? given, through: nil) }
            while let (k, variables, suspended) = queue.popLast() {
                // the paths inline patches of the builds this cluster takes give it, in place of the one written (a
                // cluster's overlay of a shared base: Syntax3rror404/infra; daluca/cloud's staging overlay of production's)
                let patched = patches(k, in: c)
                for p in patched {
                    if let at = resolved(p.path, variables) { walkBuild(k, at: at, suspended: suspended) }
                }
                guard patched.isEmpty else { continue }
                if !patchedPaths.isEmpty, patchedPaths[k] != nil { walkedAsWritten[c, default: []].insert(k) }
                // one of another repository or an artifact builds nothing here, and one whose path has a variable not known
                // here builds what cannot be told: the cluster applies them all the same
                guard let p = path(k, variables) else {
                    if members[c].insert(k).inserted { reached.insert(k) }
                    continue
                }
                walkBuild(k, at: p, suspended: suspended)
            }
        }
        /// The clusters that Kustomizations apply their builds to through `spec.kubeConfig`: one for each cluster that applies
        /// such Kustomizations and each Secret (or ConfigMap) they name, walked as its own (what the build holds, Flux
        /// Kustomizations there included, is that cluster's), until no build goes further.
        var remoteOf: [ClusterID: ClusterID] = [:]
        var remoteWalked = 0
        func walkRemoteBuilds() {
            while remoteWalked < remoteBuilds.count {
                // (in the order of the clusters and Kustomizations, not of the walk, which follows sets: the clusters made
                // here are numbered the same in every run)
                remoteBuilds[remoteWalked...].sort { ($0.by, $0.kustomization) < ($1.by, $1.kustomization) }
                let (by, k, set, variables) = remoteBuilds[remoteWalked]
                remoteWalked += 1
                guard let (kind, name) = spec(k)?.kubeConfig else { continue }
                let namespace = objects[k].declaredNamespace.map { $0 + "/" } ?? ""
                let remote = cluster(named: "\(out.clusters[by].displayName) → \(kind) \(namespace)\(name)")
                remoteOf[remote] = by
                if !out.clusters[remote].appliedThrough.contains(k) { out.clusters[remote].appliedThrough.append(k) }
                walk(remote, roots: [], files: set, variables: variables)
            }
        }
        func apply(_ root: ObjectID, in named: String? = nil) {
            let c = cluster(named: named ?? clusterName(root))
            out.clusters[c].roots.append(root)
            // applied from outside, with the directory it is in (what bootstrap's path builds, when it is not here; one written
            // into a kustomization file, which kustomize refuses, with the directory's files, as `kubectl apply -f` takes them;
            // beside one, not that file, which `kubectl apply -k` refuses)
            let dir = files[file(root)].directory
            if let own = entryPoints[root] { walk(c, roots: [root], files: own.files); return }
            // a file at the repository's root, where no kustomization builds the root, is applied by itself (`kubectl apply
            // -f apps.yaml`): the whole repository as one generated build is no cluster's (pawelpesz/kluster-playground's
            // Kustomization of another repository, beside Terraform's input to flux_bootstrap_git)
            if dir.isEmpty, !buildsItself(root), builds.value.kustomizationAt[""] == nil, builds.value.emptyKustomizationAt[""] == nil {
                walk(c, roots: [root], files: [file(root)])
                return
            }
            walk(c, roots: [root], files: buildsItself(root) ? [] : refusedKustomizationFiles.contains(file(root))
                    ? builds.value.generatedFiles(under: dir) : builds.files(under: dir).subtracting(refusedKustomizationFiles))
        }
        // a FluxInstance's sync (flux-operator's, or its chart's values): the path it syncs, as bootstrap's does; of an
        // artifact, the directory taken to be its path here (`Model.artifactSyncs`, a premise)
        var syncs: [(path: String, by: String, premise: String?)] = []
        // (and the files of each path's FluxInstances: each installs the Flux of the cluster its sync makes, whatever
        // applies it: by hand, Terraform, another cluster's Helm release; p-lago/lag0-fleet-infra's, beside another
        // cluster's bootstrap)
        var installersOfSync: [String: [FileID]] = [:]
        for f in files.indices {
            for sync in files[f].fluxInstanceSyncs where sync.isGit {
                guard let p = Model.normalizePath(sync.path.value) else { continue }
                installersOfSync[p, default: []].append(f)
                guard builds.value.hasFiles(under: p), !syncs.contains(where: { $0.path == p }) else { continue }
                syncs.append((p, "\(files[f].path):\(sync.path.span.start.line)", nil))
            }
        }
        for sync in artifactSyncs where builds.value.hasFiles(under: sync.path) && !syncs.contains(where: { $0.path == sync.path }) {
            syncs.append((sync.path, sync.by, sync.premise))
        }
        // flux bootstrap's Kustomizations build their own files: where the repository has them, they are its clusters,
        // and a Kustomization none of them reaches is applied by no cluster
        let bootstrapped = roots.filter(isBootstrapSync)
        if !bootstrapped.isEmpty || !syncs.isEmpty {
            for r in bootstrapped { apply(r) }
            for sync in syncs {
                let c = cluster(named: sync.path)
                out.clusters[c].syncedBy = sync.by
                if let premise = sync.premise { out.clusters[c].inferred = premise }
                walk(c, roots: [], files: builds.files(under: sync.path))
            }
            walkRemoteBuilds()
            bootstrappedClusters = Set(out.clusters.indices)
            // a cluster directory beside theirs (clusters/staging next to a bootstrapped clusters/production) whose
            // Kustomizations nothing here applies is a cluster bootstrapped without its sync in the repository (not a
            // file in a bootstrapped cluster's own directory that its kustomization does not list); a cluster whose path is its
            // flux-system directory itself (`./k8s/flux-system`, PHACDataHub/cpho-phase2) has no cluster directory, and the
            // directories beside it are its applications', applied by hand
            let parents = Set(bootstrapped.map(clusterName).filter { Path.basename($0) != "flux-system" }.map(Path.dirname)
                              + syncs.map { Path.dirname($0.path) })
            let bootstrappedNames = Set(bootstrapped.map(clusterName) + syncs.map(\.path))
            for r in roots where !reached.contains(r) && !nonResources.contains(r) && built[r] != nil
                && parents.contains(Path.dirname(files[file(r)].directory))
                && !bootstrappedNames.contains(files[file(r)].directory) {
                apply(r)
            }
        } else {
            // (shallowest first: a root in a directory that one above it takes whole, as Flux's generated kustomization
            // takes subdirectories, is applied with that one, not a cluster of its own; Smana/cloud-native-ref's
            // clusters/mycluster-0/security beside clusters/mycluster-0's own roots)
            let depthOf = { (k: ObjectID) in files[file(k)].path.utf8.count { $0 == UInt8(ascii: "/") } }
            for r in roots.enumerated().sorted(by: { (depthOf($0.element), $0.offset) < (depthOf($1.element), $1.offset) }).map(\.element)
            where !reached.contains(r) || index[clusterName(r)] != nil {
                apply(r)
            }
            // Kustomizations that only build each other: the first of each such ring stands for its root
            for k in kustomizations where !reached.contains(k) && built[k] != nil && leftOut[file(k)] == nil { apply(k) }
        }
        walkRemoteBuilds()
        // a ConfigMap of several of one name that the cluster applies through a Kustomization its walk took later: the
        // cluster is walked again, knowing all that the first walk applied (the same files in whatever order)
        for (c, ks) in walkedAsWritten where ks.contains(where: { !patches($0, in: c).isEmpty }) { undecided.insert(c) }
        for c in undecided.sorted() {
            firstWalk[c] = sets[c]
            sets[c] = []
            if anyHeldBack { live[c] = [] }
            done = done.filter { !$0.hasPrefix("\(c) ") }
            substitutedBuilders[c] = nil
            members[c] = []
            for w in walks[c] ?? [] { walk(c, roots: w.roots, files: w.files, variables: w.variables) }
        }
        walkRemoteBuilds()
        if !undecided.isEmpty { reached = Set(members.joined()) }
        // the others stand on Kustomizations that nothing here applies
        for c in out.clusters.indices where !bootstrappedClusters.contains(c) && remoteOf[c] == nil {
            let rootFiles = Set(out.clusters[c].roots.map { files[file($0)].path }).sorted()
            out.clusters[c].inferred = "cluster \(out.clusters[c].displayName) is taken to be applied from outside "
                + "this repository (nothing here applies \(rootFiles.prefix(2).joined(separator: ", "))\(rootFiles.count > 2 ? ", …" : ""))"
        }
        // the clusters the config declares: the files their paths match, and the Flux Kustomizations there with what
        // they build
        for (d, c) in config.clusters.enumerated() {
            let n = cluster(named: c.name)
            out.clusters[n].declaredAt = c.origin
            out.clusters[n].inferred = nil
            for f in declared[d] {
                sets[n].insert(f)
                for k in objectsOfFile[f] ?? [] where spec(k) != nil && !reached.contains(k) { apply(k, in: c.name) }
            }
        }
        walkRemoteBuilds()
        // a cluster reached through another's kubeConfig stands on what that one stands on (made after it: in order)
        for (remote, by) in remoteOf.sorted(by: { $0.key < $1.key }) where out.clusters[remote].declaredAt == nil {
            out.clusters[remote].inferred = out.clusters[by].inferred
        }
        for c in substitutedBuilders.keys.sorted() {
            for (f, ks) in substitutedBuilders[c]! {
                for k in ks.sorted() where out.kustomizationsOfFile[f]?.contains(k) != true { out.kustomizationsOfFile[f, default: []].append(k) }
            }
        }
        out.unapplied = kustomizations.filter { !reached.contains($0) && !nonResources.contains($0) }
        if anyHeldBack { out.heldBackOnly = out.heldBackOnly.filter { f, _ in !live.contains { $0.contains(f) } } }
        for c in out.clusters.indices { out.clusters[c].kustomizations = members[c].sorted() }
        // a chart kept here that an applied HelmRelease installs: helm-controller reads its Chart.yaml and values files
        // (as suspended as the release that installs it)
        var fileAt: [String: FileID] = [:]
        var chartsLive = Set<FileID>(), chartsSuspended: [FileID: ObjectID] = [:]
        let informative = objectsOfFile.keys.sorted()   // the few files whose objects say what a cluster runs or reads
        for c in sets.indices {
            for f in informative where sets[c].contains(f) {
                for o in objectsOfFile[f] ?? [] {
                    guard case .helmRelease(let h)? = objects[o].flux, let chart = h.chartPath.flatMap(Model.normalizePath) else { continue }
                    if fileAt.isEmpty { for i in files.indices { fileAt[files[i].path] = i } }
                    for name in ["Chart.yaml", "values.yaml", "values.yml"] + h.valuesFiles.map(\.value) {
                        let p = ["Chart.yaml", "values.yaml", "values.yml"].contains(name) ? Sources.join(chart, name) : name
                        guard let n = Model.normalizePath(p), let chartFile = fileAt[n] else { continue }
                        sets[c].insert(chartFile)
                        if let suspended = out.heldBackOnly[f] { chartsSuspended[chartFile] = suspended } else { chartsLive.insert(chartFile) }
                    }
                }
            }
        }
        for (f, k) in chartsSuspended where !chartsLive.contains(f) && !(anyHeldBack && live.contains { $0.contains(f) }) {
            out.heldBackOnly[f] = out.heldBackOnly[f] ?? k
        }
        out.ofFile = Table(repeating: [], count: files.count)
        /// Whether a cluster here applies a file that installs Flux.
        var applied: Bool?
        func installationApplied() -> Bool {
            if applied == nil {
                applied = informative.contains { f in sets.contains { $0.contains(f) }
                    && !installations([f], objects: objects, objectsOfFile: objectsOfFile, files: files).isEmpty }
            }
            return applied!
        }
        let byPath = builds.value.byPath, rank = builds.value.rank
        for c in out.clusters.indices {
            // in path order: a cluster that applies much of the repository picks its files out of all of them in that
            // order (a set lookup each), one that applies few sorts them
            out.clusters[c].files = sets[c].count > byPath.count / 8 ? byPath.filter(sets[c].contains) : sets[c].sorted { rank[$0] < rank[$1] }
            for f in out.clusters[c].files { out.ofFile[f].append(c) }
            let installers = out.clusters[c].syncedBy == nil ? [] : (installersOfSync[out.clusters[c].name] ?? []).filter { !sets[c].contains($0) }
            let ownFiles = informative.filter(sets[c].contains) + installers
            let own = installations(ownFiles, objects: objects, objectsOfFile: objectsOfFile, files: files)
            if let first = own.first {
                out.clusters[c].flux = first.version
                let others = Set(own.map(\.version)).subtracting([first.version])
                out.clusters[c].fluxOrigin = first.origin + (others.isEmpty ? "" : "; it also holds Flux " + others.map(\.description).sorted().joined(separator: ", "))
            } else if ownFiles.contains(where: { files[$0].installsUnwrittenFlux }) {
                // its own installation names no release (operinko/homeops's FluxInstance of flux-operator's default,
                // the latest 2.x): not another directory's, nor the repository's only written one; unknown
            } else if case let name = out.clusters[c].name, !name.isEmpty,
                      case let near = installations(informative.filter { files[$0].path.hasPrefix(name + "/") }, objects: objects,
                                                    objectsOfFile: objectsOfFile, files: files),
                      let first = near.first, near.allSatisfy({ $0.version == first.version }) {
                // its own directory holds an installation its sync does not apply (kingdonb/bootstrap-repo comments
                // `flux-system` out of the cluster's kustomization): what bootstrap installed there
                out.clusters[c].flux = first.version
                out.clusters[c].fluxOrigin = first.origin + ", in the cluster's directory though its sync does not apply it"
            } else if let only = out.only {
                out.clusters[c].flux = only.version
                out.clusters[c].fluxOrigin = only.origin + (out.installations.count == 1 ? ", the repository's only Flux installation"
                                                                                      : ", the version of each Flux installation the repository holds")
                // another cluster's installation, or one no cluster applies (an archived one: operinko/homeops), is not this
                // cluster's: that it runs the same Flux is an assumption
                let name = out.clusters[c].displayName
                out.clusters[c].fluxPremise = "assuming cluster \(name) runs that Flux, "
                    + (installationApplied() ? "as the repository's other clusters do (nothing here installs its own)" : "though no cluster here applies its installation")
                    + "; set fluxVersion of cluster \(name) under clusters: in \(Config.fileName) to name the Flux it runs"
            }
            if let d = config.clusters.first(where: { $0.name == out.clusters[c].name }), let v = d.fluxVersion {
                out.clusters[c].flux = v
                out.clusters[c].fluxPremise = nil
                out.clusters[c].fluxOrigin = "fluxVersion of cluster \(out.clusters[c].displayName) in \(d.origin)"
            }
            // (components cut short by a YAML error define more kinds than were read: which they lack is not known)
            var cutShort = false
            for f in informative where sets[c].contains(f) {
                for o in objectsOfFile[f] ?? [] {
                    if objects[o].isKustomization {
                        for r in objects[o].kustomizeResources { out.clusters[c].remoteImageKinds.formUnion(Self.imageKind(installedBy: r) ?? []) }
                    }
                    guard let d = objects[o].definition, d.group.hasBytesSuffix("toolkit.fluxcd.io") else { continue }
                    out.clusters[c].definesFluxKinds = true
                    if files[f].syntaxError != nil { cutShort = true }
                    if d.group == FluxAPIs.group { out.clusters[c].servedImageAPIs[d.kind] = d.served }
                }
            }
            if cutShort { out.clusters[c].definesFluxKinds = false }
        }
        return out
    }

    /// The clusters whose every root builds one of `failedPaths` (generated builds that fail, `generatedBuildRefusals`)
    /// apply nothing of this repository now: the Flux their installation here names is what they ran when the sync last
    /// built, an assumption (`fluxPremise`), not a fact. A version the config declares stays a fact.
    mutating func assumeFluxOfFailedSyncs(_ failedPaths: Set<String>, objects: Objects, files: Files, config: Config) {
        for c in clusters.indices where clusters[c].fluxOrigin != nil && !clusters[c].roots.isEmpty {
            let roots = clusters[c].roots
            guard !config.clusters.contains(where: { $0.name == clusters[c].name && $0.fluxVersion != nil }),
                  roots.allSatisfy({ objects[$0].fluxKustomization?.path.flatMap(Model.normalizePath).map(failedPaths.contains) ?? false })
            else { continue }
            let root = roots[0], path = objects[root].fluxKustomization!.path.flatMap(Model.normalizePath)!
            clusters[c].fluxPremise = "assuming cluster \(clusters[c].displayName) still runs the Flux \(clusters[c].flux.map { "\($0)" } ?? "") "
                + "it applied before: its sync, Flux Kustomization \(objects[root].name ?? "") (\(files[objects[root].file].path)), cannot "
                + "build ./\(path) now (kustomization-build-fails), so it applies none of this repository's files; set fluxVersion of cluster "
                + "\(clusters[c].displayName) under clusters: in \(Config.fileName) to name the Flux it runs"
        }
    }

    /// The Flux release a GitRepository of Flux's own repository (github.com/fluxcd/flux2, https or ssh) reads at a tag:
    /// Flux, installed from it (rossigee/flux-shared-platform applies its `./manifests/install`).
    static func fluxRelease(readBy o: ManifestObject) -> String? {
        guard case .gitRepository(let spec)? = o.flux, let ref = spec.pinnedRef, ref.hasPrefix("tag "),
              spec.url.flatMap(Model.gitURLKey) == "github.com/fluxcd/flux2" else { return nil }
        return String(ref.dropFirst("tag ".count))
    }

    /// The image-automation kinds whose controller a remote resource of a kustomization installs (fluxcd/flux2's
    /// `…/image-automation-controller/releases/download/v1.2.4/image-automation-controller.crds.yaml`), whose served
    /// versions the files here do not hold.
    static func imageKind(installedBy resource: String) -> [String]? {
        guard Extractor.isRemote(resource) else { return nil }
        if resource.containsBytes("image-automation-controller") { return ["ImageUpdateAutomation"] }
        if resource.containsBytes("image-reflector-controller") { return ["ImageRepository", "ImagePolicy"] }
        return nil
    }

    /// The version of the Flux release whose manifests a kustomization resource installs, as Flux's documentation has
    /// them applied: `https://github.com/fluxcd/flux2/releases/download/v2.4.0/install.yaml`, or the kustomize remote
    /// `github.com/fluxcd/flux2/manifests/install?ref=v2.4.0`.
    static func fluxRelease(installedBy resource: String) -> String? {
        // (every resource of every kustomization asks: a byte search first, Swift's string search is slow)
        guard resource.containsBytes("fluxcd/flux2") else { return nil }
        if let at = resource.firstRange(of: "github.com/fluxcd/flux2/releases/download/"), resource.hasSuffix("/install.yaml") {
            let v = resource[at.upperBound...].dropLast("/install.yaml".count)
            return v.contains("/") ? nil : String(v)
        }
        // (kustomize's `//` marks where the repository ends: `github.com/fluxcd/flux2//manifests/install?ref=v2.0.1`)
        if resource.replacing("//manifests/", with: "/manifests/").contains("github.com/fluxcd/flux2/manifests/install"),
           let ref = resource.firstRange(of: "ref=") {
            return String(resource[ref.upperBound...].prefix { $0 != "&" })
        }
        return nil
    }

    /// The Flux versions that `files` install: a Namespace labelled `app.kubernetes.io/part-of: flux` (or, in Flux 0.8,
    /// `app.kubernetes.io/instance: flux-system`) with its
    /// `app.kubernetes.io/version` (flux bootstrap's `gotk-components.yaml`), or a FluxInstance's distribution version
    /// (in its manifest, or in the values of flux-operator's flux-instance chart).
    static func installations(_ files: [FileID], objects: Objects, objectsOfFile: [FileID: [ObjectID]], files facts: Files)
        -> [(version: FluxVersion, origin: String)] {
        var out: [(version: FluxVersion, origin: String)] = []
        for f in files {
            for (v, by, field) in facts[f].fluxReleases {
                if let version = FluxVersion.parse(v.value) { out.append((version, "\(by) in \(facts[f].path):\(v.span.start.line), \(field) \(v.value)")) }
            }
            for o in objectsOfFile[f] ?? [] {
                let obj = objects[o]
                for r in obj.kustomizeResources {
                    if let v = fluxRelease(installedBy: r), let version = FluxVersion.parse(v) {
                        out.append((version, "the Flux release's install.yaml \(v) that \(facts[f].path) lists"))
                    }
                }
                // (a development build labels its Namespace v0.0.0-dev.0: no release)
                if obj.kind == "Namespace", let v = obj.labels["app.kubernetes.io/version"], !v.contains("-dev"), let version = FluxVersion.parse(v),
                   version != FluxVersion(0, 0, 0) {
                    out.append((version, "app.kubernetes.io/version \(v) of Namespace \(obj.name ?? "") in \(facts[f].path)"))
                } else if case .fluxInstance(let v?)? = obj.flux, let version = FluxVersion.parse(v.value) {
                    out.append((version, "FluxInstance \(obj.name ?? "") in \(facts[f].path), distribution \(v.value)"))
                } else if let v = fluxRelease(readBy: obj), let version = FluxVersion.parse(v) {
                    out.append((version, "GitRepository \(obj.name ?? "") of Flux's repository in \(facts[f].path):\(obj.kindSpan.start.line), tag \(v)"))
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
    public var cluster: ClusterID?
    /// Where the version comes from; nil when nothing says, and current Flux is assumed.
    public var origin: String?

    public init(version: FluxVersion, cluster: ClusterID?, origin: String?) {
        self.version = version
        self.cluster = cluster
        self.origin = origin
    }
}

extension Model {
    /// The Flux of each cluster that applies `file`: `fluxVersion` of the config overrides all; a cluster whose files
    /// do not say runs current Flux. A file of no cluster runs the repository's Flux when it holds one installation.
    public func fluxRuns(ofFile file: FileID) -> [FluxRun] { fluxRuns(in: clusters.of(file)) }

    /// The Flux of each of clusters `applying` (those that deploy an object, `clusters(deploying:)`: where the builds of
    /// some clusters delete it with a patch, only the others), as `fluxRuns(ofFile:)` says.
    public func fluxRuns(in applying: [ClusterID]) -> [FluxRun] {
        if let v = config.fluxVersion { return [FluxRun(version: v, cluster: nil, origin: "fluxVersion in \(config.path ?? Config.fileName)")] }
        if !applying.isEmpty {
            return applying.map { c in
                FluxRun(version: clusters.clusters[c].flux ?? .current, cluster: c, origin: clusters.clusters[c].fluxOrigin)
            }
        }
        if let only = clusters.only { return [FluxRun(version: only.version, cluster: nil, origin: only.origin)] }
        // installations of several versions, none of a cluster that applies the file: each may be the one that does
        // (sambaum/k8s's archive beside clusters of 2.7.5 and 2.8.0)
        var written: [FluxRun] = []
        for i in clusters.installations where !written.contains(where: { $0.version == i.version }) {
            written.append(FluxRun(version: i.version, cluster: nil, origin: i.origin))
        }
        return written.isEmpty ? [FluxRun(version: .current, cluster: nil, origin: nil)] : written
    }

    /// The clusters that deploy object `o`: a variant of a patched base object (`variantOf`) those of the builds that
    /// make it, another those that apply its file.
    public func clusters(deploying o: ObjectID) -> [ClusterID] {
        variantClusters[o] ?? clusters.of(objects[o].file)
    }

    /// The ImageRepository policy `p` reads in `cluster`: its own when that cluster deploys it, else the one of the name
    /// its `imageRepositoryRef` gives that the cluster's build makes (a shared base each cluster substitutes: the policy's
    /// text is one, its repository is each cluster's), when exactly one; nil otherwise.
    public func repository(of p: PolicyID, in cluster: ClusterID) -> RepositoryID? {
        let policy = flux.policies[p]
        guard let linked = policy.repository else { return nil }
        if clusters(deploying: flux.repositories[linked].object).contains(cluster) { return linked }
        guard let ref = policy.spec.repositoryName?.value, policy.spec.repositoryNamespace?.containsBytes("${") != true else { return nil }
        let own = flux.repositories(namespace: policy.spec.repositoryNamespace ?? policy.namespace, name: ref)
            .filter { clusters(deploying: flux.repositories[$0].object).contains(cluster) }
        return own.count == 1 ? own[0] : nil
    }

    /// Whether the repository describes the cluster that runs `file`'s objects: its Flux installation is here (one whose
    /// version is read, or Flux's components, whose version may not be: Kru2003/budget-fluxcd's unlabelled copy), or the
    /// config declares the cluster. Where it does not (a tenant's repository), Flux objects may be made outside it.
    public func describesCluster(ofFile file: FileID) -> Bool {
        clusters.of(file).contains { c in
            let cluster = clusters.clusters[c]
            return cluster.fluxOrigin != nil || cluster.declaredAt != nil || cluster.files.contains(where: clusters.componentFiles.contains)
        }
    }

    /// What a finding about an object missing from the repository says where the repository does not describe the
    /// cluster: the object may be made outside it.
    public static func madeElsewherePremise(_ what: String) -> String {
        "no Flux installation here is known to run it, so the \(what) may be made outside this repository, as a "
            + "platform's tenant setup does; declare the cluster under clusters: in \(Config.fileName) when this repository describes all of it"
    }

    /// What a finding that holds only for some Flux versions says when `run` is current Flux assumed (nothing here
    /// names the version): the assumption, from which version on the finding holds, and the config key that settles it.
    /// Nil when the version was read from the repository or the config.
    public func fluxAssumption(_ run: FluxRun, holdsFrom version: FluxVersion?) -> String? {
        if let c = run.cluster, config.fluxVersion == nil, let premise = clusters.clusters[c].fluxPremise { return premise }
        guard run.origin == nil else { return nil }
        let cluster = run.cluster.map { " of cluster \(clusters.clusters[$0].displayName)" } ?? ""
        let holds = version.map { "this holds if it runs Flux \($0) or later" } ?? "this holds for current Flux"
        let key = run.cluster.map { "fluxVersion of cluster \(clusters.clusters[$0].displayName) under clusters:" } ?? "fluxVersion"
        return "no Flux version\(cluster) is written here, so current Flux (\(FluxVersion.current)) is assumed: \(holds); "
            + "set \(key) in \(Config.fileName)"
    }

    /// The oldest Flux that runs `file`'s objects: what version-dependent checks of one answer (a policy's tag parsing)
    /// follow. (`fluxRuns`, without building them: every policy of a fleet asks.)
    public func fluxVersion(ofFile file: FileID) -> FluxVersion {
        if let v = config.fluxVersion { return v }
        var oldest: FluxVersion?
        for c in clusters.of(file) {
            let v = clusters.clusters[c].flux ?? .current
            if oldest == nil || v < oldest! { oldest = v }
        }
        return oldest ?? clusters.installations.map(\.version).min() ?? .current
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
            let names = cs.map(\.displayName)
            return (cs.count == 1 ? "cluster " : "\(cs.count) clusters: ") + names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
        }
        var parts: [String] = []
        // (2.4 and 2.4.0 are one version in order, two in text: the text decides between them, not the dictionary)
        let known = byVersion.compactMap { entry in entry.key.map { ($0, entry.value) } }
            .sorted { $0.0 < $1.0 || !($1.0 < $0.0) && $0.0.description < $1.0.description }
        for (v, cs) in known {
            let origin = byVersion.count == 1 && cs.count == 1 ? " (\(cs[0].fluxOrigin ?? ""))" : ""
            parts.append("\(v) in \(named(cs))\(origin)")
        }
        if let unknown = byVersion[nil] { parts.append("version unknown in \(named(unknown)): \(assume)") }
        return parts.joined(separator: "; ")
    }

    /// The report header's line on the files under `prefix` (the audit's PATH; nil or "" for all) that are not
    /// applied, and how to say what applies them; nil when every one is applied.
    public func appliedHeader(under prefix: String?) -> String? {
        var unreached = 0, notDeployed = 0, assumed = 0, suspended = 0, pinned = 0, undefinedSource = 0
        let prefix = prefix ?? ""
        for (f, r) in clusters.reach.withIDs {
            if !prefix.isEmpty, prefix != ".", files[f].path != prefix, !files[f].path.hasPrefix(prefix + "/") { continue }
            switch r {
            case .applied: break
            case .unreached: unreached += 1
            case .notDeployed: notDeployed += 1
            case .assumed:
                if clusters.isOnlySuspended(f) { suspended += 1 } else if clusters.isOnlyPinned(f) {
                    if objects[clusters.heldBackOnly[f]!].fluxKustomization?.pinnedRevision != nil { pinned += 1 } else { undefinedSource += 1 }
                } else { assumed += 1 }
            }
        }
        guard unreached + notDeployed + assumed + suspended + pinned + undefinedSource > 0 else { return nil }
        var parts: [String] = []
        if suspended > 0 {
            parts.append("\(suspended) file\(suspended == 1 ? "" : "s") applied only through suspended Flux Kustomizations, judged as "
                         + "warnings at most (declare what the cluster runs under clusters: in \(Config.fileName))")
        }
        if pinned > 0 {
            parts.append("\(pinned) file\(pinned == 1 ? "" : "s") applied only through Flux Kustomizations that build another revision "
                         + "of this repository (a tag, a commit, another branch), judged as warnings at most (declare what the cluster runs under clusters: in \(Config.fileName))")
        }
        if undefinedSource > 0 {
            parts.append("\(undefinedSource) file\(undefinedSource == 1 ? "" : "s") applied only through Flux Kustomizations whose GitRepository "
                         + "no file here defines, judged as warnings at most (define it, or declare what the cluster runs under clusters: in \(Config.fileName))")
        }
        if assumed > 0 {
            let inferred = clusters.clusters.filter { $0.inferred != nil }
            let why = inferred.allSatisfy { $0.syncedBy == nil } ? "whose roots nothing here applies"
                : inferred.allSatisfy { $0.syncedBy != nil } ? "synced from an artifact taken to hold a directory of this repository"
                : "inferred (whose roots nothing here applies, or synced from an artifact taken to hold a directory of this repository)"
            parts.append("\(assumed) file\(assumed == 1 ? "" : "s") of \(inferred.count) cluster\(inferred.count == 1 ? "" : "s") \(why), "
                         + "judged as warnings at most (declare \(inferred.count == 1 ? "it" : "them") under clusters: in \(Config.fileName))")
        }
        if unreached > 0 {
            parts.append("\(unreached) file\(unreached == 1 ? "" : "s") that no cluster here applies, judged as warnings at most "
                         + "(declare what applies \(unreached == 1 ? "it" : "them") under clusters: in \(Config.fileName))")
        }
        if notDeployed > 0 {
            parts.append("\(notDeployed) file\(notDeployed == 1 ? "" : "s") known not to be deployed, judged for syntax and markers only")
        }
        return parts.joined(separator: "; ") + "; tagwarden env --applied lists them"
    }

    /// `tagwarden env`'s account of each cluster: its Flux and where that was read, its roots, what it applies.
    public var clusterLines: [String] {
        var out: [String] = []
        func name(_ k: ObjectID) -> String { "\(qualifiedName(k)) (\(path(objects[k].file)))" }
        for c in clusters.clusters {
            let version = config.fluxVersion.map { "Flux \($0) (fluxVersion in \(config.path ?? Config.fileName))" }
                ?? c.flux.map { "Flux \($0) (\(c.fluxOrigin ?? ""))" } ?? "Flux version unknown: current Flux (\(FluxVersion.current)) assumed"
            out.append("cluster \(c.displayName): \(version)")
            if let at = c.declaredAt { out.append("  declared in: \(at)") }
            if let at = c.syncedBy { out.append("  synced by: the FluxInstance sync at \(at)") }
            if let why = c.inferred { out.append("  inferred: \(why); its files are judged as warnings at most until it is declared") }
            if !c.roots.isEmpty { out.append("  applied from: " + c.roots.map(name).joined(separator: ", ")) }
            if !c.appliedThrough.isEmpty { out.append("  applied through the kubeConfig of: " + c.appliedThrough.map(name).joined(separator: ", ")) }
            if !c.substitute.isEmpty { out.append("  substitutes: " + c.substitute.keys.sorted().joined(separator: ", ") + " (from the config)") }
            out.append("  applies: \(c.files.count) file\(c.files.count == 1 ? "" : "s") through \(c.kustomizations.count) Flux Kustomization\(c.kustomizations.count == 1 ? "" : "s")")
        }
        if !clusters.unapplied.isEmpty {
            out.append("Flux Kustomizations no cluster applies: " + clusters.unapplied.prefix(10).map(name).joined(separator: ", ")
                       + (clusters.unapplied.count > 10 ? " and \(clusters.unapplied.count - 10) more" : "")
                       + (clusters.unreadTemplates.map { " (as far as is read here: \($0))" } ?? ""))
        }
        if clusters.clusters.isEmpty {
            // (Flux Kustomizations of artifacts may build them: what those hold is not read)
            var why = "no flux bootstrap sync, FluxInstance or Flux Kustomization builds this repository's files"
            if let unread = clusters.unreadArtifacts { why += " as far as is read here, but what artifacts hold is not read: \(unread)" }
            else if let unread = clusters.unreadTemplates {
                why += " as far as is read here, but \(unread)"
            }
            out.append("no cluster is described here (\(why); Flux \(fluxHeader))")
        }
        var unreached: [String: Int] = [:]   // directory → files
        var notDeployed = 0, suspended = 0, pinned = 0
        for f in files.indices {
            switch clusters.reach[f] {
            case .applied: break
            case .unreached: unreached[files[f].directory, default: 0] += 1
            case .notDeployed: notDeployed += 1
            case .assumed: if clusters.isOnlySuspended(f) { suspended += 1 } else if clusters.isOnlyPinned(f) { pinned += 1 }
            }
        }
        if suspended > 0 {
            out.append("\(suspended) file\(suspended == 1 ? " is" : "s are") applied only through suspended Flux Kustomizations: judged, "
                       + "findings at most warnings (--applied says which)")
        }
        if pinned > 0 {
            out.append("\(pinned) file\(pinned == 1 ? " is" : "s are") applied only through Flux Kustomizations that build another revision "
                       + "of this repository (a tag, a commit, another branch): judged, findings at most warnings (--applied says which)")
        }
        if !unreached.isEmpty {
            let count = unreached.values.reduce(0, +)
            out.append("\(count) file\(count == 1 ? " is" : "s are") reached by no cluster here: judged, findings at most warnings "
                       + "(declare what applies them under clusters: in \(Config.fileName)); by directory:")
            for (dir, n) in unreached.sorted(by: { $0.key < $1.key }).prefix(20) { out.append("  \(dir.isEmpty ? "." : dir)/  \(n)") }
            if unreached.count > 20 { out.append("  and \(unreached.count - 20) more directories") }
        }
        if notDeployed > 0 {
            out.append("\(notDeployed) file\(notDeployed == 1 ? " is" : "s are") known not to be deployed: syntax and markers only (--applied says why)")
        }
        for r in flux.repositories where !r.unresolvedVariables.isEmpty {
            out.append("not known here: " + r.unresolvedVariables.map { "${\($0)}" }.joined(separator: ", ")
                       + " of ImageRepository \(name(r.object)), image '\(r.spec.image?.value ?? "")' (set under substitute: of its cluster)")
        }
        for a in flux.automations where a.unresolved {
            out.append("not known here: the variables of ImageUpdateAutomation \(name(a.object))'s update.path '\(a.spec.updatePath?.value ?? "")'")
        }
        return out
    }

    /// Directories holding files of objects that no cluster here reaches, with the count of those files, in path order:
    /// what `tagwarden init` lists for the user to declare.
    public var unreachedDirectories: [(directory: String, files: Int)] {
        var counts: [String: Int] = [:]
        for f in Set(objects.map(\.file)) where clusters.reach[f] == .unreached { counts[files[f].directory, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `tagwarden env --applied`: each file, with the clusters and Flux Kustomizations that apply it (none: not applied).
    public var appliedLines: [String] {
        // (of the Flux Kustomizations whose build takes a file, those a cluster applies)
        let applying = Set(clusters.clusters.flatMap(\.kustomizations))
        return files.indices.map { f in
            switch clusters.reach[f] {
            case .applied, .assumed: break
            case .unreached: return "\(files[f].path)  reached by no cluster here (judged, findings at most warnings)"
            case .notDeployed(let why): return "\(files[f].path)  not deployed: \(why)"
            }
            let cs = clusters.of(f).map { clusters.clusters[$0].displayName }
            // (applied with the kustomization that names it)
            if cs.isEmpty, let (k, asData) = clusters.readBy[files[f].path]?.last {
                return "\(files[f].path)  " + (asData ? "read by the build of " : "kustomize configuration of ") + path(k)
            }
            let ks = (clusters.kustomizationsOfFile[f] ?? []).filter(applying.contains).map(qualifiedName)
            let suspended = clusters.heldBackOnly[f].map { k in
                " (only through \(qualifiedName(k)), which " + (objects[k].fluxKustomization.flatMap { k in
                    k.pinnedRevision.map { "builds \($0)" } ?? (k.sourceUndefined ? "reads a GitRepository no file here defines" : nil) } ?? "is suspended")
                    + ": judged as warnings)"
            } ?? ""
            return "\(files[f].path)  cluster \(cs.joined(separator: ", "))" + (ks.isEmpty ? "" : " by \(ks.joined(separator: ", "))") + suspended
        }
    }
}


extension Model {
    /// Whether ImageUpdateAutomation `a` reads a GitRepository that is nowhere to be found: not in the repository, not
    /// made by flux bootstrap's or a FluxInstance's sync, and not read by a cluster's root Kustomization (which shows
    /// that the cluster holds one of that name, made outside the repository). A `sourceRef` of another kind, or none, is
    /// not judged.
    public func automationSourceIsMissing(_ a: FluxIndex.Automation) -> Bool {
        guard (a.spec.sourceKind ?? "GitRepository") == "GitRepository", let name = a.spec.sourceName else { return false }
        if flux.source(of: a) != nil || a.source == .here { return false }
        let namespace = a.spec.sourceNamespace ?? a.namespace
        return !clusters.clusters.flatMap(\.roots).contains { k in
            guard let src = objects[k].fluxKustomization?.source, src.isGitRepository, src.name == name.value else { return false }
            return FluxIndex.sameNamespace(src.namespace ?? objectNamespace[k], namespace)
        }
    }
}
