extension Rule {
    static let imageNotPinned = Rule("image-not-pinned") { m in
        m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.digest == nil, let name = img.name,
                  let env = m.environments.named(m.imageEnvironment[i]), env.requireDigest else { return nil }
            if img.tagOptional && img.tag == nil { return nil }  // a kustomize rename keeps the base's pin
            return m.finding("image-not-pinned",
                             "\(env.name) requires digests: pin '\(img.text)' as \(name)\(img.tag.map { ":" + $0.value } ?? "")@sha256:<digest>",
                             image: i)
        }
    }
}
