import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerMalformed = Rule("marker-malformed", scope: .updatePaths) { c in
        let m = c.model
        return m.markers.indices.compactMap { k in
            // (in a file Flux never opens, marker-ignored says why it is skipped)
            guard m.markers[k].context == .value, m.markers[k].skipped == nil, let problem = m.markers[k].problem else { return nil }
            return c.finding("$imagepolicy marker Flux cannot read: \(problem)", marker: k)
        }
    }
}
