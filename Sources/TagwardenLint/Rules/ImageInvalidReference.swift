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
            var f = c.finding("'\(m.images[i].text)' is not a valid image reference: \(problem)", image: i)
            // a chart's template, not read here, makes the reference of its values: most as written, some otherwise
            switch m.images[i].origin {
            case .helmParts:
                f.assume("assuming the chart joins these values as written (registry/repository:tag); one whose template builds the "
                         + "reference otherwise (osdu's adds its version to a repository that ends in '-') runs another")
            case .helmImage:
                f.assume("assuming the chart takes this value as the whole reference")
            default:
                break
            }
            return f
        }
    }
}
