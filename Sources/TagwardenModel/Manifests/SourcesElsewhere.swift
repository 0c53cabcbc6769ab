import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
extension Model {
    /// Flux objects whose GitRepository is another repository — a fleet repository's tenants, or automations that
    /// update application repositories — name paths of that repository, not of this one: a Kustomization there builds
    /// none of these files (its `path` is dropped), an automation there updates none of them (`updatesElsewhere`), and a
    /// HelmRelease's chart there is none of this tree's (its chart path and values files are dropped).
    /// A GitRepository is another repository when its `spec.url` names another repository than this one's URLs
    /// (`hereRepositories`), compared as the repository's path on its host (`gitURLKey`, the host aside: a mirror or an SSH host
    /// alias names the same repository). Without such URLs, only the root of a GitRepository defined here (not
    /// bootstrap's `flux-system`) is dropped; for a GitRepository the repository does not define, nothing is.
    /// A Kustomization of an OCIRepository or a Bucket builds a path of that artifact, not of this tree: its `path` is
    /// dropped too (`path: ./` of an artifact is not this repository's root), but for the source a FluxInstance's sync
    /// makes, whose path is read in the directory the artifact is taken to hold (`artifactSyncs`), as that sync's
    /// cluster assumes. A Kustomization of an ExternalArtifact that an ArtifactGenerator copies from this repository
    /// builds the repository's directory it was copied from (`artifactSource`).
    /// A Kustomization of this repository at a fixed revision, or on a branch other than the checkout's where the
    /// checkout is on the repository's own line (`checkout`), builds files the checkout need not hold: `pinnedRevision`.
    static func markSourcesElsewhere(_ objects: inout Objects, files: Files, here: Set<String>, artifactSyncs: [ArtifactSync],
                                     checkout: Checkout? = nil) {
        let sources = GitSources(objects, files: files)
        // the ArtifactGenerators, with their directories, and the repository's directories, found on first need
        var generators: [(dir: String, generator: FileFacts.ArtifactGenerator)]?
        func allGenerators() -> [(dir: String, generator: FileFacts.ArtifactGenerator)] {
            if generators == nil { generators = files.indices.flatMap { f in files[f].artifactGenerators.map { (files[f].directory, $0) } } }
            return generators!
        }
        var directories: Set<String>?
        func isDirectory(_ dir: String) -> Bool {
            if directories == nil { directories = Set(files.indices.lazy.flatMap { Model.directories(of: files[$0].path) }) }
            return directories!.contains(dir)
        }
        for i in objects.indices {
            guard var k = objects[i].fluxKustomization, let path = k.path, let source = k.source,
                  ["OCIRepository", "Bucket", "ExternalArtifact"].contains(source.kind) else { continue }
            let namespace = source.namespace ?? objects[i].declaredNamespace
            if source.kind == "ExternalArtifact",
               let copied = artifactSource(source.name, namespace: namespace, path: path, near: files[objects[i].file].directory,
                                           generators: allGenerators(), isDirectory: isDirectory, sources: sources, here: here,
                                           artifactSyncs: artifactSyncs) {
                k.path = copied
            } else if let sync = artifactSyncs.first(where: { $0.makes(kind: source.kind, name: source.name, namespace: namespace) }),
                      let placed = normalizePath(Sources.join(sync.root, path)) {
                k.path = placed
            } else {
                k.artifactPath = k.path
                k.path = nil
            }
            objects[i] = objects[i].replacingFlux(.kustomization(k))
        }
        // one of this repository at a tag or a commit builds that revision, which the checkout need not be; so does one
        // on another branch, where the checkout is on the repository's line: its default branch, or one a GitRepository
        // of it reads (a branch Flux renders to, an environment's branch, a branch renamed since), but not a feature
        // branch that will merge into the one Flux reads; and one whose GitRepository no file here defines is taken to
        // be this repository only as a premise (made outside the repository, it may read another)
        if !here.isEmpty {
            // (each URL judged once: the repository's Flux Kustomizations name a handful of sources, each many times)
            var judged: [String: Bool] = [:]
            let isHere = { (url: String) -> Bool in
                if let known = judged[url] { return known }
                let answer = !url.containsBytes("${") && repositoryPath(url).map(here.contains) == true
                judged[url] = answer
                return answer
            }
            let line = checkout.flatMap { $0.line(among: sources.branches(where: isHere)) }
            for i in objects.indices {
                guard var k = objects[i].fluxKustomization, k.path != nil, let src = k.source else { continue }
                let namespace = src.namespace ?? objects[i].declaredNamespace, file = files[objects[i].file].path
                if let ref = sources.pinnedRef(kind: src.kind, name: src.name, namespace: namespace, from: file, files: files, where: isHere) {
                    k.pinnedRevision = "\(ref) of GitRepository \(src.name)"
                } else if let line, let branch = sources.otherBranch(than: line, kind: src.kind, name: src.name, namespace: namespace, from: file,
                                                                    files: files, where: isHere) {
                    k.pinnedRevision = "branch \(branch) of GitRepository \(src.name) (the checkout is on \(line))"
                    k.pinnedBranch = branch
                } else if src.isGitRepository, !src.name.containsBytes("${"), !sources.someNameTaken,
                          sources.candidates(kind: src.kind, name: src.name, namespace: namespace).isEmpty {
                    // made outside the repository, it may read this one or another (a name with a variable may be any
                    // written here, and a FluxInstance's sync of a name not written may make it)
                    k.sourceUndefined = true
                } else {
                    continue
                }
                objects[i] = objects[i].replacingFlux(.kustomization(k))
            }
        }
        guard !here.isEmpty else {
            // nothing says which repository this is: the root of a GitRepository it defines, other than flux bootstrap's
            // (named `flux-system`, or synced from `flux-system/` at the root), is another repository's all the same
            // (`path: ./` of a vendor's or a tenant's repository, devantler-tech's unifi): the root is no evidence that
            // it is this one (`hereRepositories`), and this repository's own root would apply its Flux Kustomizations
            // twice over
            for i in objects.indices {
                guard var k = objects[i].fluxKustomization, k.path?.isEmpty == true, let src = k.source, src.isGitRepository,
                      src.name != "flux-system", files[objects[i].file].directory != "flux-system",
                      case let urls = sources.candidates(kind: src.kind, name: src.name, namespace: src.namespace ?? objects[i].declaredNamespace),
                      !urls.isEmpty, urls.allSatisfy({ !$0.containsBytes("${") && repositoryPath($0) != nil }) else { continue }
                k.path = nil
                objects[i] = objects[i].replacingFlux(.kustomization(k))
            }
            return
        }
        var pointing: [String: Bool] = [:]   // URL → whether it points elsewhere, judged once
        func elsewhere(kind: String?, name: String?, namespace: String?) -> Bool {
            let all = sources.candidates(kind: kind, name: name, namespace: namespace)
            // every GitRepository the reference may mean points elsewhere
            return !all.isEmpty && all.allSatisfy { url in
                if let known = pointing[url] { return known }
                let away = pointsElsewhere(url, here: here)
                pointing[url] = away
                return away
            }
        }
        for i in objects.indices {
            switch objects[i].flux {
            case .kustomization(var k)?:
                guard let src = k.source, elsewhere(kind: src.kind, name: src.name, namespace: src.namespace ?? objects[i].declaredNamespace)
                else { continue }
                k.path = nil
                objects[i] = objects[i].replacingFlux(.kustomization(k))
            case .automation(var a)?:
                guard elsewhere(kind: a.sourceKind, name: a.sourceName?.value, namespace: a.sourceNamespace ?? objects[i].declaredNamespace) else { continue }
                a.updatesElsewhere = true
                objects[i] = objects[i].replacingFlux(.automation(a))
            case .helmRelease(var h)?:
                // a chart of another repository's GitRepository: its path and values files are that repository's, not
                // this tree's (source-controller builds the chart inside that source's artifact)
                guard let src = h.chartSource, h.chartPath != nil,
                      elsewhere(kind: "GitRepository", name: src.name, namespace: src.namespace ?? objects[i].declaredNamespace) else { continue }
                h.chartPath = nil
                h.valuesFiles = []
                objects[i] = objects[i].replacingFlux(.helmRelease(h))
            default:
                continue
            }
        }
    }

