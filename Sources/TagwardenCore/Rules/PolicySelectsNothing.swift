import TagwardenRegex

extension Rule {
    static let policySelectsNothing = Rule("policy-selects-nothing") { m in
        var out: [Finding] = []
        let cache = WitnessCache()
        for p in m.flux.policies.indices where !m.flux.patchObjects.contains(m.flux.policies[p].object) {
            guard let selectable = m.policyLanguage(p), let pattern = m.flux.policies[p].spec.pattern?.value, !pattern.isEmpty else { continue }
            let mine = m.policyEnvironments(p).sorted()
            let owned = mine.compactMap { name in m.environments.named(name).flatMap { env in env.language.map { (env.name, $0) } } }
            if owned.isEmpty {
                if cache.witness(pattern, selectable, .any) == nil {
                    out.append(m.finding("policy-selects-nothing",
                                         "pattern '\(pattern)' of policy \(m.policyName(p)) cannot match any valid tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})",
                                         policy: p))
                }
                continue
            }
            for (name, language) in owned where cache.witness(pattern + "\u{0}" + name, selectable, language) == nil {
                out.append(m.finding("policy-selects-nothing",
                                     "no \(name) tag can pass pattern '\(pattern)' of policy \(m.policyName(p)): it never selects anything for \(name)",
                                     policy: p, environment: name))
            }
        }
        return out
    }
}
