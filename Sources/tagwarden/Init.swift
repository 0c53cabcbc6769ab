import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import TagwardenLint
import TagwardenReport
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write .tagwarden.yaml from what the repository does today: its environments, their tag prefixes, the strict settings it keeps.",
        discussion: """
        Each setting the tags suggest (the prefix all of an environment's tags have) and each of the strict profile is \
        weighed by auditing the repository with it: one that adds no finding, and that the environment's images show \
        (every tag has the prefix, every image is pinned), is written; the strict profile's others are listed in a \
        comment with the findings each would add, \
        so that the audit right after init reports what is wrong whatever the conventions. Refuses to overwrite an \
        existing file unless --force. Review the result and commit it.
        """
    )

    @Argument(help: "A directory in the repository.")
    var path: String = "."

    @Flag(help: "Overwrite an existing .tagwarden.yaml.")
    var force = false

    @Flag(help: "Print the configuration instead of writing it.")
    var stdout = false

    func run() throws {
        try guarded {
            let ws = try Workspace.open(path: path, configPath: nil, knownRules: Catalogue.ids)
            let target = ws.root + "/" + Config.fileName
            if !stdout, !force, access(target, F_OK) == 0 {
                throw TagwardenError("\(target) exists; use --force to overwrite it or --stdout to print a new one")
            }
            let snapshot = try ws.snapshot(rev: nil, maxFileSize: nil)
            let model = try Model.load(snapshot, config: Config(), profile: nil)
            let text = try Self.weighStrictProfile(model, ws: ws, snapshot: snapshot)
            if stdout {
                writeStdout(text)
            } else {
                try writeFileAtomically(target, text)
                writeStderr("wrote \(target)\n")
            }
            return 0
        }
    }

    /// The config of what the repository does today, each candidate setting weighed: the audit under the config with
    /// it against the audit without; one that adds no finding and that the images show is kept (`Candidate.keptToday`),
    /// the strict profile's others are offered in a comment with their count.
    static func weighStrictProfile(_ model: Model, ws: Workspace, snapshot: SourceSnapshot) throws -> String {
        func findings(_ text: String) throws -> Set<String> {
            var w = ws
            w.config = try Config.parse(Array(text.utf8), path: Config.fileName, knownRules: Catalogue.ids)
            let tip = (ws.repo?.hasHead ?? false) ? "HEAD" : nil
            let report = try w.audit(snapshot, profile: nil, historyFrom: tip)
            return Set(report.findings.filter { $0.severity != .note }.map { $0.rule + " " + $0.fingerprint })
        }
        let base = try findings(EnvironmentReport.initialConfig(model))
        var kept: [EnvironmentReport.Candidate] = [], offered: [EnvironmentReport.Candidate] = []
        for var candidate in EnvironmentReport.candidates(model) {
            // a pattern is weighed with its prefix, which it spells
            let with = kept.filter { $0.environment == candidate.environment && $0.key == "tagPrefix" && candidate.key == "tagPattern" }
            candidate.findings = try findings(EnvironmentReport.initialConfig(model, kept: with + [candidate])).subtracting(base).count
            if candidate.keptToday { kept.append(candidate) } else if candidate.strict { offered.append(candidate) }
        }
        let text = EnvironmentReport.initialConfig(model, kept: kept, offered: offered)
        _ = try Config.parse(Array(text.utf8), path: Config.fileName, knownRules: Catalogue.ids)
        return text
    }
}
