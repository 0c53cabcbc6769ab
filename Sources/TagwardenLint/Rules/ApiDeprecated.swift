import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let apiDeprecated = Rule("api-deprecated") { c in
        let m = c.model
        var cache = Model.ImageAPI.Cache()
        let v1Everywhere = m.servesV1Everywhere
        return m.objects.indices.compactMap { i in
            guard let api = m.imageAPI(i, cache: &cache, v1Everywhere: v1Everywhere), api.runs.allSatisfy(\.served), let removed = api.lifetime?.removedIn,
                  let nearest = api.runs.max(by: { $0.run.version < $1.run.version }) else { return nil }
            let o = m.objects[i]
            let ahead = nearest.run.version.release.minorsUntil(removed)
            let newer = nearest.alternatives.filter { FluxAPIs.lifetime(kind: o.kind, version: $0)?.removedIn.map { $0 > removed } ?? true }
            let advice = newer.first.map { "use \(FluxAPIs.group)/\($0), which it serves" }
                ?? "no later apiVersion of \(o.kind) is served there: upgrade Flux first (\(FluxAPIs.served(by: removed, kind: o.kind).first.map { "\($0) from Flux \(FluxAPIs.lifetime(kind: o.kind, version: $0)?.since ?? removed)" } ?? "a later apiVersion")), then move to it"
            // where the version is not known, the cluster's own CustomResourceDefinitions say that it serves it
            let by = nearest.byComponents && nearest.run.origin == nil
                ? "the Flux components\(nearest.run.cluster.map { " of cluster \(m.clusters.clusters[$0].displayName)" } ?? "") (their CustomResourceDefinition)"
                : m.describe(nearest.run)
            var f = c.finding("\(o.apiVersion) \(o.kind) is removed in Flux \(removed); \(by) still serve\(by.hasPrefix("the Flux components") ? "" : "s") it: \(advice)",
                              object: i, span: o.apiVersionSpan)
            if ahead >= 2 { f.ruleSeverity = .note }   // a removal two minor releases ahead or more
            return f
        }
    }
}
