import TagwardenBasics
import TagwardenGit
import TagwardenModel
import TagwardenLint
import TagwardenUpdate
import ArgumentParser

struct RollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Revert the last promotion of an image to an environment on a new branch, and say what would re-apply it.",
        discussion: """
        The promotion is the newest commit from HEAD that tagwarden promote made for the image and the environment \
        (its message's Promoted-by trailer, Image and environment lines). It is reverted as git revert does (a three-way \
        merge onto HEAD, in memory) and committed on a new branch, tagwarden/rollback-<name>-<tag> (or --branch), for \
        review; the work tree and the branch checked out are not touched. A revert that conflicts with what the fields \
        hold now, and a promotion reverted already, are refused.

        A revert alone does not keep a rollback: a field whose marker an ImageUpdateAutomation runs is written with what \
        its policy selects at every scan, and while the registry has the promoted tag the policy selects it again. \
        rollback evaluates each such policy between the promoted tag and the restored ones and says, per field, whether \
        the automation writes the promotion back, and what stops it (suspend the automation, exclude the tag, remove the \
        marker).

        Exit codes: 0 rolled back (or, with --dry-run, it can be); 1 refused: nothing to roll back, the revert conflicts, \
        the branch exists; 2 usage, configuration or environment error.

        Examples:
          tagwarden rollback ghcr.io/acme/web --env production --dry-run
          tagwarden rollback ghcr.io/acme/web --env production --push
        """
    )

    @Argument(help: "The image repository (ghcr.io/acme/web), as the manifests name it.")
    var image: String

    @Argument(help: "A directory in the repository.")
    var path: String = "."

    @Option(help: "The environment the promotion went to (a name or alias: production).")
    var env: String

    @Option(help: "The branch to commit on (default: tagwarden/rollback-<name>-<tag>); it must not exist yet.")
    var branch: String?

    @Flag(help: "Show the revert and the commit message; change nothing.")
    var dryRun = false

    @OptionGroup var review: ReviewBranchOptions

    @Option(help: "Output format: text or json.")
    var format: PromoteFormat = .text

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml).")
    var config: String?

    @Flag(name: .shortAndLong, help: "No progress on standard error.")
    var quiet = false

    func validate() throws {
        try review.validate(dryRun: dryRun)
    }

    func say(_ line: String) { if !quiet && format == .text { writeStderr("tagwarden: \(line)\n") } }

    func run() throws {
        try ReviewBranchOptions.run(json: format == .json, rollback)
    }

    func rollback() throws -> Int32 {
        let (repo, head, files, model) = try ReviewBranchOptions.headModel(path: path, config: config, command: "rollback")
        let plan = try Rollback.plan(repo, head: head, model: model, files: files, image: image, env: env)
        let branch = self.branch ?? plan.branch
        say("the last promotion of \(image) to \(plan.environment.name): \(plan.promotion.commit.prefix(12)) \"\(plan.promotion.subject)\"")
        for w in plan.warnings { say("warning: \(w)") }
        for k in plan.keeps { say("note: \(k)") }
        for n in plan.notes { say("note: \(n)") }
        var commit: String?, pushed = false, opened: PullRequests.Opened?
        let forge = try review.forge(repo)
        if !dryRun {
            let prepared = try ReviewBranch.prepare(repo, branch: branch, options: review.options, command: "rollback")
            let lock = try UpdateLock(gitDir: repo.commonDir)
            defer { lock.release() }
            let made = try prepared.commit(plan.rewrites, head: GitOID(hex: head)!, message: plan.message,
                                         reflog: "tagwarden rollback: \(plan.promotion.tag)", say: say)
            commit = made.commit.hex
            pushed = made.pushed
            opened = try ReviewBranchOptions.openPullRequest(forge, branch: branch, pushed: pushed, message: plan.message, say: say)
        } else if !GitRepository.isValidBranchName(branch) {
            throw TagwardenError("'\(branch)' is not a valid branch name")
        }
        emit(plan, branch: branch, commit: commit, pushed: pushed, pullRequest: opened)
        return 0
    }

    func emit(_ plan: Rollback, branch: String, commit: String?, pushed: Bool, pullRequest: PullRequests.Opened?) {
        switch format {
        case .json:
            let json: JSON = .object([
                ("image", .string(image)), ("environment", .string(plan.environment.name)), ("dryRun", .bool(dryRun)),
                ("promotion", .object([("commit", .string(plan.promotion.commit)), ("subject", .string(plan.promotion.subject)),
                                       ("reference", .string(plan.promotion.reference))])),
                ("files", .array(plan.rewrites.map { .string($0.path) })),
                ("automations", .array(plan.owned.map(\.json))), ("warnings", .array(plan.warnings.map(JSON.string))), ("notes", .array((plan.keeps + plan.notes).map(JSON.string))),
                ("branch", .string(branch)), ("commit", commit.map(JSON.string) ?? .null), ("pushed", .bool(pushed)), ("pullRequest", pullRequest.map { JSON.string($0.url) } ?? .null),
                ("message", .string(plan.message)),
            ])
            writeStdout(json.serialized(pretty: true) + "\n")
        case .text:
            ReviewBranchOptions.writeDiffs(plan.rewrites)
            if dryRun {
                say("would commit on \(branch):")
                if !quiet { ReviewBranchOptions.showMessage(plan.message) }
            }
        }
    }
}
