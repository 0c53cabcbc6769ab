import TagwardenBasics
import TagwardenGit
import TagwardenModel

/// `tagwarden promote` once its plan is made: staging's tag checked in the registry, the production tag put and read
/// back, the production manifests rewritten and committed on the promotion branch, and the branch pushed. What would
/// stop the commit or the push is checked before the registry is touched. Progress goes to `say`; a refusal is a
/// `PromotionRefused`.
public struct PromotionRun {
    public struct Options: Sendable {
        /// The digest staging was tested with, when its manifests do not pin one.
        public var digest: String?
        /// The branch to commit on (default: `Promotion.branch`).
        public var branch: String?
        public var dryRun = false
        /// Signing and pushing the commit.
        public var review = ReviewBranch.Options()
        public init() {}
    }

    /// What the run did, for the report.
    public struct Outcome {
        public let promotion: Promotion
        public let digest: String
        public let mediaType: String?
        public let testedAt: String
        public let since: (commit: String, subject: String)?
        public let rewrites: [FileRewrite]
        public let branch: String
        public let message: String
        /// The production tag: "yes" (tagged now), "already", "would" (dry run).
        public var tagged: String
        public var commit: String?
        public var pushed = false
        /// The markers on the promoted fields, as their automations judge them, and the warnings for those written over.
        public var owned: [AutomationOwnership.Field] = []
        public var warnings: [String] = []
    }

    let repo: GitRepository
    let client: RegistryClient
    let credentials: DockerCredentials
    let options: Options
    let say: (String) -> Void

    public init(repo: GitRepository, client: RegistryClient, credentials: DockerCredentials, options: Options, say: @escaping (String) -> Void) {
        self.repo = repo
        self.client = client
        self.credentials = credentials
        self.options = options
        self.say = say
    }

