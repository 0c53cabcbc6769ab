import TagwardenBasics
/// What Go's YAML reader refuses although libyaml parses it. Kubernetes tools read a manifest with sigs.k8s.io/yaml
/// over go-yaml v2: kubectl, Helm (values files and `spec.values` alike), and Flux's controllers when they decode what
/// kustomize built (fluxcd/pkg/ssa's ReadObjects). Each document is decoded into Go values and then written as JSON,
/// and that refuses, for the whole document:
///
/// - an explicit tag its scalar does not satisfy (`!!int abc`, `!!bool maybe`, `!!timestamp 2020-13-45`,
///   `!!binary` that is not base64);
/// - a merge key `<<` whose value is not a mapping or a list of mappings;
/// - a key that is a mapping or a list, is null, or an integer beyond a signed 64-bit one (JSON keys are strings);
/// - a value that is a float NaN or infinity (`.nan`, `.inf`), which JSON cannot hold;
/// - a `?` inside a plain scalar in a flow collection (`[a?b]`), where go-yaml's scanner (ported from an older
///   libyaml) ends the scalar and libyaml 0.2.5 does not;
/// - an alias inside its own anchor's value, and alias expansion past go-yaml's limit ("excessive aliasing");
/// - a `%YAML` directive other than 1.1 (libyaml takes 1.2; noted by the parser).
///
/// And two keys of a mapping that differ as written may be one key once read (`on` and `true`): one value is
/// dropped without a word (`findKeysEqualAsGoReadsThem`).
///
/// Held to sigs.k8s.io/yaml itself by `scripts/documents-vs-go/run`.
enum GoYAML {
    static let tagPrefix = "tag:yaml.org,2002:"

    /// Whether a plain scalar of `count` bytes starting with `c` may be one Go refuses as a key (null: `~`, `null`;
    /// an integer beyond 64 signed bits, 18 characters at least as in 0x8000000000000000) or as a value (`.nan`,
    /// `-.inf` and the like).
    @inline(__always)
    static func mayBeRefused(_ c: UInt8, _ second: UInt8, count: Int) -> Bool {
        switch c {
        case UInt8(ascii: "~"): return count == 1
        case UInt8(ascii: "n"), UInt8(ascii: "N"): return count == 4 && second | 0x20 == UInt8(ascii: "u")
        case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"): return count <= 5
        case 48...57: return count >= 18
        default: return false
        }
    }

    /// Whether the plain key `b[start..<start+count]` may read as a number or is a boolean (`yes`, `Off`).
    static func mayBeTyped(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, count: Int) -> Bool {
        switch b[start] {
        case 48...57, UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"): return true
        case UInt8(ascii: "y"), UInt8(ascii: "Y"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"),
             UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "o"), UInt8(ascii: "O"):
            // the second letter first (`name` and `type` are common keys, `no` and `true` are not)
            let c = b[start] | 0x20, second = count > 1 ? b[start + 1] | 0x20 : 0
            switch (c, count) {
            case (UInt8(ascii: "y"), 1), (UInt8(ascii: "n"), 1): break
            case (UInt8(ascii: "y"), 3): guard second == UInt8(ascii: "e") else { return false }
            case (UInt8(ascii: "n"), 2): guard second == UInt8(ascii: "o") else { return false }
            case (UInt8(ascii: "t"), 4): guard second == UInt8(ascii: "r") else { return false }
            case (UInt8(ascii: "f"), 5): guard second == UInt8(ascii: "a") else { return false }
            case (UInt8(ascii: "o"), 2): guard second == UInt8(ascii: "n") else { return false }
            case (UInt8(ascii: "o"), 3): guard second == UInt8(ascii: "f") else { return false }
            default: return false
            }
            return ScalarType.resolvePlain(String(decoding: UnsafeBufferPointer(rebasing: b[start..<(start + count)]), as: UTF8.self)) == .bool
        default: return false
        }
    }

    /// What a scalar decodes to.
    enum Kind: Equatable {
        case string, int, uint, float, nanOrInf, bool, null, timestamp
    }

