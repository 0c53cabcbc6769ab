import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerDigestStale = Rule("marker-digest-stale", scope: .updatePaths) { c in
        let m = c.model
        // the markers on each image's fields: Flux updates those fields, and only those
        return m.images.indices.compactMap { i in
            let img = m.images[i], ks = img.markers
            guard !ks.isEmpty, img.isParts, let digest = img.digestField,
                  !ks.contains(where: { m.markers[$0].ref?.part == .digest }),
                  let k = ks.first(where: { m.markers[$0].ref?.part == .tag && tagFields.contains(m.markers[$0].fieldKey ?? "") }),
                  m.markers[k].skipped == nil, let ref = m.markers[k].ref,
                  m.markers[k].policy != nil || !m.markers[k].candidates.isEmpty else { return nil }
            var fix = "add {\"$imagepolicy\": \"\(ref.namespace):\(ref.name):digest\"} to it"
            if let p = m.markers[k].policy, !m.flux.policies[p].spec.reflectsDigests {
                fix += " and set digestReflectionPolicy: IfNotPresent on policy \(m.policyName(p))"
            }
            return c.finding("Flux moves this image's tag (the marker on line \(m.markers[k].span.start.line)) but no marker updates this digest: "
                                + "the runtime pulls by digest, so after each update the old image keeps running; \(fix)",
                             image: i, span: digest.span)
        }
    }
}
