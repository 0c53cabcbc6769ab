import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageInvalidReference = Rule("image-invalid-reference") { c in
        let m = c.model
        return m.images.indices.compactMap { i in
            // (one that every build gives a name and tag that parse, with `images:` entries, runs nowhere, as does an
            // entry's that matches no image)
            guard let problem = m.images[i].invalid, !m.images[i].retagged else { return nil }
            return c.finding("'\(m.images[i].text)' is not a valid image reference: \(problem)", image: i)
        }
    }
}
