extension Rule {
    static let markerUnknownPolicy = Rule("marker-unknown-policy") { m in
        let refs = m.flux.policies.map { "\($0.namespace ?? "default"):\($0.name)" }
        let known = Suggester(refs)
        // a policy of that very name in another namespace is the likeliest meaning (indexed on first need)
        var byName: [String: [String]]?
        var hints: [String: String] = [:]   // many markers may share one unknown name
        return m.markers.indices.compactMap { k in
            guard m.markers[k].context == .value, let ref = m.flux.markers[k].ref, m.flux.markers[k].policy == nil,
                  m.flux.markers[k].candidates.isEmpty else { return nil }
            let wanted = "\(ref.namespace):\(ref.name)"
            if hints[wanted] == nil {
                if byName == nil {
                    var index: [String: [String]] = [:]
                    for (p, r) in zip(m.flux.policies, refs) where !(index[p.name]?.contains(r) ?? false) { index[p.name, default: []].append(r) }
                    byName = index
                }
                if let same = byName?[ref.name] {
                    hints[wanted] = ": did you mean " + same.sorted().prefix(3).map { "'\($0)'" }.joined(separator: " or ") + "?"
                } else {
                    hints[wanted] = known.nearest(wanted).map { ": did you mean '\($0)'?" } ?? ""
                }
            }
            let hint = hints[wanted]!
            return m.finding("marker-unknown-policy",
                             "no ImagePolicy \(ref.namespace)/\(ref.name) in the repository, so Flux never updates this field\(hint)",
                             marker: k)
        }
    }
}
