/// A Go (RE2) regular expression: Go's syntax, Go's leftmost-first semantics, linear-time matching.
public final class GoRegex: Sendable {
    public let pattern: String
    public let syntax: ParsedRegex
    let program: Program

    public init(_ pattern: String) throws(RegexSyntaxError) {
        self.pattern = pattern
        do {
            syntax = try Parser.parse(pattern)
            program = try Program.compile(syntax)
        } catch let e as RegexSyntaxError {
            throw e
        } catch {
            throw RegexSyntaxError(code: "invalid pattern", expr: pattern, offset: 0)
        }
    }

    /// The language of what capture group `index` can match, as an anchored expression of its own (group 0: the whole
    /// match, which is the whole subject only where the pattern is anchored at both ends).
    public func group(_ index: Int) -> GoRegex? {
        func find(_ n: RegexNode) -> RegexNode? {
            switch n {
            case .capture(let i, _, let sub): return i == index ? sub : find(sub)
            case .concat(let xs), .alternate(let xs):
                for x in xs { if let f = find(x) { return f } }
                return nil
            case .repeat(let sub, _, _, _): return find(sub)
            default: return nil
            }
        }
        guard let sub = index == 0 ? syntax.root : find(syntax.root) else { return nil }
        var parsed = syntax
        parsed.root = .concat([.assert(.beginText), sub, .assert(.endText)])
        guard let program = try? Program.compile(parsed) else { return nil }
        return GoRegex(pattern: "^(?:" + pattern + ")$", syntax: parsed, program: program)
    }

    /// A template compiled for `expand`: literal bytes and group references.
    public struct Template: Sendable {
        /// A reference: by number one group; by name every group of that name, of which the first that took
        /// part in the match is expanded (Go's `Expand`).
        enum Part: Sendable { case bytes([UInt8]), groups([Int]) }
        let parts: [Part]
    }

    /// An `Expand` template read by Go's rules: literal bytes and group references by name
    /// (`$name`, `${name}`; `$$` is a dollar; a `$` not followed by a valid name is literal).
    public enum TemplatePiece: Sendable, Equatable { case bytes([UInt8]), reference(String) }

    public static func scanTemplate(_ text: String) -> [TemplatePiece] {
        let t = Array(text.utf8)
        var pieces: [TemplatePiece] = []
        var lit: [UInt8] = []
        func flush() { if !lit.isEmpty { pieces.append(.bytes(lit)); lit = [] } }
        func isNameByte(_ c: UInt8) -> Bool {
            c == 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
        }
        var i = 0
        while i < t.count {
            guard t[i] == UInt8(ascii: "$") else { lit.append(t[i]); i += 1; continue }
            if i + 1 < t.count, t[i + 1] == UInt8(ascii: "$") { lit.append(UInt8(ascii: "$")); i += 2; continue }
            var name: [UInt8] = []
            var next = i + 1
            if next < t.count, t[next] == UInt8(ascii: "{") {
                var j = next + 1
                while j < t.count, isNameByte(t[j]) { j += 1 }
                if j < t.count, t[j] == UInt8(ascii: "}"), j > next + 1 {
                    name = Array(t[(next + 1)..<j])
                    next = j + 1
                } else { lit.append(t[i]); i += 1; continue }
            } else {
                var j = next
                while j < t.count, isNameByte(t[j]) { j += 1 }
                if j == next { lit.append(t[i]); i += 1; continue }
                name = Array(t[next..<j])
                next = j
            }
            i = next
            flush()
            pieces.append(.reference(String(decoding: name, as: UTF8.self)))
        }
        flush()
        return pieces
    }

    /// The group a template reference names: all digits (no leading zero, < 1e8) is an index, anything else
    /// a name; -1 when there is no such group.
    public func groupIndex(_ name: String) -> Int {
        let b = Array(name.utf8)
        if b.allSatisfy({ $0 >= 48 && $0 <= 57 }), !(b.count > 1 && b[0] == 48), b.count < 9, let n = Int(name) {
            return n <= captureCount ? n : -1
        }
        return subexpNames.firstIndex(where: { $0 == name }) ?? -1
    }

    /// Every group a template reference names (several when a name is given to more than one group).
    func groupIndices(_ name: String) -> [Int] {
        let first = groupIndex(name)
        guard first >= 0 else { return [] }
        if first > 0, subexpNames[first] == name {
            return subexpNames.indices.filter { subexpNames[$0] == name }
        }
        return [first]
    }