    /// A FluxInstance's sync of an artifact (an OCIRepository or a Bucket) that is taken to be made of this repository.
    struct ArtifactSync {
        var sync: FileFacts.FluxInstanceSync
        /// The file it is written in, and `file:line` of its path.
        var file: FileID
        var by: String
        /// The directory of the repository the artifact's root is taken to hold ("" for the repository's root).
        var root: String
        /// The directory it applies: `root` and the sync's path.
        var path: String
        /// The premise, as a finding's message states it.
        var premise: String

        /// Whether a `sourceRef` of `kind`, `name` in `namespace` (nil: not known) means the source the sync makes.
        func makes(kind: String, name: String, namespace: String?) -> Bool {
            kind == sync.kind && name == sync.sourceName && (namespace == nil || sync.sourceNamespace == nil || namespace == sync.sourceNamespace)
        }
    }

    /// The FluxInstance syncs of an artifact that the repository places. The artifact is whatever directory CI pushes
    /// (`flux push artifact --path=./kubernetes`), which the repository's files do not say; a FluxInstance that stands
    /// inside the directory it syncs places it, as flux bootstrap's sync stands in its own path: one in
    /// `kubernetes/clusters/cluster-00/flux-system/` that syncs `./clusters/cluster-00` is taken to sync
    /// `kubernetes/clusters/cluster-00`, with `kubernetes` the artifact's root. An assumption, stated as such; a sync
    /// whose path its own directory does not hold once (or whose path is the artifact's root, which any directory
    /// above it may be) is placed nowhere.
    static func artifactSyncs(files: Files) -> [ArtifactSync] {
        var out: [ArtifactSync] = []
        for f in files.indices {
            for sync in files[f].fluxInstanceSyncs where !sync.isGit {
                guard let path = normalizePath(sync.path.value), !path.isEmpty else { continue }
                // the directories above the sync's file that end with its path
                let found = directories(of: files[f].path).filter { $0 == path || $0.hasSuffix("/" + path) }
                guard found.count == 1 else { continue }
                let applied = found[0], rootDir = applied == path ? "" : String(applied.dropLast(path.count + 1))
                let by = "\(files[f].path):\(sync.path.span.start.line)"
                out.append(ArtifactSync(sync: sync, file: f, by: by, root: rootDir, path: applied, premise:
                    "cluster \(applied) is taken to be what the FluxInstance sync at \(by) applies: ./\(path) of \(sync.kind) "
                    + "\(sync.url ?? sync.sourceName), an artifact taken to be pushed from "
                    + (rootDir.isEmpty ? "this repository's root" : "this repository's directory \(rootDir)")
                    + ", since the sync stands in its \(path)"))
            }
        }
        return out
    }

