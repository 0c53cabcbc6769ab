import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageLatestTag = Rule("image-latest-tag") { c in
        let m = c.model
        return m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.digest == nil, let tag = img.tag, tag.value.lowercased() == "latest" else { return nil }
            return c.finding("\(m.described(i)) uses the tag '\(tag.value)', which moves with every push: pin a version or a digest",
                             image: i, span: tag.span)
        }
    }
}
