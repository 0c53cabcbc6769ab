/// Path globs as in .gitignore-style tools: `*` and `?` stay within one `/`-separated segment,
/// `**` spans any number of segments (including none).
public struct Glob: Sendable, Hashable {
    public let pattern: String
    let segments: [[UInt8]]

    public init(_ pattern: String) {
        self.pattern = pattern
        segments = pattern.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { Array($0) }
    }

    public func matches(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { b in
            var parts: [Range<Int>] = []
            var start = 0
            for i in 0...b.count where i == b.count || b[i] == UInt8(ascii: "/") {
                if i > start { parts.append(start..<i) }
                start = i + 1
            }
            // (segment, part) → 0 not yet known, 1 no match, 2 match
            var memo = [UInt8](repeating: 0, count: (segments.count + 1) * (parts.count + 1))
            return match(0, b, parts, 0, &memo)
        }
    }

    private func match(_ si: Int, _ b: UnsafeBufferPointer<UInt8>, _ parts: [Range<Int>], _ pi: Int, _ memo: inout [UInt8]) -> Bool {
        let key = si * (parts.count + 1) + pi
        if memo[key] != 0 { return memo[key] == 2 }
        var result: Bool
        if si == segments.count {
            result = pi == parts.count
        } else if segments[si].count == 2, segments[si][0] == UInt8(ascii: "*"), segments[si][1] == UInt8(ascii: "*") {
            result = false
            var k = pi
            while k <= parts.count {
                if match(si + 1, b, parts, k, &memo) { result = true; break }
                k += 1
            }
        } else if pi < parts.count, Glob.segmentMatches(segments[si][...], b[parts[pi]]) {
            result = match(si + 1, b, parts, pi + 1, &memo)
        } else {
            result = false
        }
        memo[key] = result ? 2 : 1
        return result
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
