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

@main
struct Tagwarden: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tagwarden",
        abstract: "Guardrails for GitOps repositories that deploy container images with Flux.",
        discussion: """
        Tagwarden reads manifests straight from git and proves that every image that will run is immutable, \
        that every Flux $imagepolicy marker resolves, and that no ImagePolicy can select another environment's tags.

        Exit codes: 0 no finding at or above --fail-on; 1 findings at or above it; 2 usage, configuration or \
        environment error.
        """,
        version: Version.current,
        subcommands: [Audit.self, Check.self, BaselineCommand.self, InstallHook.self, PolicyCommand.self, Update.self, Promote.self, RollbackCommand.self, Graph.self, Init.self, Env.self, RulesCommand.self, Explain.self, Completion.self]
    )

    /// ArgumentParser exits 64 on usage errors; the contract says 2.
    static func main() {
        // a mistyped command: name the nearest one instead of "unexpected argument"
        let args = CommandLine.arguments.dropFirst()
        if let first = args.first, !first.hasPrefix("-") {
            let names = configuration.subcommands.map { $0._commandName } + ["help"]
            if !names.contains(first) {
                let hint = Suggest.nearest(first, in: names).map { " (did you mean '\($0)'?)" } ?? ""
                writeStderr("tagwarden: error: unknown command '\(first)'\(hint); commands: \(names.dropLast().joined(separator: ", "))\n")
                Glibc.exit(2)
            }
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                writeStdout(fullMessage(for: error) + "\n")
                Glibc.exit(0)
            }
            if !(error is ExitCode) {
                writeStderrLines(fullMessage(for: error) + "\n")
            }
            Glibc.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
