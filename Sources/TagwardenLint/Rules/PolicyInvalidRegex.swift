import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel

extension Rule {
    static let policyInvalidRegex = Rule("policy-invalid-regex") { c in
        let m = c.model
        var out: [Finding] = []
        // the names of an extract that its compiled pattern has no group for (a fleet's policies share a few of each)
        struct Extract: Hashable { let template: String, pattern: ObjectIdentifier }
        var unresolved: [Extract: [String]] = [:]
        for (p, policy) in m.flux.policies.withIDs where !m.flux.nonResources.contains(policy.object) {
            if let e = policy.regexError, let pattern = policy.spec.pattern {
                out.append(c.finding("filterTags.pattern '\(pattern.value)' is not a valid Go regular expression: \(e); Flux stalls the policy",
                                     policy: p, at: pattern))
                continue
            }
            guard let extract = policy.spec.extract, !extract.value.isEmpty else { continue }
            guard let re = policy.regex else {
                out.append(c.finding("filterTags.extract '\(extract.value)' has no pattern to take groups from",
                                     policy: p, at: extract))
                continue
            }
            // a pattern written with `${…}` defines the groups the substitution gives it (calliopeai/astrolift-opscode's
            // templates, `^${IMAGE_TAG_PATTERN}$`)
            if m.patternIsTemplate(p) { continue }
            let key = Extract(template: extract.value, pattern: ObjectIdentifier(re))
            let names: [String]
            if let known = unresolved[key] { names = known } else {
                names = extractReferences(extract.value).filter { !referenceResolves($0, in: re) }
                unresolved[key] = names
            }
            for name in names {
                if Int(name) != nil, !(name.count > 1 && name.hasPrefix("0")) {
                    out.append(c.finding("filterTags.extract '\(extract.value)' uses group $\(name), but the pattern has \(re.captureCount) group\(re.captureCount == 1 ? "" : "s")",
                                         policy: p, at: extract))
                } else {
                    let hint = name.first?.isNumber == true && name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
                        ? " (Go reads '$\(name)' as one name: write '${\(name.prefix { $0.isNumber })}\(name.drop { $0.isNumber })')" : ""
                    out.append(c.finding("filterTags.extract '\(extract.value)' uses group '\(name)', which the pattern does not define\(hint)",
                                         policy: p, at: extract))
                }
            }
        }
        return out
    }

}
