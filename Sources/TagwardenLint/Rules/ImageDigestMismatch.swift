import TagwardenBasics
import TagwardenYAML
import TagwardenModel
extension Rule {
    static let imageDigestMismatch = Rule("image-digest-mismatch") { c in
        guard let registry = c.registry else { return [] }
        let m = c.model
        return m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, let tag = img.tag, let pinned = img.digest, let (name, normalized) = m.repositoryName(i),
                  case .present(let digest?, _, let platforms)? = registry.tags[RegistryFacts.key(name: normalized, tag: tag.value)],
                  digest != pinned, !platforms.contains(pinned) else { return nil }
            // a pin of one platform of the tag's index is that tag's image: not a mismatch
            return c.finding("\(name):\(tag.value) is \(short(digest)) in the registry, but this pins \(short(pinned)): the tag was pushed again, "
                                + "or the pin is not this tag's build; the runtime pulls the pinned digest",
                             image: i, span: img.digestField?.span ?? img.span)
        }
    }
}