    /// go-yaml v2's `resolve` and the base64 check of its `scalar`: the Go value of a scalar written with `tag`
    /// (the full tag, or nil for a plain scalar without one), or why the decoder refuses it.
    static func resolve(tag: String?, value: [UInt8]) -> Result<Kind, Refusal> {
        let short: String
        switch tag {
        case nil: short = ""
        case let t?:
            guard t.hasPrefix(tagPrefix) else { return .success(.string) }  // `!foo`, `!`: any value, a string
            short = String(t.dropFirst(tagPrefix.count))
        }
        switch short {
        case "", "str", "bool", "int", "float", "null", "timestamp": break
        case "binary": return base64(value) ? .success(.string) : .failure(.binary)
        default: return .success(.string)
        }
        let found = plainKind(value, timestamps: short == "" || short == "timestamp")
        switch (short, found) {
        case ("", _), ("str", _): return .success(short == "str" ? .string : found)
        case ("bool", .bool), ("int", .int), ("int", .uint), ("null", .null), ("timestamp", .timestamp): return .success(found)
        case ("float", .float), ("float", .nanOrInf), ("float", .int): return .success(found == .int ? .float : found)
        default:
            return .failure(.tag(found: found, wanted: short))
        }
    }

    enum Refusal: Error, Equatable {
        case binary
        case tag(found: Kind, wanted: String)
    }

    static func name(_ k: Kind) -> String {
        switch k {
        case .string: return "str"
        case .int, .uint: return "int"
        case .float, .nanOrInf: return "float"
        case .bool: return "bool"
        case .null: return "null"
        case .timestamp: return "timestamp"
        }
    }

    /// The type go-yaml v2 gives a scalar from its text (`ScalarType.resolvePlain`, with the detail decoding needs:
    /// an integer that only fits unsigned, NaN and the infinities, timestamps when `timestamps`).
    static func plainKind(_ b: [UInt8], timestamps: Bool) -> Kind {
        guard let c = b.first else { return .null }
        switch c {
        case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"), 48...57,
             UInt8(ascii: "y"), UInt8(ascii: "Y"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"),
             UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "o"), UInt8(ascii: "O"), UInt8(ascii: "~"):
            break
        default:
            return .string
        }
        let s = String(decoding: b, as: UTF8.self)
        switch s {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN": return .nanOrInf
        default: break
        }
        if (c >= 48 && c <= 57) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-"), timestamps, timestamp(b) { return .timestamp }
        switch ScalarType.resolvePlain(s) {
        case .null: return .null
        case .bool: return .bool
        case .float: return .float
        case .string: return .string
        case .int:
            // ParseInt first: what only ParseUint takes is a uint64, which no JSON key conversion accepts
            let plain = b.filter { $0 != UInt8(ascii: "_") }
            if ScalarType.goInt64(plain) == nil, ScalarType.goInteger(plain) { return .uint }
            return .int
        }
    }

