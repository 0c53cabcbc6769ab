import TagwardenBasics
import TagwardenRegex
import TagwardenModel

/// What several rules ask of images, policies and promotion evidence.
extension Rule {
    /// An image that names `latest` (in any case) and no digest.
    static func isLatest(_ img: ResolvedImage) -> Bool {
        img.digest == nil && img.tag.map { isLatestTag(lowered: $0.value.lowercased()) } == true
    }

    /// Whether a tag, already lowered, is `latest` (in any case, as written): for a rule that lowers the tag anyway.
    static func isLatestTag(lowered: String) -> Bool { lowered == "latest" }

    /// Whether an extract template's reference names a group of `re` (a number, `$1`, or a name; `$01` is a name).
    static func referenceResolves(_ name: String, in re: GoRegex) -> Bool {
        if let n = Int(name), !(name.count > 1 && name.hasPrefix("0")) { return n <= re.captureCount }
        return re.subexpNames.contains(name)
    }

    /// Whether a policy's `extract` (if any) can take every group it names from its pattern.
    static func extractResolves(_ spec: ImagePolicySpec, _ re: GoRegex?) -> Bool {
        guard let extract = spec.extract?.value, !extract.isEmpty else { return true }
        guard let re else { return false }
        return extractReferences(extract).allSatisfy { referenceResolves($0, in: re) }
    }

    /// Group names an extract template refers to, by Go's `Expand` rules.
    static func extractReferences(_ template: String) -> [String] {
        GoRegex.scanTemplate(template).compactMap { if case .reference(let name) = $0 { return name } else { return nil } }
    }

    /// A digest as messages show it: the algorithm and its first twelve hex digits.
    static func short(_ digest: String) -> String {
        guard let colon = digest.firstIndex(of: ":") else { return digest }
        return String(digest[...colon]) + String(digest[digest.index(after: colon)...].prefix(12)) + "…"
    }

    /// A production image of a promoted image whose digest staging never ran: the identity staging ran under another
    /// digest (a rebuilt artifact), or none at all.
    enum PromotionVerdict {
        case rebuilt(identity: String, stagingDigest: String)
        case untested
    }

    /// Production digests of promoted images checked against what staging ran (from the Model's promotion evidence).
    static func promotionVerdicts(_ m: Model) -> [(image: ImageID, verdict: PromotionVerdict)] {
        guard let evidence = m.evidence, let production = m.environments.byAlias("production") else { return [] }
        var out: [(image: ImageID, verdict: PromotionVerdict)] = []
        for (i, img) in m.images.withIDs where m.images[i].environment == production.name && m.images[i].promoted {
            // a base's reference that every build retags never runs: its digest is not production's
            guard img.invalid == nil, !img.retagged, let digest = img.digest, img.name != nil, let normalized = img.normalizedName else { continue }
            // an image no staging manifest ever held is not promoted through staging (a directory named staging may hold
            // something else: Let's Encrypt's staging certificates, arjansiemons/homelab)
            guard evidence.images.contains(normalized) else { continue }
            if evidence.digests[normalized]?.contains(digest) == true { continue }
            let id = img.tag.flatMap { PromotionEvidence.identity(tag: $0.value, prefix: production.tagPrefix) }
            if let id, let staged = evidence.identities[normalized]?[id] {
                // staging ran this identity by its tag alone: the digest it ran is not on record, and the identity matches
                if staged.isEmpty { continue }
                out.append((i, .rebuilt(identity: id, stagingDigest: staged.sorted().first!)))
            } else {
                out.append((i, .untested))
            }
        }
        return out
    }
}
