import TagwardenBasics
import TagwardenYAML
import TagwardenModel
extension Rule {
    static let markerBehind = Rule("marker-behind", scope: .updatePaths) { c in
        guard let registry = c.registry, !registry.behind.isEmpty else { return [] }
        let m = c.model
        var byField: [String: RegistryFacts.Behind] = [:]
        for b in registry.behind { byField["\(b.file):\(b.line):\(b.column)"] = b }
        return m.markers.indices.compactMap { k in
            guard let scalar = m.markers[k].scalar,
                  let b = byField["\(m.files[m.markers[k].file].path):\(scalar.span.start.line):\(scalar.span.start.column)"] else { return nil }
            return c.finding("'\(b.current)' is behind: policy \(b.setter.split(separator: ":").prefix(2).joined(separator: "/")) selects "
                                + "'\(b.selected)' now (Flux writes it on its next run; tagwarden update shows the change)", marker: k)
        }
    }
}
