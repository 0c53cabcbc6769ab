import TagwardenBasics
import TagwardenRegex
import TagwardenYAML

/// How Flux parses tags as versions: the regime changed in Flux 2.7 (image-reflector-controller v1.0,
/// Masterminds semver v3.4).
public enum TagParsing: Sendable, Equatable {
    /// Flux ≥ 2.7: loose parsing (at least two dots), group-level prerelease opt-in.
    case current
    /// Flux ≤ 2.6: strict `X.Y.Z` after one `v`, per-term prerelease rule.
    case legacy
}

/// A Masterminds semver v3 version.
public struct SemVersion: Sendable, Equatable {
    public var major: UInt64
    public var minor: UInt64
    public var patch: UInt64
    public var prerelease: String
    public var metadata: String
    /// The exact input.
    public var original: String

    static func isIdentChar(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == UInt8(ascii: "-")
    }

    static func digits(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }

    /// Masterminds `NewVersion` (coerce mode): `v?N(.N(.N)?)?(-pre)?(+meta)?`, missing parts are 0,
    /// leading zeros allowed in the core. Read byte by byte: every part must be ASCII, so a byte ≥ 0x80
    /// anywhere is no version.
    public static func parse(_ s: String) -> SemVersion? {
        var text = s
        return text.withUTF8 { b -> SemVersion? in
            let n = b.count
            var i = 0
            while i < n {
                if b[i] >= 0x80 { return nil }
                i += 1
            }
            let from = n > 0 && b[0] == UInt8(ascii: "v") ? 1 : 0
            var plus = from
            while plus < n, b[plus] != UInt8(ascii: "+") { plus += 1 }
            var dash = from
            while dash < plus, b[dash] != UInt8(ascii: "-") { dash += 1 }
            // identifiers: non-empty runs of [0-9A-Za-z-] between dots
            func identifiers(_ lo: Int, _ hi: Int, noLeadingZero: Bool) -> Bool {
                guard lo < hi else { return false }
                var start = lo
                var j = lo
                while j <= hi {
                    if j == hi || b[j] == UInt8(ascii: ".") {
                        if j == start { return false }
                        if noLeadingZero, j - start > 1, b[start] == UInt8(ascii: "0"),
                           (start..<j).allSatisfy({ b[$0] >= 48 && b[$0] <= 57 }) { return false }
                        start = j + 1
                    } else if !isIdentChar(b[j]) {
                        return false
                    }
                    j += 1
                }
                return true
            }
            if plus < n, !identifiers(plus + 1, n, noLeadingZero: false) { return nil }
            if dash < plus, !identifiers(dash + 1, plus, noLeadingZero: true) { return nil }
            // the core: one to three dot-separated numbers
            var nums: [UInt64] = [0, 0, 0]
            var part = 0
            var value: UInt64 = 0
            var digitCount = 0
            var j = from
            while j <= dash {
                if j == dash || b[j] == UInt8(ascii: ".") {
                    guard digitCount > 0, part < 3 else { return nil }
                    nums[part] = value
                    part += 1
                    value = 0
                    digitCount = 0
                } else {
                    let c = b[j]
                    guard c >= 48, c <= 57 else { return nil }
                    let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(UInt64(c - 48))
                    if o1 || o2 { return nil }
                    value = sum
                    digitCount += 1
                }
                j += 1
            }
            let pre = dash < plus ? String(decoding: UnsafeBufferPointer(rebasing: b[(dash + 1)..<plus]), as: UTF8.self) : ""
            let meta = plus < n ? String(decoding: UnsafeBufferPointer(rebasing: b[(plus + 1)..<n]), as: UTF8.self) : ""
            return SemVersion(major: nums[0], minor: nums[1], patch: nums[2], prerelease: pre, metadata: meta, original: s)
        }
    }

    /// Masterminds `StrictNewVersion`: exactly `X.Y.Z[-pre][+meta]`, no leading zeros.
    public static func parseStrict(_ s: String) -> SemVersion? {
        guard let v = parse(s), !s.hasPrefix("v") else { return nil }
        var rest = Substring(s)
        if let i = rest.firstIndex(where: { $0 == "-" || $0 == "+" }) { rest = rest[..<i] }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard core.count == 3, core.allSatisfy({ $0.count == 1 || $0.first != "0" }) else { return nil }
        return v
    }

    /// How Flux reads an image tag as a version (`fluxcd/pkg/version.ParseVersion`).
    public static func parseTag(_ tag: String, flux: TagParsing = .current) -> SemVersion? {
        switch flux {
        case .current:
            // at least two dots (Flux splits on "." at most three times and wants three parts)
            var dots = 0
            for c in tag.utf8 where c == UInt8(ascii: ".") {
                dots += 1
                if dots == 2 { return parse(tag) }
            }
            return nil
        case .legacy:
            var t = Substring(tag)
            if t.first == "v" { t = t.dropFirst() }
            guard parseStrict(String(t)) != nil else { return nil }
            return parse(tag)
        }
    }

