extension Rule {
    static let apiRemoved = Rule("api-removed") { m in
        m.objects.indices.compactMap { i in
            guard let api = m.imageAPI(i), let refused = api.runs.first(where: { !$0.served }) else { return nil }
            let o = m.objects[i]
            var why: String
            if let removed = api.lifetime?.removedIn, refused.run.version.release >= removed {
                why = "removed in Flux \(removed)"
            } else if let since = api.lifetime?.since, refused.run.version.release < since {
                why = "\(api.version) came in Flux \(since)"
            } else if api.lifetime == nil {
                why = "no Flux 2 serves it"
            } else {
                why = "the CustomResourceDefinition of this cluster's Flux components does not serve it"
            }
            let advice = refused.alternatives.first.map { "use \(FluxAPIs.group)/\($0)" }
                ?? "no apiVersion of \(o.kind) is served there: upgrade Flux first"
            return m.finding("api-removed",
                             "\(o.apiVersion) \(o.kind) is not served by \(m.describe(refused.run)) (\(why)): the API server refuses it, "
                                + "and the Kustomization that applies it fails; \(advice)",
                             object: i, span: o.apiVersionSpan)
        }
    }
}

extension Model {
    /// An image-automation object's apiVersion against the Flux of each cluster that applies it: whether that Flux
    /// serves it (its CustomResourceDefinitions say, else the version map) and the versions it serves instead.
    struct ImageAPI {
        var version: String
        var lifetime: (since: FluxVersion?, removedIn: FluxVersion?)?
        var runs: [(run: FluxRun, served: Bool, alternatives: [String])]
    }

    func imageAPI(_ i: Int) -> ImageAPI? {
        let o = objects[i]
        guard o.group == FluxAPIs.group, FluxAPIs.kinds.contains(o.kind), !flux.nonResources.contains(i) else { return nil }
        let version = Model.basename(o.apiVersion)
        let runs = fluxRuns(ofFile: o.file).map { run -> (run: FluxRun, served: Bool, alternatives: [String]) in
            let served = run.cluster.flatMap { clusters.clusters[$0].servedImageAPIs[o.kind] }
                ?? FluxAPIs.served(by: run.version, kind: o.kind)
            return (run, served.contains(version), served.filter { $0 != version })
        }
        return ImageAPI(version: version, lifetime: FluxAPIs.lifetime(kind: o.kind, version: version), runs: runs)
    }

    /// `Flux 2.3 (app.kubernetes.io/version v2.3.0 of Namespace flux-system in clusters/prod/…)`, naming the cluster when
    /// the repository has several; `current Flux (2.9)` where nothing names the version (the report's header says so).
    func describe(_ run: FluxRun) -> String {
        let cluster = run.cluster.flatMap { clusters.clusters.count > 1 ? clusters.clusters[$0].name : nil }.map { " of cluster \($0.isEmpty ? "." : $0)" } ?? ""
        guard let origin = run.origin else { return "current Flux (\(run.version))\(cluster)" }
        return "Flux \(run.version)\(cluster) (\(origin))"
    }
}
