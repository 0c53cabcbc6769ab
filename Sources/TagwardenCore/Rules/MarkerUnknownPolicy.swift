extension Rule {
    static let markerUnknownPolicy = Rule("marker-unknown-policy") { m in
        let known = Suggester(m.flux.policies.map { "\($0.namespace ?? "default"):\($0.name)" })
        var hints: [String: String] = [:]   // many markers may share one unknown name
        return m.markers.indices.compactMap { k in
            guard m.markers[k].context == .value, let ref = m.flux.markers[k].ref, m.flux.markers[k].policy == nil else { return nil }
            let wanted = "\(ref.namespace):\(ref.name)"
            if hints[wanted] == nil { hints[wanted] = known.nearest(wanted).map { ": did you mean '\($0)'?" } ?? "" }
            let hint = hints[wanted]!
            return m.finding("marker-unknown-policy",
                             "no ImagePolicy \(ref.namespace)/\(ref.name) in the repository, so Flux never updates this field\(hint)",
                             marker: k)
        }
    }
}
