import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let apiRemoved = Rule("api-removed") { c in
        let m = c.model
        var cache = Model.ImageAPI.Cache()
        let v1Everywhere = m.servesV1Everywhere
        return m.objects.indices.compactMap { i in
            guard let api = m.imageAPI(i, cache: &cache, v1Everywhere: v1Everywhere), let refused = api.runs.first(where: { !$0.served }) else { return nil }
            let o = m.objects[i]
            let advice = refused.alternatives.first.map { "use \(FluxAPIs.group)/\($0)" }
                ?? "no apiVersion of \(o.kind) is served there: upgrade Flux first"
            // a version no Flux ever served (fluxcd/flux2's test data `image.toolkit.fluxcd.io/v1/v2`): whatever is installed
            if api.lifetime == nil {
                let version = o.apiVersion.hasPrefix(FluxAPIs.group + "/") ? String(o.apiVersion.dropFirst(FluxAPIs.group.count + 1)) : api.version
                return c.finding("\(o.apiVersion) \(o.kind) is not served by any Flux (no Flux has a version \(version) of \(o.kind)): the API server "
                                    + "refuses it, and whatever applies it fails (a Flux Kustomization as a whole); use \(FluxAPIs.group)/"
                                    + (FluxAPIs.served(by: refused.run.version, kind: o.kind).first ?? "v1"),
                                 object: i, span: o.apiVersionSpan)
            }
            var by = m.describe(refused.run), why: String, missing: String?
            if refused.byComponents {
                // the cluster's own CustomResourceDefinitions say what its API server serves
                let cluster = refused.run.cluster.map { " of cluster \(m.clusters.clusters[$0].displayName)" } ?? ""
                by = "the Flux components\(cluster)"
                if refused.run.cluster.map({ m.clusters.clusters[$0].servedImageAPIs[o.kind] == nil }) == true {
                    missing = o.kind == "ImageUpdateAutomation" ? "image-automation-controller" : "image-reflector-controller"
                    why = "they define no \(o.kind): \(missing!) is not among them"
                } else {
                    why = "their CustomResourceDefinition of \(o.kind) serves " + (refused.alternatives.isEmpty ? "no version" : refused.alternatives.joined(separator: ", "))
                }
            } else if let removed = api.lifetime?.removedIn, refused.run.version.release >= removed {
                why = "removed in Flux \(removed)"
            } else if let since = api.lifetime?.since {
                why = "\(api.version) came in Flux \(since)"
            } else {
                why = "no Flux serves it"
            }
            var f = c.finding("\(o.apiVersion) \(o.kind) is not served by \(by) (\(why)): the API server refuses it, "
                                + "and whatever applies it fails (a Flux Kustomization as a whole); "
                                + (missing.map { "install \($0) with them (flux bootstrap --components-extra=image-reflector-controller,"
                                    + "image-automation-controller adds both)" } ?? advice),
                              object: i, span: o.apiVersionSpan)
            if !refused.byComponents, let premise = m.fluxAssumption(refused.run, holdsFrom: api.lifetime?.removedIn) { f.assume(premise) }
            // (components a sync that fails to build last applied: what the cluster runs now is not read here)
            if refused.byComponents, let c = refused.run.cluster, let premise = m.clusters.clusters[c].fluxPremise { f.assume(premise) }
            if let missing { f.assume("assuming \(missing) is not installed apart from these components, by something outside this repository") }
            return f
        }
    }
}

extension Model {
    /// An image-automation object's apiVersion against the Flux of each cluster that applies it: whether that Flux
    /// serves it (its CustomResourceDefinitions say, else the version map) and the versions it serves instead.
    struct ImageAPI {
        /// What decides the verdicts: a fleet's thousands of policies share a few.
        struct Key: Hashable {
            let clusters: [ClusterID], kind: String, version: String
        }
        var version: String
        var lifetime: (since: FluxVersion?, removedIn: FluxVersion?)?
        /// For each Flux that applies it: whether it serves the apiVersion, which it serves instead (newest first), and
        /// whether the cluster's own CustomResourceDefinitions said so.
        var runs: [(run: FluxRun, served: Bool, alternatives: [String], byComponents: Bool)]