    /// The directory of this repository that `path` of ExternalArtifact `name` is a copy of: an ArtifactGenerator of its
    /// namespace (the one beside the Kustomization, `near`, where each cluster has its own) copies a directory whole from
    /// a source known to hold this repository (`rootHere`): its contents (`from: "@monorepo/apps/production/**"`,
    /// `to: "@artifact/production/"`), or the directory itself, which lands under its own name (`from:
    /// "@repo/apps/web/app/"`, `to: "@artifact/apps/web/"` makes `apps/web/app/`, as `cp -r` does; a path of the
    /// directory it lands in, where nothing else does, builds it as Flux's generated kustomization would). Nil for
    /// anything else (files, single-level globs, another repository's).
    static func artifactSource(_ name: String, namespace: String?, path: String, near dir: String,
                               generators: [(dir: String, generator: FileFacts.ArtifactGenerator)], isDirectory: (String) -> Bool,
                               sources: GitSources, here: Set<String>, artifactSyncs: [ArtifactSync]) -> String? {
        guard let wanted = normalizePath(path) else { return nil }
        /// The directory of this repository a source's root holds: the root, for a GitRepository known to be this
        /// repository by its URL (or flux bootstrap's `flux-system` where the repository does not define it); for an
        /// OCIRepository or a Bucket a FluxInstance syncs, the directory it is taken to hold.
        func rootHere(_ source: (namespace: String?, name: String, kind: String)) -> String? {
            guard source.kind == "GitRepository" else {
                return artifactSyncs.first { $0.makes(kind: source.kind, name: source.name, namespace: source.namespace) }?.root
            }
            let urls = sources.candidates(kind: "GitRepository", name: source.name, namespace: source.namespace)
            return (urls.isEmpty ? source.name == "flux-system" : urls.contains { repositoryPath($0).map(here.contains) ?? false }) ? "" : nil
        }
        let found = generators.filter { g in
            g.generator.artifacts[name] != nil && (namespace == nil || g.generator.namespace == nil || g.generator.namespace == namespace)
        }
        let beside = found.filter { $0.dir == dir }
        guard let g = beside.count == 1 ? beside[0].generator : found.count == 1 ? found[0].generator : nil else { return nil }
        let copies = g.artifacts[name] ?? []
        var best: (into: String, copied: String)?
        for (from, to) in copies {
            guard from.hasPrefix("@"), to.hasPrefix("@artifact/") || to == "@artifact", let slash = from.firstIndex(of: "/"),
                  let source = g.sources[String(from[from.index(after: from.startIndex)..<slash])], let root = rootHere(source) else { continue }
            var copied = String(from[from.index(after: slash)...]), into = normalizePath(String(to.dropFirst("@artifact".count))) ?? ""
            if copied.hasSuffix("/**") {
                copied.removeLast(3)
            } else {
                // a directory copied whole lands under its name; the directory it lands in holds nothing else
                guard let d = normalizePath(copied), !d.isEmpty, copies.count == 1 || wanted != into,
                      isDirectory(Sources.join(root, d)) else { continue }
                copied = d
                if wanted != into { into = into.isEmpty ? Path.basename(d) : into + "/" + Path.basename(d) }
            }
            guard !copied.contains("*"), !copied.contains("?"), !copied.contains("["),
                  into.isEmpty || wanted == into || wanted.hasPrefix(into + "/") else { continue }
            if best.map({ into.count > $0.into.count }) ?? true { best = (into, Sources.join(root, copied)) }
        }
        guard let (into, copied) = best else { return nil }
        let rest = into.isEmpty ? wanted : normalizePath(String(wanted.dropFirst(into.count))) ?? ""
        return normalizePath(Sources.join(copied, rest))
    }