    /// Go's `base64.StdEncoding.DecodeString` succeeds: line breaks anywhere are skipped, the rest is whole groups of
    /// four, `=` only as the padding of the last.
    static func base64(_ value: [UInt8]) -> Bool {
        let b = value.filter { $0 != 10 && $0 != 13 }
        guard b.count % 4 == 0 else { return false }
        for (i, c) in b.enumerated() {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "/"):
                continue
            case UInt8(ascii: "="):
                // "xx==" or "xxx=" at the very end
                let fromEnd = b.count - i
                if fromEnd == 1 { continue }
                if fromEnd == 2, b[i + 1] == UInt8(ascii: "=") { continue }
                return false
            default:
                return false
            }
        }
        return true
    }

    /// go-yaml v2's `parseTimestamp`: Go's `time.Parse` with `2006-1-2T15:4:5.999999999Z07:00` (also with `t`),
    /// `2006-1-2 15:4:5.999999999` and `2006-1-2`, after a quick check for four digits and a dash.
    static func timestamp(_ s: [UInt8]) -> Bool {
        func digit(_ i: Int) -> Bool { i < s.count && s[i] >= 48 && s[i] <= 57 }
        guard s.count > 4, (0..<4).allSatisfy(digit), s[4] == UInt8(ascii: "-") else { return false }
        let year = (0..<4).reduce(0) { $0 * 10 + Int(s[$1] - 48) }
        var i = 5
        // Go's getnum: one digit, or two when there are two
        func number() -> Int? {
            guard digit(i) else { return nil }
            var n = Int(s[i] - 48)
            i += 1
            if digit(i) { n = n * 10 + Int(s[i] - 48); i += 1 }
            return n
        }
        func literal(_ c: Character) -> Bool {
            guard i < s.count, s[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let month = number(), (1...12).contains(month), literal("-"), let day = number() else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard day >= 1, day <= days else { return false }
        if i == s.count { return true }   // 2006-1-2
        let withZone: Bool
        switch s[i] {
        case UInt8(ascii: "T"), UInt8(ascii: "t"):
            withZone = true
            i += 1
        case UInt8(ascii: " "):
            withZone = false
            while i < s.count, s[i] == UInt8(ascii: " ") { i += 1 }
        default:
            return false
        }
        guard let hour = number(), hour < 24, literal(":"), let minute = number(), minute < 60, literal(":"),
              let second = number(), second < 60 else { return false }
        // an optional fraction: `.` or `,` and up to nine digits
        if i + 1 < s.count, s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: ","), digit(i + 1) {
            i += 1
            var n = 0
            while n < 9, digit(i) { i += 1; n += 1 }
        }
        if !withZone { return i == s.count }
        if i < s.count, s[i] == UInt8(ascii: "Z") { return i + 1 == s.count }
        // ±hh:mm, each part read by Go's atoi (which also takes a sign)
        guard s.count - i == 6, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-"), s[i + 3] == UInt8(ascii: ":") else { return false }
        func atoi2(_ a: UInt8, _ b: UInt8) -> Bool {
            let d: (UInt8) -> Bool = { $0 >= 48 && $0 <= 57 }
            return (d(a) || a == UInt8(ascii: "+") || a == UInt8(ascii: "-")) && d(b)
        }
        return atoi2(s[i + 1], s[i + 2]) && atoi2(s[i + 4], s[i + 5])
    }

    /// The JSON key sigs.k8s.io/yaml makes of a key Go decodes to `kind` from `value` (nil for a null or unsigned
    /// key, which it refuses): a number by its value (`01`, `0x1`, `1.0` are all "1"; floats as Go formats a
    /// float32), a boolean as `true` or `false` (`on`, `Yes`), anything else as written.
    static func jsonKey(_ kind: Kind, _ value: [UInt8]) -> String? {
        switch kind {
        case .string, .timestamp: return String(decoding: value, as: UTF8.self)
        case .null, .uint: return nil
        case .bool:
            return ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"].contains(String(decoding: value, as: UTF8.self))
                ? "true" : "false"
        case .nanOrInf:
            // `.nan` in three casings has an `a`, the infinities none
            return value.contains(UInt8(ascii: "a")) || value.contains(UInt8(ascii: "A")) ? ".nan" : value.first == UInt8(ascii: "-") ? "-.inf" : ".inf"
        case .int:
            let plain = value.filter { $0 != UInt8(ascii: "_") }
            if let v = ScalarType.goInt64(plain) { return String(v) }
            // go-yaml's own binary forms (`0b-1`)
            if plain.starts(with: "0b".utf8), let v = ScalarType.goInt64(Array(plain.dropFirst(2)), base: 2) { return String(v) }
            if plain.starts(with: "-0b".utf8), let v = ScalarType.goInt64([UInt8(ascii: "-")] + plain.dropFirst(3), base: 2) { return String(v) }
            return nil
        case .float:
            return floatValue(value).map(float32Key)
        }
    }

    /// The value of a scalar Go reads as a float. go-yaml tries an integer first, so `!!float 012` is 10 (octal)
    /// and `!!float -0` is 0, an integer made a float.
    static func floatValue(_ value: [UInt8]) -> Double? {
        if let i = jsonKey(.int, value).flatMap(Int64.init) { return Double(i) }
        if case .success(let d) = GoFloat.parse(String(decoding: value, as: UTF8.self)) { return d }
        if case .success(let d) = GoFloat.parse(String(decoding: value.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)) { return d }
        return nil
    }

    /// Go's `strconv.FormatFloat(d, 'g', -1, 32)`, with sigs.k8s.io/yaml's names for the infinities: the shortest
    /// digits of the float32, in exponent form when the exponent is below -4 or 6 and above.
    static func float32Key(_ d: Double) -> String {
        let f = Float(d)
        if f.isNaN { return ".nan" }
        if f.isInfinite { return f < 0 ? "-.inf" : ".inf" }
        if f == 0 { return f.sign == .minus ? "-0" : "0" }
        // Swift's description has the same shortest digits; take them and the decimal point's place
        let text = f.magnitude.description
        let parts = text.split(separator: "e", omittingEmptySubsequences: false)
        let mantissa = parts[0]
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let whole = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        var digits = Array(whole[0].utf8) + (whole.count > 1 ? Array(whole[1].utf8) : [])
        var point = whole[0].utf8.count + exponent
        while digits.first == UInt8(ascii: "0") { digits.removeFirst(); point -= 1 }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let ds = String(decoding: digits, as: UTF8.self)
        let sign = f < 0 ? "-" : ""
        let exp = point - 1
        if exp < -4 || exp >= 6 {
            let rest = ds.dropFirst()
            let e = abs(exp) < 10 ? "0\(abs(exp))" : "\(abs(exp))"
            return sign + String(ds.prefix(1)) + (rest.isEmpty ? "" : "." + rest) + "e" + (exp < 0 ? "-" : "+") + e
        }
        if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + ds }
        if point >= digits.count { return sign + ds + String(repeating: "0", count: point - digits.count) }
        return sign + String(ds.prefix(point)) + "." + String(ds.dropFirst(point))
    }

    /// go-yaml v2's share of a document that alias expansion may account for, by how many nodes it has decoded.
    static func allowedAliasRatio(_ decodeCount: Int) -> Double {
        if decodeCount <= 400_000 { return 0.99 }
        if decodeCount >= 4_000_000 { return 0.10 }
        return 0.99 - 0.89 * (Double(decodeCount - 400_000) / Double(4_000_000 - 400_000))
    }
}

