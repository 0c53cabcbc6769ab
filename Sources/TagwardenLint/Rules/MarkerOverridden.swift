import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerOverridden = Rule("marker-overridden", scope: .updatePaths) { c in
        let m = c.model
        return m.markers.indices.compactMap { k in
            // (a marker Flux cannot read updates nothing: marker-malformed says so)
            guard m.markers[k].context == .value, m.markers[k].skipped == nil, m.markers[k].ref != nil,
                  let i = m.markers[k].image, !m.images[i].retaggedBy.isEmpty,
                  !m.overridesCarryMarkers(i)   // Flux updates the values that replace it: its updates run
            else { return nil }
            let files = Array(Set(m.images[i].retaggedBy.map { m.path(m.objects[$0].file) })).sorted()
            let named = files.prefix(3).joined(separator: ", ") + (files.count > 3 ? " and \(files.count - 3) more" : "")
            return c.finding("Flux updates this field, but the tag it writes never runs: every build that deploys \(m.images[i].described) "
                             + "sets its own, with an images: entry, a patch or a later values source (\(named)); put the marker on those instead",
                             marker: k)
        }
    }
}
