/// Go `regexp/syntax` (Perl flags) parsing: the syntax that Flux's ImagePolicy patterns are written in.

/// A set of Unicode scalar values as sorted, non-overlapping, non-adjacent closed ranges.
public struct CharSet: Hashable, Sendable {
    public private(set) var ranges: [ClosedRange<UInt32>]

    public init(_ ranges: [ClosedRange<UInt32>] = []) {
        self.ranges = []
        for r in ranges { add(r) }
    }

    public static let maxRune: UInt32 = 0x10FFFF
    public static let all = CharSet([0...maxRune])
    public static let digit = CharSet([48...57])
    public static let space = CharSet([9...10, 12...13, 32...32])
    public static let word = CharSet([48...57, 65...90, 95...95, 97...122])

    public var isEmpty: Bool { ranges.isEmpty }

    public mutating func add(_ r: ClosedRange<UInt32>) {
        var lo = r.lowerBound, hi = r.upperBound
        var out: [ClosedRange<UInt32>] = []
        out.reserveCapacity(ranges.count + 1)
        var placed = false
        for x in ranges {
            if x.upperBound &+ 1 < lo {
                out.append(x)
            } else if hi &+ 1 < x.lowerBound {
                if !placed { out.append(lo...hi); placed = true }
                out.append(x)
            } else {
                lo = min(lo, x.lowerBound)
                hi = max(hi, x.upperBound)
            }
        }
        if !placed { out.append(lo...hi) }
        ranges = out
    }

    public mutating func add(_ other: CharSet) {
        for r in other.ranges { add(r) }
    }

    public func union(_ other: CharSet) -> CharSet {
        var s = self
        s.add(other)
        return s
    }

    public func inverted() -> CharSet {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = r.upperBound &+ 1
        }
        if next <= CharSet.maxRune, !(ranges.last?.upperBound == CharSet.maxRune) { out.append(next...CharSet.maxRune) }
        var s = CharSet()
        s.ranges = out
        return s
    }

    public func intersection(_ other: CharSet) -> CharSet {
        var out: [ClosedRange<UInt32>] = []
        var i = 0, j = 0
        while i < ranges.count, j < other.ranges.count {
            let a = ranges[i], b = other.ranges[j]
            let lo = max(a.lowerBound, b.lowerBound), hi = min(a.upperBound, b.upperBound)
            if lo <= hi { out.append(lo...hi) }
            if a.upperBound < b.upperBound { i += 1 } else { j += 1 }
        }
        var s = CharSet()
        s.ranges = out
        return s
    }

    public func contains(_ c: UInt32) -> Bool {
        var lo = 0, hi = ranges.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let r = ranges[mid]
            if c < r.lowerBound { hi = mid - 1 } else if c > r.upperBound { lo = mid + 1 } else { return true }
        }
        return false
    }

    /// Adds the simple case variants of every letter (ASCII exactly; other scripts through Swift's mappings).
    public func caseFolded() -> CharSet {
        var s = self
        for r in ranges {
            // ASCII letters
            let aLo = max(r.lowerBound, 65), aHi = min(r.upperBound, 90)
            if aLo <= aHi { s.add((aLo + 32)...(aHi + 32)) }
            let bLo = max(r.lowerBound, 97), bHi = min(r.upperBound, 122)
            if bLo <= bHi { s.add((bLo - 32)...(bHi - 32)) }
            if r.upperBound >= 0x80, r.upperBound - max(r.lowerBound, 0x80) < 4096 {
                var c = max(r.lowerBound, 0x80)
                while c <= r.upperBound {
                    if let u = Unicode.Scalar(c) {
                        for m in [u.properties.lowercaseMapping, u.properties.uppercaseMapping] {
                            let sc = m.unicodeScalars
                            if sc.count == 1, let f = sc.first { s.add(f.value...f.value) }
                        }
                    }
                    c += 1
                }
            }
        }
        // Kelvin sign and long s fold to ASCII k and s in Go.
        if s.contains(107) || s.contains(75) { s.add(0x212A...0x212A) }
        if s.contains(115) || s.contains(83) { s.add(0x17F...0x17F) }
        return s
    }
}

