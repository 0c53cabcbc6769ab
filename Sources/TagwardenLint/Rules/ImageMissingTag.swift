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
            // a whole-reference marker on a field that holds a part (`tag: 1.2.3`) makes no image of it: marker-wrong-form
            // says what is wrong there
            if img.origin == .marker, img.markers.contains(where: { k in
                let key = m.markers[k].fieldKey ?? ""
                return tagFields.contains(key) || nameFields.contains(key) || digestFields.contains(key)
            }) { return nil }
            return c.finding("image '\(img.text)' has neither a tag nor a digest: it runs whatever 'latest' points to when the pod starts",
                             image: i)
        }
    }
}