    /// Compiles an `Expand` template once, for many subjects (same rules as `expand`).
    public func template(_ text: String) -> Template {
        Template(parts: GoRegex.scanTemplate(text).map { piece in
            switch piece {
            case .bytes(let b): return .bytes(b)
            case .reference(let name): return .groups(groupIndices(name))
            }
        })
    }

    /// The expansion of `template` against the first match in `subject`, or nil without a match: one search,
    /// no intermediate arrays (the hot path of policy evaluation).
    public func expandFirstMatch(_ template: Template, subject: UnsafeBufferPointer<UInt8>) -> String? {
        guard let slots = PikeVM(prog: program).run(subject) else { return nil }
        // the first group of a reference that took part in the match
        func taken(_ gs: [Int]) -> Int? { gs.first { 2 * $0 + 1 < slots.count && slots[2 * $0] >= 0 && slots[2 * $0 + 1] >= 0 } }
        var size = 0
        for p in template.parts {
            switch p {
            case .bytes(let b): size += b.count
            case .groups(let gs): if let g = taken(gs) { size += slots[2 * g + 1] - slots[2 * g] }
            }
        }
        return String(unsafeUninitializedCapacity: size) { out in
            var i = 0
            for p in template.parts {
                switch p {
                case .bytes(let b):
                    for c in b { out[i] = c; i += 1 }
                case .groups(let gs):
                    if let g = taken(gs) {
                        for k in slots[2 * g]..<slots[2 * g + 1] { out[i] = subject[k]; i += 1 }
                    }
                }
            }
            return i
        }
    }

    public func expand(_ template: Template, subject: UnsafeBufferPointer<UInt8>, match: [Range<Int>?]) -> String {
        var out: [UInt8] = []
        for p in template.parts {
            switch p {
            case .bytes(let b): out.append(contentsOf: b)
            case .groups(let gs):
                if let g = gs.first(where: { $0 < match.count && match[$0] != nil }), let r = match[g] {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: subject[r]))
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    init(pattern: String, syntax: ParsedRegex, program: Program) {
        self.pattern = pattern
        self.syntax = syntax
        self.program = program
    }

    /// The ASCII literal every match must start the text with (`^production-v…` → `production-v`), if any.
    public var anchoredLiteralPrefix: String? {
        program.anchoredPrefix.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Group names by index; index 0 is the whole match.
    public var subexpNames: [String?] { syntax.names }
    public var captureCount: Int { syntax.captureCount }

    /// Byte ranges of the whole match and each group (nil for a group that did not take part).
    public func firstMatch(in subject: String) -> [Range<Int>?]? {
        var s = subject
        return s.withUTF8 { firstMatch(bytes: $0) }
    }

    public func firstMatch(bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>?]? {
        guard let slots = PikeVM(prog: program).run(bytes) else { return nil }
        var out: [Range<Int>?] = []
        out.reserveCapacity(slots.count / 2)
        var k = 0
        while k + 1 < slots.count {
            out.append(slots[k] >= 0 && slots[k + 1] >= 0 ? slots[k]..<slots[k + 1] : nil)
            k += 2
        }
        return out
    }

    /// The number of NFA thread visits a search took (for tests of linear time).
    public func searchSteps(_ subject: String) -> Int {
        var s = subject
        var steps = 0
        _ = s.withUTF8 { PikeVM(prog: program).run($0, anchored: false, longest: false, steps: &steps) }
        return steps
    }

    public var programSize: Int { program.insts.count }

    /// Whether the pattern matches anywhere in `subject` (Go's `MatchString`).
    public func matches(_ subject: String) -> Bool {
        var s = subject
        return s.withUTF8 { matches(bytes: $0) }
    }

    /// Whether the pattern matches anywhere in `bytes`. (No groups asked: the backtracker keeps none, and no ranges
    /// are made of them, two arrays fewer for each tag a policy filters.)
    public func matches(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        PikeVM(prog: program).run(bytes, captures: false) != nil
    }

    /// Go's `Regexp.ExpandString`: `$name`, `${name}`, `$1`, `$$`; unknown groups expand to nothing.
    public func expand(_ template: String, subject: String, match: [Range<Int>?]) -> String {
        var s = subject
        let tpl = self.template(template)
        return s.withUTF8 { expand(tpl, subject: $0, match: match) }
    }


}
