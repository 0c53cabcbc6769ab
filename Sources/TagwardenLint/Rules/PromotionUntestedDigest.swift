import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let promotionUntestedDigest = Rule("promotion-untested-digest") { c in
        promotionVerdicts(c.model).compactMap { i, verdict in
            guard case .untested = verdict, let digest = c.model.images[i].digest, let name = c.model.images[i].name else { return nil }
            return c.finding("digest \(short(digest)) of \(name) never ran in staging (not at HEAD, not in any earlier commit): promote the build staging tested",
                             image: i)
        }
    }
}
