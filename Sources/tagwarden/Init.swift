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
        abstract: "Write .tagwarden.yaml: the strict profile and the environments found in the repository.",
        discussion: "Refuses to overwrite an existing file unless --force. Review the result and commit it."
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
            let text = EnvironmentReport.initialConfig(model)
            if stdout {
                writeStdout(text)
            } else {
                try writeFileAtomically(target, text)
                writeStderr("wrote \(target)\n")
            }
            return 0
        }
    }
}
