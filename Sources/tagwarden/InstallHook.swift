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

struct InstallHook: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install-hook",
        abstract: "Install the pre-commit hook that runs `tagwarden check --staged`.",
        discussion: """
        The hook goes where git runs hooks: core.hooksPath when it is set, otherwise the repository's hooks \
        directory (shared by linked worktrees). An existing hook that is not Tagwarden's is left alone unless \
        --force, which keeps it as pre-commit.orig and runs it first (as git runs an executable hook: its refusal stops the commit). Bypass the hook in an emergency with `git commit --no-verify`.
        """
    )

    @Argument(help: "A directory in the repository.")
    var path: String = "."

    @Flag(help: "Replace an existing pre-commit hook that is not Tagwarden's.")
    var force = false

    @Flag(help: "Remove Tagwarden's hook (and restore pre-commit.orig, if any).")
    var uninstall = false

    func run() throws {
        try guarded {
            guard let real = realpath(path, nil) else { throw TagwardenError("\(path): \(String(cString: strerror(errno)))") }
            let abs = String(cString: real)
            free(real)
            guard let repo = try GitRepository.discover(abs) else { throw TagwardenError("\(abs) is not inside a git repository") }
            if uninstall {
                writeStderr(try HookInstaller.uninstall(repo) + "\n")
            } else {
                let exe = realpath("/proc/self/exe", nil).map { p -> String in defer { free(p) }; return String(cString: p) } ?? "tagwarden"
                writeStderr(try HookInstaller.install(repo, binary: exe, force: force) + "\n")
            }
            return 0
        }
    }
}
