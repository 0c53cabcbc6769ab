import TagwardenBasics
import TagwardenGit
import TagwardenModel
import TagwardenLint
import TagwardenReport
import TagwardenUpdate
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

enum PromoteFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

struct Promote: ParsableCommand {
    static let configuration = CommandConfiguration(
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
        pushes the branch; open the pull request from it.

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

    @Flag(help: "Sign the commit as git does (gpg.format, user.signingKey); commit.gpgsign=true signs unasked.")
    var sign = false

    @Flag(help: "Push the promotion branch (SSH keys or agent; HTTPS with TAGWARDEN_GIT_TOKEN, GITHUB_TOKEN or git's credential helper).")
    var push = false

    @Option(help: "With --push: the remote, a name or a URL.")
    var remote: String = "origin"

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
        if dryRun && (push || sign) { throw ValidationError("--dry-run changes nothing: it does not go with --push or --sign") }
    }

    func say(_ line: String) { if !quiet && format == .text { writeStderr("tagwarden: \(line)\n") } }

    func run() throws {
        try guarded {
            do { return try promote() } catch let refused as PromotionRefused {
                writeStderr("tagwarden: refused: \(refused.message)\n")
                if format == .json { writeStdout(JSON.object([("refused", .string(refused.message))]).serialized(pretty: true) + "\n") }
                return 1
            } catch let e as TagwardenError where format == .json {
                // a JSON reader gets an object too; the message goes to standard error as always (guarded)
                writeStdout(JSON.object([("error", .string(e.message))]).serialized(pretty: true) + "\n")
                throw e
            }
        }
    }