extension YAMLFile {
    static let refusedBy = "kubectl, Helm and Flux's controllers reject the file"

    func goKind(_ node: Int) -> GoYAML.Kind? {
        let n = nodes[node]
        guard n.kind == .scalar else { return nil }
        if n.tagCount == 0, !n.plainImplicit { return .string }
        return try? GoYAML.resolve(tag: tag(node), value: Array(valueBytes(node))).get()
    }

    /// Judges the parsed file as Go's reader decodes it (`GoYAML`), into `goRefusals` and `duplicateMergeKeys`: one
    /// pass over the nodes that costs a byte or two for most, then only what may be refused is looked at closely;
    /// merge keys only in a file that may have one, alias expansion only in a document with aliases.
    mutating func judgeForGo() {
        var candidates: [Int] = []
        var typedKeys: [Int] = []   // mappings with a key that may read as a number or boolean, or an alias key
        var questionMarks: [Int] = []   // plain scalars in a flow collection with a `?` in them
        let mayHaveQuestionMark = SourceText.contains("?", in: bytes)
        var mayMerge = false
        nodes.withUnsafeBufferPointer { ns in
            arena.withUnsafeBufferPointer { arena in
                for i in ns.indices {
                    switch ns[i].kind {
                    case .scalar:
                        if ns[i].tagCount > 0 {
                            mayMerge = true   // `!!merge <<`, or a merge key written with escapes
                            candidates.append(i)
                            if ns[i].isKey { typedKeys.append(ns[i].parent) }
                        } else if ns[i].plainImplicit {
                            if ns[i].valueCount == 0 {
                                if ns[i].isKey { candidates.append(i) }
                            } else {
                                let c = arena[ns[i].valueStart]
                                if c == UInt8(ascii: "<") {
                                    mayMerge = true
                                } else if GoYAML.mayBeRefused(c, ns[i].valueCount > 1 ? arena[ns[i].valueStart + 1] : 0, count: ns[i].valueCount) {
                                    candidates.append(i)
                                }
                                if ns[i].isKey, (c < UInt8(ascii: "a") || ns[i].valueCount <= 5),
                                   GoYAML.mayBeTyped(arena, ns[i].valueStart, count: ns[i].valueCount) {
                                    typedKeys.append(ns[i].parent)
                                }
                            }
                        }
                        if mayHaveQuestionMark, ns[i].style == .plain, ns[i].parent >= 0, ns[ns[i].parent].isFlow,
                           UnsafeBufferPointer(rebasing: arena[ns[i].valueStart..<(ns[i].valueStart + ns[i].valueCount)]).contains(UInt8(ascii: "?")) {
                            questionMarks.append(i)
                        }
                    case .alias:
                        candidates.append(i)
                        if ns[i].isKey { typedKeys.append(ns[i].parent) }
                    case .mapping, .sequence:
                        if ns[i].isKey { candidates.append(i) }
                    }
                }
            }
        }
        for i in candidates { goJudge(i) }
        // go-yaml's scanner, from an older libyaml, ends a plain scalar at a `?` in a flow collection (libyaml 0.2.5
        // reads on), and then finds no `,` or `]` where it expects one
        for i in questionMarks {
            refuse(i, "'\(value(i))' has a '?', which ends a plain value inside [ ] or { } for Go's YAML: \(Self.refusedBy); quote the value")
        }
        var last = -1
        for m in typedKeys.sorted() where m != last {
            last = m
            findKeysEqualAsGoReadsThem(childNodes(m))
        }
        if mayMerge {
            for i in nodes.indices where nodes[i].kind == .mapping { goJudgeMerges(childNodes(i)) }
        }
        if !aliasTargets.isEmpty {
            // a document's nodes follow its root, up to the next document's
            let aliases = aliasTargets.keys.sorted()
            var a = 0
            for (d, doc) in documents.enumerated() {
                let end = d + 1 < documents.count ? documents[d + 1].root : nodes.count
                while a < aliases.count, aliases[a] < doc.root { a += 1 }
                if a < aliases.count, aliases[a] < end { goJudgeAliases(root: doc.root) }
            }
        }
    }

