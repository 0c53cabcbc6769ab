extension Rule {
    static let imageFloatingTag = Rule("image-floating-tag") { m in
        m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.digest == nil, let tag = img.tag, !isLatest(img) else { return nil }
            if isFloatingWord(tag.value.lowercased(), m.floatingTags) {
                return m.finding("image-floating-tag",
                                 "\(img.described) uses the floating tag '\(tag.value)', which points at a new build after each push",
                                 image: i, span: tag.span)
            }
            if isPartialVersion(tag.value) {
                return m.finding("image-floating-tag",
                                 "\(img.described) uses the partial version '\(tag.value)', which moves to every new patch release: pin the full version",
                                 image: i, span: tag.span)
            }
            return nil
        }
    }

    /// A floating tag of the list, or `latest`/a listed tag with a variant such as `-alpine` (`stable-slim`,
    /// `latest-alpine`): the variant of a moving tag moves with it. A suffix with a digit (`main-3f9c2ab`,
    /// `develop-v1.2.3`) names a build and is not a variant.
    static func isFloatingWord(_ lower: String, _ list: Set<String>) -> Bool {
        if list.contains(lower) { return true }
        guard let dash = lower.firstIndex(of: "-") else { return false }
        let head = String(lower[..<dash]), variant = lower[lower.index(after: dash)...]
        return (head == "latest" || list.contains(head)) && isVariant(variant)
    }

    /// `alpine`, `slim-bookworm`: letters, with dashes between words.
    static func isVariant(_ s: Substring) -> Bool {
        !s.isEmpty && s.first != "-" && s.last != "-" && s.allSatisfy { ($0.isASCII && $0.isLetter) || $0 == "-" }
    }

    /// `1`, `1.25`, `v2`, optionally with a variant such as `-alpine` (`1.25-alpine`).
    static func isPartialVersion(_ tag: String) -> Bool {
        var s = Substring(tag)
        if let dash = s.firstIndex(of: "-") {
            guard isVariant(s[s.index(after: dash)...]) else { return false }
            s = s[..<dash]
        }
        if s.first == "v" || s.first == "V" { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !s.isEmpty else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
    }
}