    func promote() throws -> Int32 {
        let ws = try Workspace.open(path: path, configPath: config)
        guard let repo = ws.repo else { throw TagwardenError("promote commits, and \(ws.root) is not inside a git repository") }
        let head = try repo.resolveCommit("HEAD")
        let snapshot = try ws.snapshot(rev: head, maxFileSize: nil)
        let model = try Model.build(snapshot.files, config: ws.config, profile: nil, remoteURLs: snapshot.remoteURLs)
        let promotion = try Promotion.plan(model, request: PromotionRequest(image: image, from: from, to: to, digest: digest, tag: tag))
        let from = promotion.from.name, to = promotion.to.name
        let branch = self.branch ?? promotion.branch
        guard GitRepository.isValidBranchName(branch) else { throw TagwardenError("'\(branch)' is not a valid branch name") }

        // the registry: what staging's tag names now, and whether the production tag is free
        let (credentials, client) = try access.client(limits: RegistryLimits(timeLimit: 600))
        let registry = promotion.repository
        let credential = credentials.credential(for: registry.host)
        if let cluster = promotion.clusterCredential {
            say("note: the ImageRepository for \(image) reads credentials from \(cluster) in the cluster; here "
                + (credential.map { "\($0.origin) is used" } ?? "access is anonymous"))
        }
        let stagingRef = promotion.stagingTag.map { "\(image):\($0)" } ?? "\(image)@\(promotion.stagingDigest ?? "")"
        say("\(from) runs \(stagingRef)\(promotion.stagingTag != nil && promotion.stagingDigest != nil ? "@\(promotion.stagingDigest!)" : "") (\(promotion.stagingSites.joined(separator: ", ")))")
        let artifact: (digest: String, mediaType: String?)
        if let stagingTag = promotion.stagingTag {
            guard let now = try client.digest(registry, tag: stagingTag) else {
                throw PromotionRefused("\(image):\(stagingTag) is not in the registry (\(registry.host)): nothing to promote")
            }
            if let tested = promotion.stagingDigest ?? digest, tested != now.digest {
                // one platform of the tag's index is the same build, but not one promote can retag whole
                let type = now.mediaType ?? ""
                if type.contains("index") || type.contains("list"),
                   let manifest = try client.manifest(registry, reference: now.digest),
                   let json = try? JSON.parse(String(decoding: manifest.bytes, as: UTF8.self)),
                   (json["manifests"]?.arrayValue ?? []).contains(where: { $0["digest"]?.stringValue == tested }) {
                    throw PromotionRefused("\(from) pins \(tested), one platform of the multi-arch index \(now.digest) that \(stagingTag) names: "
                                           + "promote retags whole builds; pin the index digest in \(from) to promote it")
                }
                throw PromotionRefused("\(from)'s tag now points to another build: \(stagingTag) is \(now.digest) in the registry, but \(from) "
                                       + "was tested with \(tested); test the new build first, or put the tested build back under the tag")
            }
            if promotion.stagingDigest == nil && digest == nil {
                say("note: \(from) does not pin a digest: promoting what \(stagingTag) names now; give --digest to check it is the build you tested")
            }
            artifact = now
        } else {
            let pinned = promotion.stagingDigest!
            guard let found = try client.digest(registry, tag: pinned) else {
                throw PromotionRefused("\(image)@\(pinned) is not in the registry (\(registry.host)): nothing to promote")
            }
            artifact = found
        }
        say("registry: \(promotion.stagingTag ?? "the digest") names \(artifact.digest)\(artifact.mediaType.map { " (\($0))" } ?? "")")
        let existing = try client.digest(registry, tag: promotion.productionTag)
        if let existing, existing.digest != artifact.digest {
            throw PromotionRefused("\(image):\(promotion.productionTag) exists and names another build, \(existing.digest): not overwritten; "
                                   + "give another --tag, or find out who pushed it")
        }

        let rewrites = try promotion.rewrite(model, files: snapshot.files, digest: artifact.digest)
        let since = try promotion.stagingSince(repo, head: head)
        let message = promotion.message(digest: artifact.digest, mediaType: artifact.mediaType, testedAt: head, since: since,
                                        rewrites: rewrites, branch: branch)
        var result = Outcome(promotion: promotion, digest: artifact.digest, mediaType: artifact.mediaType, testedAt: head, since: since,
                             rewrites: rewrites, branch: branch, message: message, tagged: existing != nil ? "already" : "no")

        if dryRun {
            result.tagged = existing != nil ? "already" : "would"
            emit(result)
            return 0
        }
        // checked before the registry is touched: what would stop the commit or the push
        var signer: CommitSigner?
        if !rewrites.isEmpty {
            if let there = repo.branchInTheWay(of: branch) {
                throw PromotionRefused(there == branch ? "branch \(branch) exists: delete it, or give another --branch"
                                       : "branch \(there) is in the way of \(branch) (git keeps branches as paths): give another --branch")
            }
            guard let email = repo.configString("user.email") else { throw TagwardenError("git has no user.email: set it to commit the promotion") }
            if sign || CommitSigner.configured(repo) {
                let s = try CommitSigner.fromConfig(repo, email: email)
                _ = try s.sign("tagwarden promote: can this key sign?\n")
                signer = s
            }
            if push && !repo.isRemote(remote) {
                throw TagwardenError("cannot push to '\(GitRepository.redacted(remote))': no such remote (a name in git remote, or a URL)")
            }
        }
        let lock = try UpdateLock(gitDir: repo.commonDir)
        defer { lock.release() }

        if existing == nil {
            guard let manifest = try client.manifest(registry, reference: artifact.digest) else {
                throw PromotionRefused("\(image)@\(artifact.digest) could not be read from the registry")
            }
            // the bytes are the digest's: content-addressed, checked here rather than trusted
            if artifact.digest.hasPrefix("sha256:"), RegistryClient.sha256Digest(manifest.bytes) != artifact.digest {
                throw PromotionRefused("the registry's manifest for \(artifact.digest) hashes to \(RegistryClient.sha256Digest(manifest.bytes)): not retagged")
            }
            let put = try client.putManifest(registry, tag: promotion.productionTag, bytes: manifest.bytes, mediaType: manifest.mediaType)
            let readBack = try client.digest(registry, tag: promotion.productionTag)?.digest
            guard put == artifact.digest, readBack == artifact.digest else {
                throw PromotionRefused("\(image):\(promotion.productionTag) reads back as \(readBack ?? "nothing") (the registry answered \(put)), "
                                       + "not \(artifact.digest): the manifests are not changed")
            }
            result.tagged = "yes"
            say("registry: tagged \(artifact.digest) as \(promotion.productionTag), read back identical")
        } else {
            say("registry: \(promotion.productionTag) names \(artifact.digest) already")
        }

        guard !rewrites.isEmpty else {
            say("\(to) runs \(image):\(promotion.productionTag)@\(artifact.digest) already: nothing to commit")
            emit(result)
            return 0
        }
        let email = repo.configString("user.email")!
        let author = Committer.signature(name: repo.configString("user.name") ?? email, email: email)
        let headOID = GitOID(hex: head)!
        let current = repo.currentBranch.map { String($0.dropFirst("refs/heads/".count)) } ?? "HEAD"
        let target = CommitTarget(checkoutBranch: current, pushBranch: branch, checkoutTip: headOID, base: headOID, pushTip: nil, checkedOut: false)
        let commit = try Committer.commit(rewrites, on: target, repo: repo, workdir: nil, author: author, committer: author, message: message,
                                          sign: signer.map { s in { try s.sign($0) } }, reflog: "tagwarden promote: \(promotion.productionTag)")
        result.commit = commit.hex
        say("committed \(commit.hex) on \(branch)")
        if push {
            // the branch is new: a remote that has one of that name already is refused (a lease on its absence)
            let outcome: Pusher.Outcome
            do {
                outcome = try Pusher.push(repo, remote: remote, branch: branch, commit: commit, lease: .some(nil), refspec: nil)
            } catch let e as TagwardenError {
                throw TagwardenError("\(e.message); commit \(commit.hex) is on your \(branch), unpushed: push it with git push")
            }
            switch outcome {
            case .pushed:
                result.pushed = true
                say("pushed \(branch) to \(GitRepository.redacted(remote)): open a pull request from it")
            case .remoteMoved(let there):
                throw PromotionRefused("\(GitRepository.redacted(remote)) has a branch \(branch) already (at \(there?.hex.prefix(12) ?? "?")): "
                                       + "commit \(commit.hex) is on your \(branch), unpushed")
            }
        }
        emit(result)
        return 0
    }

