import TagwardenLint

/// The rule catalogue as a Markdown document: `docs/rules.md` is this, and the test suite fails while it differs.
public enum RuleDocs {
    public static func markdown(_ rules: [RuleInfo]) -> String {
        var out = """
        # Rules

        Generated from `rules/*.yaml` by `tagwarden rules --format markdown > docs/rules.md`; do not edit by hand. Each
        rule's examples are tests: a triggering example produces exactly the findings listed (and, where given, the
        message), a non-triggering one produces none. The messages are those of files a cluster applies: where an
        example describes no cluster, each finding ends with "(no cluster in this repository applies this file)" and is a
        warning at most, until `clusters:` in .tagwarden.yaml declares what applies the files.
        `tagwarden explain RULE` prints the same in a terminal.

        | Rule | Severity | What it finds |
        |---|---|---|

        """
        for r in rules {
            out += "| [`\(r.id)`](#\(r.id)) | \(r.severity.rawValue) | \(r.summary.replacingPipes) |\n"
        }
        for r in rules {
            out += "\n## \(r.id)\n\n**\(r.severity.rawValue)** · \(r.summary)\n\n**Why.** \(r.rationale)\n\n" + (r.premises.map { "**Premises.** \($0)\n\n" } ?? "") + "**Fix.** \(r.fix)\n"
            for (title, examples) in [("Triggers", r.triggering), ("Does not trigger", r.nonTriggering)] {
                for ex in examples {
                    out += "\n### \(title)" + (ex.description.map { ": \($0)" } ?? "") + "\n\n"
                    if let p = ex.profile { out += "With `--profile \(p)`.\n\n" }
                    if let c = ex.baseConfig { out += block("`.tagwarden.yaml` on the base branch", c) }
                    if let c = ex.config { out += block("`.tagwarden.yaml`", c) }
                    for (path, content) in ex.files { out += block("`\(path)`", content) }
                    for e in ex.expect {
                        out += "- `\(r.id)` at `\(e.file):\(e.line):\(e.column)`" + (e.message.map { ": \($0)" } ?? "") + "\n"
                    }
                    if !ex.expect.isEmpty { out += "\n" }
                }
            }
        }
        while out.hasSuffix("\n\n") { out.removeLast() }
        return out
    }

    static func block(_ title: String, _ content: String) -> String {
        var fence = "```"
        while content.contains(fence) { fence += "`" }
        return "\(title):\n\n\(fence)yaml\n\(content)\(content.hasSuffix("\n") ? "" : "\n")\(fence)\n\n"
    }
}

extension String {
    var replacingPipes: String { split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
}
