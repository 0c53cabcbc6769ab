import TagwardenBasics

/// Go's template builtins and the Sprig functions commit messages use, as Go and Sprig define them.
enum TemplateFunctions {
    struct Failure: Error {
        let message: String
        /// A bound of tagwarden's, not Go's error.
        var bound = false
    }

    /// A parameter's Go type: `string`, `int`, `interface{}`; `variadic` (last) takes any number of `interface{}`.
    enum Param: Equatable { case string, int, any, variadic }

    /// The functions tagwarden runs, with their parameters as Go and Sprig declare them.
    static let signatures: [String: [Param]] = [
        "not": [.any], "len": [.any], "index": [.any, .variadic], "print": [.variadic], "println": [.variadic],
        "printf": [.string, .variadic], "eq": [.any, .variadic], "ne": [.any, .any], "lt": [.any, .any], "le": [.any, .any],
        "gt": [.any, .any], "ge": [.any, .any],
        "upper": [.string], "lower": [.string], "title": [.string], "trim": [.string], "nospace": [.string],
        "trimPrefix": [.string, .string], "trimSuffix": [.string, .string], "replace": [.string, .string, .string],
        "contains": [.string, .string], "hasPrefix": [.string, .string], "hasSuffix": [.string, .string],
        "split": [.string, .string], "splitList": [.string, .string], "indent": [.int, .string], "nindent": [.int, .string],
        "trunc": [.int, .string], "repeat": [.int, .string], "join": [.string, .any], "quote": [.variadic], "squote": [.variadic],
        "cat": [.variadic], "toString": [.any], "default": [.any, .variadic], "empty": [.any], "list": [.variadic],
        "first": [.any], "last": [.any], "sortAlpha": [.any], "uniq": [.any], "toJson": [.any],
    ]

    /// Go's truth: false, 0, nil, and empty strings, lists and maps are false; structs are true.
    static func truth(_ v: TemplateValue) -> Bool {
        switch v {
        case .missing, .null: false
        case .bool(let b): b
        case .int(let n): n != 0
        case .float(let x): x != 0
        case .string(let s): !s.isEmpty
        case .list(let l, _): !l.isEmpty
        case .map(let m, _): !m.isEmpty
        case .structure: true
        }
    }

    /// Sprig's `empty`: the zero value of its type.
    static func empty(_ v: TemplateValue) -> Bool { !truth(v) }

    /// What Sprig's `strval` and `toString` make of a value: the string itself, else `fmt.Sprintf("%v")`.
    static func str(_ v: TemplateValue) -> String {
        if case .string(let s) = v { return s }
        return TemplateFormat.plain(v)
    }

    /// Sprig's `toInt` (cast.ToInt): 0 for what is no number.
    static func int(_ v: TemplateValue) -> Int {
        switch v {
        case .int(let n): return n
        case .float(let x): return Int(x)
        case .string(let s): return Int(s) ?? 0
        case .bool(let b): return b ? 1 : 0
        default: return 0
        }
    }

    static func arity(_ f: String, _ args: [TemplateValue], _ n: Int) throws {
        guard args.count == n else { throw Failure(message: "wrong number of args for \(f): want \(n) got \(args.count)") }
    }