    /// The repeated keys of a mapping with a key that may read as a number or boolean, or an alias key, as Go reads
    /// them once sigs.k8s.io/yaml has made them JSON keys, in place of the parser's byte comparison: `on` and `true`,
    /// `1` and `01`, `1.0` and `1`, an alias and the key it repeats are one key (one value is lost, silently), while
    /// `off` and `"off"` are two (false and "off").
    mutating func findKeysEqualAsGoReadsThem(_ pairs: ArraySlice<Int>) {
        let keys = Set(stride(from: pairs.startIndex, to: pairs.endIndex, by: 2).map { pairs[$0] })
        duplicateKeys.removeAll { keys.contains($0.key) }
        var first: [String: Int] = [:]
        for j in stride(from: pairs.startIndex, to: pairs.endIndex, by: 2) {
            let k = pairs[j]
            let scalar = resolved(k)
            guard nodes[scalar].kind == .scalar, !isMergeKey(k), let kind = goKind(scalar),
                  let key = GoYAML.jsonKey(kind, Array(valueBytes(scalar))) else { continue }
            // as JSON keys; and -0.0 and 0.0 are one key in Go's map before they are JSON keys "-0" and "0"
            let zero = kind == .float && GoYAML.floatValue(Array(valueBytes(scalar))) == 0
            if let f = first[key] ?? (zero ? first["\u{0}float zero"] : nil) {
                duplicateKeys.append((k, f))
            } else {
                first[key] = k
                if zero { first["\u{0}float zero"] = k }
            }
        }
    }

    mutating func refuse(_ node: Int, _ message: String) {
        goRefusals.append((nodes[node].span, message))
    }

    /// Judges a scalar, alias or collection key as Go decodes it (`judgeForGo` picks which).
    mutating func goJudge(_ index: Int) {
        let n = nodes[index]
        if n.kind == .alias {
            guard let target = aliasTargets[index] else { return }
            let t = nodes[target]
            if n.isKey {
                if t.kind != .scalar {
                    refuse(index, "alias '*\(value(index))' as a key names a \(t.kind == .mapping ? "mapping" : "list"): JSON keys are strings, and \(Self.refusedBy)")
                } else if let k = goKind(target), k == .null || k == .uint {
                    refuse(index, "alias '*\(value(index))' as a key names \(k == .null ? "a null" : "an integer beyond 64 signed bits"): JSON keys are strings, and \(Self.refusedBy)")
                }
            } else if t.kind == .scalar, goKind(target) == .nanOrInf {
                refuse(index, "alias '*\(value(index))' names '\(value(target))', a float JSON cannot hold: \(Self.refusedBy); quote it for a string")
            }
            return
        }
        guard n.kind == .scalar else {
            if n.isKey {
                refuse(index, "a \(n.kind == .mapping ? "mapping" : "list") as a key: JSON keys are strings, and \(Self.refusedBy)")
            }
            return
        }
        if n.tagCount == 0, !n.plainImplicit { return }   // quoted or a block, without a tag: a string
        let written = n.tagCount > 0 ? "\(goShortTag(index)) \(value(index))" : value(index)
        switch GoYAML.resolve(tag: tag(index), value: Array(valueBytes(index))) {
        case .failure(.binary):
            refuse(index, "'\(written)' is not base64: \(Self.refusedBy)")
        case .failure(.tag(let found, let wanted)):
            refuse(index, "'\(written)' is a !!\(GoYAML.name(found)), not a !!\(wanted): \(Self.refusedBy)")
        case .success(let k):
            if n.isKey, k == .null {
                refuse(index, "a null key ('\(written)'): JSON keys are strings, and \(Self.refusedBy); quote it for a string")
            } else if n.isKey, k == .uint {
                refuse(index, "the key \(written) is an integer beyond 64 signed bits: \(Self.refusedBy); quote it for a string")
            } else if !n.isKey, k == .nanOrInf {
                refuse(index, "'\(written)' is a float JSON cannot hold: \(Self.refusedBy); quote it for a string")
            }
        }
    }

