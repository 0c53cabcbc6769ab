import ArgumentParser

/// `tagwarden completion SHELL`: the shell completion script ArgumentParser generates from the commands' own options.
struct Completion: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
        Examples:
          tagwarden completion bash > /etc/bash_completion.d/tagwarden
          tagwarden completion zsh > "${fpath[1]}/_tagwarden"
          tagwarden completion fish > ~/.config/fish/completions/tagwarden.fish
        """
    )

    @Argument(help: "bash, zsh or fish.")
    var shell: String

    func validate() throws {
        guard CompletionShell(rawValue: shell) != nil else { throw ValidationError("the shell must be bash, zsh or fish, not '\(shell)'") }
    }

    func run() throws {
        writeStdout(Tagwarden.completionScript(for: CompletionShell(rawValue: shell)!))
    }
}
