import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerMixedPolicies = Rule("marker-mixed-policies", scope: .updatePaths) { c in
        let m = c.model
        func ref(_ k: MarkerID) -> MarkerRef? { m.markers[k].ref }
        // the :tag and :digest markers of each image given in parts
        return m.images.compactMap { img in
            let ks = img.markers
            guard ks.count > 1, ks.allSatisfy({ m.markers[$0].skipped == nil }), let t = ks.first(where: { ref($0)?.part == .tag }), let d = ks.first(where: { ref($0)?.part == .digest }),
                  let rt = ref(t), let rd = ref(d), rt.namespace != rd.namespace || rt.name != rd.name else { return nil }
            // two policies that select alike (one ImageRepository; the same filter, order and exclusions) write matching parts
            if let pt = m.markers[t].policy, let pd = m.markers[d].policy, m.selectAlike(pt, pd) { return nil }
            return c.finding("Flux writes this digest from policy \(rd.namespace)/\(rd.name) and the tag beside it (line \(m.markers[t].span.start.line)) from "
                                + "\(rt.namespace)/\(rt.name): the runtime pulls by digest, so it runs what \(rd.name) selects while the tag names what "
                                + "\(rt.name) selects; mark both with one policy",
                             writtenAt: d)
        }
    }
}

extension Model {
    /// Whether two policies always select the same tag: one ImageRepository, and the same filter, order and exclusions.
    func selectAlike(_ a: PolicyID, _ b: PolicyID) -> Bool {
        let pa = flux.policies[a], pb = flux.policies[b]
        guard let ra = pa.repository, ra == pb.repository else { return false }
        let repository = flux.repositories[ra].spec
        return PolicyDefinition(spec: pa.spec, repository: repository).behaviour == PolicyDefinition(spec: pb.spec, repository: repository).behaviour
    }
}
