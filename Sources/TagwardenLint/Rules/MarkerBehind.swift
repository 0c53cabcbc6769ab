import TagwardenBasics
import TagwardenYAML
import TagwardenModel
extension Rule {
    static let markerBehind = Rule("marker-behind", scope: .updatePaths) { c in
        guard let registry = c.registry, !registry.behind.isEmpty else { return [] }
        // a promoted pin that the automation writes over is promotion-overwritten's
        return behindMarkers(c.model, registry).compactMap { k, b in
            guard promotedPin(c.model, marker: k) == nil else { return nil }
            return c.finding("'\(b.current)' is behind: policy \(b.setter.split(separator: ":").prefix(2).joined(separator: "/")) selects "
                                + "'\(b.selected)' now (Flux writes it on its next run; tagwarden update shows the change)", writtenAt: k)
        }
    }
}
