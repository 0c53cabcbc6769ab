import TagwardenRegex

extension Rule {
    static let versionLike = try? GoRegex(#"^v?[0-9]+\.[0-9]+"#)
    /// A key Go's ParseFloat rejects: a character no float literal has, or the empty key.
    static let notNumber = try? GoRegex(#"[^0-9.eEpPxX_+-]|^$|^[eEpPxX_.+-]*$"#)

    static let policyFragileOrder = Rule("policy-fragile-order") { m in
        var out: [Finding] = []
        for p in m.flux.policies.indices where !m.flux.patchObjects.contains(m.flux.policies[p].object) {
            let spec = m.flux.policies[p].spec
            guard spec.semverRange == nil, spec.hasAlphabetical || spec.hasNumerical, let keys = m.keyLanguage(p) else { continue }
            let extracted = !(spec.extract?.value.isEmpty ?? true)
            let what = extracted ? "key" : "tag"
            let span = spec.extract?.span ?? spec.pattern?.span ?? m.objects[m.flux.policies[p].object].kindSpan
            if spec.hasAlphabetical, let re = versionLike,
               let w = TagLanguage.witness([keys, .matching(re)], tagGrammar: !extracted) {
                out.append(m.finding("policy-fragile-order",
                                     "alphabetical order compares version-like \(what)s byte by byte ('v1.10' sorts before 'v1.9'), e.g. \(what) '\(w)': use semver, or numerical on a timestamp",
                                     policy: p, span: span))
            } else if spec.hasNumerical, let re = notNumber,
                      let w = TagLanguage.witness([keys, .matching(re)], tagGrammar: !extracted) {
                out.append(m.finding("policy-fragile-order",
                                     "numerical order needs numbers, but the \(what) can be '\(w)': one such tag makes Flux fail the whole policy; narrow the pattern to digits",
                                     policy: p, span: span))
            }
        }
        return out
    }
}