    static func call(_ f: String, _ args: [TemplateValue]) throws -> TemplateValue {
        switch f {
        // Go's builtins
        case "not":
            try arity(f, args, 1)
            return .bool(!truth(args[0]))
        case "len":
            try arity(f, args, 1)
            switch args[0] {
            case .string(let s): return .int(s.utf8.count)
            case .list(let l, _): return .int(l.count)
            case .map(let m, _): return .int(m.count)
            case .null, .missing: throw Failure(message: "reflect: call of reflect.Value.Type on zero Value")
            default: throw Failure(message: "len of type \(TemplateFormat.typeName(args[0]))")
            }
        case "index":
            guard var item = args.first else { throw Failure(message: "wrong number of args for index: want at least 1 got 0") }
            for key in args.dropFirst() {
                switch item {
                case .list(let l, _):
                    guard case .int(let i) = key else { throw Failure(message: "cannot index slice/array with type \(TemplateFormat.typeName(key))") }
                    // Go checks the index against the length, then reflect against the last element
                    guard i >= 0, i <= l.count else { throw Failure(message: "index out of range: \(i)") }
                    guard i < l.count else { throw Failure(message: "reflect: slice index out of range") }
                    item = l[i]
                case .string(let s):
                    guard case .int(let i) = key else { throw Failure(message: "cannot index slice/array with type \(TemplateFormat.typeName(key))") }
                    let bytes = Array(s.utf8)
                    guard i >= 0, i <= bytes.count else { throw Failure(message: "index out of range: \(i)") }
                    guard i < bytes.count else { throw Failure(message: "reflect: string index out of range") }
                    item = .int(Int(bytes[i]))
                case .map(let m, let type):
                    // the key must be of the map's key type
                    let keyType = type.hasPrefix("map[string]") ? "string" : type == "update.ObjectChanges" ? "update.ObjectIdentifier" : "interface {}"
                    if keyType != "interface {}", TemplateFormat.typeName(key) != keyType {
                        throw Failure(message: "value has type \(TemplateFormat.typeName(key)); should be \(keyType)")
                    }
                    if let hit = m.first(where: { $0.key == key }) { item = hit.value; continue }
                    // a missing key gives the element type's zero value
                    switch m.first?.value {
                    case .list(_, let type)?: item = .list([], type: type)
                    case .map(_, let type)?: item = .map([], type: type)
                    case .int?: item = .int(0)
                    case .structure?, .null?: item = .null
                    default: item = .string("")
                    }
                case .null, .missing: throw Failure(message: "index of untyped nil")
                default: throw Failure(message: "can't index item of type \(TemplateFormat.typeName(item))")
                }
            }
            return item
        case "print": return .string(TemplateFormat.sprint(args))
        case "println": return .string(TemplateFormat.sprintln(args))
        case "printf":
            guard case .string(let format)? = args.first else { throw Failure(message: "wrong type for value; expected string") }
            return .string(try TemplateFormat.sprintf(format, Array(args.dropFirst())))
        case "eq":
            guard args.count >= 2 else { throw Failure(message: "missing argument for comparison") }
            for other in args.dropFirst() where try compare(args[0], other) == 0 { return .bool(true) }
            return .bool(false)
        case "ne":
            try arity(f, args, 2)
            return .bool(try compare(args[0], args[1]) != 0)
        case "lt", "le", "gt", "ge":
            try arity(f, args, 2)
            let c = try compare(args[0], args[1], ordered: true)
            switch f {
            case "lt": return .bool(c < 0)
            case "le": return .bool(c <= 0)
            case "gt": return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        case "html", "js", "urlquery", "call", "slice":
            throw Failure(message: "\(f) is not supported by tagwarden's template runner")

        // Sprig: strings
        case "upper": try arity(f, args, 1); return .string(simpleCase(str(args[0]), upper: true))
        case "lower": try arity(f, args, 1); return .string(simpleCase(str(args[0]), upper: false))
        case "title": try arity(f, args, 1); return .string(title(str(args[0])))
        case "trim": try arity(f, args, 1); return .string(trimSpace(str(args[0])))
        case "trimPrefix":
            try arity(f, args, 2)
            let (p, s) = (Array(str(args[0]).utf8), Array(str(args[1]).utf8))
            return .string(String(decoding: s.starts(with: p) ? s.dropFirst(p.count) : s[...], as: UTF8.self))
        case "trimSuffix":
            try arity(f, args, 2)
            let (p, s) = (Array(str(args[0]).utf8), Array(str(args[1]).utf8))
            return .string(String(decoding: s.reversed().starts(with: p.reversed()) ? s.dropLast(p.count) : s[...], as: UTF8.self))
        case "replace":
            try arity(f, args, 3)
            let (old, new, s) = (str(args[0]), str(args[1]), str(args[2]))
            return .string(goSplit(s, old).joined(separator: new).withEnds(new, when: old.isEmpty))
        case "contains": try arity(f, args, 2); return .bool(goSplit(str(args[1]), str(args[0])).count > 1 || str(args[0]).isEmpty)
        case "hasPrefix": try arity(f, args, 2); return .bool(Array(str(args[1]).utf8).starts(with: Array(str(args[0]).utf8)))
        case "hasSuffix": try arity(f, args, 2); return .bool(Array(str(args[1]).utf8).reversed().starts(with: Array(str(args[0]).utf8).reversed()))
        case "quote":
            return .string(args.filter { $0 != .null }.map { TemplateFormat.goQuote(str($0)) }.joined(separator: " "))
        case "squote":
            return .string(args.filter { $0 != .null }.map { "'" + str($0) + "'" }.joined(separator: " "))
        case "cat":
            return .string(args.filter { $0 != .null }.map(str).joined(separator: " "))
        case "indent":
            try arity(f, args, 2)
            try fits(padded: try count(args[0]), str(args[1]))
            let pad = String(repeating: " ", count: try count(args[0]))
            return .string(pad + str(args[1]).replacingOccurrences(of: "\n", with: "\n" + pad))
        case "nindent":
            try arity(f, args, 2)
            try fits(padded: try count(args[0]), str(args[1]))
            let pad = String(repeating: " ", count: try count(args[0]))
            return .string("\n" + pad + str(args[1]).replacingOccurrences(of: "\n", with: "\n" + pad))
        case "trunc":
            try arity(f, args, 2)
            let n = int(args[0]), s = Array(str(args[1]).utf8)
            if n < 0 { return .string(String(decoding: s.suffix(min(-n, s.count)), as: UTF8.self)) }
            return .string(String(decoding: s.prefix(n), as: UTF8.self))
        case "repeat":
            try arity(f, args, 2)
            let (bytes, overflow) = try count(args[0]).multipliedReportingOverflow(by: str(args[1]).utf8.count)
            try fits(overflow ? Int.max : bytes)
            return .string(String(repeating: str(args[1]), count: try count(args[0])))
        case "nospace":
            try arity(f, args, 1)
            var out = String.UnicodeScalarView()
            for u in str(args[0]).unicodeScalars where !goSpace(u) { out.append(u) }
            return .string(String(out))
        case "toString": try arity(f, args, 1); return .string(str(args[0]))
        case "split":
            // Sprig's split gives a map _0, _1 …
            try arity(f, args, 2)
            let parts = goSplit(str(args[1]), str(args[0]))
            var m: [String: TemplateValue] = [:]
            for (i, p) in parts.enumerated() { m["_\(i)"] = .string(p) }
            return .stringMap(m, type: "map[string]string")
        case "splitList":
            try arity(f, args, 2)
            return .list(goSplit(str(args[1]), str(args[0])).map { .string($0) }, type: "[]string")
        case "join":
            try arity(f, args, 2)
            let items: [TemplateValue]
            switch args[1] {
            case .list(let l, _): items = l
            case .null, .missing: items = []
            default: items = [args[1]]
            }
            return .string(items.filter { $0 != .null }.map(str).joined(separator: str(args[0])))

        // Sprig: defaults, lists, encodings
        case "default":
            guard let d = args.first else { throw Failure(message: "wrong number of args for default: want at least 1 got 0") }
            guard args.count > 1 else { return d }
            return empty(args[1]) ? d : args[1]
        case "empty": try arity(f, args, 1); return .bool(empty(args[0]))
        case "list": return .list(args)
        case "first", "last":
            try arity(f, args, 1)
            if args[0] == .null { throw Failure(message: "runtime error: invalid memory address or nil pointer dereference") }
            guard case .list(let l, _) = args[0] else { throw Failure(message: "Cannot find \(f) on type \(kind(args[0]))") }
            return (f == "first" ? l.first : l.last) ?? .null
        case "sortAlpha":
            try arity(f, args, 1)
            guard case .list(let l, _) = args[0] else { return .list([.string(str(args[0]))], type: "[]string") }
            return .list(l.map(str).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { .string($0) }, type: "[]string")
        case "uniq":
            try arity(f, args, 1)
            if args[0] == .null { throw Failure(message: "runtime error: invalid memory address or nil pointer dereference") }
            guard case .list(let l, _) = args[0] else { throw Failure(message: "Cannot find uniq on type \(kind(args[0]))") }
            var out: [TemplateValue] = []
            for v in l where !out.contains(v) { out.append(v) }
            return .list(out)
        case "toJson":
            try arity(f, args, 1)
            // Sprig gives "" when Go cannot encode the value (a map with struct keys)
            return .string(TemplateFormat.json(args[0]) ?? "")
        default:
            throw Failure(message: "\(f) is not supported by tagwarden's template runner")
        }
    }

    /// A count for strings.Repeat, which refuses a negative one.
    /// The most bytes a function may make, and a message may be: 1 MiB (a bound of tagwarden's; Go has none).
    public static let maxBytes = 1 << 20

    static func fits(_ bytes: Int) throws {
        guard bytes <= maxBytes else {
            throw Failure(message: "the result would be more than \(ByteCount.formatSize(maxBytes)), \(TemplateRunner.boundReached)", bound: true)
        }
    }

    /// Whether `s` with `pad` spaces before each of its lines fits.
    static func fits(padded pad: Int, _ s: String) throws {
        let lines = s.utf8.reduce(1) { $1 == 10 ? $0 + 1 : $0 }
        let (padding, overflow) = pad.multipliedReportingOverflow(by: lines)
        try fits(overflow ? Int.max : padding &+ s.utf8.count &+ 1)
    }

    static func count(_ v: TemplateValue) throws -> Int {
        let n = int(v)
        if n < 0 { throw Failure(message: "strings: negative Repeat count") }
        return n
    }

    /// Whether Go can compare values of this one's type with ==: no slices or maps, in structs neither.
    static func comparable(_ v: TemplateValue) -> Bool {
        switch v {
        case .list, .map: false
        case .structure(let s): s.fields.allSatisfy { comparable($0.1) } && s.embedded.allSatisfy { comparable(.structure($0)) }
        default: true
        }
    }

    /// reflect's kind name, as Sprig's messages give it.
    static func kind(_ v: TemplateValue) -> String {
        switch v {
        case .missing, .null: "invalid"
        case .string: "string"
        case .int: "int"
        case .float: "float64"
        case .bool: "bool"
        case .list: "slice"
        case .map: "map"
        case .structure: "struct"
        }
    }

    /// Go's unicode.IsSpace.
    static func goSpace(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// Go's strings.ToUpper/ToLower: each character's simple case mapping (one character for one).
    static func simpleCase(_ s: String, upper: Bool) -> String {
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            let mapped = upper ? u.properties.uppercaseMapping : u.properties.lowercaseMapping
            let scalars = mapped.unicodeScalars
            if scalars.count == 1 { out.append(scalars.first!) } else { out.append(u) }
        }
        return String(out)
    }

    /// Go's `strings.TrimSpace`.
    static func trimSpace(_ s: String) -> String {
        var sub = Substring(s).unicodeScalars
        while let c = sub.first, goSpace(c) { sub.removeFirst() }
        while let c = sub.last, goSpace(c) { sub.removeLast() }
        return String(sub)
    }

    /// Go's deprecated `strings.Title` (Sprig's `title`): each letter after a separator in its title case (one character
    /// for one). A separator is an ASCII character other than a letter, digit or `_`, or a space; other characters are not.
    static func title(_ s: String) -> String {
        func separator(_ u: Unicode.Scalar) -> Bool {
            if u.isASCII {
                let v = u.value
                return !((48...57).contains(v) || (65...90).contains(v) || (97...122).contains(v) || v == 95)
            }
            if u.properties.isAlphabetic || u.properties.numericType != nil { return false }
            return goSpace(u)
        }
        var out = String.UnicodeScalarView()
        var previous: Unicode.Scalar = " "
        for u in s.unicodeScalars {
            if separator(previous), case let mapped = u.properties.titlecaseMapping.unicodeScalars, mapped.count == 1 {
                out.append(mapped.first!)
            } else {
                out.append(u)
            }
            previous = u
        }
        return String(out)
    }

    /// Go's `strings.Split` on bytes: an empty separator splits into characters (UTF-8 sequences).
    static func goSplit(_ s: String, _ separator: String) -> [String] {
        let b = Array(s.utf8), sep = Array(separator.utf8)
        if sep.isEmpty { return s.unicodeScalars.map { String($0) } }
        var parts: [String] = []
        var start = 0, i = 0
        while i + sep.count <= b.count {
            if b[i..<(i + sep.count)].elementsEqual(sep) {
                parts.append(String(decoding: b[start..<i], as: UTF8.self))
                i += sep.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(String(decoding: b[start...], as: UTF8.self))
        return parts
    }

    /// Go's comparison for eq/ne (`ordered` false) and lt/le/gt/ge: basic kinds only (bool, int, float, string), each
    /// with its own kind; eq also compares structs, and refuses slices and maps.
    static func compare(_ a: TemplateValue, _ b: TemplateValue, ordered: Bool = false) throws -> Int {
        func basic(_ v: TemplateValue) -> Int? {
            switch v {
            case .bool: 1
            case .int: 2
            case .float: 3
            case .string: 4
            default: nil
            }
        }
        if ordered {
            guard let k1 = basic(a), let k2 = basic(b) else { throw Failure(message: "invalid type for comparison") }
            guard k1 == k2 else { throw Failure(message: "incompatible types for comparison") }
            if k1 == 1 { throw Failure(message: "invalid type for comparison") }
        } else {
            // Go's eq: kinds apart are incompatible unless one is nil; two values of no basic kind must be of one
            // comparable type
            let validA = a != .null && a != .missing, validB = b != .null && b != .missing
            let k1 = basic(a), k2 = basic(b)
            if k1 != k2 {
                if validA && validB { throw Failure(message: "incompatible types for comparison") }
                return 1
            }
            if k1 == nil {
                if !validA || !validB { return validA == validB ? 0 : 1 }
                // values of two kinds (a map and a struct) cannot be compared; of one kind, the second must be of a comparable
                // type, and values of two types are unequal
                if kind(a) != kind(b) {
                    throw Failure(message: "non-comparable types \(TemplateFormat.plain(a)): \(TemplateFormat.typeName(a)), "
                                  + "\(TemplateFormat.typeName(b)): \(TemplateFormat.plain(b))")
                }
                guard comparable(b) else { throw Failure(message: "non-comparable type \(TemplateFormat.plain(b)): \(TemplateFormat.typeName(b))") }
                return a == b ? 0 : 1
            }
        }
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.float(let x), .float(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.string(let x), .string(let y)):
            return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : x == y ? 0 : 1
        case (.bool(let x), .bool(let y)): return x == y ? 0 : 1
        default: return 1
        }
    }
}

extension String {
    /// `strings.Replace` with an empty old string puts the new one before and after every character too.
    func withEnds(_ end: String, when: Bool) -> String { when && !isEmpty ? end + self + end : (when ? end : self) }
}
