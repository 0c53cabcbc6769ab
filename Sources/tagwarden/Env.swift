import ArgumentParser
import TagwardenCore

struct Env: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the environment model in force and where each part of it came from."
    )

    @Argument(help: "A directory in the repository.")
    var path: String = "."

    @Option(help: "Output format: text or json.")
    var format: DataFormat = .text

    @Option(help: "Start from a built-in profile (strict).")
    var profile: String?

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml from PATH up to the repository root, if any).")
    var config: String?

    func validate() throws {
        if let p = profile, p != "strict" { throw ValidationError("unknown profile '\(p)'; known profiles: strict") }
    }

    func run() throws {
        try guarded {
            let ws = try Workspace.open(path: path, configPath: config)
            let snapshot = try ws.snapshot(rev: nil, maxFileSize: nil)
            let model = Model.build(snapshot.files, config: ws.config, profile: profile, remoteURLs: snapshot.remoteURLs)
            writeStdout(format == .json ? EnvironmentReport.json(model.environments).serialized(pretty: true) + "\n"
                                        : EnvironmentReport.text(model.environments))
            return 0
        }
    }
}
