import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerDigestUnavailable = Rule("marker-digest-unavailable", scope: .updatePaths) { c in
        let m = c.model
        return m.markers.indices.compactMap { k in
            let mk = m.markers[k]
            guard mk.context == .value, m.markers[k].skipped == nil, let ref = m.markers[k].ref, let p = m.markers[k].policy else { return nil }
            let policy = m.flux.policies[p]
            guard !policy.spec.reflectsDigests else { return nil }
            // (written only for a finding: most pinned references are not one)
            var why: String {
                "policy \(m.policyName(p)) does not reflect digests (digestReflectionPolicy is \(policy.spec.digestReflection ?? "unset, so Never"))"
            }
            switch ref.part {
            case .digest:
                return c.finding("\(why), so Flux writes an empty digest into this field: set digestReflectionPolicy: IfNotPresent on the policy",
                                 writtenAt: k)
            case .reference:
                // the marked scalar is itself the whole pinned reference (a marker on a tag field is marker-wrong-form's)
                guard let i = mk.image, m.images[i].invalid == nil, m.images[i].digest != nil, m.images[i].span == mk.scalar?.span,
                      let name = m.images[i].name else { return nil }
                return c.finding("\(why), so Flux rewrites this pinned reference as \(name):<tag> and drops its digest: set digestReflectionPolicy: IfNotPresent on the policy",
                                 writtenAt: k)
            default:
                return nil
            }
        }
    }
}
