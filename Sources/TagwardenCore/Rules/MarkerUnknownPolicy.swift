extension Rule {
    static let markerUnknownPolicy = Rule("marker-unknown-policy") { m in
        let known = m.flux.policies.map { "\($0.namespace ?? "default"):\($0.name)" }
        return m.markers.indices.compactMap { k in
            guard m.markers[k].context == .value, let ref = m.flux.markers[k].ref, m.flux.markers[k].policy == nil else { return nil }
            let wanted = "\(ref.namespace):\(ref.name)"
            let hint = Suggest.nearest(wanted, in: known).map { ": did you mean '\($0)'?" } ?? ""
            return m.finding("marker-unknown-policy",
                             "no ImagePolicy \(ref.namespace)/\(ref.name) in the repository, so Flux never updates this field\(hint)",
                             marker: k)
        }
    }
}
