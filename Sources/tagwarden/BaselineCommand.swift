import TagwardenBasics
import TagwardenModel
import TagwardenLint
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Record today's findings, so that audit and check report only the ones that come after.",
        discussion: """
        Audits the working tree (as tagwarden audit does, without registries) and writes every finding to the baseline \
        file by fingerprint: rule, file, object and a short text each, sorted, so that the file reads well in review and \
        stays the same across unrelated edits (a fingerprint ignores line numbers). Commit it like a lockfile. audit and \
        check then leave its findings out and say how many; an entry that no finding matches any more is a note, and \
        running this again writes the file without it. A pull request's check reads the baseline of its base, so a \
        pull request cannot add its own findings to it.

        Examples:
          tagwarden baseline
          tagwarden baseline --output ci/tagwarden-baseline.json
        """
    )

    @Argument(help: "A directory in the repository (the whole repository is audited; the findings under it are recorded).")
    var path: String = "."

    @Option(name: .shortAndLong, help: "The file to write (default: .tagwarden-baseline.json beside the config in force, else at the repository root).")
    var output: String?

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml from PATH up to the repository root, if any).")
    var config: String?

    @Option(help: "Start from a built-in profile of environment guardrails (strict).")
    var profile: String?

    func run() throws {
        try guarded {
            let ws = try Workspace.open(path: path, configPath: config, knownRules: Catalogue.ids)
            let snapshot = try ws.snapshot(rev: nil, maxFileSize: nil)
            let tip = (ws.repo?.hasHead ?? false) ? "HEAD" : nil
            let report = try ws.audit(snapshot, profile: profile, historyFrom: tip)
            let file = output ?? ws.root + "/" + ws.baselinePath
            try writeFileAtomically(file, Baseline(findings: report.findings).serialized())
            let n = report.findings.count
            writeStderr("tagwarden: \(file): \(n) finding\(n == 1 ? "" : "s") recorded; commit it, and audit and check leave them out\n")
            return 0
        }
    }
}
