extension Substring {
    /// The first occurrence of `needle`, compared byte by byte.
    package func range(of needle: String) -> Range<Substring.Index>? {
        let n = Array(needle.utf8)
        guard !n.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].utf8.starts(with: n) {
                let end = self.utf8.index(i, offsetBy: n.count)
                return i..<end
            }
            i = index(after: i)
        }
        return nil
    }
}
