import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let policyUnused = Rule("policy-unused") { c in
        let m = c.model
        // a policy is used where a marker uses it in some build: the variants builds make of one written policy under one
        // name are that policy (a template that each app renames makes policies of their own)
        struct Written: Hashable { let object: ObjectID, namespace: String?, name: String }
        func written(_ p: PolicyID) -> Written {
            let policy = m.flux.policies[p]
            return Written(object: m.variantOf[policy.object] ?? policy.object, namespace: policy.namespace, name: policy.name)
        }
        let used = Set(m.flux.uses.filter { !$0.value.isEmpty }.keys.map(written))
        return m.flux.policies.indices.compactMap { p in
            let policy = m.flux.policies[p]
            guard !m.flux.nonResources.contains(policy.object), !used.contains(written(p)) else { return nil }
            // an automation of its namespace that updates another repository: its markers live there
            let elsewhere = m.flux.automations.indices.contains { a in
                m.flux.automations[a].spec.updatesElsewhere && FluxIndex.sameNamespace(m.flux.automations[a].namespace, policy.namespace)
                    && m.flux.selectorTakes(automation: a, policy: p)
            }
            guard !elsewhere else { return nil }
            return c.finding("no $imagepolicy marker uses policy \(m.policyName(p)): it selects tags nobody deploys",
                             policy: p, span: m.objects[policy.object].kindSpan)
        }
    }
}