public enum Assertion: Sendable, Hashable {
    case beginLine, endLine, beginText, endText, wordBoundary, notWordBoundary
}

public indirect enum RegexNode: Sendable, Hashable {
    case empty
    case set(CharSet)
    case assert(Assertion)
    case capture(index: Int, name: String?, RegexNode)
    case concat([RegexNode])
    case alternate([RegexNode])
    /// `max == nil` is unbounded.
    case `repeat`(RegexNode, min: Int, max: Int?, greedy: Bool)
}

/// A syntax error, worded like Go's `regexp/syntax` errors, with the byte offset of the construct.
public struct RegexSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var expr: String
    public var offset: Int
    public var description: String { "\(code): `\(expr)` (at offset \(offset))" }
}

struct Flags {
    var caseInsensitive = false
    var multiLine = false
    var dotNL = false
    var ungreedy = false
}

public struct ParsedRegex: Sendable {
    public var root: RegexNode
    public var captureCount: Int
    /// Names by group index (index 0, the whole match, has none).
    public var names: [String?]
}

struct Parser {
    let src: [UInt8]
    let text: String
    var pos = 0
    var flags = Flags()
    var captures = 0
    var names: [String?] = [nil]
    var depth = 0
    static let maxDepth = 1000
    static let maxRepeat = 1000

    init(_ pattern: String) {
        text = pattern
        src = Array(pattern.utf8)
    }

    func err(_ code: String, _ from: Int, _ to: Int) -> RegexSyntaxError {
        let lo = max(0, min(from, src.count)), hi = max(lo, min(to, src.count))
        return RegexSyntaxError(code: code, expr: String(decoding: src[lo..<hi], as: UTF8.self), offset: lo)
    }

    var atEnd: Bool { pos >= src.count }
    func peek(_ k: Int = 0) -> UInt8? { pos + k < src.count ? src[pos + k] : nil }