    func goShortTag(_ node: Int) -> String {
        guard let t = tag(node) else { return "" }
        return t.hasPrefix(GoYAML.tagPrefix) ? "!!" + t.dropFirst(GoYAML.tagPrefix.count) : t
    }

    /// The merge keys of a closed mapping (`pairs`: key, value, …) whose value is not a mapping or a list of them,
    /// and a second merge key in one mapping: go-yaml lets it pass, but kustomize (kyaml, which expands anchors and
    /// merges before anything else reads a manifest) refuses "duplicate merge key"; Helm reads a chart's values files
    /// itself, so the engine leaves that one out for files in a chart (`duplicateMergeKeys`).
    mutating func goJudgeMerges(_ pairs: ArraySlice<Int>) {
        var first: Int?
        func isMapping(_ node: Int) -> Bool {
            switch nodes[node].kind {
            case .mapping: return true
            case .alias: return aliasTargets[node].map { nodes[$0].kind == .mapping } ?? false
            default: return false
            }
        }
        var j = pairs.startIndex
        while j < pairs.endIndex {
            defer { j += 2 }
            guard isMergeKey(pairs[j]) else { continue }
            if let first {
                duplicateMergeKeys.append((pairs[j], first))
            } else {
                first = pairs[j]
            }
            let v = pairs[j + 1]
            let ok = nodes[v].kind == .sequence ? childNodes(v).allSatisfy(isMapping) : isMapping(v)
            if !ok {
                refuse(v, "the merge key '<<' takes a mapping or a list of mappings: \(Self.refusedBy)")
            }
        }
    }

    /// Decodes a document with aliases as go-yaml v2 does, counting nodes, to find an alias inside its own anchor's
    /// value and expansion past go-yaml's limit. Stops at the first of either, as Go does, and after `budget` nodes
    /// (a document of more than four million nodes that has not tripped the limit by then: beyond the file limit).
    mutating func goJudgeAliases(root: Int, budget: Int = 8_000_000) {
        enum Step { case visit(Int), leave }
        var stack: [Step] = [.visit(root)]
        var expanding: [Int] = []       // the aliases being expanded, outermost first
        var decodeCount = 1, aliasCount = 0   // the document node counts as one
        while let step = stack.popLast() {
            guard case .visit(let node) = step else {
                expanding.removeLast()
                continue
            }
            decodeCount += 1
            if !expanding.isEmpty { aliasCount += 1 }
            if aliasCount > 100, decodeCount > 1000, Double(aliasCount) / Double(decodeCount) > GoYAML.allowedAliasRatio(decodeCount) {
                let outer = expanding[0]
                refuse(outer, "alias '*\(value(outer))' expands the document past go-yaml's limit (excessive aliasing): \(Self.refusedBy)")
                return
            }
            if decodeCount > budget { return }
            let n = nodes[node]
            switch n.kind {
            case .scalar: break
            case .alias:
                if expanding.contains(node) {
                    refuse(node, "alias '*\(value(node))' lies inside its own anchor's value, a cycle: \(Self.refusedBy)")
                    return
                }
                guard let target = aliasTargets[node] else { break }
                expanding.append(node)
                stack.append(.leave)
                stack.append(.visit(target))
            case .sequence:
                for c in childNodes(node).reversed() { stack.append(.visit(c)) }
            case .mapping:
                // pushed in reverse: keys before their values, pairs in order; a merge visits its value's mappings,
                // a list of them from the last
                let kids = childNodes(node)
                for j in stride(from: kids.endIndex - 2, through: kids.startIndex, by: -2) {
                    let k = kids[j], v = kids[j + 1]
                    if isMergeKey(k) {
                        if nodes[v].kind == .sequence {
                            for c in childNodes(v) { stack.append(.visit(c)) }
                        } else {
                            stack.append(.visit(v))
                        }
                    } else {
                        stack.append(.visit(v))
                        stack.append(.visit(k))
                    }
                }
            }
        }
    }
}