    /// The repositories (`repositoryPath`) that this one is, as the repository says: the URL of a FluxInstance's sync of a
    /// GitRepository;
    /// the checkout's remotes, where some GitRepository here has one's URL; and the GitRepository of a Flux Kustomization
    /// whose `path` is a directory above its own file. Of those syncs, flux bootstrap's (in a `flux-system` directory, or
    /// named `flux-system`) decide; others only when they name one repository: another repository laid out as this one
    /// has a path above its Kustomization's file too (ipni's index-observer syncs `deploy/manifests/dev/us-east-2` of
    /// its own repository). The root is no evidence, since another repository's `path: ./` holds any file here.
    /// `inferred`: those only the other syncs name (an assumption).
    static func hereRepositories(objects: Objects, files: Files, remoteURLs: [String]) -> (all: Set<String>, inferred: Set<String>) {
        let sources = GitSources(objects, files: files)
        func repository(_ url: String) -> String? { url.containsBytes("${") ? nil : repositoryPath(url) }
        var here = Set<String>()
        for f in files.indices { for sync in files[f].fluxInstanceSyncs where sync.isGit { if let r = sync.url.flatMap(repository) { here.insert(r) } } }
        let remotes = Set(remoteURLs.compactMap(repositoryPath))
        let all = objects.compactMap { o -> String? in if case .gitRepository(let g)? = o.flux { return g.url.flatMap(repository) } else { return nil } }
        if all.contains(where: remotes.contains) { here.formUnion(remotes) }
        var bootstraps = Set<String>(), others = Set<String>()
        for o in objects {
            guard let k = o.fluxKustomization, let src = k.source, let path = k.path.flatMap(normalizePath), !path.isEmpty, path != ".",
                  case let file = files[o.file].path, file.hasPrefix(path + "/") else { continue }
            let bootstrap = Path.basename(Path.dirname(file)) == "flux-system" || o.name == "flux-system" || src.name == "flux-system"
            for url in sources.candidates(kind: src.kind, name: src.name, namespace: src.namespace ?? o.declaredNamespace) {
                if let r = repository(url) { if bootstrap { bootstraps.insert(r) } else { others.insert(r) } }
            }
        }
        // (only where nothing else says which repository this is: d4rkfella/home-ops's FluxInstance syncs it, and its
        // keycloak-operator's `path: ./kubernetes` of keycloak's repository is above its file by chance)
        let inferred = here.isEmpty && bootstraps.isEmpty && others.count == 1 ? others : []
        here.formUnion(!bootstraps.isEmpty ? bootstraps : inferred)
        return (here, inferred)
    }

