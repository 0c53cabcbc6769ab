extension Rule {
    static let policyInvalidRegex = Rule("policy-invalid-regex") { m in
        var out: [Finding] = []
        for (p, policy) in m.flux.policies.enumerated() where !m.flux.patchObjects.contains(policy.object) {
            if let e = policy.regexError, let pattern = policy.spec.pattern {
                out.append(m.finding("policy-invalid-regex",
                                     "filterTags.pattern '\(pattern.value)' is not a valid Go regular expression: \(e); Flux stalls the policy",
                                     policy: p, span: pattern.span))
                continue
            }
            guard let extract = policy.spec.extract, !extract.value.isEmpty else { continue }
            guard let re = policy.regex else {
                out.append(m.finding("policy-invalid-regex", "filterTags.extract '\(extract.value)' has no pattern to take groups from",
                                     policy: p, span: extract.span))
                continue
            }
            for name in extractReferences(extract.value) {
                if let n = Int(name), !(name.count > 1 && name.hasPrefix("0")) {
                    if n > re.captureCount {
                        out.append(m.finding("policy-invalid-regex",
                                             "filterTags.extract '\(extract.value)' uses group $\(name), but the pattern has \(re.captureCount) group\(re.captureCount == 1 ? "" : "s")",
                                             policy: p, span: extract.span))
                    }
                } else if !re.subexpNames.contains(name) {
                    let hint = name.first?.isNumber == true && name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
                        ? " (Go reads '$\(name)' as one name: write '${\(name.prefix { $0.isNumber })}\(name.drop { $0.isNumber })')" : ""
                    out.append(m.finding("policy-invalid-regex",
                                         "filterTags.extract '\(extract.value)' uses group '\(name)', which the pattern does not define\(hint)",
                                         policy: p, span: extract.span))
                }
            }
        }
        return out
    }

    /// Group names an extract template refers to, by Go's `Expand` rules (`$name`, `${name}`, `$$` is a dollar).
    static func extractReferences(_ template: String) -> [String] {
        let t = Array(template.utf8)
        var out: [String] = []
        var i = 0
        func isName(_ c: UInt8) -> Bool { c == 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }
        while i < t.count {
            guard t[i] == UInt8(ascii: "$"), i + 1 < t.count else { i += 1; continue }
            if t[i + 1] == UInt8(ascii: "$") { i += 2; continue }
            if t[i + 1] == UInt8(ascii: "{") {
                var j = i + 2
                while j < t.count, isName(t[j]) { j += 1 }
                if j < t.count, t[j] == UInt8(ascii: "}"), j > i + 2 { out.append(String(decoding: t[(i + 2)..<j], as: UTF8.self)) }
                i = j + 1
                continue
            }
            var j = i + 1
            while j < t.count, isName(t[j]) { j += 1 }
            if j > i + 1 { out.append(String(decoding: t[(i + 1)..<j], as: UTF8.self)) }
            i = max(j, i + 1)
        }
        return out
    }
}
