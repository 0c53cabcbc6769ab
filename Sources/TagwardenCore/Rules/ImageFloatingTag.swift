extension Rule {
    static let imageFloatingTag = Rule("image-floating-tag") { m in
        m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.digest == nil, let tag = img.tag, !isLatest(img) else { return nil }
            if isFloatingWord(tag.value.lowercased(), m.floatingTags) {
                return m.finding("image-floating-tag",
                                 "\(m.described(i)) uses the floating tag '\(tag.value)', which points at a new build after each push",
                                 image: i, span: tag.span)
            }
            if let numbers = partialVersion(tag.value) {
                // `7` and `13-latest` follow every minor release of their major version; `1.25` every patch release
                let moves = numbers == 1 ? "every new minor and patch release" : "every new patch release"
                return m.finding("image-floating-tag",
                                 "\(m.described(i)) uses the partial version '\(tag.value)', which moves to \(moves): pin the full version",
                                 image: i, span: tag.span)
            }
            return nil
        }
    }

    /// A floating tag of the list, or `latest`/a listed tag among words of letters: with a variant such as
    /// `-alpine` (`stable-slim`, `latest-alpine`), the variant of a moving tag moving with it, or after such words
    /// (`qa-latest`, `preprod-stable`): a tag with no digit names no build. A word with a digit (`main-3f9c2ab`,
    /// `develop-v1.2.3`) names a build.
    static func isFloatingWord(_ lower: String, _ list: Set<String>) -> Bool {
        if list.contains(lower) { return true }
        // letters and dashes only, with a dash (most tags have a digit and stop here, at no cost)
        var dashes = 0
        for c in lower.utf8 {
            if c == UInt8(ascii: "-") { dashes += 1 } else if !(c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) { return false }
        }
        guard dashes > 0 else { return false }
        let words = lower.split(separator: "-", omittingEmptySubsequences: false)
        guard !words.contains(where: \.isEmpty) else { return false }
        return words.contains { $0 == "latest" || list.contains(String($0)) }
    }

    /// `alpine`, `slim-bookworm`: letters, with dashes between words.
    static func isVariant(_ s: Substring) -> Bool {
        !s.isEmpty && s.first != "-" && s.last != "-" && s.allSatisfy { ($0.isASCII && $0.isLetter) || $0 == "-" }
    }

    /// `1`, `1.25`, `v2`, optionally with a variant such as `-alpine` (`1.25-alpine`): how many numbers it has
    /// (1 or 2), or nil for any other tag.
    static func partialVersion(_ tag: String) -> Int? {
        var s = Substring(tag)
        if let dash = s.firstIndex(of: "-") {
            guard isVariant(s[s.index(after: dash)...]) else { return nil }
            s = s[..<dash]
        }
        if s.first == "v" || s.first == "V" { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !s.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        return parts.count
    }
}
