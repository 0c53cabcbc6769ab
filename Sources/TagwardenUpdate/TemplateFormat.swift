import TagwardenBasics
import TagwardenModel
#if canImport(Glibc)
import Glibc
#endif

/// Go's `fmt` as templates use it: how `{{ . }}` prints a value, `print`, `println`, `printf` and `%q`.
enum TemplateFormat {
    /// What `{{ value }}` writes (text/template's printValue).
    static func printed(_ v: TemplateValue) -> String {
        // a nil (a function's, a missing map key's, a template called without data) prints as no value
        if v == .missing || v == .null { return "<no value>" }
        return plain(v)
    }

    /// `%v`.
    static func plain(_ v: TemplateValue) -> String {
        switch v {
        case .missing: return "<invalid reflect.Value>"
        case .null: return "<nil>"
        case .string(let s): return s
        case .int(let n): return String(n)
        case .float(let x): return float(x, verb: "g", precision: -1)
        case .bool(let b): return b ? "true" : "false"
        case .list(let l, _): return "[" + l.map(plain).joined(separator: " ") + "]"
        case .map(let m, _): return "map[" + m.map { plain($0.key) + ":" + plain($0.value) }.joined(separator: " ") + "]"
        case .structure(let s):
            if let stringer = s.stringer { return stringer }
            return structure(s)
        }
    }

    static func structure(_ s: TemplateStruct) -> String {
        "{" + (s.embedded.map(structure) + s.fields.map { plain($0.1) }).joined(separator: " ") + "}"
    }

    static func typeName(_ v: TemplateValue) -> String {
        switch v {
        case .missing, .null: return "<nil>"
        case .string: return "string"
        case .int: return "int"
        case .float: return "float64"
        case .bool: return "bool"
        case .list(_, let type): return type
        case .map(_, let type): return type
        case .structure(let s): return s.type
        }
    }

    static func describe(_ o: GoTemplate.Operand) -> String {
        switch o {
        case .field(let c): return "." + c.joined(separator: ".")
        case .variable(let v, let c): return v + c.map { "." + $0 }.joined()
        case .function(let f): return f
        case .string(let s): return goQuote(s)
        case .int(_, let text), .float(_, let text): return text
        case .bool(let b): return b ? "true" : "false"
        case .null: return "nil"
        case .group: return "(...)"
        }
    }

    /// `fmt.Sprint`: a space between two operands when neither is a string.
    static func sprint(_ args: [TemplateValue]) -> String {
        var out = ""
        for (i, a) in args.enumerated() {
            if i > 0, !isString(a), !isString(args[i - 1]) { out += " " }
            out += plain(a)
        }
        return out
    }

    static func isString(_ v: TemplateValue) -> Bool { if case .string = v { return true }; return false }

    /// `fmt.Sprintln`: spaces between all operands, and a newline.
    static func sprintln(_ args: [TemplateValue]) -> String { args.map(plain).joined(separator: " ") + "\n" }

    /// An integer as `%c` and `%q` read it (`fmtC`): the code point, or U+FFFD for a negative number, one past
    /// U+10FFFF or a surrogate.
    static func rune(_ n: Int) -> Character {
        guard (0...0x10FFFF).contains(n), let scalar = UnicodeScalar(UInt32(n)) else { return "\u{FFFD}" }
        return Character(scalar)
    }

