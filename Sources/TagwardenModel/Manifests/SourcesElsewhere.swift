import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
extension Model {
    /// Flux objects whose GitRepository is another repository — a fleet repository's tenants, or automations that
    /// update application repositories — name paths of that repository, not of this one: a Kustomization there builds
    /// none of these files (its `path` is dropped), an automation there updates none of them (`updatesElsewhere`).
    /// A GitRepository is another repository when this one has remotes and its `spec.url` is none of them (compared
    /// as `host/path`: scheme, user, port and `.git` aside, so `git@github.com:acme/fleet.git` is
    /// `https://github.com/acme/fleet`), and some GitRepository of the repository has a remote's URL (so that an SSH
    /// host alias does not make every source look foreign). Otherwise, or for a GitRepository the repository does not
    /// define, nothing is dropped. A Kustomization of an OCIRepository or a Bucket builds a path of that artifact, not of
    /// this tree: its `path` is dropped too (`path: ./` of an artifact is not this repository's root).
    static func markSourcesElsewhere(_ objects: inout Objects, remoteURLs: [String]) {
        for i in objects.indices {
            guard var k = objects[i].fluxKustomization, k.path != nil, let kind = k.source?.kind,
                  ["OCIRepository", "Bucket", "ExternalArtifact"].contains(kind) else { continue }
            k.artifactPath = k.path
            k.path = nil
            objects[i] = objects[i].replacingFlux(.kustomization(k))
        }
        let here = Set(remoteURLs.compactMap(gitURLKey))
        guard !here.isEmpty else { return }
        var sources: [String: [(namespace: String?, url: String)]] = [:]   // GitRepository name → where it points
        for o in objects {
            if case .gitRepository(let g)? = o.flux, let name = o.name, let url = g.url { sources[name, default: []].append((o.declaredNamespace, url)) }
        }
        // a GitRepository of this repository's own URL shows that the URLs compare (an SSH host alias or a mirror
        // would make every source look foreign): without one, nothing is dropped
        guard sources.values.contains(where: { $0.contains { gitURLKey($0.url).map(here.contains) ?? false } }) else { return }
        func elsewhere(kind: String?, name: String?, namespace: String?) -> Bool {
            guard kind == nil || kind == "" || kind == "GitRepository", let name,
                  case let candidates = (sources[name] ?? []).filter({ namespace == nil || $0.namespace == nil || $0.namespace == namespace }),
                  !candidates.isEmpty else { return false }
            // every GitRepository the reference may mean points elsewhere (a URL with `${…}` may point here)
            return candidates.allSatisfy { c in !c.url.containsBytes("${") && gitURLKey(c.url).map { !here.contains($0) } ?? false }
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
