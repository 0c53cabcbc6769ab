import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageMissingTag = Rule("image-missing-tag") { c in
        let m = c.model
        return m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.name != nil, img.tag == nil, img.digest == nil, !img.tagOptional else { return nil }
            return c.finding("image '\(img.text)' has neither a tag nor a digest: it runs whatever 'latest' points to when the pod starts",
                             image: i)
        }
    }
}
