extension Rule {
    static let markerIgnored = Rule("marker-ignored") { m in
        var out: [Finding] = []
        for k in m.markers.indices {
            let mk = m.markers[k]
            let path = m.path(mk.file)
            var reason: String?
            // a file that does not parse is skipped whole, before any marker in it is looked at
            if mk.context != .unreadFile, m.files[mk.file].syntaxError != nil {
                out.append(m.finding("marker-ignored", "Flux silently skips this $imagepolicy marker: Flux skips files that do not parse", marker: k))
                continue
            }
            switch mk.context {
            case .commentLine: reason = "it is on a commented-out line"
            case .hiddenHeadComment: reason = "the value below has a comment of its own on its line, which Flux reads instead"
            case .multiLineHeadComment:
                reason = "with the comment line above it, it is part of a head comment of several lines, which Flux cannot read as one JSON object"
            case .blockScalar: reason = "it is text inside a string (a block or quoted scalar), not a comment"
            case .keyLine: reason = "it follows a mapping key, not the scalar value Flux updates (put it after the value, on the value's line)"
            case .alias: reason = "it follows an alias, and Flux only rewrites a value written in place (put the marker after the anchored value)"
            case .other: reason = "it does not follow a scalar value"
            case .unreadFile: reason = "Flux only reads files named *.yaml, *.yml or Kustomization, never \(Model.basename(path))"
            case .value:
                if let ref = m.flux.markers[k].ref, let p = m.flux.markers[k].policy ?? m.flux.markers[k].candidates.first {
                    reason = automationReason(m, path: path, ref: ref, policy: p)
                }
            }
            if let reason { out.append(m.finding("marker-ignored", "Flux silently skips this $imagepolicy marker: \(reason)", marker: k)) }
        }
        return out
    }

    /// Why no ImageUpdateAutomation applies this marker, or nil when one does (or the repository has none).
    static func automationReason(_ m: Model, path: String, ref: MarkerRef, policy p: Int) -> String? {
        let byPath = m.flux.automationsByPath
        guard !byPath.isEmpty else { return nil }
        let covering = m.flux.covering(path)
        if covering.isEmpty {
            return "the file is outside every ImageUpdateAutomation's update.path (\(byPath.keys.map { $0.isEmpty ? "." : $0 }.sorted().joined(separator: ", ")))"
        }
        let sameNamespace = covering.filter { FluxIndex.sameNamespace(m.flux.automations[$0].namespace, ref.namespace) }
        if sameNamespace.isEmpty {
            let namespaces = Set(covering.compactMap { m.flux.automations[$0].namespace }).sorted().joined(separator: ", ")
            return "policy namespace \(ref.namespace) is not the namespace of the automations that update this file (\(namespaces)); Flux only uses policies in an automation's own namespace"
        }
        let labels = m.flux.policies[p].labels
        let selected = sameNamespace.contains { a in
            guard let sel = m.flux.automations[a].spec.policySelector else { return true }
            return m.flux.automations[a].spec.policySelectorExpressions || FluxIndex.matches(sel, labels)
        }
        if !selected { return "policy \(m.policyName(p)) is not selected by the policySelector of the automations that update this file" }
        return nil
    }
}
