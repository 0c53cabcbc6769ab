extension Rule {
    static let markerUnknownPolicy = Rule("marker-unknown-policy", everyFile: true) { m in
        var suggester: PolicySuggester?     // built on first need
        var hints: [String: String] = [:]   // many markers may share one unknown name
        return m.markers.indices.compactMap { k in
            guard m.markers[k].context == .value, let ref = m.flux.markers[k].ref, m.flux.markers[k].policy == nil,
                  m.flux.markers[k].candidates.isEmpty else { return nil }
            let wanted = "\(ref.namespace):\(ref.name)"
            if hints[wanted] == nil {
                if suggester == nil { suggester = PolicySuggester(m.flux.policies) }
                let names = suggester!.suggest(namespace: ref.namespace, name: ref.name)
                hints[wanted] = names.isEmpty ? "" : ": did you mean " + names.map { "'\($0.namespace):\($0.name)'" }.joined(separator: " or ") + "?"
            }
            return m.finding("marker-unknown-policy",
                             "no ImagePolicy \(ref.namespace)/\(ref.name) in the repository, so Flux never updates this field\(hints[wanted]!)",
                             marker: k)
        }
    }
}
