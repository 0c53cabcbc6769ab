import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// Path globs as in .gitignore-style tools: `*`, `?` and `[...]` stay within one `/`-separated segment (as Go's
/// `filepath.Match` reads a segment),
/// `**` spans any number of segments (including none).
public struct Glob: Sendable, Hashable {
    public let pattern: String
    let segments: [[UInt8]]

    public init(_ pattern: String) {
        self.pattern = pattern
        var segments: [[UInt8]] = []
        for part in pattern.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let segment = Array(part)
            // `**/**` is `**`: a run of them matches what one does
            if segment == Glob.doubleStar, segments.last == Glob.doubleStar { continue }
            segments.append(segment)
        }
        self.segments = segments
    }

    static let doubleStar: [UInt8] = [UInt8(ascii: "*"), UInt8(ascii: "*")]

    /// Which path segments each pattern segment can end at, one pattern segment after another: linear in the
    /// pattern's length times the path's depth, with no recursion (a config may hold a very long pattern).
    public func matches(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { b in
            var parts: [Range<Int>] = []
            var start = 0
            for i in 0...b.count where i == b.count || b[i] == UInt8(ascii: "/") {
                if i > start { parts.append(start..<i) }
                start = i + 1
            }
            // reached[k]: the segments so far can match the first k parts of the path
            var reached = [Bool](repeating: false, count: parts.count + 1)
            reached[0] = true
            for segment in segments {
                if segment == Glob.doubleStar {
                    guard let first = reached.firstIndex(of: true) else { return false }
                    for k in first...parts.count { reached[k] = true }
                } else {
                    var any = false
                    for k in stride(from: parts.count, through: 1, by: -1) {
                        reached[k] = reached[k - 1] && Glob.segmentMatches(segment[...], b[parts[k - 1]])
                        any = any || reached[k]
                    }
                    reached[0] = false
                    if !any { return false }
                }
            }
            return reached[parts.count]
        }
    }

    /// Go's `filepath.Match` of one path segment: `*` any run of characters, `?` one character, `[...]` one of a class
    /// (`^` negates, `a-z` a range), `\\` takes the next character as written; a malformed pattern (an open class, a
    /// trailing `\\`) matches nothing. Characters are UTF-8's. Backtracks to the last `*` only, so a pattern from a
    /// repository (`.sourceignore`) costs at most the product of the two lengths.
    static func segmentMatches<S: Collection<UInt8>>(_ p: ArraySlice<UInt8>, _ s: S) -> Bool where S.Index == Int {
        guard wellFormed(p) else { return false }
        var pi = p.startIndex, si = s.startIndex
        var starP = -1, starS = -1
        while si < s.endIndex {
            let next = characterEnd(s, si)
            if pi < p.endIndex, p[pi] != UInt8(ascii: "*"), let after = element(p, pi, matches: s, si, next) {
                pi = after; si = next
            } else if pi < p.endIndex, p[pi] == UInt8(ascii: "*") {
                starP = pi; starS = si; pi += 1
            } else if starP >= 0 {
                pi = starP + 1; starS = characterEnd(s, starS); si = starS
            } else {
                return false
            }
        }
        while pi < p.endIndex, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.endIndex
    }

    /// Whether the pattern element at `p[pi]` (not `*`) matches the character `s[si..<next]`: the index after it if so.
    private static func element<S: Collection<UInt8>>(_ p: ArraySlice<UInt8>, _ pi: Int, matches s: S, _ si: Int, _ next: Int) -> Int?
        where S.Index == Int {
        switch p[pi] {
        case UInt8(ascii: "?"):
            return characterEnd(p, pi)
        case UInt8(ascii: "["):
            let c = scalar(s, si, next)
            var i = pi + 1
            let negate = i < p.endIndex && p[i] == UInt8(ascii: "^")
            if negate { i += 1 }
            var found = false, first = true
            while p[i] != UInt8(ascii: "]") || first {
                first = false
                let lo = classCharacter(p, &i)
                var hi = lo
                if p[i] == UInt8(ascii: "-"), p[i + 1] != UInt8(ascii: "]") {
                    i += 1
                    hi = classCharacter(p, &i)
                }
                if lo <= c && c <= hi { found = true }
            }
            return found != negate ? i + 1 : nil
        default:
            var at = pi
            if p[at] == UInt8(ascii: "\\") { at += 1 }
            let end = characterEnd(p, at)
            guard end - at == next - si, zip(p[at..<end], s[si..<next]).allSatisfy({ $0 == $1 }) else { return nil }
            return end
        }
    }

    /// A class's character at `p[i]` (after a `\\`, the next one), moving `i` past it.
    private static func classCharacter(_ p: ArraySlice<UInt8>, _ i: inout Int) -> UInt32 {
        if p[i] == UInt8(ascii: "\\") { i += 1 }
        let end = characterEnd(p, i)
        defer { i = end }
        return scalar(p, i, end)
    }

    /// Every class closed (with at least one character) and no `\\` at the end: what `wellFormed` lets
    /// `element` read without bounds checks.
    private static func wellFormed(_ p: ArraySlice<UInt8>) -> Bool {
        var i = p.startIndex
        while i < p.endIndex {
            switch p[i] {
            case UInt8(ascii: "\\"):
                i += 1
                guard i < p.endIndex else { return false }
                i = characterEnd(p, i)
            case UInt8(ascii: "["):
                i += 1
                if i < p.endIndex, p[i] == UInt8(ascii: "^") { i += 1 }
                var first = true
                while true {
                    guard i < p.endIndex else { return false }
                    if p[i] == UInt8(ascii: "]"), !first { break }
                    first = false
                    if p[i] == UInt8(ascii: "\\") { i += 1; guard i < p.endIndex else { return false } }
                    i = characterEnd(p, i)
                    guard i < p.endIndex else { return false }
                    if p[i] == UInt8(ascii: "-"), i + 1 < p.endIndex, p[i + 1] != UInt8(ascii: "]") {
                        i += 1
                        if p[i] == UInt8(ascii: "\\") { i += 1; guard i < p.endIndex else { return false } }
                        i = characterEnd(p, i)
                    }
                }
                i += 1
            default:
                i = characterEnd(p, i)
            }
        }
        return true
    }

    /// The index after the UTF-8 character that starts at `i`.
    private static func characterEnd<C: Collection<UInt8>>(_ s: C, _ i: Int) -> Int where C.Index == Int {
        let lead = s[i]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return min(i + length, s.endIndex)
    }

    /// The code point of the UTF-8 character `s[i..<end]`.
    private static func scalar<C: Collection<UInt8>>(_ s: C, _ i: Int, _ end: Int) -> UInt32 where C.Index == Int {
        if end - i == 1 { return UInt32(s[i]) }
        var v = UInt32(s[i]) & (end - i == 2 ? 0x1F : end - i == 3 ? 0x0F : 0x07)
        for j in (i + 1)..<end { v = v << 6 | (UInt32(s[j]) & 0x3F) }
        return v
    }
}

extension Sequence where Element == Glob {
    /// Whether one of the globs matches an image's name as written or as normalised (`nginx`, `docker.io/library/nginx`):
    /// how `promotedImages` and `shortVersionReleases` name images.
    public func matchImage(_ name: String, normalized: String) -> Bool {
        contains { $0.matches(name) || $0.matches(normalized) }
    }
}
