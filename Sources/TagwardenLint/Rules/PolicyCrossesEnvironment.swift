import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let policyCrossesEnvironment = Rule("policy-crosses-environment") { c in
        let m = c.model
        var out: [Finding] = []
        let cache = WitnessCache()
        for p in m.flux.policies.indices where !m.flux.nonResources.contains(m.flux.policies[p].object) {
            let mine = m.policyEnvironments(p)   // (sorted, so the receivers are too)
            guard !mine.isEmpty, let selectable = m.policyLanguage(p) else { continue }
            let policy = m.flux.policies[p]
            // a policy of no environment of its own that markers of several use: each of them receives what the
            // policy selects, so another one's tags cross too
            let shared = mine.count > 1 && m.objectEnvironment[policy.object] == nil
            for e in m.environments.environments.indices {
                let name = m.environments.environments[e].name
                let receivers = shared ? mine.filter { $0 != name } : (mine.contains(name) ? [] : mine)
                guard !receivers.isEmpty, let theirs = m.environments.environments[e].language else { continue }
                var message: String
                let budgetSpent = cache.exhausted
                switch cache.search(selectable, theirs, environment: e) {
                case .none:
                    continue
                case .undecided where budgetSpent:
                    // the rule's budget went to earlier policies: this one is not proved safe, and says why
                    message = "policy \(m.policyName(p)) was not analysed: the analysis budget of the run was spent on earlier policies "
                        + "whose patterns outgrow it, so it cannot be proved to select no \(name) tag; simplify those patterns"
                case .undecided:
                    // a guardrail fails closed: what cannot be proved safe is reported, and says why
                    message = "pattern '\(policy.spec.pattern?.value ?? "")' of policy \(m.policyName(p)) is too complex to prove that it selects no \(name) tag (its automaton outgrows the analysis budget): simplify it, e.g. anchor it on the environment's prefix"
                case .witness(let w):
                    if let pattern = policy.spec.pattern?.value, !pattern.isEmpty {
                        message = "pattern '\(pattern)' of policy \(m.policyName(p)) selects \(name) tag '\(w)'"
                    } else {
                        message = "policy \(m.policyName(p)) has no tag filter, so it selects every tag, \(name) tag '\(w)' among them"
                    }
                }
                if shared { message += ", which its markers in \(receivers.joined(separator: " and ")) would receive" }
                var f = c.finding(message, policy: p, environment: receivers.first)
                f.subject = name   // the environment it crosses into
                out.append(f)
            }
        }
        return out
    }
}
