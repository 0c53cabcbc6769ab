import TagwardenBasics
import TagwardenYAML
import TagwardenModel
extension Rule {
    static let imageTagMissing = Rule("image-tag-missing") { c in
        guard let registry = c.registry else { return [] }
        let m = c.model
        return m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, let tag = img.tag, let (name, normalized) = m.repositoryName(i),
                  registry.tags[RegistryFacts.key(name: normalized, tag: tag.value)] == .missing else { return nil }
            // with a digest the runtime pulls by digest and ignores the tag; the tag is still wrong
            return c.finding("\(m.described(i)): the registry has no tag '\(tag.value)' in \(name)"
                                + (img.digest == nil ? ": the image cannot be pulled" : " (it pulls by the digest, but the tag says nothing true)"),
                             image: i, span: tag.span)
        }
    }
}
