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
            var f = c.finding("image '\(img.text)' has neither a tag nor a digest: it runs whatever 'latest' points to when the pod starts",
                              image: i)
            // a chart's template, not read here, may add a tag of its own to a value that names the image
            if img.origin == .helmImage {
                f.assume("assuming the chart takes this value as the whole reference; some add their own tag (kubecost's adds "
                         + ":prod-<appVersion>): if this one does, say so with # tagwarden:ignore image-missing-tag on the line")
            }
            return f
        }
    }
}
