extension Rule {
    static let policyUnused = Rule("policy-unused") { m in
        m.flux.policies.indices.compactMap { p in
            let policy = m.flux.policies[p]
            guard !m.flux.patchObjects.contains(policy.object), (m.flux.uses[p] ?? []).isEmpty else { return nil }
            return m.finding("policy-unused", "no $imagepolicy marker uses policy \(m.policyName(p)): it selects tags nobody deploys",
                             policy: p, span: m.objects[policy.object].kindSpan)
        }
    }
}
