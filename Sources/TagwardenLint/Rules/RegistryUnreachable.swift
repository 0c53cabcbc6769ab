import TagwardenBasics
import TagwardenYAML
import TagwardenModel
extension Rule {
    /// An image whose registry could not be asked: reported once, at its first reference, so that a registry that is
    /// down or refuses never passes for one that said yes.
    static let registryUnreachable = Rule("registry-unreachable") { c in
        guard let registry = c.registry, !registry.unreachable.isEmpty else { return [] }
        let m = c.model
        var reported: Set<String> = []
        return m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.tag != nil, let (name, normalized) = m.repositoryName(i),
                  let unanswered = registry.unreachable[normalized], reported.insert(normalized).inserted else { return nil }
            let count = unanswered.tags == 1 ? "its tag" : "its \(unanswered.tags) tags"
            return c.finding("\(name) could not be asked about \(count) (\(unanswered.why)): whether they exist and what they name "
                             + "was not checked (image-tag-missing, image-digest-mismatch)", image: i)
        }
    }
}
