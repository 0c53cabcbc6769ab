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
            var asked: [String] = [], unchecked: [String] = [], rules: [String] = []
            if unanswered.tags > 0 {
                let one = unanswered.tags == 1
                asked.append(one ? "its tag" : "its \(unanswered.tags) tags")
                unchecked.append(one ? "whether it exists and what it names" : "whether they exist and what they name")
                rules += ["image-tag-missing", "image-digest-mismatch"]
            }
            if unanswered.listing {
                asked.append("its tag list")
                unchecked.append("which tag its policies select")
                rules += ["marker-behind", "promotion-overwritten"]
            }
            return c.finding("\(name) could not be asked about \(asked.joined(separator: " and ")) (\(unanswered.why)): "
                             + "\(unchecked.joined(separator: ", and ")) \(unchecked.count == 1 ? "was" : "were") not checked "
                             + "(\(rules.joined(separator: ", ")))", image: i)
        }
    }
}