    /// `strconv.Quote`: Go's double-quoted form, printable characters kept.
    static func goQuote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{07}": out += "\\a"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0B}": out += "\\v"
            default:
                if u.value < 0x20 || u.value == 0x7f {
                    out += "\\x" + hexDigits(u.value, width: 2)
                } else if (0x80..<0xA0).contains(u.value) || u.value == 0xAD || u.properties.generalCategory == .format
                            || u.properties.generalCategory == .lineSeparator || u.properties.generalCategory == .paragraphSeparator
                            || u.properties.generalCategory == .unassigned || u.properties.generalCategory == .privateUse
                            || u.properties.generalCategory == .surrogate {
                    out += u.value > 0xFFFF ? "\\U" + hexDigits(u.value, width: 8) : "\\u" + hexDigits(u.value, width: 4)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// Go's `%e`, `%f`, `%g` of a float64 (`precision` -1: the shortest that reads back).
    static func float(_ x: Double, verb: Character, precision: Int) -> String {
        if x.isNaN { return "NaN" }
        if x.isInfinite { return x < 0 ? "-Inf" : "+Inf" }
        switch verb {
        case "f", "F":
            return fixed(x, precision < 0 ? shortestFractionDigits(x) : precision)
        case "e", "E":
            let s = exponent(x, precision < 0 ? shortestDigits(x) - 1 : precision)
            return verb == "E" ? s.uppercased() : s
        default:
            // %g: the shortest digits; exponent form when the exponent is < -4 or >= the digits (21 for shortest)
            let digits = precision < 0 ? shortestDigits(x) : max(1, precision)
            let exp = x == 0 ? 0 : Int((abs(x)).log10Floor)
            // strconv's %g: the exponent form from 6 digits before the point for the shortest, else from the precision
            let limit = precision < 0 ? 6 : digits
            if exp < -4 || exp >= limit {
                var s = exponent(x, digits - 1)
                // %g drops trailing zeros of the mantissa
                if let e = s.firstIndex(of: "e") {
                    var mantissa = String(s[..<e])
                    if mantissa.contains(".") {
                        while mantissa.hasSuffix("0") { mantissa.removeLast() }
                        if mantissa.hasSuffix(".") { mantissa.removeLast() }
                    }
                    s = mantissa + s[e...]
                }
                return s
            }
            var s = fixed(x, max(0, digits - 1 - exp))
            if s.contains(".") {
                while s.hasSuffix("0") { s.removeLast() }
                if s.hasSuffix(".") { s.removeLast() }
            }
            return s
        }
    }

    /// The fewest significant digits that read back as `x` (Swift's description is shortest too).
    static func shortestDigits(_ x: Double) -> Int {
        let d = "\(abs(x))"
        let mantissa = d.split(separator: "e").first.map(String.init) ?? d
        var digits = mantissa.filter(\.isNumber)
        while digits.hasPrefix("0") { digits.removeFirst() }
        while digits.hasSuffix("0") { digits.removeLast() }
        return max(1, digits.count)
    }

    static func shortestFractionDigits(_ x: Double) -> Int {
        let exp = x == 0 ? 0 : Int(abs(x).log10Floor)
        return max(0, shortestDigits(x) - 1 - exp)
    }

    static func fixed(_ x: Double, _ precision: Int) -> String {
        var s = cFormat("%.\(precision)f", x)
        if s == "-0" || (s.hasPrefix("-0.") && s.dropFirst(3).allSatisfy { $0 == "0" }) { s = String(s) }
        return s
    }

    static func exponent(_ x: Double, _ precision: Int) -> String {
        cFormat("%.\(precision)e", x)
    }

    static func cFormat(_ format: String, _ x: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = withVaList([x]) { vsnprintf(&buffer, buffer.count, format, $0) }
        return String(decoding: buffer.prefix(Int(max(0, min(n, 511)))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    struct Spec {
        var minus = false, plus = false, space = false, sharp = false, zero = false
        var width = -1, precision = -1
        var verb: Character = "v"
    }

    /// `fmt.Sprintf` for the verbs messages use: %v %s %q %d %x %X %o %b %c %t %e %f %g and %%, with flags `-+ #0`,
    /// width and precision; Go's `%!verb(type=value)`, `%!v(MISSING)` and `%!(EXTRA …)` for what does not fit. A list,
    /// map or struct is printed element by element with the verb, as fmt does.
    /// The result is held to `TemplateFunctions.maxBytes`: a width that pads past it fails before the padding is made.
    static func sprintf(_ format: String, _ args: [TemplateValue]) throws -> String {
        let f = Array(format.unicodeScalars)
        var out = ""
        var next = 0
        var i = 0
        while i < f.count {
            guard f[i] == "%" else { out.unicodeScalars.append(f[i]); i += 1; continue }
            i += 1
            var spec = Spec()
            while i < f.count, "-+ #0".unicodeScalars.contains(f[i]) {
                switch f[i] {
                case "-": spec.minus = true
                case "+": spec.plus = true
                case " ": spec.space = true
                case "#": spec.sharp = true
                default: spec.zero = true
                }
                i += 1
            }
            if let width = number(f, &i) { spec.width = width }
            // a `.` that ends the format is the verb, as in fmt
            if i + 1 < f.count, f[i] == "." {
                i += 1
                spec.precision = number(f, &i) ?? 0
            }
            guard i < f.count else { out += "%!(NOVERB)"; break }
            spec.verb = Character(f[i])
            i += 1
            if spec.verb == "%" { out += "%"; continue }
            guard next < args.count else { out += "%!\(spec.verb)(MISSING)"; continue }
            // each value the verb prints is padded to the width
            if spec.width > 0 {
                let (least, overflow) = spec.width.multipliedReportingOverflow(by: printed(args[next]))
                try TemplateFunctions.fits(overflow ? Int.max : least)
            }
            out += one(args[next], spec)
            try TemplateFunctions.fits(out.utf8.count)
            next += 1
        }
        if next < args.count {
            out += "%!(EXTRA " + args[next...].map { $0 == .null || $0 == .missing ? "<nil>" : "\(typeName($0))=\(plain($0))" }.joined(separator: ", ") + ")"
        }
        return out
    }

    /// How many values a verb prints of `arg`: a list's, map's or struct's each, else one.
    static func printed(_ arg: TemplateValue) -> Int {
        switch arg {
        case .list(let l, _): return l.reduce(0) { $0 + printed($1) }
        case .map(let m, _): return m.reduce(0) { $0 + printed($1.key) + printed($1.value) }
        case .structure(let s): return s.stringer != nil ? 1 : s.embedded.reduce(0) { $0 + printed(.structure($1)) } + s.fields.reduce(0) { $0 + printed($1.1) }
        default: return 1
        }
    }

    /// fmt's `parsenum`: the digits at `i` as a width or precision, nil when there are none. A number past a million
    /// (and one more digit) is taken to be no number at all and ends the format, which fmt then reports as
    /// `%!(NOVERB)`: a width of `%99999999999d` neither overflows nor pads to gigabytes.
    static func number(_ f: [Unicode.Scalar], _ i: inout Int) -> Int? {
        var n = 0, found = false
        while i < f.count, ("0"..."9").contains(f[i]) {
            if n > 1_000_000 {
                i = f.count
                return nil
            }
            n = n * 10 + Int(f[i].value - 48)
            found = true
            i += 1
        }
        return found ? n : nil
    }

    /// One argument under one verb.
    static func one(_ arg: TemplateValue, _ spec: Spec) -> String {
        let verb = spec.verb
        if verb == "T" { return pad(arg == .null || arg == .missing ? "<nil>" : typeName(arg), spec, numeric: false) }
        switch arg {
        case .list(let l, _):
            if verb == "s" || verb == "v" || verb == "d" || verb == "q" || verb == "x" || verb == "X" || verb == "t" || "eEfFgGob".contains(verb) {
                return "[" + l.map { one($0, spec) }.joined(separator: " ") + "]"
            }
        case .map(let m, _):
            return "map[" + m.map { one($0.key, spec) + ":" + one($0.value, spec) }.joined(separator: " ") + "]"
        case .structure(let s):
            if let stringer = s.stringer, "vsxXq".contains(verb) { return one(.string(stringer), spec) }
            return "{" + (s.embedded.map { one(.structure($0), spec) } + s.fields.map { one($0.1, spec) }).joined(separator: " ") + "}"
        case .null, .missing:
            return verb == "v" ? pad("<nil>", spec, numeric: false) : "%!\(verb)(<nil>)"
        default:
            break
        }
        var body: String
        var numeric = false
        switch (verb, arg) {
        case ("v", _), ("s", .string):
            body = plain(arg)
            if spec.precision >= 0, case .string = arg { body = String(body.prefix(spec.precision)) }
            if case .int = arg { numeric = true }
            if case .float(let x) = arg { body = float(abs(x), verb: "g", precision: spec.precision); if x.sign == .minus { body = "-" + body }; numeric = true }
        case ("q", .string(var s)):
            if spec.precision >= 0 { s = String(s.prefix(spec.precision)) }
            body = spec.sharp && !s.contains("`") ? "`" + s + "`" : goQuote(s)
        case ("q", .int(let n)):
            body = "'" + String(goQuote(String(rune(n))).dropFirst().dropLast()) + "'"
        case ("t", .bool(let b)): body = b ? "true" : "false"
        case ("d", .int(let n)):
            body = (n < 0 ? "-" : "") + String(n.magnitude)
            numeric = true
        case ("x", .int(let n)), ("X", .int(let n)), ("o", .int(let n)), ("b", .int(let n)):
            let radix = verb == "o" ? 8 : verb == "b" ? 2 : 16
            body = String(n.magnitude, radix: radix, uppercase: verb == "X")
            if spec.sharp { body = (verb == "o" ? "0" : verb == "b" ? "0b" : verb == "X" ? "0X" : "0x") + body }
            if n < 0 { body = "-" + body }
            numeric = true
        case ("x", .string(let s)), ("X", .string(let s)):
            body = s.utf8.map { hexDigits($0, width: 2, uppercase: verb == "X") }.joined()
        case ("c", .int(let n)): body = String(rune(n))
        case ("e", .float(let x)), ("E", .float(let x)), ("f", .float(let x)), ("F", .float(let x)), ("g", .float(let x)), ("G", .float(let x)):
            let p = spec.precision < 0 && verb != "g" && verb != "G" ? 6 : spec.precision
            body = float(abs(x), verb: verb == "G" ? "g" : verb, precision: p)
            if verb == "G" { body = body.uppercased() }
            if x.sign == .minus { body = "-" + body }
            numeric = true
        default:
            // a verb that does not fit: the value as %v, with the flags and width given
            var asValue = spec
            asValue.verb = "v"
            return "%!\(verb)(\(typeName(arg))=\(one(arg, asValue)))"
        }
        return pad(body, spec, numeric: numeric)
    }

    static func pad(_ text: String, _ spec: Spec, numeric: Bool) -> String {
        var body = text
        if numeric, !body.hasPrefix("-") {
            if spec.plus { body = "+" + body } else if spec.space { body = " " + body }
        }
        let count = body.unicodeScalars.count
        guard spec.width > count else { return body }
        let fill = spec.width - count
        if spec.minus { return body + String(repeating: " ", count: fill) }
        if spec.zero {
            // fmt pads strings with zeros too
            let sign = numeric && (body.hasPrefix("-") || body.hasPrefix("+") || body.hasPrefix(" ")) ? String(body.removeFirst()) : ""
            return sign + String(repeating: "0", count: fill) + body
        }
        return String(repeating: " ", count: fill) + body
    }

    /// `json.Marshal` (HTML characters escaped, as Go escapes them; maps' keys sorted); nil for what Go cannot encode.
    static func json(_ v: TemplateValue) -> String? {
        switch v {
        case .missing, .null: return "null"
        case .string(let s):
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "<", ">", "&", "\u{2028}", "\u{2029}": out += "\\u" + hexDigits(u.value, width: 4)
                default: if u.value < 0x20 { out += "\\u" + hexDigits(u.value, width: 4) } else { out.unicodeScalars.append(u) }
                }
            }
            return out + "\""
        case .int(let n): return String(n)
        case .float(let x):
            // encoding/json: the shortest digits, the exponent form only below 1e-6 and from 1e21, written e-7, e+21
            guard x.isFinite else { return nil }
            let a = abs(x)
            if a == 0 || (a >= 1e-6 && a < 1e21) { return (x < 0 ? "-" : "") + fixed(a, shortestFractionDigits(a)) }
            var e = exponent(x, shortestDigits(x) - 1)
            if let at = e.firstIndex(of: "e") {
                var mantissa = String(e[..<at])
                if mantissa.contains(".") {
                    while mantissa.hasSuffix("0") { mantissa.removeLast() }
                    if mantissa.hasSuffix(".") { mantissa.removeLast() }
                }
                var power = String(e[e.index(after: at)...])
                let sign = power.removeFirst()
                while power.count > 1, power.hasPrefix("0") { power.removeFirst() }
                e = mantissa + "e" + (sign == "-" ? "-" : "+") + power
            }
            return e
        case .bool(let b): return b ? "true" : "false"
        case .list(let l, _):
            var parts: [String] = []
            for e in l { guard let j = json(e) else { return nil }; parts.append(j) }
            return "[" + parts.joined(separator: ",") + "]"
        case .map(let m, let type):
            guard type.hasPrefix("map[string]") else { return nil }
            var parts: [String] = []
            for e in m { guard let k = json(.string(plain(e.key))), let j = json(e.value) else { return nil }; parts.append(k + ":" + j) }
            return "{" + parts.joined(separator: ",") + "}"
        case .structure(let s):
            var parts: [String] = []
            for (name, value) in s.embedded.flatMap(\.fields) + s.fields {
                guard let k = json(.string(name)), let j = json(value) else { return nil }
                parts.append(k + ":" + j)
            }
            return "{" + parts.joined(separator: ",") + "}"
        }
    }
}

extension Double {
    /// ⌊log10 |x|⌋, exact at powers of ten.
    var log10Floor: Double {
        let s = TemplateFormat.cFormat("%.17e", self)
        guard let e = s.firstIndex(of: "e"), let n = Int(s[s.index(after: e)...]) else { return 0 }
        return Double(n)
    }
}
