/// Comment lines indented with tabs that go-yaml v3 reads and libyaml refuses.
///
/// In block context neither scanner takes a tab where a line's indentation is (libyaml: "found character that cannot
/// start any token"). But go-yaml v3, which kustomize and Flux's image automation read files with, scans a comment
/// block ahead of its tokens: after a comment it looks up to 512 bytes past the line's break, over spaces, tabs and
/// breaks, for another `#`, and takes that line as part of the block, tabs and all (yaml.v3 scannerc.go,
/// `yaml_parser_scan_comments`; its 512 held to go-yaml itself at 511 and 512 bytes). That comment is one its
/// scanner reaches between tokens: a line with only a comment, or one after a lone `-` entry or a `---`; one after a
/// value is a line comment read by itself, after which the tab is refused as libyaml refuses it. go-yaml v2
/// (sigs.k8s.io/yaml: Helm's values, `kubectl apply -f`) refuses them all.
enum TabbedComments {
    /// The comment lines go-yaml v3 reads from the tab at `tab` on, when libyaml refused it: the offsets of every tab
    /// in their indentation (and in the blank lines between them), the span of the first line's indentation, and the
    /// `-` the block starts after, if it does: that must be a sequence entry, not the end of a plain scalar continued
    /// on its line (`text` then `- # c`), which the caller sees in the parse. Nil when go-yaml v3 refuses the tab too.
    static func run(_ b: [UInt8], tabAt tab: Int) -> (tabs: [Int], span: Range<Int>, entry: Int?)? {
        guard tab < b.count, b[tab] == tabByte else { return nil }
        // the line before the tab: its last byte other than a blank or a break
        var last = tab - 1
        while last >= 0, isBlank(b[last]) || isBreak(b[last]) { last -= 1 }
        guard last >= 0, let start = blockStart(b, lineEndingAt: last) else { return nil }
        // (go-yaml reads a comment to its line's break, trailing blanks and all, and looks on from there)
        var lineBreak = last + 1
        while lineBreak < tab, !isBreak(b[lineBreak]) { lineBreak += 1 }
        var tabs: [Int] = []
        var first: Range<Int>?
        while true {
            var hash = lineBreak
            var blankTabs: [Int] = []
            while hash < b.count, hash - lineBreak < 512, isBlank(b[hash]) || isBreak(b[hash]) {
                if b[hash] == tabByte { blankTabs.append(hash) }
                hash += 1
            }
            guard hash < b.count, hash - lineBreak < 512, b[hash] == UInt8(ascii: "#") else { break }
            if first == nil, let t = blankTabs.first { first = t..<hash }
            tabs += blankTabs
            lineBreak = hash
            while lineBreak < b.count, !isBreak(b[lineBreak]) { lineBreak += 1 }
        }
        // the refused tab must be one this block takes
        guard let first, first.lowerBound == tab else { return nil }
        if case .entry(let dash) = start { return (tabs, first, dash) }
        return (tabs, first, nil)
    }

    /// Whether the line that ends at `end` has a comment go-yaml v3 reads as the start of a block: the line holds only
    /// the comment, or the comment follows a lone `-` entry (or several, `- -`: the last is the entry's) or a `---` at the
    /// line's start. Nil when it has no such comment.
    private static func blockStart(_ b: [UInt8], lineEndingAt end: Int) -> BlockStart? {
        var start = end
        while start > 0, !isBreak(b[start - 1]) { start -= 1 }
        guard let hash = b[start...end].firstIndex(of: UInt8(ascii: "#")) else { return nil }
        let before = b[start..<hash]
        if before.allSatisfy(isBlank) { return .comment }
        if before.starts(with: [45, 45, 45]), before.count > 3, before.dropFirst(3).allSatisfy(isBlank) { return .comment }
        // `- ` entries alone: a dash, then a blank, each
        var i = before.startIndex
        while i < before.endIndex, before[i] == UInt8(ascii: " ") { i += 1 }
        var entry: Int?
        while i < before.endIndex, before[i] == UInt8(ascii: "-") {
            entry = i
            i += 1
            guard i < before.endIndex, isBlank(before[i]) else { return nil }
            while i < before.endIndex, isBlank(before[i]) { i += 1 }
        }
        guard let entry, i == before.endIndex else { return nil }
        return .entry(entry)
    }

    private enum BlockStart { case comment, entry(Int) }

    private static let tabByte = UInt8(ascii: "\t")
    private static func isBlank(_ c: UInt8) -> Bool { c == 32 || c == 9 }
    private static func isBreak(_ c: UInt8) -> Bool { c == 10 || c == 13 }
}