    /// Runs `promotion`, planned on `model` (the repository at commit `head`, whose files are `files`).
    public func run(_ promotion: Promotion, model: Model, files: [SourceFile], head: String) throws -> Outcome {
        let from = promotion.from.name, to = promotion.to.name
        let branch = options.branch ?? promotion.branch
        guard GitRepository.isValidBranchName(branch) else { throw TagwardenError("'\(branch)' is not a valid branch name") }

        // the registry: what staging's tag names now, and whether the production tag is free
        let registry = promotion.repository
        let credential = credentials.credential(for: registry.host)
        if let cluster = promotion.clusterCredential {
            say("note: the ImageRepository for \(promotion.imageAsGiven) reads credentials from \(cluster) in the cluster; here "
                + (credential.map { "\($0.origin) is used" } ?? "access is anonymous"))
        }
        let stagingRef = promotion.stagingTag.map { "\(promotion.imageAsGiven):\($0)" } ?? "\(promotion.imageAsGiven)@\(promotion.stagingDigest ?? "")"
        say("\(from) runs \(stagingRef)\(promotion.stagingTag != nil && promotion.stagingDigest != nil ? "@\(promotion.stagingDigest!)" : "") (\(promotion.stagingSites.joined(separator: ", ")))")
        let artifact: (digest: String, mediaType: String?)
        if let stagingTag = promotion.stagingTag {
            guard let now = try client.digest(registry, tag: stagingTag) else {
                throw PromotionRefused("\(promotion.imageAsGiven):\(stagingTag) is not in the registry (\(registry.host)): nothing to promote")
            }
            if let tested = promotion.stagingDigest ?? options.digest, tested != now.digest {
                // one platform of the tag's index is the same build, but not one promote can retag whole
                let type = now.mediaType ?? ""
                if type.contains("index") || type.contains("list"), try client.platforms(registry, index: now.digest)?.contains(tested) == true {
                    throw PromotionRefused("\(from) pins \(tested), one platform of the multi-arch index \(now.digest) that \(stagingTag) names: "
                                           + "promote retags whole builds; pin the index digest in \(from) to promote it")
                }
                throw PromotionRefused("\(from)'s tag now points to another build: \(stagingTag) is \(now.digest) in the registry, but \(from) "
                                       + "was tested with \(tested); test the new build first, or put the tested build back under the tag")
            }
            if promotion.stagingDigest == nil && options.digest == nil {
                say("note: \(from) does not pin a digest: promoting what \(stagingTag) names now; give --digest to check it is the build you tested")
            }
            artifact = now
        } else {
            let pinned = promotion.stagingDigest!
            guard let found = try client.digest(registry, tag: pinned) else {
                throw PromotionRefused("\(promotion.imageAsGiven)@\(pinned) is not in the registry (\(registry.host)): nothing to promote")
            }
            artifact = found
        }
        // only what can be verified is promoted: a digest is checked against the bytes before it is tagged and pinned
        guard SHA256.isDigest(artifact.digest) else {
            throw PromotionRefused("the registry names the build \(artifact.digest.prefix(160)), a digest tagwarden cannot verify "
                                   + "(only sha256:<64 hex digits> is checked against the manifest's bytes): not promoted")
        }
        say("registry: \(promotion.stagingTag ?? "the digest") names \(artifact.digest)\(artifact.mediaType.map { " (\($0))" } ?? "")")
        let existing = try client.digest(registry, tag: promotion.productionTag)
        if let existing, existing.digest != artifact.digest {
            throw PromotionRefused("\(promotion.imageAsGiven):\(promotion.productionTag) exists and names another build, \(existing.digest): not overwritten; "
                                   + "give another --tag, or find out who pushed it")
        }

        let rewritten = try promotion.rewrite(model, files: files, digest: artifact.digest)
        let rewrites = rewritten.rewrites
        let owned = ownership(promotion, rewritten, digest: artifact.digest)
        let since = try promotion.stagingSince(repo, head: head)
        let message = promotion.message(digest: artifact.digest, mediaType: artifact.mediaType, testedAt: head, since: since,
                                        rewrites: rewrites, branch: branch, owned: owned.fields)
        var result = Outcome(promotion: promotion, digest: artifact.digest, mediaType: artifact.mediaType, testedAt: head, since: since,
                             rewrites: rewrites, branch: branch, message: message, tagged: existing != nil ? "already" : "no")
        result.owned = owned.fields
        result.warnings = owned.fields.compactMap(promotion.ownershipWarning)
        for w in result.warnings { say("warning: \(w)") }
        for f in owned.fields where f.writes == nil {
            say("note: \(f.file):\(f.line): ImageUpdateAutomation \(f.run) selects \(promotion.productionTag) itself once the registry has it: "
                + "it writes the promotion at its next run, whether or not this branch is merged")
        }
        for n in owned.notes { say("note: \(n)") }

        if options.dryRun {
            result.tagged = existing != nil ? "already" : "would"
            return result
        }
        // checked before the registry is touched: what would stop the commit or the push
        var review: ReviewBranch?
        if !rewrites.isEmpty {
            review = try ReviewBranch.prepare(repo, branch: branch, options: options.review, command: "promotion")
        }
        let lock = try UpdateLock(gitDir: repo.commonDir)
        defer { lock.release() }

        if existing == nil {
            guard let manifest = try client.manifest(registry, reference: artifact.digest) else {
                throw PromotionRefused("\(promotion.imageAsGiven)@\(artifact.digest) could not be read from the registry")
            }
            // the bytes are the digest's: content-addressed, checked here rather than trusted
            if RegistryClient.sha256Digest(manifest.bytes) != artifact.digest {
                throw PromotionRefused("the registry's manifest for \(artifact.digest) hashes to \(RegistryClient.sha256Digest(manifest.bytes)): not retagged")
            }
            let put = try client.putManifest(registry, tag: promotion.productionTag, bytes: manifest.bytes, mediaType: manifest.mediaType)
            let readBack = try client.digest(registry, tag: promotion.productionTag)?.digest
            guard put == artifact.digest, readBack == artifact.digest else {
                throw PromotionRefused("\(promotion.imageAsGiven):\(promotion.productionTag) reads back as \(readBack ?? "nothing") (the registry answered \(put)), "
                                       + "not \(artifact.digest): the manifests are not changed")
            }
            result.tagged = "yes"
            say("registry: tagged \(artifact.digest) as \(promotion.productionTag), read back identical")
        } else {
            say("registry: \(promotion.productionTag) names \(artifact.digest) already")
        }

        guard !rewrites.isEmpty else {
            say("\(to) runs \(promotion.imageAsGiven):\(promotion.productionTag)@\(artifact.digest) already: nothing to commit")
            return result
        }
        let made = try review!.commit(rewrites, head: GitOID(hex: head)!, message: message, reflog: "tagwarden promote: \(promotion.productionTag)", say: say)
        result.commit = made.commit.hex
        result.pushed = made.pushed
        return result
    }

    /// The automations' verdicts on the promoted fields, with the registry's tags and the production tag on the build.
    func ownership(_ promotion: Promotion, _ rewritten: Promotion.Rewritten, digest: String)
        -> (fields: [AutomationOwnership.Field], notes: [String]) {
        let listed: [String]
        do { listed = try client.tags(promotion.repository) } catch {
            return ([], ["whether an automation writes over the promoted fields was not judged: the tags of \(promotion.imageAsGiven) "
                         + "could not be listed (\((error as? TagwardenError)?.message ?? "\(error)"))"])
        }
        var records = listed.filter { $0 != promotion.productionTag }.map { TagRecord(tag: $0) }
        records.append(TagRecord(tag: promotion.productionTag, digest: digest))
        let registry = promotion.repository
        let tags = ListedTags(image: promotion.image, records: records) { [client] tag in try client.digest(registry, tag: tag)?.digest }
        return promotion.ownership(rewritten, tags: tags)
    }
}
