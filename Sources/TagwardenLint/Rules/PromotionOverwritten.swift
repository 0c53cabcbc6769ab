import TagwardenBasics
import TagwardenModel
extension Rule {
    static let promotionOverwritten = Rule("promotion-overwritten", scope: .updatePaths) { c in
        guard let registry = c.registry, !registry.behind.isEmpty else { return [] }
        let m = c.model
        return behindMarkers(m, registry).compactMap { k, b in
            guard let i = promotedPin(m, marker: k) else { return nil }
            return c.finding("production pins \(m.images[i].text) here, but policy \(b.setter.split(separator: ":").prefix(2).joined(separator: "/")) "
                             + "selects '\(b.selected)' now, and Flux writes that over the pin on its next run: the promotion (or its rollback) "
                             + "is undone; make the production policy select the promoted tags, or remove the marker", writtenAt: k)
        }
    }
}

extension Rule {
    /// The markers of fields that `update` would change now, with what it would write.
    static func behindMarkers(_ m: Model, _ registry: RegistryFacts) -> [(MarkerID, RegistryFacts.Behind)] {
        var byField: [String: RegistryFacts.Behind] = [:]
        for b in registry.behind { byField["\(b.file):\(b.line):\(b.column)"] = b }
        return m.markers.indices.compactMap { k in
            guard let scalar = m.markers[k].scalar,
                  let b = byField["\(m.files[m.markers[k].file].path):\(scalar.span.start.line):\(scalar.span.start.column)"] else { return nil }
            return (k, b)
        }
    }

    /// The image of marker `k` when it is a promoted image that production pins by digest: what `promote` writes.
    static func promotedPin(_ m: Model, marker k: MarkerID) -> ImageID? {
        guard let i = m.markers[k].image, let production = m.environments.byAlias("production") else { return nil }
        let img = m.images[i]
        return img.environment == production.name && img.promoted && img.digest != nil && !img.retagged ? i : nil
    }
}
