import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerContested = Rule("marker-contested", scope: .updatePaths) { c in
        let m = c.model
        return m.markers.indices.compactMap { k in
            let info = m.markers[k]
            guard m.markers[k].context == .value, info.skipped == nil, let ref = info.ref, !info.candidates.isEmpty else { return nil }
            let name = "\(ref.namespace)/\(ref.name)"
            let defined = info.candidates.map { p in
                "\(m.flux.policies[p].environment ?? "no environment") (\(m.path(m.objects[m.flux.policies[p].object].file)))"
            }
            let updating = info.updatingEnvironments.map { $0 ?? "no environment" }.sorted()
            let why = updating.count > 1
                ? ", and the automations of \(updating.joined(separator: " and ")) all update this file: each run writes back another environment's tag"
                : ": which one Flux uses depends on the cluster whose automation updates this file"
            return c.finding("this field belongs to no environment, but \(defined.joined(separator: " and ")) each define \(name)\(why); "
                                + "mark the field in each environment's overlay instead", marker: k)
        }
    }
}
