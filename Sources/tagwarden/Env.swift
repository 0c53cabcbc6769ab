import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import TagwardenLint
import TagwardenReport
import ArgumentParser

struct Env: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the environment model in force, the clusters the repository describes and the Flux each runs, and where each part came from.",
        discussion: """
        A cluster is the chain of builds from flux bootstrap's Kustomizations (or, without them, from the Flux \
        Kustomizations nothing else builds). Objects of files no cluster applies are not judged; markers there \
        only under an ImageUpdateAutomation's update.path. --applied lists every file with what applies it.
        """
    )

    @Argument(help: "A directory in the repository.")
    var path: String = "."

    @Option(help: "Output format: text or json.")
    var format: DataFormat = .text

    @Option(help: "Start from a built-in profile (strict).")
    var profile: String?

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml from PATH up to the repository root, if any).")
    var config: String?

    @Flag(help: "List every file with the clusters and Flux Kustomizations that apply it, or 'not applied'.")
    var applied = false

    func validate() throws {
        if let p = profile, p != "strict" { throw ValidationError("unknown profile '\(p)'; known profiles: strict") }
    }

    func run() throws {
        try guarded {
            let ws = try Workspace.open(path: path, configPath: config)
            let snapshot = try ws.snapshot(rev: nil, maxFileSize: nil)
            let model = try Model.build(snapshot.files, config: ws.config, profile: profile, remoteURLs: snapshot.remoteURLs)
            if format == .json {
                writeStdout(EnvironmentReport.json(model, applied: applied).serialized(pretty: true) + "\n")
            } else {
                writeStdoutLines(EnvironmentReport.text(model, applied: applied))
            }
            return 0
        }
    }
}
