extension Rule {
    static let policyCrossesEnvironment = Rule("policy-crosses-environment") { m in
        var out: [Finding] = []
        let cache = WitnessCache()
        for p in m.flux.policies.indices where !m.flux.patchObjects.contains(m.flux.policies[p].object) {
            let mine = m.policyEnvironments(p)
            guard !mine.isEmpty, let selectable = m.policyLanguage(p) else { continue }
            let policy = m.flux.policies[p]
            for e in m.environments.environments.indices {
                let name = m.environments.environments[e].name
                guard !mine.contains(name), let theirs = m.environments.environments[e].language,
                      let w = cache.witness(selectable, theirs, environment: e) else { continue }
                let message: String
                if let pattern = policy.spec.pattern?.value, !pattern.isEmpty {
                    message = "pattern '\(pattern)' of policy \(m.policyName(p)) selects \(name) tag '\(w)'"
                } else {
                    message = "policy \(m.policyName(p)) has no tag filter, so it selects every tag, \(name) tag '\(w)' among them"
                }
                out.append(m.finding("policy-crosses-environment", message, policy: p, environment: mine.sorted().first))
            }
        }
        return out
    }
}