        /// The verdicts found so far, and each written object's variants (`variantOf` turned round, made on first need).
        struct Cache {
            var apis: [Key: ImageAPI] = [:]
            var variants: [ObjectID: [ObjectID]]?
        }
    }

    /// `v1Everywhere` is `servesV1Everywhere`, asked once by the rule.
    /// An object that builds patch per cluster is judged in the clusters that deploy any of its variants, so that the
    /// variants of one written object, which share its place, say one thing.
    func imageAPI(_ i: ObjectID, cache: inout ImageAPI.Cache, v1Everywhere: Bool) -> ImageAPI? {
        let o = objects[i]
        switch o.flux {   // the Flux fields of the three image kinds
        case .imageRepository?, .imagePolicy?, .automation?: break
        default: return nil
        }
        // v1, where every Flux here serves it, is served and removed by none: a fleet's thousands of objects stop here
        if v1Everywhere, o.apiVersion == "image.toolkit.fluxcd.io/v1" { return nil }
        guard !flux.nonResources.contains(i) else { return nil }
        let version = Path.basename(o.apiVersion)
        let base = variantOf[i] ?? i
        if cache.variants == nil { cache.variants = variantOf.reduce(into: [:]) { $0[$1.value, default: []].append($1.key) } }
        let deploying = Set(([base] + (cache.variants?[base] ?? [])).flatMap { clusters(deploying: $0) }).sorted()
        let key = ImageAPI.Key(clusters: deploying, kind: o.kind, version: version)
        if let known = cache.apis[key] { return known }
        let runs = fluxRuns(in: deploying).map { run -> (run: FluxRun, served: Bool, alternatives: [String], byComponents: Bool) in
            // the config's fluxVersion overrides what the components say, as it does their version
            // (components that define Flux's kinds but not this one serve none of it: AGarciaRipalda/flux-tyk-gotenberg's
            // bootstrap without image-reflector-controller)
            // (nor where a remote resource installs the kind's controller: fluxcd/flux2's test clusters)
            let crd = config.fluxVersion == nil ? run.cluster.flatMap { c in
                clusters.clusters[c].remoteImageKinds.contains(o.kind) ? nil
                    : clusters.clusters[c].servedImageAPIs[o.kind] ?? (clusters.clusters[c].definesFluxKinds ? [] : nil)
            } : nil
            let served = crd ?? FluxAPIs.served(by: run.version, kind: o.kind)
            // newest first: the advice names the latest the cluster serves
            let alternatives = FluxAPIs.versions.filter { $0 != version && served.contains($0) }
            return (run, served.contains(version), alternatives, crd != nil)
        }
        let api = ImageAPI(version: version, lifetime: FluxAPIs.lifetime(kind: o.kind, version: version), runs: runs)
        cache.apis[key] = api
        return api
    }

    /// Every Flux that runs a file here serves image.toolkit.fluxcd.io/v1 by the version map (2.7 and later), and no
    /// cluster's own CRDs say otherwise.
    var servesV1Everywhere: Bool {
        if let v = config.fluxVersion { return v.release >= FluxVersion(2, 7) }
        if clusters.clusters.isEmpty { return (clusters.only?.version ?? .current).release >= FluxVersion(2, 7) }
        return clusters.clusters.allSatisfy { ($0.flux ?? .current).release >= FluxVersion(2, 7) && $0.servedImageAPIs.isEmpty && !$0.definesFluxKinds }
            && (clusters.only?.version ?? .current).release >= FluxVersion(2, 7)
    }

    /// `Flux 2.3 (app.kubernetes.io/version v2.3.0 of Namespace flux-system in clusters/prod/…)`, naming the cluster when
    /// the repository has several; `current Flux (2.9)` where nothing names the version (the report's header says so).
    func describe(_ run: FluxRun) -> String {
        let cluster = run.cluster.flatMap { clusters.clusters.count > 1 ? clusters.clusters[$0].displayName : nil }.map { " of cluster \($0)" } ?? ""
        guard let origin = run.origin else { return "current Flux (\(run.version))\(cluster)" }
        return "Flux \(run.version)\(cluster) (\(origin))"
    }
}