    /// The GitRepositories of the repository, by name: where each points.
    struct GitSources {
        var byName: [String: [(namespace: String?, url: String, branch: String?, pinnedRef: String?, file: FileID)]] = [:]
        /// A FluxInstance's sync of this repository names its GitRepository neither by `sync.name` nor by a namespace
        /// written: it is taken to be `flux-system`, and may be another.
        var someNameTaken = false
        /// The GitRepositories written here, and those FluxInstances' syncs make: a cluster synced by flux-operator has
        /// its own `flux-system`, beside another cluster's bootstrap sync of that name (vikbaranov/homelab).
        init(_ objects: Objects, files: Files) {
            for o in objects {
                if case .gitRepository(let g)? = o.flux, let name = o.name, let url = g.url {
                    byName[name, default: []].append((o.declaredNamespace, url, g.fetchedBranch, g.pinnedRef, o.file))
                }
            }
            for f in files.indices {
                for sync in files[f].fluxInstanceSyncs where sync.isGit {
                    // `ref` is the GitRepository's `ref.name`: a branch as `refs/heads/…`, any other a fixed revision
                    let ref = sync.ref.flatMap { $0.isEmpty || $0.containsBytes("${") ? nil : $0 }
                    let branch = ref.flatMap(GitRepositorySpec.branch(ofRefName:))
                    let pinned = branch == nil ? ref.map { "name \($0)" } : nil
                    byName[sync.sourceName, default: []].append((sync.sourceNamespace, sync.url ?? "", branch, pinned, f))
                    if sync.sourceNameTaken { someNameTaken = true }
                }
            }
        }
        /// The GitRepositories a reference from `file` may mean, of those several clusters define under one name the
        /// nearest: those whose directories share the most with `file`'s (each cluster's bootstrap sync in its own).
        private func nearest(kind: String?, name: String?, namespace: String?, from file: String, files: Files)
            -> [(namespace: String?, url: String, branch: String?, pinnedRef: String?, file: FileID)] {
            guard kind == nil || kind == "" || kind == "GitRepository", let name else { return [] }
            let all = (byName[name] ?? []).filter { namespace == nil || $0.namespace == nil || $0.namespace == namespace }
            guard all.count > 1 else { return all }
            let mine = Path.dirname(file).split(separator: "/")
            func shared(_ g: FileID) -> Int {
                zip(mine, files[g].directory.split(separator: "/")).prefix { $0 == $1 }.count
            }
            let best = all.map { shared($0.file) }.max() ?? 0
            return all.filter { shared($0.file) == best }
        }
        /// The fixed revision that every GitRepository a reference may mean reads (`tag v1.2`), where `isHere` says each
        /// is this repository; nil otherwise.
        func pinnedRef(kind: String?, name: String?, namespace: String?, from file: String, files: Files, where isHere: (String) -> Bool) -> String? {
            let all = nearest(kind: kind, name: name, namespace: namespace, from: file, files: files)
            guard let first = all.first?.pinnedRef, all.allSatisfy({ $0.pinnedRef == first && isHere($0.url) }) else { return nil }
            return first
        }
        /// The branch other than `line` that every GitRepository a reference may mean reads, where `isHere` says each is
        /// this repository and none is pinned; nil otherwise.
        func otherBranch(than line: String, kind: String?, name: String?, namespace: String?, from file: String, files: Files,
                         where isHere: (String) -> Bool) -> String? {
            let all = nearest(kind: kind, name: name, namespace: namespace, from: file, files: files)
            guard let first = all.first?.branch, first != line,
                  all.allSatisfy({ $0.branch == first && $0.pinnedRef == nil && isHere($0.url) }) else { return nil }
            return first
        }
        /// The URLs of the GitRepositories a reference may mean.
        func candidates(kind: String?, name: String?, namespace: String?) -> [String] {
            sources(kind: kind, name: name, namespace: namespace).map(\.url)
        }
        /// The GitRepositories a reference may mean: URL and branch.
        func sources(kind: String?, name: String?, namespace: String?) -> [(url: String, branch: String?)] {
            guard kind == nil || kind == "" || kind == "GitRepository", let name else { return [] }
            return (byName[name] ?? []).filter { namespace == nil || $0.namespace == nil || $0.namespace == namespace }.map { ($0.url, $0.branch) }
        }
        /// The branches the GitRepositories whose URL `isHere` says is this repository read: several are several
        /// revisions of it (a rendered branch per environment), of which the files here are one.
        func branches(where isHere: (String) -> Bool) -> Set<String> {
            Set(byName.values.flatMap { $0 }.filter { isHere($0.url) }.compactMap(\.branch))
        }
    }

