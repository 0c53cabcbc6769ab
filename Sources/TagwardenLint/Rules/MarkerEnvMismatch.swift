import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerEnvMismatch = Rule("marker-env-mismatch") { c in
        let m = c.model
        return m.markers.indices.compactMap { k in
            let mk = m.markers[k]
            guard mk.context == .value, let p = mk.policy, let mine = mk.environment,
                  let theirs = m.objectEnvironment[m.flux.policies[p].object], mine != theirs else { return nil }
            guard let skipped = mk.skipped else {
                return c.finding("this \(mine) field is updated by policy \(m.policyName(p)), which belongs to \(theirs): \(theirs) builds would land in \(mine)",
                                 marker: k)
            }
            // an automation updates the file and skips the marker (another namespace, a selector): the field follows
            // no policy of its own environment
            guard m.files[mk.file].fluxCannotRead == nil, !m.flux.covering(m.path(mk.file)).isEmpty else { return nil }
            return c.finding("this \(mine) field names policy \(m.policyName(p)), which belongs to \(theirs), and Flux skips the marker (\(skipped)): "
                             + "no \(mine) policy updates this field; name the \(mine) policy", marker: k)
        }
    }
}
