import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel

/// Tags Flux can read as versions.
func versionLanguages(_ flux: TagParsing) -> [TagLanguage]? {
    switch flux {
    case .current:
        guard let shape = try? GoRegex(#"^v?[0-9]+(\.[0-9]+)?(\.[0-9]+)?(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"#),
              let dots = try? GoRegex(#"\..*\."#) else { return nil }
        return [.matching(shape), .matching(dots)]
    case .legacy:
        guard let strict = try? GoRegex(#"^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"#) else { return nil }
        return [.matching(strict)]
    }
}

extension Rule {
    static let policySelectsNothing = Rule("policy-selects-nothing") { c in
        let m = c.model
        var out: [Finding] = []
        let cache = WitnessCache()
        var firstRefused: PolicyID?  // the first policy not judged because the rule's budget was spent
        // (the pattern is bound to a name only for a finding: read for every policy, it was copied and released each time)
        func pattern(_ p: PolicyID) -> String { m.flux.policies[p].spec.pattern?.value ?? "" }
        for p in m.flux.policies.indices where !m.flux.nonResources.contains(m.flux.policies[p].object) {
            guard let selectable = m.policyLanguage(p), m.flux.policies[p].spec.pattern?.value.isEmpty == false else { continue }
            if cache.exhausted, firstRefused == nil { firstRefused = p }
            let mine = m.policyEnvironments(p)   // (sorted)
            let owned = mine.compactMap { name in
                m.environments.index(named: name).flatMap { e in m.environments.environments[e].language.map { (name, e, $0) } }
            }
            if owned.isEmpty {
                if cache.search(selectable, .any, environment: nil) == .none {
                    out.append(c.finding("pattern '\(pattern(p))' of policy \(m.policyName(p)) cannot match any valid tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})",
                                         policy: p))
                }
                continue
            }
            for (name, e, language) in owned where cache.search(selectable, language, environment: e) == .none {
                out.append(c.finding("no \(name) tag can pass pattern '\(pattern(p))' of policy \(m.policyName(p)): it never selects anything for \(name)",
                                     policy: p, environment: name))
            }
        }
        // a semver policy without extract ranks the tags themselves: they must parse as versions
        for p in m.flux.policies.indices where !m.flux.nonResources.contains(m.flux.policies[p].object) {
            // (the spec's fields are read where the policy holds them: a copy of the whole spec for each policy cost more
            // than the checks; and how Flux parses is asked only of a policy they pass)
            guard m.flux.policies[p].spec.semverRange != nil, m.flux.policies[p].spec.extract?.value.isEmpty ?? true,
                  m.flux.policies[p].spec.pattern?.value.isEmpty == false, let selectable = m.policyLanguage(p) else { continue }
            let flux = m.tagParsing(policy: p)
            guard let versions = versionLanguages(flux) else { continue }
            if cache.exhausted, firstRefused == nil { firstRefused = p }
            if cache.search([selectable] + versions) == .none {
                out.append(c.finding("no tag that pattern '\(pattern(p))' of semver policy \(m.policyName(p)) admits parses as a version\(flux == .current ? " (Flux 2.7+ needs at least two dots, from the start of the tag)" : ""): extract the version, e.g. extract: '$version'",
                                     policy: p))
            }
        }
        if cache.refused > 0, let first = firstRefused {
            var f = c.finding("policy \(m.policyName(first)) and \(cache.refused - 1 == 0 ? "no other" : "later") searches were not judged: the analysis "
                                + "budget of the run was spent on earlier policies whose patterns outgrow it",
                              policy: first)
            f.ruleSeverity = .note
            out.append(f)
        }
        return out
    }
}
