/// Path globs as in .gitignore-style tools: `*` and `?` stay within one `/`-separated segment,
/// `**` spans any number of segments (including none).
public struct Glob: Sendable, Hashable {
    public let pattern: String
    let segments: [[UInt8]]

    public init(_ pattern: String) {
        self.pattern = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { Array($0.utf8) }
    }

    public func matches(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map { Array($0.utf8) }
        var memo = [Int: Bool]()
        return match(0, parts, 0, &memo)
    }

    private func match(_ si: Int, _ parts: [[UInt8]], _ pi: Int, _ memo: inout [Int: Bool]) -> Bool {
        let key = si * 10_000 + pi
        if let m = memo[key] { return m }
        var result: Bool
        if si == segments.count {
            result = pi == parts.count
        } else if segments[si] == Array("**".utf8) {
            result = false
            var k = pi
            while k <= parts.count {
                if match(si + 1, parts, k, &memo) { result = true; break }
                k += 1
            }
        } else if pi < parts.count, Glob.segmentMatches(segments[si][...], parts[pi][...]) {
            result = match(si + 1, parts, pi + 1, &memo)
        } else {
            result = false
        }
        memo[key] = result
        return result
    }

    static func segmentMatches(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
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
