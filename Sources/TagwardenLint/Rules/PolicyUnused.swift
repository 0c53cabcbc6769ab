import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let policyUnused = Rule("policy-unused") { c in
        let m = c.model
        // a written policy is used where a marker uses it in some build (the variants builds make of it are the same policy)
        var used = Set<ObjectID>()
        for (p, markers) in m.flux.uses where !markers.isEmpty {
            let o = m.flux.policies[p].object
            used.insert(m.variantOf[o] ?? o)
        }
        return m.flux.policies.indices.compactMap { p in
            let policy = m.flux.policies[p]
            guard !m.flux.nonResources.contains(policy.object), !used.contains(m.variantOf[policy.object] ?? policy.object) else { return nil }
            // an automation of its namespace that updates another repository: its markers live there
            let elsewhere = m.flux.automations.contains { a in
                a.spec.updatesElsewhere && FluxIndex.sameNamespace(a.namespace, policy.namespace)
                    && (a.spec.policySelector.map { a.spec.policySelectorExpressions || FluxIndex.matches($0, policy.labels) } ?? true)
            }
            guard !elsewhere else { return nil }
            return c.finding("no $imagepolicy marker uses policy \(m.policyName(p)): it selects tags nobody deploys",
                             policy: p, span: m.objects[policy.object].kindSpan)
        }
    }
}
