import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel

extension Rule {
    /// Text with a version in it (`1.9`), and, for the first, second and third number of a text, that it has one digit,
    /// and that it has more: version-like keys whose number at one place can be written both ways sort byte by byte out
    /// of version order ('v1.10' before 'v1.9'). Numbers of a fixed width (a date, `2024.01.31`) sort right.
    static let versionLike = try? GoRegex(#"[0-9]+\.[0-9]+"#)
    static let numberWidths: [(one: GoRegex, more: GoRegex)] = (0..<3).compactMap { k in
        let before = "^[^0-9]*" + String(repeating: "[0-9]+[^0-9]+", count: k)
        guard let one = try? GoRegex(before + "[0-9]([^0-9]|$)"), let more = try? GoRegex(before + "[0-9]{2,}") else { return nil }
        return (one, more)
    }

    /// A key Go's ParseFloat rejects: a character no float literal has, or the empty key.
    static let notNumber = try? GoRegex(#"[^0-9.eEpPxX_+-]|^$|^[eEpPxX_.+-]*$"#)

    static let policyFragileOrder = Rule("policy-fragile-order") { c in
        let m = c.model
        var out: [Finding] = []
        struct Key: Hashable {
            let alphabetical: Bool, filtered: Bool
            /// The compiled pattern (`FluxIndex.build` compiles a distinct pattern once), or the text of one that does not compile.
            let pattern: ObjectIdentifier?, writtenPattern: String?
            let extract: String?
        }
        var verdicts: [Key: String?] = [:]   // the same pattern, extract and order decide the same way
        for p in m.flux.policies.indices where !m.flux.nonResources.contains(m.flux.policies[p].object) {
            let policy = m.flux.policies[p], spec = policy.spec
            // several orderings: Flux takes the first of semver, alphabetical, numerical and ignores the rest (named only
            // then: most policies set one)
            if (spec.semverRange != nil ? 1 : 0) + (spec.hasAlphabetical ? 1 : 0) + (spec.hasNumerical ? 1 : 0) > 1 {
                let kinds = [spec.semverRange != nil ? "semver" : nil, spec.hasAlphabetical ? "alphabetical" : nil, spec.hasNumerical ? "numerical" : nil]
                    .compactMap { $0 }
                out.append(c.finding("policy \(m.policyName(p)) sets \(kinds.joined(separator: " and ")): Flux uses \(kinds[0]) "
                                        + "and silently ignores \(kinds.dropFirst().joined(separator: " and ")); keep one", policy: p, at: spec.policyField))
            }
            guard spec.semverRange == nil, spec.hasAlphabetical || spec.hasNumerical else { continue }
            let cacheKey = Key(alphabetical: spec.hasAlphabetical, filtered: spec.hasFilterTags, pattern: policy.regex.map(ObjectIdentifier.init),
                               writtenPattern: policy.regex == nil ? spec.pattern?.value : nil, extract: spec.extract?.value)
            if let known = verdicts[cacheKey] {
                if let message = known { out.append(c.finding(message, policy: p, at: fragileField(m, p))) }
                continue
            }
            verdicts[cacheKey] = .some(nil)
            guard let keys = m.keyLanguage(p) else { continue }
            let extracted = !(spec.extract?.value.isEmpty ?? true)
            let what = extracted ? "key" : "tag"
            var message: String?
            // the text the order turns on: the extracted key, or the part of the tag the pattern matches (a number
            // before or after it varies with whatever tags a registry holds)
            let ordered: TagLanguage? = extracted ? keys
                : !spec.hasFilterTags || (spec.pattern?.value ?? "").isEmpty ? keys
                : m.flux.policies[p].spec.pattern.flatMap { try? GoRegex("^(?:" + $0.value + ")$") }.map { .matching($0) }
            if spec.hasAlphabetical, let ordered, let version = versionLike,
               TagLanguage.witness([ordered, .matching(version)], tagGrammar: false) != nil,
               let (short, long) = numberWidths.lazy.compactMap({ pair -> (String, String)? in
                   guard let a = TagLanguage.witness([ordered, .matching(version), .matching(pair.one)], tagGrammar: false),
                         let b = TagLanguage.witness([ordered, .matching(version), .matching(pair.more)], tagGrammar: false) else { return nil }
                   return (a, b)
               }).first {
                message = "alphabetical order compares version-like \(what)s byte by byte, and their numbers can have one digit or more "
                    + "('\(short)', '\(long)'), so a larger number with more digits sorts before a smaller one ('10' before '9'): use semver, numerical order on a key of digits, or a pattern whose keys all have one width (a timestamp such as '20250101T120000Z')"
            } else if spec.hasNumerical, let re = notNumber,
                      let w = TagLanguage.witness([keys, .matching(re)], tagGrammar: !extracted) {
                message = "numerical order needs numbers, but the \(what) can be '\(w)': one such tag makes Flux fail the whole policy; narrow the pattern to digits"
            }
            verdicts[cacheKey] = .some(message)
            if let message { out.append(c.finding(message, policy: p, at: fragileField(m, p))) }
        }
        return out
    }

    /// The extract, else the pattern; nil for the policy's kind.
    static func fragileField(_ m: Model, _ p: PolicyID) -> Located? {
        let spec = m.flux.policies[p].spec
        return spec.extract ?? spec.pattern
    }
}