    /// Decodes one UTF-8 scalar at `pos` (invalid bytes are an error, as in Go).
    mutating func nextRune() throws -> UInt32 {
        let start = pos
        let b0 = src[pos]
        if b0 < 0x80 { pos += 1; return UInt32(b0) }
        let len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0
        guard len > 0, pos + len <= src.count else { throw err("invalid UTF-8", start, start + 1) }
        var v = UInt32(b0) & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07)
        for k in 1..<len {
            let b = src[pos + k]
            guard b & 0xC0 == 0x80 else { throw err("invalid UTF-8", start, start + 1) }
            v = v << 6 | UInt32(b & 0x3F)
        }
        pos += len
        return v
    }

    static func parse(_ pattern: String) throws -> ParsedRegex {
        var p = Parser(pattern)
        let root = try p.parseAll()
        return ParsedRegex(root: root, captureCount: p.captures, names: p.names)
    }

    /// A group being read: the alternatives finished so far and the concatenation being built.
    struct OpenGroup {
        var start: Int
        var saved: Flags
        var capture: Bool
        var index: Int
        var name: String?
        var branches: [RegexNode] = []
        var items: [RegexNode] = []

        func node() -> RegexNode {
            var all = branches
            all.append(Parser.concat(items))
            let inner = all.count == 1 ? all[0] : .alternate(all)
            return capture ? .capture(index: index, name: name, inner) : inner
        }
    }

    static func concat(_ items: [RegexNode]) -> RegexNode {
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concat(items)
        }
    }

    /// The whole expression, read with a stack of open groups rather than by recursion, as Go's parser does:
    /// Go accepts 1,000 levels of nesting, which a recursive descent would not survive on a thread's stack.
    mutating func parseAll() throws -> RegexNode {
        var open: [OpenGroup] = []
        var current = OpenGroup(start: 0, saved: flags, capture: false, index: 0, name: nil)
        while true {
            guard let c = peek() else {
                if let innermost = open.isEmpty ? nil : current {
                    throw RegexSyntaxError(code: "missing closing )", expr: text, offset: innermost.start)
                }
                return current.node()
            }
            switch c {
            case UInt8(ascii: "|"):
                pos += 1
                current.branches.append(Parser.concat(current.items))
                current.items = []
            case UInt8(ascii: ")"):
                // only a stray ')' stops the top level early
                guard let outer = open.popLast() else { throw err("unexpected )", 0, src.count) }
                pos += 1
                depth -= 1
                flags = current.saved
                let group = current.node()
                current = outer
                current.items.append(try quantified(group))
            case UInt8(ascii: "("):
                guard let group = try openGroup() else { continue }  // a flag group: no operand
                depth += 1
                if depth > Parser.maxDepth { throw err("expression nests too deeply", group.start, src.count) }
                open.append(current)
                current = group
            case UInt8(ascii: "\\") where peek(1) == UInt8(ascii: "Q"):
                // \Q…\E: each character is its own literal, so a quantifier binds to the last one
                pos += 2
                var lits: [RegexNode] = []
                while !atEnd {
                    if peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "E") { pos += 2; break }
                    lits.append(literal(try nextRune()))
                }
                guard let last = lits.popLast() else { continue }
                current.items.append(contentsOf: lits)
                current.items.append(try quantified(last))
            default:
                current.items.append(try quantified(try parseAtom()))
            }
        }
    }

    /// The repetition operators after an atom.
    mutating func quantified(_ operand: RegexNode) throws -> RegexNode {
        var atom = operand
        var lastOpStart = -1
        while let q = peek() {
            let opStart = pos
            var minR = 0, maxR: Int? = nil
            if q == UInt8(ascii: "*") { pos += 1; minR = 0; maxR = nil }
            else if q == UInt8(ascii: "+") { pos += 1; minR = 1; maxR = nil }
            else if q == UInt8(ascii: "?") { pos += 1; minR = 0; maxR = 1 }
            else if q == UInt8(ascii: "{"), let (lo, hi, end) = parseRepeatBraces() {
                if lo > Parser.maxRepeat || (hi ?? 0) > Parser.maxRepeat || (hi != nil && hi! < lo) {
                    throw err("invalid repeat count", opStart, end)
                }
                pos = end
                minR = lo; maxR = hi
            } else { break }
            if lastOpStart >= 0 {
                throw err("invalid nested repetition operator", lastOpStart, pos)
            }
            var greedy = true
            if peek() == UInt8(ascii: "?") { pos += 1; greedy = false }
            if flags.ungreedy { greedy.toggle() }
            lastOpStart = opStart
            atom = .repeat(atom, min: minR, max: maxR, greedy: greedy)
            if RegexAnalysis.repeatProduct(atom) > Parser.maxRepeat {
                throw err("invalid repeat count", opStart, pos)
            }
        }
        return atom
    }

    /// `{n}`, `{n,}`, `{n,m}` at `pos`; nil when the brace is a literal.
    func parseRepeatBraces() -> (Int, Int?, Int)? {
        var i = pos + 1
        func number(_ i: inout Int) -> Int? {
            let s = i
            var v = 0
            while i < src.count, src[i] >= 48, src[i] <= 57 {
                v = min(v * 10 + Int(src[i] - 48), 100_000)
                i += 1
            }
            return i > s ? v : nil
        }
        guard let lo = number(&i) else { return nil }
        var hi: Int? = lo
        if i < src.count, src[i] == UInt8(ascii: ",") {
            i += 1
            if i < src.count, src[i] == UInt8(ascii: "}") { hi = nil } else {
                guard let h = number(&i) else { return nil }
                hi = h
            }
        }
        guard i < src.count, src[i] == UInt8(ascii: "}") else { return nil }
        return (lo, hi, i + 1)
    }

    /// One atom other than a group.
    mutating func parseAtom() throws -> RegexNode {
        let start = pos
        let c = src[pos]
        switch c {
        case UInt8(ascii: "["):
            return .set(try parseClass())
        case UInt8(ascii: "."):
            pos += 1
            return .set(flags.dotNL ? CharSet.all : CharSet([0...9, 11...CharSet.maxRune]))
        case UInt8(ascii: "^"):
            pos += 1
            return .assert(flags.multiLine ? .beginLine : .beginText)
        case UInt8(ascii: "$"):
            pos += 1
            return .assert(flags.multiLine ? .endLine : .endText)
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
            throw err("missing argument to repetition operator", start, start + 1)
        case UInt8(ascii: "{"):
            if let (_, _, end) = parseRepeatBraces() {
                throw err("missing argument to repetition operator", start, end)
            }
            pos += 1
            return literal(UInt32(c))
        case UInt8(ascii: "\\"):
            return try parseEscape()
        default:
            let r = try nextRune()
            return literal(r)
        }
    }

    func literal(_ r: UInt32) -> RegexNode {
        let s = CharSet([r...r])
        return .set(flags.caseInsensitive ? s.caseFolded() : s)
    }

    /// The opening of a group at `(`: nil for a flag group `(?flags)`, which only changes the flags.
    mutating func openGroup() throws -> OpenGroup? {
        let start = pos
        pos += 1
        var name: String? = nil
        let saved = flags
        if peek() == UInt8(ascii: "?") {
            // (?P<name>re), (?<name>re), (?flags), (?flags:re); look-around is not RE2
            if peek(1) == UInt8(ascii: "P"), peek(2) == UInt8(ascii: "<") {
                pos += 3
                name = try parseName(groupStart: start)
            } else if peek(1) == UInt8(ascii: "<"), let n = peek(2), n != UInt8(ascii: "="), n != UInt8(ascii: "!") {
                pos += 2
                name = try parseName(groupStart: start)
            } else if peek(1) == UInt8(ascii: "=") || peek(1) == UInt8(ascii: "!") {
                throw err("invalid or unsupported Perl syntax", start, start + 3)
            } else if peek(1) == UInt8(ascii: "<") {
                throw err("invalid or unsupported Perl syntax", start, min(start + 4, src.count))
            } else if peek(1) == UInt8(ascii: "P") {
                throw err("invalid named capture", start, min(start + 3, src.count))
            } else {
                // flags
                pos += 1
                var negate = false
                var sawFlag = false
                var newFlags = flags
                while true {
                    guard let f = peek() else { throw err("missing closing )", start, src.count) }
                    pos += 1
                    switch f {
                    case UInt8(ascii: "i"): newFlags.caseInsensitive = !negate; sawFlag = true
                    case UInt8(ascii: "m"): newFlags.multiLine = !negate; sawFlag = true
                    case UInt8(ascii: "s"): newFlags.dotNL = !negate; sawFlag = true
                    case UInt8(ascii: "U"): newFlags.ungreedy = !negate; sawFlag = true
                    case UInt8(ascii: "-"):
                        if negate { throw err("invalid or unsupported Perl syntax", start, pos) }
                        negate = true
                        sawFlag = false
                    case UInt8(ascii: ")"), UInt8(ascii: ":"):
                        if negate && !sawFlag { throw err("invalid or unsupported Perl syntax", start, pos) }
                        if f == UInt8(ascii: ")") {
                            if pos - start == 3 { throw err("invalid or unsupported Perl syntax", start, pos) }  // "(?)"
                            flags = newFlags  // applies to the rest of the enclosing group
                            return nil
                        }
                        flags = newFlags
                        return OpenGroup(start: start, saved: saved, capture: false, index: 0, name: nil)
                    default:
                        throw err("invalid or unsupported Perl syntax", start, pos)
                    }
                }
            }
        }
        captures += 1
        names.append(name)
        return OpenGroup(start: start, saved: saved, capture: true, index: captures, name: name)
    }

    mutating func parseName(groupStart: Int) throws -> String {
        let nameStart = pos
        while let c = peek(), c != UInt8(ascii: ">") {
            guard c == 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) else {
                // Go reports the text up to the closing '>'
                var end = pos
                while end < src.count, src[end] != UInt8(ascii: ">") { end += 1 }
                throw err("invalid named capture", groupStart, min(end + 1, src.count))
            }
            pos += 1
        }
        guard peek() == UInt8(ascii: ">") else { throw err("invalid named capture", groupStart, src.count) }
        let name = String(decoding: src[nameStart..<pos], as: UTF8.self)
        pos += 1
        if name.isEmpty { throw err("invalid named capture", groupStart, pos) }
        // Go allows a name twice (RE2 does not); `$name` then expands the first such group that took part
        return name
    }

    /// `\` escapes outside classes.
    mutating func parseEscape() throws -> RegexNode {
        let start = pos
        guard pos + 1 < src.count else { throw err("trailing backslash at end of expression", start, src.count) }
        let c = src[pos + 1]
        switch c {
        case UInt8(ascii: "A"): pos += 2; return .assert(.beginText)
        case UInt8(ascii: "z"): pos += 2; return .assert(.endText)
        case UInt8(ascii: "b"): pos += 2; return .assert(.wordBoundary)
        case UInt8(ascii: "B"): pos += 2; return .assert(.notWordBoundary)
        default:
            if let set = try parseClassEscape(inClass: false) {
                return .set(flags.caseInsensitive ? set.caseFolded() : set)
            }
            throw err("invalid escape sequence", start, pos)
        }
    }

    /// Escapes valid both inside and outside classes: single runes and Perl classes.
    /// Returns nil (with `pos` past the escape) for an invalid one.
    mutating func parseClassEscape(inClass: Bool) throws -> CharSet? {
        let start = pos
        pos += 1  // backslash
        guard !atEnd else { throw err("trailing backslash at end of expression", start, src.count) }
        let c = src[pos]
        pos += 1
        switch c {
        case UInt8(ascii: "d"): return CharSet.digit
        case UInt8(ascii: "D"): return CharSet.digit.inverted()
        case UInt8(ascii: "s"): return CharSet.space
        case UInt8(ascii: "S"): return CharSet.space.inverted()
        case UInt8(ascii: "w"): return CharSet.word
        case UInt8(ascii: "W"): return CharSet.word.inverted()
        case UInt8(ascii: "a"): return CharSet([7...7])
        case UInt8(ascii: "f"): return CharSet([12...12])
        case UInt8(ascii: "t"): return CharSet([9...9])
        case UInt8(ascii: "n"): return CharSet([10...10])
        case UInt8(ascii: "r"): return CharSet([13...13])
        case UInt8(ascii: "v"): return CharSet([11...11])
        case UInt8(ascii: "p"), UInt8(ascii: "P"):
            var end = pos
            if end < src.count, src[end] == UInt8(ascii: "{") {
                while end < src.count, src[end] != UInt8(ascii: "}") { end += 1 }
                end = min(end + 1, src.count)
            } else { end = min(end + 1, src.count) }
            throw err("Unicode character classes are not supported", start, end)
        case UInt8(ascii: "x"):
            guard let n = peek() else { throw err("invalid escape sequence", start, pos) }
            if n == UInt8(ascii: "{") {
                pos += 1
                var v: UInt32 = 0
                var digits = 0
                while let h = peek(), h != UInt8(ascii: "}") {
                    guard let d = hexValue(h) else { throw err("invalid escape sequence", start, pos + 1) }
                    v = v &* 16 &+ d
                    digits += 1
                    pos += 1
                    if v > CharSet.maxRune { throw err("invalid escape sequence", start, pos) }
                }
                guard peek() == UInt8(ascii: "}"), digits > 0 else { throw err("invalid escape sequence", start, pos) }
                pos += 1
                return CharSet([v...v])
            }
            guard let h1 = peek().flatMap(hexValue), let h2 = peek(1).flatMap(hexValue) else {
                throw err("invalid escape sequence", start, min(pos + 2, src.count))
            }
            pos += 2
            let v = h1 * 16 + h2
            return CharSet([v...v])
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            // Octal: \0 and \0NN; \1-\7 only when followed by another digit (otherwise a backreference).
            if c != UInt8(ascii: "0"), !(peek().map { $0 >= 48 && $0 <= 55 } ?? false) {
                throw err("invalid escape sequence", start, pos)
            }
            var v = UInt32(c - 48)
            var k = 0
            while k < 2, let d = peek(), d >= 48, d <= 55 {
                v = v * 8 + UInt32(d - 48)
                pos += 1
                k += 1
            }
            return CharSet([v...v])
        default:
            if c < 0x80, !isAlnum(c) {
                return CharSet([UInt32(c)...UInt32(c)])
            }
            if c >= 0x80 {
                pos -= 1
                _ = try nextRune()
            }
            return nil
        }
    }

    func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 48...57: return UInt32(c - 48)
        case 65...70: return UInt32(c - 55)
        case 97...102: return UInt32(c - 87)
        default: return nil
        }
    }

    func isAlnum(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
    }

    static let posixClasses: [String: CharSet] = [
        "alnum": CharSet([48...57, 65...90, 97...122]),
        "alpha": CharSet([65...90, 97...122]),
        "ascii": CharSet([0...0x7F]),
        "blank": CharSet([9...9, 32...32]),
        "cntrl": CharSet([0...31, 127...127]),
        "digit": CharSet([48...57]),
        "graph": CharSet([33...126]),
        "lower": CharSet([97...122]),
        "print": CharSet([32...126]),
        "punct": CharSet([33...47, 58...64, 91...96, 123...126]),
        "space": CharSet([9...13, 32...32]),
        "upper": CharSet([65...90]),
        "word": CharSet([48...57, 65...90, 95...95, 97...122]),
        "xdigit": CharSet([48...57, 65...70, 97...102]),
    ]

    mutating func parseClass() throws -> CharSet {
        let start = pos
        pos += 1
        var negated = false
        if peek() == UInt8(ascii: "^") { negated = true; pos += 1 }
        var set = CharSet()
        var first = true
        while true {
            guard let c = peek() else { throw err("missing closing ]", start, src.count) }
            if c == UInt8(ascii: "]"), !first { pos += 1; break }
            // POSIX [:name:]
            if c == UInt8(ascii: "["), peek(1) == UInt8(ascii: ":") {
                var end = pos + 2
                while end + 1 < src.count, !(src[end] == UInt8(ascii: ":") && src[end + 1] == UInt8(ascii: "]")) { end += 1 }
                if end + 1 < src.count {
                    var name = String(decoding: src[(pos + 2)..<end], as: UTF8.self)
                    var neg = false
                    if name.hasPrefix("^") { neg = true; name.removeFirst() }
                    guard let cls = Parser.posixClasses[name] else {
                        throw err("invalid character class range", pos, end + 2)
                    }
                    set.add(neg ? cls.inverted() : cls)
                    pos = end + 2
                    first = false
                    continue
                }
            }
            let itemStart = pos
            var lo: UInt32
            if c == UInt8(ascii: "\\") {
                guard let s = try parseClassEscape(inClass: true) else { throw err("invalid escape sequence", itemStart, pos) }
                if s.ranges.count != 1 || s.ranges[0].lowerBound != s.ranges[0].upperBound {
                    set.add(s)  // \d, \w … cannot start a range
                    first = false
                    continue
                }
                lo = s.ranges[0].lowerBound
            } else {
                lo = try nextRune()
            }
            var hi = lo
            if peek() == UInt8(ascii: "-"), let n = peek(1), n != UInt8(ascii: "]") {
                pos += 1
                if n == UInt8(ascii: "\\") {
                    guard let s = try parseClassEscape(inClass: true), s.ranges.count == 1,
                          s.ranges[0].lowerBound == s.ranges[0].upperBound else {
                        throw err("invalid character class range", itemStart, pos)
                    }
                    hi = s.ranges[0].lowerBound
                } else {
                    hi = try nextRune()
                }
                if hi < lo { throw err("invalid character class range", itemStart, pos) }
            }
            set.add(lo...hi)
            first = false
        }
        if flags.caseInsensitive { set = set.caseFolded() }
        // Perl flags include ClassNL: a negated class may match a newline.
        return negated ? set.inverted() : set
    }
}

enum RegexAnalysis {
    /// The largest product of nested repeat counts (Go rejects nests whose product exceeds 1000).
    static func repeatProduct(_ node: RegexNode) -> Int {
        switch node {
        case .repeat(let sub, let lo, let hi, _):
            let n = max(lo, hi ?? lo, 1)
            return min(n * max(repeatProduct(sub), 1), 1_000_000)
        case .capture(_, _, let sub): return repeatProduct(sub)
        case .concat(let xs), .alternate(let xs): return xs.map(repeatProduct).max() ?? 1
        default: return 1
        }
    }
}
