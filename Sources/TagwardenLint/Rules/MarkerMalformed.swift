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
            guard m.markers[k].context == .value, let problem = m.markers[k].problem else { return nil }
            return c.finding("$imagepolicy marker Flux cannot read: \(problem)", marker: k)
        }
    }
}