    /// Masterminds `Compare`: core numerically, a release above its prereleases, prerelease identifiers
    /// compared one by one; build metadata ignored.
    public func compare(_ o: SemVersion) -> Int {
        if major != o.major { return major < o.major ? -1 : 1 }
        if minor != o.minor { return minor < o.minor ? -1 : 1 }
        if patch != o.patch { return patch < o.patch ? -1 : 1 }
        if prerelease == o.prerelease { return 0 }
        if prerelease.isEmpty { return 1 }
        if o.prerelease.isEmpty { return -1 }
        return SemVersion.comparePrerelease(prerelease, o.prerelease)
    }

    static func comparePrerelease(_ a: String, _ b: String) -> Int {
        let x = a.split(separator: ".", omittingEmptySubsequences: false)
        let y = b.split(separator: ".", omittingEmptySubsequences: false)
        for i in 0..<max(x.count, y.count) {
            let s = i < x.count ? x[i] : "", o = i < y.count ? y[i] : ""
            let d = comparePart(s, o)
            if d != 0 { return d }
        }
        return 0
    }

    static func comparePart(_ s: Substring, _ o: Substring) -> Int {
        if s == o { return 0 }
        if s.isEmpty { return -1 }
        if o.isEmpty { return 1 }
        let si = digits(s) ? UInt64(s) : nil, oi = digits(o) ? UInt64(o) : nil
        if let si, let oi { return si > oi ? 1 : -1 }
        if si != nil { return -1 }
        if oi != nil { return 1 }
        return s.utf8.lexicographicallyPrecedes(o.utf8) ? -1 : 1
    }
}

/// A Masterminds semver v3 constraint: `||` groups of AND terms, hyphen ranges, `= != > < >= <= ~ ~> ^`,
/// wildcards and missing parts.
public struct SemverConstraint: Sendable {
    struct Term: Sendable {
        var op: String
        var version: SemVersion
        var dirty = false
        var minorDirty = false
        var patchDirty = false
    }

    public let text: String
    var groups: [[Term]]
    var groupHasPrerelease: [Bool]

