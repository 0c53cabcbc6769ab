import TagwardenBasics
import TagwardenModel
import TagwardenLint
import TagwardenReport
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

enum GraphFormat: String, ArgumentChoice {
    case mermaid, dot, json
}

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw the wiring: per cluster and environment, Flux Kustomizations → image automations → policies → image repositories → images, and the files whose markers name the policies.",
        discussion: """
        Each node stands in the box of the clusters that apply its file (tagwarden env lists them), then of its \
        environment. An object an error-level finding names is a red node (its file's, when the object is not part \
        of the picture). An edge from one environment to another (a production marker naming a staging policy, an automation taking \
        another environment's policy) and a reference to nothing (a marker naming no policy, a policy naming no \
        ImageRepository) are drawn red; grey and dashed when their finding is suppressed (# tagwarden:ignore) or its \
        rule turned off.

        Mermaid renders in GitHub and GitLab comments and Markdown files; DOT is for Graphviz (dot -Tsvg graph.dot > \
        graph.svg); JSON lists the nodes and edges.

        Examples:
          tagwarden graph > wiring.mmd
          tagwarden graph --format dot | dot -Tsvg > wiring.svg
          tagwarden graph --environment production --format json
        """
    )

    @Argument(help: "A directory in the repository (the whole repository is drawn).")
    var path: String = "."

    @Option(help: "Output format: mermaid (the default), dot or json.")
    var format: GraphFormat = .mermaid

    @Option(help: "Only this environment, and what its edges reach in others.")
    var environment: String?

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml).")
    var config: String?

    func run() throws {
        try guarded {
            let ws = try Workspace.open(path: path, configPath: config, knownRules: Catalogue.ids)
            let snapshot = try ws.snapshot(rev: nil, maxFileSize: nil)
            let report = try ws.audit(snapshot, profile: nil, historyFrom: nil)
            guard let model = report.model else { throw TagwardenError("the repository could not be read") }
            let only = try environment.map { try model.environments.resolve($0).name }
            let graph = WiringGraph.build(model, findings: report.findings, only: only, under: ws.prefix)
            switch format {
            case .mermaid: writeStdout(graph.mermaid())
            case .dot: writeStdout(graph.dot())
            case .json: writeStdout(graph.json().serialized(pretty: true) + "\n")
            }
            exitKeeping(report, code: 0)
        }
    }
}
