import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageLatestTag = Rule("image-latest-tag") { m in
        m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.digest == nil, let tag = img.tag, tag.value.lowercased() == "latest" else { return nil }
            return m.finding("image-latest-tag",
                             "\(m.described(i)) uses the tag '\(tag.value)', which moves with every push: pin a version or a digest",
                             image: i, span: tag.span)
        }
    }

    static func isLatest(_ img: ImageUse) -> Bool {
        img.digest == nil && img.tag?.value.lowercased() == "latest"
    }
}
