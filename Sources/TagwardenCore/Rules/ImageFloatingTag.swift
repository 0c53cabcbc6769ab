extension Rule {
    static let imageFloatingTag = Rule("image-floating-tag") { m in
        m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, img.digest == nil, let tag = img.tag, !isLatest(img) else { return nil }
            let lower = tag.value.lowercased()
            if m.floatingTags.contains(lower) {
                return m.finding("image-floating-tag",
                                 "image '\(img.text)' uses the floating tag '\(tag.value)', which points at a new build after each push",
                                 image: i, span: tag.span)
            }
            if isPartialVersion(tag.value) {
                return m.finding("image-floating-tag",
                                 "image '\(img.text)' uses the partial version '\(tag.value)', which moves to every new patch release: pin the full version",
                                 image: i, span: tag.span)
            }
            return nil
        }
    }

    /// `1`, `1.25`, `v2`, optionally with a variant such as `-alpine` (`1.25-alpine`).
    static func isPartialVersion(_ tag: String) -> Bool {
        var s = Substring(tag)
        if let dash = s.firstIndex(of: "-") {
            let variant = s[s.index(after: dash)...]
            guard !variant.isEmpty, variant.allSatisfy({ $0.isLetter || $0 == "-" }) else { return false }
            s = s[..<dash]
        }
        if s.first == "v" || s.first == "V" { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !s.isEmpty else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
    }
}
