import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let promotionRebuiltArtifact = Rule("promotion-rebuilt-artifact") { c in
        promotionVerdicts(c.model).compactMap { i, verdict in
            guard case .rebuilt(let id, let other) = verdict, let digest = c.model.images[i].digest, let name = c.model.images[i].name else { return nil }
            return c.finding("production runs \(id) of \(name) as \(short(digest)), but staging ran \(id) as \(short(other)): the artifact was rebuilt, not promoted",
                             image: i)
        }
    }
}