    /// What the run did, for the report.
    struct Outcome {
        let promotion: Promotion
        let digest: String
        let mediaType: String?
        let testedAt: String
        let since: (commit: String, subject: String)?
        let rewrites: [FileRewrite]
        let branch: String
        let message: String
        /// The production tag: "yes" (tagged now), "already", "would" (--dry-run).
        var tagged: String
        var commit: String?
        var pushed = false
    }

    func emit(_ r: Outcome) {
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
                ("branch", .string(r.branch)), ("commit", r.commit.map(JSON.string) ?? .null), ("pushed", .bool(r.pushed)),
                ("message", .string(r.message)),
            ])
            writeStdout(json.serialized(pretty: true) + "\n")
        case .text:
            if dryRun {
                say(r.tagged == "already" ? "registry: \(p.productionTag) names \(r.digest) already" : "registry: would tag \(r.digest) as \(p.productionTag)")
                let tty = isatty(STDOUT_FILENO) == 1
                let color = tty && getenv("NO_COLOR") == nil
                let escapeLine: @Sendable (String) -> String = { line in Escape.text(line) }
                let escape = tty ? escapeLine : nil
                for f in r.rewrites {
                    writeAll(STDOUT_FILENO, UnifiedDiff.render(path: f.path, before: f.before, after: f.after, color: color, escape: escape))
                }
                guard !r.rewrites.isEmpty else {
                    say("\(p.to.name) runs \(image):\(p.productionTag)@\(r.digest) already: nothing to commit")
                    return
                }
                say("would commit on \(r.branch):")
                if !quiet { for line in r.message.split(separator: "\n", omittingEmptySubsequences: false).dropLast() { writeStderr("    \(line)\n") } }
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
