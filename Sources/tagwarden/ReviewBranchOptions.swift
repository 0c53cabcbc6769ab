import TagwardenBasics
import TagwardenReport
import TagwardenUpdate
import TagwardenGit
import TagwardenModel
import TagwardenLint
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// What `promote` and `rollback` share: the commit for review on a new branch, and how they report.
struct ReviewBranchOptions: ParsableArguments {
    @Flag(help: "Sign the commit as git does (gpg.format, user.signingKey); commit.gpgsign=true signs unasked.")
    var sign = false

    @Flag(help: "Push the new branch (SSH keys or agent; HTTPS with TAGWARDEN_GIT_TOKEN, GITHUB_TOKEN or git's credential helper).")
    var push = false

    @Option(help: "With --push: the remote, a name or a URL.")
    var remote: String = "origin"

    @Flag(help: "With --push: open a pull request (GitHub, GITHUB_TOKEN) or merge request (GitLab, GITLAB_TOKEN) into the branch HEAD is on, or update the one open for the branch; the commit message, checklist included, is its text.")
    var pullRequest = false

    var options: ReviewBranch.Options {
        var o = ReviewBranch.Options()
        o.sign = sign
        o.push = push
        o.remote = remote
        return o
    }

    /// `--dry-run` changes nothing, so it takes neither `--push` nor `--sign`.
    func validate(dryRun: Bool) throws {
        if dryRun && (push || sign || pullRequest) { throw ValidationError("--dry-run changes nothing: it does not go with --push, --sign or --pull-request") }
        if pullRequest && !push { throw ValidationError("--pull-request goes with --push") }
    }

    /// With --pull-request: where it is opened, and into which branch, known before anything is committed.
    func forge(_ repo: GitRepository) throws -> (forge: PullRequests, base: String)? {
        guard pullRequest else { return nil }
        guard let base = repo.headBranch else { throw TagwardenError("--pull-request needs HEAD on a branch, the pull request's base; HEAD is detached") }
        return (try PullRequests(remote: try repo.remoteURL(remote), environment: ProcessInfo.environment), base)
    }

    /// Opens (or updates) the pull request of the pushed `branch`; says where it is.
    static func openPullRequest(_ forge: (forge: PullRequests, base: String)?, branch: String, pushed: Bool, message: String,
                                say: (String) -> Void) throws -> PullRequests.Opened? {
        guard let (forge, base) = forge, pushed else { return nil }
        let opened = try forge.open(branch: branch, base: base, message: message)
        say("pull request \(opened.created ? "opened" : "updated"): \(opened.url)")
        return opened
    }

    /// The repository containing `path` as HEAD holds it, modelled: what promote and rollback work from.
    static func headModel(path: String, config: String?, command: String) throws
        -> (repo: GitRepository, head: String, files: [SourceFile], model: Model) {
        let ws = try Workspace.open(path: path, configPath: config, knownRules: Catalogue.ids)
        guard let repo = ws.repo else { throw TagwardenError("\(command) commits, and \(ws.root) is not inside a git repository") }
        let head = try repo.resolveCommit("HEAD")
        let snapshot = try ws.snapshot(rev: head, maxFileSize: nil)
        return (repo, head, snapshot.files, try Model.build(snapshot.files, config: ws.config, profile: nil, remoteURLs: snapshot.remoteURLs, checkout: snapshot.checkout))
    }

    /// A command that commits for review: a refusal is exit code 1, and with JSON standard output gets an object for a
    /// refusal or an error too (the message goes to standard error as always).
    static func run(json: Bool, _ body: () throws -> Int32) throws {
        try guarded {
            do { return try body() } catch let refused as PromotionRefused {
                writeStderr("tagwarden: refused: \(refused.message)\n")
                if json { writeStdout(JSON.object([("refused", .string(refused.message))]).serialized(pretty: true) + "\n") }
                return 1
            } catch let e as TagwardenError where json {
                writeStdout(JSON.object([("error", .string(e.message))]).serialized(pretty: true) + "\n")
                throw e
            }
        }
    }

    /// The files' diffs on standard output (a patch `git apply` takes), escaped and coloured on a terminal.
    static func writeDiffs(_ rewrites: [FileRewrite]) {
        let tty = isatty(STDOUT_FILENO) == 1
        let escapeLine: @Sendable (String) -> String = { line in Escape.text(line) }
        for f in rewrites {
            writeAll(STDOUT_FILENO, UnifiedDiff.render(path: f.path, before: f.before, after: f.after, color: tty && getenv("NO_COLOR") == nil,
                                                       escape: tty ? escapeLine : nil))
        }
    }

    /// A commit message on standard error, indented, after `say`'s line.
    static func showMessage(_ message: String) {
        for line in message.split(separator: "\n", omittingEmptySubsequences: false).dropLast() { writeStderr("    \(line)\n") }
    }
}
