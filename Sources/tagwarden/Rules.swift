import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import TagwardenLint
import TagwardenReport
import ArgumentParser

struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rules", abstract: "List the rule catalogue.")

    enum Format: String, ArgumentChoice {
        case text, json, markdown
    }

    @Option(help: "Output format: text, json, or markdown (docs/rules.md).")
    var format: Format = .text

    func run() throws {
        if format == .markdown {
            writeStdout(RuleDocs.markdown(Catalogue.rules))
            return
        }
        if format == .json {
            let list = JSON.array(Catalogue.rules.map { r in
                .object([("id", .string(r.id)), ("severity", .string(r.severity.rawValue)), ("summary", .string(r.summary)),
                         ("rationale", .string(r.rationale)), ("premises", r.premises.map(JSON.string) ?? .null), ("fix", .string(r.fix))])
            })
            writeStdout(list.serialized(pretty: true) + "\n")
            return
        }
        let width = Catalogue.rules.map(\.id.count).max() ?? 0
        var out = ""
        for r in Catalogue.rules {
            out += r.id.padding(width) + "  " + r.severity.rawValue.padding(7) + "  " + r.summary + "\n"
        }
        out += "\n`tagwarden explain RULE` tells why and how to fix, with examples.\n"
        writeStdout(out)
    }
}

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "explain", abstract: "Explain one rule: what, why, how to fix, examples.")

    @Argument(help: "A rule id, e.g. image-latest-tag.")
    var rule: String

    func run() throws {
        guard let r = Catalogue.info(rule) else {
            let hint = Suggest.nearest(rule, in: Catalogue.rules.map(\.id)).map { " (did you mean '\($0)'?)" } ?? ""
            writeStderr("tagwarden: error: unknown rule '\(rule)'\(hint); `tagwarden rules` lists them\n")
            throw ExitCode(2)
        }
        var out = "\(r.id) (\(r.severity.rawValue))\n\n\(r.summary)\n\nWhy: \(r.rationale)\n\n" + (r.premises.map { "Premises: \($0)\n\n" } ?? "") + "Fix: \(r.fix)\n"
        func show(_ title: String, _ examples: [RuleExample]) {
            for ex in examples {
                out += "\n\(title)" + (ex.description.map { ": \($0)" } ?? "") + "\n"
                if let p = ex.profile { out += "  (with --profile \(p))\n" }
                if let c = ex.config { out += "  .tagwarden.yaml:\n" + c.indented(4) }
                for (path, content) in ex.files {
                    out += "  \(path):\n" + content.indented(4)
                }
                for e in ex.expect { out += "  → \(r.id) at \(e.file):\(e.line):\(e.column)" + (e.message.map { ": \($0)" } ?? "") + "\n" }
            }
        }
        show("Triggers", r.triggering)
        show("Does not trigger", r.nonTriggering)
        writeStdout(out)
    }
}

extension String {
    func padding(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }

    func indented(_ n: Int) -> String {
        let pad = String(repeating: " ", count: n)
        // "\r\n" is one Character in Swift: split on every line break, not only "\n"
        return split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { $0.isEmpty ? "" : pad + $0 }
            .joined(separator: "\n") + (last?.isNewline == true ? "" : "\n")
    }
}