    static let cv = #"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"#
    static let ops = #"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"#
    // The expressions Masterminds uses, run on our RE2 engine: same syntax, same leftmost-first choices.
    static let term = try? GoRegex(#"^\s*("# + ops + #")\s*("# + cv + #")\s*$"#)
    static let range = try? GoRegex(#"\s*("# + cv + #")\s+-\s+("# + cv + #")\s*"#)
    static let find = try? GoRegex("(" + ops + #")\s*("# + cv + ")")
    static let valid = try? GoRegex(#"^(\s*("# + ops + #")\s*("# + cv + #")\s*)((?:\s+|,\s*)("# + ops + #")\s*("# + cv + #")\s*)*$"#)

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// All non-overlapping matches, as Go's `FindAllStringSubmatch`.
    static func findAll(_ re: GoRegex, _ s: String) -> [[String?]] {
        let bytes = Array(s.utf8)
        var out: [[String?]] = []
        var from = 0
        while from <= bytes.count {
            let slice = Array(bytes[from...])
            guard let m = slice.withUnsafeBufferPointer({ re.firstMatch(bytes: $0) }), let whole = m[0] else { break }
            out.append(m.map { r in r.map { String(decoding: slice[$0], as: UTF8.self) } })
            from += max(whole.upperBound, whole.lowerBound + 1)
        }
        return out
    }

    public init(_ text: String) throws(ParseError) {
        self.text = text
        guard let termRe = SemverConstraint.term, let rangeRe = SemverConstraint.range,
              let findRe = SemverConstraint.find, let validRe = SemverConstraint.valid else {
            throw ParseError(message: "constraint parser unavailable")
        }
        if text.utf8.count > 512 { throw ParseError(message: "constraint string is too long (max 512 bytes)") }
        // hyphen ranges: "1.2 - 1.4" → ">= 1.2, <= 1.4"
        var c = text
        if c.contains("-") {
            for m in SemverConstraint.findAll(rangeRe, c) {
                if let whole = m[0], let a = m[1], let b = m[11] {
                    c = c.replacingFirst(whole, with: ">= \(a), <= \(b) ")
                }
            }
        }
        let ors = c.components(separatedByString: "||")
        if ors.count > 32 { throw ParseError(message: "too many constraint groups (max 32)") }
        groups = []
        groupHasPrerelease = []
        for segment in ors {
            guard validRe.matches(segment) else { throw ParseError(message: "improper constraint: \(segment)") }
            var terms: [Term] = []
            var pre = false
            for m in SemverConstraint.findAll(findRe, segment) {
                guard let whole = m[0], let parts = termRe.firstMatch(in: whole) else {
                    throw ParseError(message: "improper constraint: \(m[0] ?? segment)")
                }
                let g = parts.map { r in r.map { String(decoding: Array(whole.utf8)[$0], as: UTF8.self) } }
                func isX(_ s: String?) -> Bool { s == "x" || s == "X" || s == "*" }
                let major = g[3] ?? "", minor = g[4] ?? "", patch = g[5] ?? "", prerelease = g[6] ?? ""
                var term = Term(op: g[1] ?? "", version: SemVersion(major: 0, minor: 0, patch: 0, prerelease: "", metadata: "", original: ""))
                var ver = g[2] ?? ""
                if isX(major) || major.isEmpty {
                    ver = "0.0.0" + prerelease
                    term.dirty = true
                } else if isX(String(minor.dropFirst())) || minor.isEmpty {
                    term.minorDirty = true
                    term.dirty = true
                    ver = major + ".0.0" + prerelease
                } else if isX(String(patch.dropFirst())) || patch.isEmpty {
                    term.dirty = true
                    term.patchDirty = true
                    ver = major + minor + ".0" + prerelease
                }
                guard let v = SemVersion.parse(ver) else { throw ParseError(message: "improper constraint: \(whole): '\(ver)' is not a valid version") }
                term.version = v
                if !v.prerelease.isEmpty { pre = true }
                terms.append(term)
            }
            if terms.isEmpty { throw ParseError(message: "improper constraint: \(segment)") }
            groups.append(terms)
            groupHasPrerelease.append(pre)
        }
    }

    /// Masterminds `Check`. `.current` (v3.4+): a prerelease passes a group only if a term of the group carries
    /// a prerelease. `.legacy` (v3.3): each term must carry one (a `!=` without wildcards does not look).
    public func check(_ v: SemVersion, flux: TagParsing = .current) -> Bool {
        for (i, group) in groups.enumerated() {
            var ok = true
            for t in group {
                let includePre: Bool
                switch flux {
                case .current: includePre = groupHasPrerelease[i]
                case .legacy: includePre = !t.version.prerelease.isEmpty || (t.op == "!=" && !t.dirty)
                }
                if !SemverConstraint.holds(t, v, includePre: includePre) { ok = false; break }
            }
            if ok { return true }
        }
        return false
    }

    static func holds(_ c: Term, _ v: SemVersion, includePre: Bool) -> Bool {
        if !v.prerelease.isEmpty && !includePre { return false }
        let con = c.version
        switch c.op {
        case "", "=":
            return c.dirty ? tilde(c, v) : v.compare(con) == 0
        case "!=":
            if c.dirty {
                if con.major != v.major { return true }
                if con.minor != v.minor && !c.minorDirty { return true }
                if c.minorDirty { return false }
                if con.patch != v.patch && !c.patchDirty { return true }
                if c.patchDirty {
                    if !v.prerelease.isEmpty || !con.prerelease.isEmpty {
                        return SemVersion.comparePrerelease(v.prerelease, con.prerelease) != 0
                    }
                    return false
                }
            }
            return v.compare(con) != 0
        case ">":
            if !c.dirty { return v.compare(con) == 1 }
            if v.major > con.major { return true }
            if v.major < con.major { return false }
            if c.minorDirty { return false }
            if c.patchDirty { return v.minor > con.minor }
            return v.compare(con) == 1
        case "<":
            return v.compare(con) < 0
        case ">=", "=>":
            return v.compare(con) >= 0
        case "<=", "=<":
            if !c.dirty { return v.compare(con) <= 0 }
            if v.major > con.major { return false }
            if v.major == con.major && v.minor > con.minor && !c.minorDirty { return false }
            return true
        case "~", "~>":
            return tilde(c, v)
        case "^":
            if v.compare(con) < 0 { return false }
            if con.major > 0 || c.minorDirty { return v.major == con.major }
            if con.major == 0 && v.major > 0 { return false }
            if con.minor > 0 || c.patchDirty { return v.minor == con.minor }
            if con.minor == 0 && v.minor > 0 { return false }
            return con.patch == v.patch
        default:
            return false
        }
    }

    static func tilde(_ c: Term, _ v: SemVersion) -> Bool {
        let con = c.version
        if v.compare(con) < 0 { return false }
        if con.major == 0 && con.minor == 0 && con.patch == 0 && !c.minorDirty && !c.patchDirty { return true }
        if v.major != con.major { return false }
        if v.minor != con.minor && !c.minorDirty { return false }
        return true
    }
}

extension String {
    func replacingFirst(_ a: String, with b: String) -> String {
        guard let r = Substring(self).range(of: a) else { return self }
        return String(self[..<r.lowerBound]) + b + String(self[r.upperBound...])
    }

    func components(separatedByString sep: String) -> [String] {
        var out: [String] = []
        var rest = Substring(self)
        while let r = rest.range(of: sep) {
            out.append(String(rest[..<r.lowerBound]))
            rest = rest[r.upperBound...]
        }
        out.append(String(rest))
        return out
    }
}
