import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerEnvMismatch = Rule("marker-env-mismatch", scope: .updatePaths) { c in
        let m = c.model
        return m.markers.indices.compactMap { k in
            guard m.markers[k].context == .value, m.markers[k].skipped == nil, let p = m.markers[k].policy, let mine = m.markers[k].environment,
                  let theirs = m.objectEnvironment[m.flux.policies[p].object], mine != theirs else { return nil }
            return c.finding("this \(mine) field is updated by policy \(m.policyName(p)), which belongs to \(theirs): \(theirs) builds would land in \(mine)",
                             marker: k)
        }
    }
}
