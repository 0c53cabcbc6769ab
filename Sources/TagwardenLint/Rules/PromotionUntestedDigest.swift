import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let promotionUntestedDigest = Rule("promotion-untested-digest") { m in
        promotionFindings(m).filter { $0.rule == "promotion-untested-digest" }
    }

    /// Production digests of promoted images checked against what staging ran.
    static func promotionFindings(_ m: Model) -> [Finding] {
        guard let evidence = m.evidence, let production = m.environments.byAlias("production") else { return [] }
        var out: [Finding] = []
        for (i, img) in m.images.enumerated() where m.imageEnvironment[i] == production.name && m.imagePromoted[i] {
            guard img.invalid == nil, let digest = img.digest, let name = img.name, let normalized = img.normalizedName else { continue }
            if evidence.digests[normalized]?.contains(digest) == true { continue }
            if let tag = img.tag?.value, let id = PromotionEvidence.identity(tag: tag, prefix: production.tagPrefix),
               let staged = evidence.identities[normalized]?[id], !staged.isEmpty {
                let other = staged.sorted().first!
                out.append(m.finding("promotion-rebuilt-artifact",
                                     "production runs \(id) of \(name) as \(short(digest)), but staging ran \(id) as \(short(other)): the artifact was rebuilt, not promoted",
                                     image: i))
            } else {
                out.append(m.finding("promotion-untested-digest",
                                     "digest \(short(digest)) of \(name) never ran in staging (not at HEAD, not in any earlier commit): promote the build staging tested",
                                     image: i))
            }
        }
        return out
    }

    static func short(_ digest: String) -> String {
        guard let colon = digest.firstIndex(of: ":") else { return digest }
        return String(digest[...colon]) + String(digest[digest.index(after: colon)...].prefix(12)) + "…"
    }
}