    /// Whether git URL `url` certainly names another repository than those of `here` (`repositoryPath`s). A variable
    /// (`${…}`) may stand for any text: such a URL points elsewhere where no repository of `here` fits the rest of its
    /// path (`http://git.home.${SECRET_DOMAIN}/brandon/other.git`, mrwulf/home-cluster), and may point here otherwise.
    static func pointsElsewhere(_ url: String, here: Set<String>) -> Bool {
        guard let path = repositoryPath(url) else { return false }
        guard path.containsBytes("${") else { return !here.contains(path) }
        // the literal pieces between the variables, in order
        var pieces: [Substring] = [], rest = Substring(path)
        while let open = rest.firstRange(of: "${") {
            pieces.append(rest[..<open.lowerBound])
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else { return false }
            rest = rest[rest.index(after: close)...]
        }
        pieces.append(rest)
        func fits(_ repository: String) -> Bool {
            var left = Substring(repository)
            guard left.hasPrefix(pieces[0]) else { return false }
            left = left.dropFirst(pieces[0].count)
            for piece in pieces.dropFirst().dropLast() {
                guard let at = left.firstRange(of: piece) else { return false }
                left = left[at.upperBound...]
            }
            return left.hasSuffix(pieces.last!) && left.count >= pieces.last!.count
        }
        return !here.contains(where: fits)
    }

    /// The repository a git URL names, as its path on its host (`gitURLKey` without the host): `acme/fleet`.
    static func repositoryPath(_ url: String) -> String? {
        gitURLKey(url).flatMap { $0.split(separator: "/", maxSplits: 1).last.map(String.init) }
    }

    /// `host/path` of a git URL, lower-cased: `ssh://git@github.com:22/acme/fleet.git`, `git@github.com:acme/fleet`
    /// and `https://github.com/acme/fleet/` are `github.com/acme/fleet`; nil for what is no URL.
    static func gitURLKey(_ url: String) -> String? {
        var s = Substring(url.lowercased())
        if let scheme = s.firstRange(of: "://") {
            s = s[scheme.upperBound...]
        } else if let colon = s.firstIndex(of: ":"), !s[..<colon].contains("/") {
            // scp-like `user@host:path`
            s = s[..<colon] + "/" + s[s.index(after: colon)...]
        }
        if let slash = s.firstIndex(of: "/"), let at = s[..<slash].lastIndex(of: "@") { s = s[s.index(after: at)...] }
        guard let slash = s.firstIndex(of: "/") else { return nil }
        var host = s[..<slash], path = s[s.index(after: slash)...]
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        while path.hasSuffix("/") { path = path.dropLast() }
        if path.hasSuffix(".git") { path = path.dropLast(4) }
        guard !host.isEmpty, !path.isEmpty else { return nil }
        return "\(host)/\(path)"
    }
}
