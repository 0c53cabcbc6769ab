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

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Lint what a commit or a pull request introduces.",
        discussion: """
        --staged (pre-commit): lints the index — the exact blobs the commit will contain, not the working files — and \
        HEAD's tree, and reports the findings the staged change creates, in the staged files or elsewhere (a renamed \
        policy that breaks a marker in an unchanged file), matched by fingerprint as --base matches them: a finding a \
        staged file already had is not reported (--all reports every finding of the staged files). Works on an unborn branch, in linked worktrees and inside \
        hooks of `git commit -a` / `git commit <path>` (GIT_INDEX_FILE is honoured).

        --base REV [--head REV] (PR status check): lints HEAD's tree and the tree of the merge base of BASE and HEAD, \
        both from the object database, and reports the findings HEAD has that the merge base did not (matched by \
        fingerprint, so a finding that only moved is not new, nor one in a file the change renamed or moved). --all reports every HEAD finding, marking the new ones.

        A pull request cannot vouch for itself: the config in force is the one of BASE (not the pull request's \
        .tagwarden.yaml), and a change that loosens the config (a rule turned off or lowered, a path ignored, a \
        requirement dropped) is a config-weakened error; the promotion rules take staging's history from the merge \
        base and its ancestors (plus HEAD's staging manifests), never from the pull request's own commits. \
        --config-from head uses the pull request's config instead, for repositories that review config changes \
        by other means.

        Examples:
          tagwarden check --staged
          tagwarden check --base origin/main --format sarif --output tagwarden.sarif
        """
    )

    @Argument(help: "A directory in the repository; findings outside it are not reported.")
    var path: String = "."

    @Flag(help: "Lint the index (what the next commit will contain).")
    var staged = false

    @Option(help: "The branch or commit the change will merge into.")
    var base: String?

    @Option(help: "The commit to check against --base (default HEAD).")
    var head: String?

    @Flag(help: "With --base: report every finding of HEAD, marking which are new. With --staged: every finding of the staged files, not only the new ones.")
    var all = false

    enum ConfigFrom: String, ArgumentChoice {
        case base, head
    }

    @Option(help: "With --base: whose .tagwarden.yaml is in force, base (the default: a pull request cannot loosen its own check) or head.")
    var configFrom: ConfigFrom = .base

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if staged == (base != nil) { throw ValidationError("give exactly one of --staged or --base REV") }
        if staged && (head != nil || configFrom != .base) { throw ValidationError("--head and --config-from go with --base") }
    }

    func run() throws {
        try guarded {
            let env = ProcessInfo.environment
            var checkOptions = CheckOptions(configPath: options.config, profile: options.profile, maxFileSize: options.maxFileSizeBytes,
                                            baseline: options.baselineChoice)
            checkOptions.historyProgress = options.historyProgress
            let result: CheckResult
            if staged {
                result = try Checks.staged(path: path, all: all, options: checkOptions,
                                           fromEnvironment: env["GIT_INDEX_FILE"] != nil || env["GIT_DIR"] != nil)
            } else {
                result = try Checks.pullRequest(path: path, base: base!, head: head, all: all, configFromBase: configFrom == .base,
                                                options: checkOptions)
            }
            if !options.quiet { for note in result.notes { writeStderr("tagwarden: note: \(note)\n") } }
            let code = try options.emit(result.report)
            exitKeeping(result, code: code)
        }
    }
}

enum ProcessInfo {
    static var environment: [String: String] {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { out[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return out
    }
}
