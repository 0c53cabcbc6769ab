import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    /// In a repository of plain manifests, the directory below one named `clusters` that holds `path`, which names a
    /// cluster: objects there meet only those of that cluster's directory, and those outside every such directory (a
    /// directory `cluster` is most often one cluster's tree: rowa78/k8s-gitops's cluster/apps and cluster/platform).
    static func clusterDirectory(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let at = parts.dropLast(2).firstIndex(where: { $0 == "clusters" }) else { return nil }
        return parts[...(at + 1)].joined(separator: "/")
    }

    static let objectDuplicate = Rule("object-duplicate") { c in
        let m = c.model
        struct Key: Hashable { let kind: String, group: String, namespace: String?, name: String, scope: String? }
        var out: [Finding] = []
        // resources with a name that is theirs in every build (a name or namespace with `${…}` is another per build, and
        // builds whose kustomizations add different prefixes or suffixes name it differently)
        let built = BuiltNames(m)
        // (an object's fields are read in place, here and below: a copy of a whole object is a dozen retains and releases)
        func candidate(_ i: ObjectID) -> String? {
            guard !m.objects[i].isKustomization, !m.flux.nonResources.contains(i), m.objects[i].kind != "List",
                  let written = m.objects[i].name, !written.containsBytes("${"), !(m.objectNamespace[i]?.containsBytes("${") ?? false),
                  // a namespace written with `${…}` that the builds make differently (or not at all) is not known
                  m.objectNamespace[i] != nil || !(m.objects[i].declaredNamespace?.containsBytes("${") ?? false) else { return nil }
            return built.name(of: i)
        }
        let transformers = Transformers(m)
        // the files of the builds kustomize refuses for a resource taken twice, and the Flux paths, on first need
        var refusedFiles: Set<FileID>?, fluxPaths = StringSet()
        /// Whether every build that takes object i is one kustomize refuses: what builds it deploys nothing of it
        /// (kustomization-build-fails says so), and it replaces nothing (BayajidAlam/node-fleet). So too where the builds
        /// that take it deploy it only through one refused: a base's kustomization that only an overlay refused for a
        /// resource its base and its tests both hold includes (brunovlucena/homelab's knative-lambda).
        func onlyInRefusedBuilds(_ i: ObjectID) -> Bool {
            let builds = m.sideBySideBuilds(of: m.objects[i].file, kind: m.objects[i].kind, object: i)
            guard !builds.isEmpty else { return false }
            if m.allRefused(builds) { return true }
            if refusedFiles == nil {
                refusedFiles = Set(m.duplicateIDs.refused.filter { $0.generatedAt == nil }.map(\.file))
                fluxPaths = Model.writtenFluxPaths(m.objects)
            }
            guard let refusedFiles, !refusedFiles.isEmpty else { return false }
            /// Whether a way up from `path` reaches a build that deploys it (a Flux Kustomization's path, or a kustomization
            /// nothing includes) past no refused build.
            var visited = Set<String>()
            func deployed(_ path: String, depth: Int) -> Bool {
                guard depth <= IncludeGraph.maxDepth, visited.insert(path).inserted else { return false }
                let includers = m.graph.includers(of: path)
                guard !includers.isEmpty else { return true }
                return includers.contains { k in
                    guard !refusedFiles.contains(m.objects[k].file) else { return false }
                    let dir = m.graph.directory(of: k)
                    return fluxPaths.contains(dir) || deployed(dir, depth: depth + 1)
                }
            }
            return !deployed(m.path(m.objects[i].file), depth: 0)
        }
        /// Whether flux bootstrap itself applies file `f` to bootstrapped cluster `c`: one of its files that no Flux
        /// Kustomization of the cluster builds (nullify005/manager-cluster-state's gotk-components.yaml, which the
        /// cluster's kustomization.yaml does not list). It applies with its own field manager, whose fields
        /// kustomize-controller's server-side apply keeps beside its own.
        func bootstrapApplies(_ f: FileID, in c: ClusterID) -> Bool {
            let cluster = m.clusters.clusters[c]
            guard cluster.inferred == nil, cluster.declaredAt == nil, cluster.syncedBy == nil else { return false }
            return !(m.clusters.kustomizationsOfFile[f] ?? []).contains(where: cluster.kustomizations.contains)
        }
        func report(_ i: ObjectID, _ j: ObjectID, cluster: String?, assumingTogether: Bool = false, bootstrapFile: FileID? = nil) {
            let a = m.objects[i], b = m.objects[j]
            // two of one apiVersion that one kustomize build takes side by side fail it: kustomization-build-fails says so
            if a.apiVersion == b.apiVersion, !Set(m.sideBySideBuilds(of: a.file, kind: a.kind, object: i)).isDisjoint(with: m.sideBySideBuilds(of: b.file, kind: b.kind, object: j)) { return }
            if onlyInRefusedBuilds(i) || onlyInRefusedBuilds(j) { return }
            // a transformer above either (a PatchTransformer's `$patch: delete`) may take it out of its build: not read here
            // (or above a Flux Kustomization that builds either, whose targetNamespace a transformer may set)
            func transformedAbove(_ f: FileID) -> (kustomization: String, config: String)? {
                transformers.above(f) ?? (m.clusters.kustomizationsOfFile[f] ?? []).lazy.compactMap { transformers.above(m.objects[$0].file) }.first
            }
            let transformed = transformedAbove(a.file) ?? transformedAbove(b.file)
            let premises = [transformed.map {
                "assuming the transformers of \($0.kustomization) (\($0.config)), which may delete, rename or patch objects, leave both as written"
            }, (m.namespaceNotKnown[i] ?? m.namespaceNotKnown[j]).map { "assuming both land in one namespace: \($0)" }].compactMap { $0 }
            // plain manifests of two files: nothing here says that one cluster applies both (a directory may hold
            // alternatives, evocloud-dev's cilium-1.17.0.yaml and cilium-1.17.2.yaml), or which applies which; identical
            // copies are redundant either way
            let together = !assumingTogether || a.file == b.file ? nil
                : "assuming one cluster applies both \(m.directory(a.file) != m.directory(b.file) ? "directories" : "files"): "
                    + "nothing in this repository says what applies them; declare its clusters under clusters: in \(Config.fileName)"
            // as the builds name it, in the namespace where the two meet (one the builds put in several may meet in any)
            func namespaces(_ o: ObjectID) -> [String] { m.objectNamespace[o].map { [$0] } ?? m.openNamespaces[o] ?? [] }
            let meeting = namespaces(i).first(where: namespaces(j).contains)
            let identity = "\(a.kind) \(meeting.map { $0 + "/" } ?? "")\(candidate(i) ?? a.name ?? "")"
            let there = "\(m.path(b.file)):\(b.kindSpan.start.line)"
            let inCluster = cluster.map { " applied to cluster \($0)" } ?? ""
            // what the API server reads, not the bytes: comments, order and quoting do not make two objects differ
            switch m.compareContent(i, j, sameIdentity: true) {
            case .same:
                var f = c.finding("\(identity) is also defined, identically, in \(there)\(inCluster): one of the two copies is redundant",
                                  object: i)
                f.ruleSeverity = .note
                for premise in premises { f.assume(premise) }
                out.append(f)
            case .different where bootstrapFile != nil:
                // two appliers, each with its own field manager: the object holds the fields of both copies, and those both
                // set go to kustomize-controller's at each reconciliation, and back to flux bootstrap's when it runs again
                let whose = bootstrapFile == b.file ? "which flux bootstrap applies, and a Flux Kustomization this one"
                    : "which a Flux Kustomization applies, and flux bootstrap this one"
                var f: Finding
                if m.compareContent(i, j, sameIdentity: true, merging: true) == .same {
                    f = c.finding("\(identity) is also defined in \(there)\(inCluster), \(whose): server-side apply keeps the fields of "
                                  + "both copies, and neither sets a field the other sets otherwise, so one does not replace the other", object: i)
                    f.ruleSeverity = .note
                } else {
                    f = c.finding("\(identity) is also defined in \(there)\(inCluster), \(whose), differently: server-side apply keeps "
                                  + "the fields of both copies, but those both set kustomize-controller takes over at every reconciliation, "
                                  + "and flux bootstrap sets them back whenever it runs", object: i)
                }
                for premise in premises { f.assume(premise) }
                out.append(f)
            case let comparison:
                let how = comparison == .different ? "differently: one silently replaces the other"
                    : "the same but for values encrypted with SOPS, which the files cannot compare (SOPS encrypts equal values "
                        + "differently): one of the two copies is redundant if those values are equal, and silently replaces the other if not"
                var f = c.finding("\(identity) is also defined in \(there)\(inCluster), \(how)", object: i)
                for premise in premises + [together].compactMap({ $0 }) { f.assume(premise) }
                out.append(f)
            }
        }
        // the objects of each kind, namespace and name (with where they can meet, when no cluster is described here and
        // no kustomize build takes the file), in path order; most keys have one
        let byCluster = !m.clusters.clusters.isEmpty
        let usesKustomize = !m.includedBy.isEmpty
        // plain manifests meet those of their environment: of one cluster's directory, and those outside every one
        let clusterDirectories = byCluster || usesKustomize ? [] : Set(m.files.indices.compactMap { clusterDirectory(m.path($0)) }).sorted()
        func plainManifestsScopes(_ path: String, environment: String?) -> [String?] {
            let env = environment ?? ""
            if let dir = clusterDirectory(path) { return [env + "\u{0}" + dir] }
            return [environment] + clusterDirectories.map { env + "\u{0}" + $0 }
        }
        var names: [String] = [], keys: [Key] = [], candidates: [ObjectID] = []
        for i in m.objects.indices {
            guard let name = candidate(i) else { continue }
            // without clusters, a file that some kustomize build takes meets by builds; in a repository of builds, one
            // that none takes meets only its own documents (whoever applies it applies them together; saved build
            // output of two clusters does not meet), and nothing under a hidden directory (a test runner's fixtures);
            // where there is no build at all, the files of its environment meet (`kubectl apply -R`), those of a
            // directory `clusters/<name>` only with its own (mrpbennett/home-ops's clusters/corfe and clusters/portland)
            let path = m.path(m.objects[i].file)
            let included = byCluster || m.includedBy[path] != nil
            if !included, usesKustomize, path.hasPrefix(".") || path.contains("/.") { continue }
            let scopes = included ? [nil] : usesKustomize ? [path] : plainManifestsScopes(path, environment: m.objectEnvironment[i])
            // (one the builds put in different namespaces meets what is in any of them: gjcourt/homelab's base Secret
            // that the production and staging overlays each move)
            for scope in scopes {
                for namespace in m.openNamespaces[i].map({ $0.map(Optional.some) }) ?? [m.objectNamespace[i]] {
                    names.append(name)
                    keys.append(Key(kind: m.objects[i].kind, group: m.objects[i].group, namespace: namespace, name: name, scope: scope))
                    candidates.append(i)
                }
            }
        }
        let groups = Model.entriesSharingKey(names: names, keys: keys).map { $0.map { candidates[$0] } }
        let rootsMemo = IncludeGraph.Memo<String, Set<String>>(cycle: [])
        var fluxAt: [String: [ObjectID]] = [:]   // directory → the Flux Kustomizations whose `path` it is
        if !byCluster, !groups.isEmpty {
            // a `path` is of its source's root, which need not be the repository's (an artifact CI makes of
            // `kubernetes/`): when no kustomization is at the path, the one directory of a kustomization that ends with it
            var kustomizationDirs: [String: [String]] = [:]   // last path component → directories of kustomizations
            for o in m.objects where o.isKustomization {
                let dir = m.directory(o.file)
                kustomizationDirs[Path.basename(dir), default: []].append(dir)
            }
            for (i, o) in m.objects.withIDs {
                guard o.isFluxKustomization, let k = o.fluxKustomization, let p = (k.path ?? k.artifactPath).flatMap(Model.normalizePath) else { continue }
                let candidates = kustomizationDirs[Path.basename(p)] ?? []
                if candidates.contains(p) {
                    fluxAt[p, default: []].append(i)
                } else {
                    let ends = Set(candidates.filter { $0.hasSuffix("/" + p) })
                    fluxAt[ends.count == 1 ? ends.first! : p, default: []].append(i)
                }
            }
        }
        var reported = Set<[ObjectID]>()   // (two objects each in several namespaces may meet in more than one)
        for all in groups {
            // variants of one written object are what different builds make of it, not copies; and one a patch renames is
            // applied by another name
            var origins = Set<ObjectID>()
            let same = all.filter { origins.insert(m.variantOf[$0] ?? $0).inserted && !m.renamedByPatch($0) }
            guard same.count > 1 else { continue }
            guard byCluster else {
                // no cluster is described here: objects meet in a build that takes both (kustomizations, and the Flux
                // Kustomizations that build them, followed to what applies them); per-cluster directories that a tool
                // applies each alone, and test fixtures no build takes, do not meet
                for (n, i) in same.enumerated() {
                    let mine = m.buildTops(ofFile: m.objects[i].file, fluxAt: fluxAt, memo: rootsMemo)
                    if let j = same[..<n].first(where: { j in
                        let theirs = m.buildTops(ofFile: m.objects[j].file, fluxAt: fluxAt, memo: rootsMemo)
                        return mine.isEmpty ? theirs.isEmpty : !mine.isDisjoint(with: theirs)
                    }), reported.insert([i, j]).inserted {
                        report(i, j, cluster: nil, assumingTogether: !usesKustomize)
                    }
                }
                continue
            }
            // a cluster applies both: the same chain of builds from its root Flux Kustomizations; the later of each pair
            // in path order is reported, once whichever clusters apply both
            let ordered = same.sorted { a, b in
                let fa = m.objects[a].file, fb = m.objects[b].file
                return fa == fb ? a < b : SourceText.byteLess(m.path(fa), m.path(fb))
            }
            for (n, i) in ordered.enumerated() {
                let mine = m.clusters.of(m.objects[i].file)
                // the first earlier object in a cluster of this one's (a loop: a lazy map's closure would hold a copy of the model)
                var met: (j: ObjectID, c: ClusterID)?
                for j in ordered[..<n] {
                    if let c = m.clusters.of(m.objects[j].file).first(where: mine.contains) { met = (j, c); break }
                }
                guard let (j, c) = met, reported.insert([i, j]).inserted else { continue }
                let fi = m.objects[i].file, fj = m.objects[j].file, bi = bootstrapApplies(fi, in: c)
                let bootstrapFile = bi == bootstrapApplies(fj, in: c) ? nil : bi ? fi : fj
                report(i, j, cluster: m.clusters.clusters.count > 1 ? m.clusters.clusters[c].displayName : nil, bootstrapFile: bootstrapFile)
            }
        }
        // one object that several Flux Kustomizations of a cluster apply
        if byCluster {
            out += SharedAppliers(m: m, c: c, name: candidate, onlyInRefusedBuilds: onlyInRefusedBuilds, transformers: transformers).findings()
        }
        return out
    }

    /// The kustomizations above a file whose `transformers` (PatchTransformer and its kin, in files of their own) may
    /// change what their builds take of it: kustomize's transformer configurations are not followed here.
    struct Transformers {
        let m: Model
        /// Kustomization object → the first of its configuration files that holds a transformer.
        var transforming: [ObjectID: String] = [:]
        let memo = IncludeGraph.Memo<String, (kustomization: String, config: String)?>(cycle: nil)   // a cycle finds nothing

        init(_ m: Model) {
            self.m = m
            let kinds = Dictionary(grouping: m.objects.indices.filter { m.objects[$0].kind.hasBytesSuffix("Transformer") }) { m.path(m.objects[$0].file) }
            guard !kinds.isEmpty else { return }
            // a `transformers:` entry may be a directory whose kustomization builds the transformers (jfroy/flatops's
            // `./transformers`, a `namespace:` over a shared NamespaceTransformer)
            var kustomizationAt: [String: ObjectID] = [:]
            for k in m.objects.indices where m.objects[k].isKustomization && Extractor.isKustomizationPath(m.path(m.objects[k].file)) {
                kustomizationAt[m.directory(m.objects[k].file)] = k
            }
            func holdsTransformer(_ path: String, depth: Int = 0) -> Bool {
                if kinds[path] != nil { return true }
                guard depth < IncludeGraph.maxDepth, let d = kustomizationAt[path] else { return false }
                return m.objects[d].kustomizeResources.contains { Model.resourcePath($0, in: path).map { holdsTransformer($0, depth: depth + 1) } ?? false }
            }
            for k in m.objects.indices where m.objects[k].isKustomization && !m.objects[k].kustomizeConfigFiles.isEmpty {
                let dir = m.directory(m.objects[k].file)
                if let config = m.objects[k].kustomizeConfigFiles.compactMap({ Model.resourcePath($0, in: dir) }).first(where: { holdsTransformer($0) }) {
                    transforming[k] = config
                }
            }
        }

        /// The nearest kustomization above `file` (by `resources`, through the directories that include it) that runs a
        /// transformer, with its configuration file.
        func above(_ file: FileID) -> (kustomization: String, config: String)? {
            guard !transforming.isEmpty else { return nil }
            return find(m.path(file), depth: 0)
        }

        private func find(_ key: String, depth: Int) -> (kustomization: String, config: String)? {
            memo.value(key) {
                for k in m.graph.includers(of: key, depth: depth) {
                    if let config = transforming[k] { return (m.path(m.objects[k].file), config) }
                    if let up = find(m.graph.directory(of: k), depth: depth + 1) { return up }
                }
                return nil
            }
        }
    }
}
