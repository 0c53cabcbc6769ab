import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// Path globs as in .gitignore-style tools: `*` and `?` stay within one `/`-separated segment,
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

    static func segmentMatches<S: Collection<UInt8>>(_ p: ArraySlice<UInt8>, _ s: S) -> Bool where S.Index == Int {
        var pi = p.startIndex, si = s.startIndex
        var starP = -1, starS = -1
        while si < s.endIndex {
            if pi < p.endIndex, p[pi] == UInt8(ascii: "?") || p[pi] == s[si] {
                pi += 1; si += 1
            } else if pi < p.endIndex, p[pi] == UInt8(ascii: "*") {
                starP = pi; starS = si; pi += 1
            } else if starP >= 0 {
                pi = starP + 1; starS += 1; si = starS
            } else {
                return false
            }
        }
        while pi < p.endIndex, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.endIndex
    }
}
