import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let policyInvalidSemver = Rule("policy-invalid-semver") { c in
        let m = c.model
        return m.flux.policies.indices.compactMap { p -> Finding? in
            guard !m.flux.nonResources.contains(m.flux.policies[p].object), let range = m.flux.policies[p].spec.semverRange else { return nil }
            do {
                _ = try SemverConstraint(range.value)
                return nil
            } catch {
                let text = range.value.isEmpty ? "policy.semver.range is empty" : "policy.semver.range '\(range.value)' is not a valid constraint (\(error))"
                return c.finding("\(text): Flux stalls policy \(m.policyName(p)) with InvalidPolicy",
                                 policy: p, at: range)
            }
        }
    }
}
