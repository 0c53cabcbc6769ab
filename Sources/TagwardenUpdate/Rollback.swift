import TagwardenBasics
import TagwardenGit
import TagwardenModel

/// `tagwarden rollback IMAGE --env ENV`: the last promotion of an image to an environment (the commit `promote` made,
/// reachable from HEAD) reverted on a new branch, and what would re-apply it: an automation whose policy selects the
/// promoted tag again writes it back at its next run, whatever git holds.
public struct Rollback {
    /// A commit `tagwarden promote` made, as its message reads.
    public struct PromotionCommit: Sendable {
        public let commit: String
        public let subject: String
        /// The production reference it pinned (`image:tag@digest`), its tag and digest.
        public let reference: String
        public let tag: String
        public let digest: String
        /// The fields it replaced, as `file:line: reference` before it.
        public let replaced: [String]
    }

    public let image: String
    public let imageAsGiven: String
    public let environment: Environment
    public let promotion: PromotionCommit
    /// The files as the revert leaves them (from HEAD's).
    public let rewrites: [FileRewrite]
    public let owned: [AutomationOwnership.Field]
    public let notes: [String]

    /// Finds the last promotion of `image` to `env` from `head` and reverts it onto `head`, in memory.
    public static func plan(_ repo: GitRepository, head: String, model: Model, files: [SourceFile], image imageAsGiven: String,
                            env: String) throws -> Rollback {
        guard let image = ImageReference.normalizeName(imageAsGiven) else {
            throw TagwardenError("'\(imageAsGiven)' is not an image repository name (no tag or digest: ghcr.io/acme/web)")
        }
        let environment = try model.environments.resolve(env)
        let promotion = try lastPromotion(repo, head: head, image: image, env: environment.name)
        let reverted: [(path: String, bytes: [UInt8]?)]
        do { reverted = try repo.revert(GitOID(hex: promotion.commit)!, onto: GitOID(hex: head)!) } catch let c as RevertConflict {
            throw PromotionRefused("reverting \(promotion.commit.prefix(12)) \"\(promotion.subject)\" conflicts with what \(c.paths.joined(separator: ", ")) "
                                   + "hold\(c.paths.count == 1 ? "s" : "") now: the fields changed since; roll back by hand")
        }
        let current = Dictionary(files.map { ($0.path, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        let rewrites = try reverted.compactMap { path, bytes -> FileRewrite? in
            guard let bytes else { throw TagwardenError("reverting \(promotion.commit.prefix(12)) deletes \(path): not a promotion's change") }
            let before = current[path] ?? []
            return before == bytes ? nil : FileRewrite(path: path, before: before, after: bytes, changes: [])
        }
        let after = files.applying(rewrites)
        guard !rewrites.isEmpty else {
            throw PromotionRefused("\(environment.name) holds what it held before \(promotion.commit.prefix(12)) \"\(promotion.subject)\" already: nothing to roll back")
        }
        let rolledBack = try Model.build(after, config: model.config, profile: nil)
        // the tags the automations choose between: the promoted one, which the registry keeps, and the restored ones
        var records = [TagRecord(tag: promotion.tag, digest: promotion.digest)]
        for i in rolledBack.images.indices where rolledBack.images[i].environment == environment.name {
            let img = rolledBack.images[i]
            guard rolledBack.repositoryName(i)?.normalized == image, let tag = img.tag?.value, !records.contains(where: { $0.tag == tag }) else { continue }
            records.append(TagRecord(tag: tag, digest: img.digest))
        }
        let judged = AutomationOwnership.fields(rolledBack, files: after, image: image, tags: ListedTags(image: image, records: records),
                                                paths: Set(rewrites.map(\.path)))
        return Rollback(image: image, imageAsGiven: imageAsGiven, environment: environment, promotion: promotion, rewrites: rewrites,
                        owned: judged.fields, notes: judged.notes)
    }

    /// The newest commit from `head` whose message is `promote`'s for `image` and `env`; one that a later commit reverts
    /// is refused, naming the revert.
    static func lastPromotion(_ repo: GitRepository, head: String, image: String, env: String) throws -> PromotionCommit {
        var reverted: [String: String] = [:]   // a promotion commit → the commit that reverts it
        let label = Promotion.label(env)
        for commit in try repo.commits(from: head, hiding: nil) {
            guard let message = repo.commitMessage(GitOID(hex: commit)!) else { continue }
            let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for line in lines where line.hasPrefix("This reverts commit ") {
                let hex = line.dropFirst("This reverts commit ".count).prefix { $0.isHexDigit }
                if hex.count == 40 { reverted[String(hex)] = commit }
            }
            guard lines.contains(Promotion.trailer), lines.first?.hasSuffix(" to \(env)") == true,
                  let named = value(lines, "Image:"), ImageReference.normalizeName(named) == image,
                  let reference = value(lines, label), let at = reference.lastIndex(of: "@"),
                  let colon = reference[..<at].lastIndex(of: ":") else { continue }
            if let by = reverted[commit] {
                throw PromotionRefused("the last promotion of \(named) to \(env), \(commit.prefix(12)) \"\(lines[0])\", is reverted already "
                                       + "by \(by.prefix(12)): nothing to roll back")
            }
            var replaced: [String] = []
            if let start = lines.firstIndex(of: "Replaces:") {
                for line in lines[(start + 1)...] { if line.hasPrefix("  ") { replaced.append(String(line.dropFirst(2))) } else { break } }
            }
            return PromotionCommit(commit: commit, subject: lines[0], reference: reference, tag: String(reference[reference.index(after: colon)..<at]),
                             digest: String(reference[reference.index(after: at)...]), replaced: replaced)
        }
        throw TagwardenError("no commit from HEAD promotes \(image) to \(env) (a commit tagwarden promote made, with its 'Promoted-by' trailer): "
                             + "nothing to roll back; git revert reverts another commit")
    }

    static func value(_ lines: [String], _ label: String) -> String? {
        lines.first { $0.hasPrefix(label) }.map { String($0.dropFirst(label.count).drop { $0 == " " }) }
    }

    /// Where the commit goes unless `--branch` says: `tagwarden/rollback-<name>-<tag>`.
    public var branch: String {
        "tagwarden/rollback-\(image.split(separator: "/").last.map(String.init) ?? image)-\(promotion.tag)"
    }

    /// What re-applies the promotion after the revert is merged: the automations that write the promoted tag back.
    public var warnings: [String] {
        owned.compactMap { f in
            guard let writes = f.writes else { return nil }
            return "\(f.file):\(f.line): ImageUpdateAutomation \(f.run) writes '\(writes)' back at its next run while the registry has "
                + "\(promotion.tag): policy \(f.policy) selects it over what the rollback restores. Before merging: suspend the automation "
                + "(flux suspend image update \(f.name) -n \(f.namespace)), exclude the tag from policy \(f.policy) (its filterTags, or the "
                + "ImageRepository's exclusionList: '^\(promotion.tag.replacingOccurrences(of: ".", with: "\\."))$'), or remove the marker"
        }
    }

    /// What keeps the rollback, when nothing here writes the promotion back.
    public var keeps: [String] {
        var out: [String] = []
        let kept = owned.filter { $0.writes == nil }
        if owned.isEmpty {
            out.append("no ImageUpdateAutomation here writes these fields: only another promotion re-applies \(promotion.tag)")
        } else if !kept.isEmpty {
            out.append("\(kept.map { "\($0.file):\($0.line)" }.joined(separator: ", ")): the automation's policy selects what the rollback restores")
        }
        out.append("the registry keeps \(imageAsGiven):\(promotion.tag) (\(promotion.digest)); promote would tag the same build again")
        return out
    }

    /// The commit message: what is withdrawn, what is restored, and what would re-apply it.
    public var message: String {
        let short = image.split(separator: "/").last.map(String.init) ?? image
        var lines = ["Roll back \(short) \(promotion.tag) in \(environment.name)", ""]
        lines.append("This reverts commit \(promotion.commit) (\"\(promotion.subject)\").")
        lines.append("")
        lines.append("Image:      \(imageAsGiven)")
        lines.append("Withdrawn:  \(promotion.reference)")
        if !promotion.replaced.isEmpty {
            lines.append("")
            lines.append("Restores:")
            for r in promotion.replaced { lines.append("  \(r)") }
        }
        lines.append("")
        lines.append("Before merging:")
        for f in owned where f.writes != nil {
            lines.append("- [ ] \(f.file):\(f.line): ImageUpdateAutomation \(f.run) writes \(f.writes!) back while policy \(f.policy) selects it: "
                         + "suspend it, exclude the tag, or remove the marker")
        }
        for k in keeps { lines.append("- [ ] Note: \(k)") }
        lines.append("")
        lines.append("Rolled-back-by: tagwarden rollback")
        return lines.joined(separator: "\n") + "\n"
    }
}
