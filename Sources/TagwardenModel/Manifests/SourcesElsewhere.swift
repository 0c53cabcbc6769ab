import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
extension Model {
    /// Flux objects whose GitRepository is another repository — a fleet repository's tenants, or automations that
    /// update application repositories — name paths of that repository, not of this one: a Kustomization there builds
    /// none of these files (its `path` is dropped), an automation there updates none of them (`updatesElsewhere`).
    /// A GitRepository is another repository when its `spec.url` names another repository than this one's URLs
    /// (`hereRepositories`), compared as the repository's path on its host (`gitURLKey`, the host aside: a mirror or an SSH host
    /// alias names the same repository). Without such URLs, or for a GitRepository the repository does not define,
    /// nothing is dropped. A Kustomization of an OCIRepository or a Bucket builds a path of that artifact, not of this
    /// tree: its `path` is dropped too (`path: ./` of an artifact is not this repository's root).
    /// A Kustomization of an ExternalArtifact that an ArtifactGenerator copies from this repository builds the
    /// repository's directory it was copied from (`artifactSource`).
    static func markSourcesElsewhere(_ objects: inout Objects, files: Files, here: Set<String>) {
        let sources = GitSources(objects)
        for i in objects.indices {
            guard var k = objects[i].fluxKustomization, let path = k.path, let kind = k.source?.kind,
                  ["OCIRepository", "Bucket", "ExternalArtifact"].contains(kind) else { continue }
            if kind == "ExternalArtifact", let source = k.source,
               let copied = artifactSource(source.name, namespace: source.namespace ?? objects[i].declaredNamespace, path: path,
                                           near: Path.dirname(files[objects[i].file].path), files: files, sources: sources, here: here) {
                k.path = copied
            } else {
                k.artifactPath = k.path
                k.path = nil
            }
            objects[i] = objects[i].replacingFlux(.kustomization(k))
        }
        guard !here.isEmpty else { return }
        func elsewhere(kind: String?, name: String?, namespace: String?) -> Bool {
            let all = sources.candidates(kind: kind, name: name, namespace: namespace)
            // every GitRepository the reference may mean points elsewhere (a URL with `${…}` may point here)
            return !all.isEmpty && all.allSatisfy { url in !url.containsBytes("${") && repositoryPath(url).map { !here.contains($0) } ?? false }
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
            default:
                continue
            }
        }
    }

    /// The directory of this repository that `path` of ExternalArtifact `name` is a copy of: an ArtifactGenerator of its
    /// namespace (the one beside the Kustomization, `near`, where each cluster has its own) copies a directory whole
    /// (`from: "@monorepo/apps/production/**"`, `to: "@artifact/production/"`) from a GitRepository known to be this
    /// repository (`here`, or flux bootstrap's `flux-system` where the repository does not define it); nil for anything
    /// else (files, single-level globs, another repository's).
    static func artifactSource(_ name: String, namespace: String?, path: String, near dir: String, files: Files,
                               sources: GitSources, here: Set<String>) -> String? {
        guard let wanted = normalizePath(path) else { return nil }
        /// Whether the GitRepository is known to be this repository: by its URL, or flux bootstrap's `flux-system` that
        /// bootstrap makes (the repository does not define it).
        func isHere(_ source: (namespace: String?, name: String)) -> Bool {
            let urls = sources.candidates(kind: "GitRepository", name: source.name, namespace: source.namespace)
            return urls.isEmpty ? source.name == "flux-system" : urls.contains { repositoryPath($0).map(here.contains) ?? false }
        }
        var found: [(dir: String, generator: FileFacts.ArtifactGenerator)] = []
        for f in files.indices {
            for g in files[f].artifactGenerators where g.artifacts[name] != nil && (namespace == nil || g.namespace == nil || g.namespace == namespace) {
                found.append((Path.dirname(files[f].path), g))
            }
        }
        let beside = found.filter { $0.dir == dir }
        guard let g = beside.count == 1 ? beside[0].generator : found.count == 1 ? found[0].generator : nil else { return nil }
        var best: (to: String, from: String)?
        for (from, to) in g.artifacts[name] ?? [] {
            guard from.hasPrefix("@"), from.hasSuffix("/**"), to.hasPrefix("@artifact/") || to == "@artifact",
                  let slash = from.firstIndex(of: "/"), let source = g.sources[String(from[from.index(after: from.startIndex)..<slash])],
                  isHere(source) else { continue }
            let copied = String(from[from.index(after: slash)...].dropLast(3)), into = normalizePath(String(to.dropFirst("@artifact".count))) ?? ""
            guard !copied.contains("*"), into.isEmpty || wanted == into || wanted.hasPrefix(into + "/") else { continue }
            if best.map({ into.count > $0.to.count }) ?? true { best = (into, copied) }
        }
        guard let (into, copied) = best else { return nil }
        let rest = into.isEmpty ? wanted : normalizePath(String(wanted.dropFirst(into.count))) ?? ""
        return normalizePath(Sources.join(copied, rest))
    }

    /// The repositories (`repositoryPath`) that this one is, as the repository says: the URL of a FluxInstance's sync;
    /// the checkout's remotes, where some GitRepository here has one's URL; and the GitRepository of a Flux Kustomization
    /// whose `path` is a directory above its own file. Of those syncs, flux bootstrap's (in a `flux-system` directory, or
    /// named `flux-system`) decide; others only when they name one repository: another repository laid out as this one
    /// has a path above its Kustomization's file too (ipni's index-observer syncs `deploy/manifests/dev/us-east-2` of
    /// its own repository). The root is no evidence, since another repository's `path: ./` holds any file here.
    /// `inferred`: those only the other syncs name (an assumption).
    static func hereRepositories(objects: Objects, files: Files, remoteURLs: [String]) -> (all: Set<String>, inferred: Set<String>) {
        let sources = GitSources(objects)
        func repository(_ url: String) -> String? { url.containsBytes("${") ? nil : repositoryPath(url) }
        var here = Set<String>()
        for f in files.indices { for sync in files[f].fluxInstanceSyncs { if let r = sync.url.flatMap(repository) { here.insert(r) } } }
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
        let inferred = bootstraps.isEmpty && others.count == 1 ? others.subtracting(here) : []
        here.formUnion(!bootstraps.isEmpty ? bootstraps : inferred)
        return (here, inferred)
    }

    /// The GitRepositories of the repository, by name: where each points.
    struct GitSources {
        var byName: [String: [(namespace: String?, url: String, branch: String?)]] = [:]
        init(_ objects: Objects) {
            for o in objects {
                if case .gitRepository(let g)? = o.flux, let name = o.name, let url = g.url {
                    byName[name, default: []].append((o.declaredNamespace, url, g.branch))
                }
            }
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
