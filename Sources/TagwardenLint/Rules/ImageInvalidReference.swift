import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageInvalidReference = Rule("image-invalid-reference") { m in
        m.images.indices.compactMap { i in
            guard let problem = m.images[i].invalid else { return nil }
            return m.finding("image-invalid-reference", "'\(m.images[i].text)' is not a valid image reference: \(problem)", image: i)
        }
    }
}
