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
        commandName: "env",
        abstract: "Show the environment model in force, the clusters the repository describes and the Flux each runs, and where each part came from.",
        discussion: """
        A cluster is the chain of builds from flux bootstrap's Kustomizations, from a cluster the config declares \
        (clusters: in .tagwarden.yaml), or, inferred, from Flux Kustomizations nothing here applies. A file no \
        cluster here reaches, or only an inferred one, is judged with findings at most warnings; a file its \
        directory's kustomization leaves out is not deployed (syntax and markers only). --applied lists every \
        file with what applies it or why nothing does; --format json adds each cluster's images and the \
        variables whose values are not known here.
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

    @Flag(help: "List every file with the clusters and Flux Kustomizations that apply it, or why none does.")
    var applied = false

    func validate() throws {
        if let p = profile, p != "strict" { throw ValidationError("unknown profile '\(p)'; known profiles: strict") }
    }

    func run() throws {
        try guarded {
            let ws = try Workspace.open(path: path, configPath: config, knownRules: Catalogue.ids)
            let snapshot = try ws.snapshot(rev: nil, maxFileSize: nil)
            let model = try Model.load(snapshot, config: ws.config, profile: profile)
            if format == .json {
                writeStdout(EnvironmentReport.json(model, applied: applied).serialized(pretty: true) + "\n")
            } else {
                writeStdoutLines(EnvironmentReport.text(model, applied: applied))
            }
            return 0
        }
    }
}
