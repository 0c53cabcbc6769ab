import TagwardenBasics
import TagwardenGit
import TagwardenModel
import TagwardenLint
import TagwardenUpdate
import ArgumentParser

enum PromoteFormat: String, ArgumentChoice {
    case text, json
}

struct Promote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote",
        abstract: "Promote the build an environment runs to another without a rebuild: retag it in the registry, pin the production manifests to tag@digest, commit for review.",
        discussion: """
        The artifact is what the --from environment's manifests run at HEAD: its tag and, when they pin one, its digest \
        (--digest gives the digest you tested when they do not). The registry must still name that digest under the \
        staging tag; if the tag moved since, the promotion is refused ("staging's tag now points to another build").

        The same manifest (same bytes, same digest) is put under the production tag — the --to environment's prefix \
        before staging's version identity (production-vX.Y.Z-<sha>-<ts>), or --tag — and read back to prove the digest \
        is identical. The production manifests are rewritten to tag@digest as edits of their bytes, and committed on a \
        new branch (tagwarden/promote-<name>-<tag>, or --branch) from HEAD, with a message that carries the identity, \
        the digest, the staging commit it was tested at and a review checklist. The work tree is not touched. --push \
        pushes the branch; --pull-request then opens its pull request (GitHub, GITHUB_TOKEN) or merge request (GitLab, \
        GITLAB_TOKEN) into the branch HEAD is on, with the message and its checklist as its text.

        Credentials as for update --registry: docker's config.json (DOCKER_CONFIG, or --registry-config), its credential \
        helpers, anonymous access. Retagging needs push access to the repository.

        Exit codes: 0 promoted (or, with --dry-run, it can be); 1 refused: staging's tag moved, the production tag names \
        another build, the registry did not keep the digest; 2 usage, configuration or environment error.

        Examples:
          tagwarden promote ghcr.io/acme/web --from staging --to production --dry-run
          tagwarden promote ghcr.io/acme/web --from staging --to production --push
          tagwarden promote ghcr.io/acme/web --from staging --to production --digest sha256:4f1c... --tag production-v1.4.0-3f2a9c1-1732300000
        """
    )

    @Argument(help: "The image repository (ghcr.io/acme/web), as the manifests name it.")
    var image: String

    @Argument(help: "A directory in the repository.")
    var path: String = "."

    @Option(help: "The environment promoted from (a name or alias: staging).")
    var from: String

    @Option(help: "The environment promoted to (production).")
    var to: String

    @Option(help: "The digest the --from environment was tested with, when its manifests do not pin it (it must be what the tag names now).")
    var digest: String?

    @Option(help: "The production tag (default: the --to environment's prefix and staging's version identity).")
    var tag: String?

    @Option(help: "The branch to commit on (default: tagwarden/promote-<name>-<tag>); it must not exist yet.")
    var branch: String?

    @Flag(help: "Show what would be tagged, written and committed; change nothing in the registry or the repository.")
    var dryRun = false

    @OptionGroup var review: ReviewBranchOptions

    @OptionGroup var access: RegistryAccess

    @Option(help: "Output format: text or json.")
    var format: PromoteFormat = .text

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml).")
    var config: String?

    @Flag(name: .shortAndLong, help: "No progress on standard error.")
    var quiet = false

    func validate() throws {
        if let d = digest, ImageReference.parse("x@" + d).isFailure {
            throw ValidationError("--digest must be a digest like sha256:<64 hex digits>, not '\(d)'")
        }
        try review.validate(dryRun: dryRun)
    }

    func say(_ line: String) { if !quiet && format == .text { writeStderr("tagwarden: \(line)\n") } }

    func run() throws {
        try ReviewBranchOptions.run(json: format == .json, promote)
    }

    func promote() throws -> Int32 {
        let (repo, head, files, model) = try ReviewBranchOptions.headModel(path: path, config: config, command: "promote")
        let promotion = try Promotion.plan(model, request: PromotionRequest(image: image, from: from, to: to, digest: digest, tag: tag))
        var options = PromotionRun.Options()
        options.digest = digest
        options.branch = branch
        options.dryRun = dryRun
        options.review = review.options
        let forge = try review.forge(repo)
        let (credentials, client) = try access.client()
        let result = try PromotionRun(repo: repo, client: client, credentials: credentials, options: options, say: say)
            .run(promotion, model: model, files: files, head: head)
        let opened = try ReviewBranchOptions.openPullRequest(forge, branch: result.branch, pushed: result.pushed, message: result.message, say: say)
        emit(result, pullRequest: opened)
        return 0
    }

    func emit(_ r: PromotionRun.Outcome, pullRequest: PullRequests.Opened?) {
        let p = r.promotion
        switch format {
        case .json:
            let since: JSON = r.since.map { .object([("commit", .string($0.commit)), ("subject", .string($0.subject))]) } ?? .null
            let staging: JSON = .object([
                ("tag", p.stagingTag.map(JSON.string) ?? .null), ("digest", .string(r.digest)),
                ("mediaType", r.mediaType.map(JSON.string) ?? .null), ("identity", p.identity.map(JSON.string) ?? .null),
                ("sites", .array(p.stagingSites.map(JSON.string))), ("testedAt", .string(r.testedAt)), ("since", since),
            ])
            let replaced: [JSON] = p.sites.map { .object([("file", .string($0.path)), ("line", .int($0.line)), ("was", .string($0.before))]) }
            let production: JSON = .object([
                ("tag", .string(p.productionTag)), ("reference", .string("\(image):\(p.productionTag)@\(r.digest)")),
                ("tagged", .string(r.tagged)), ("replaced", .array(replaced)),
            ])
            let files: [JSON] = r.rewrites.map { f in
                let changes: [JSON] = f.changes.map { c in
                    .object([("line", .int(c.line)), ("column", .int(c.column)), ("old", .string(c.oldValue)), ("new", .string(c.newValue))])
                }
                return .object([("path", .string(f.path)), ("changes", .array(changes))])
            }
            let json: JSON = .object([
                ("image", .string(image)), ("from", .string(p.from.name)), ("to", .string(p.to.name)), ("dryRun", .bool(dryRun)),
                ("staging", staging), ("production", production), ("files", .array(files)),
                ("automations", .array(r.owned.map(\.json))), ("warnings", .array(r.warnings.map(JSON.string))),
                ("branch", .string(r.branch)), ("commit", r.commit.map(JSON.string) ?? .null), ("pushed", .bool(r.pushed)),
                ("pullRequest", pullRequest.map { JSON.string($0.url) } ?? .null), ("message", .string(r.message)),
            ])
            writeStdout(json.serialized(pretty: true) + "\n")
        case .text:
            if dryRun {
                say(r.tagged == "already" ? "registry: \(p.productionTag) names \(r.digest) already" : "registry: would tag \(r.digest) as \(p.productionTag)")
                ReviewBranchOptions.writeDiffs(r.rewrites)
                guard !r.rewrites.isEmpty else {
                    say("\(p.to.name) runs \(image):\(p.productionTag)@\(r.digest) already: nothing to commit")
                    return
                }
                say("would commit on \(r.branch):")
                if !quiet { ReviewBranchOptions.showMessage(r.message) }
            } else {
                for f in r.rewrites {
                    for c in f.changes { writeStdoutLines("\(c.file):\(c.line): \(c.oldValue.isEmpty ? "(added)" : c.oldValue) -> \(c.newValue)\n") }
                }
            }
        }
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
}
