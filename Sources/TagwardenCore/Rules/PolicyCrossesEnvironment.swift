extension Rule {
    static let policyCrossesEnvironment = Rule("policy-crosses-environment") { m in
        var out: [Finding] = []
        let cache = WitnessCache()
        for p in m.flux.policies.indices where !m.flux.patchObjects.contains(m.flux.policies[p].object) {
            let mine = m.policyEnvironments(p)
            guard !mine.isEmpty, let selectable = m.policyLanguage(p) else { continue }
            let policy = m.flux.policies[p]
            for env in m.environments.environments where !mine.contains(env.name) {
                guard let theirs = env.language else { continue }
                let key = WitnessCache.Key(pattern: policy.spec.hasFilterTags ? policy.spec.pattern?.value ?? "" : nil, environment: env.name)
                guard let w = cache.witness(key, selectable, theirs) else { continue }
                let message: String
                if let pattern = policy.spec.pattern?.value, !pattern.isEmpty {
                    message = "pattern '\(pattern)' of policy \(m.policyName(p)) selects \(env.name) tag '\(w)'"
                } else {
                    message = "policy \(m.policyName(p)) has no tag filter, so it selects every tag, \(env.name) tag '\(w)' among them"
                }
                out.append(m.finding("policy-crosses-environment", message, policy: p, environment: mine.sorted().first))
            }
        }
        return out
    }
}
