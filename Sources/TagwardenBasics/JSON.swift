/// A small JSON value with ordered objects: reports keep their documented key order, and markers and
/// tag lists are read strictly (what Go's encoding/json accepts).
public indirect enum JSON: Sendable, Equatable {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    public subscript(key: String) -> JSON? {
        if case .object(let kv) = self { return kv.last { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    /// A number, integer or not.
    public var doubleValue: Double? {
        switch self {
        case .int(let n): Double(n)
        case .double(let x): x
        default: nil
        }
    }

    // MARK: writing

    public func serialized(pretty: Bool = false) -> String {
        var out: [UInt8] = []
        write(&out, pretty: pretty, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the value's text as UTF-8 bytes: a large report is many small pieces, and bytes append
    /// without String's per-append bookkeeping.
    func write(_ out: inout [UInt8], pretty: Bool, indent: Int) {
        func newline(_ depth: Int) {
            out.append(10)
            out.append(contentsOf: repeatElement(32, count: 2 * depth))
        }
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: (d.isFinite ? String(d) : "null").utf8)
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let xs):
            if xs.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, x) in xs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(indent + 1) }
                x.write(&out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let kv):
            if kv.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, (k, v)) in kv.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(indent + 1) }
                JSON.quote(k, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(32) }
                v.write(&out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { b in
            // runs that need no escape are appended whole
            var run = 0
            for i in 0..<b.count where b[i] < 0x20 || b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "\\") {
                out.append(contentsOf: b[run..<i])
                run = i + 1
                switch b[i] {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case 10: out.append(contentsOf: #"\n"#.utf8)
                case 13: out.append(contentsOf: #"\r"#.utf8)
                case 9: out.append(contentsOf: #"\t"#.utf8)
                default:
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(48 + (b[i] >> 4))
                    out.append((b[i] & 15) < 10 ? 48 + (b[i] & 15) : 87 + (b[i] & 15))
                }
            }
            out.append(contentsOf: b[run..<b.count])
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: reading

    public struct ParseError: Error, Sendable, Equatable {
        public var message: String
        public var offset: Int
    }

    /// Parses exactly one JSON value, surrounded by optional whitespace.
    public static func parse(_ text: String) throws(ParseError) -> JSON {
        var p = JSONReader(Array(text.utf8))
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        if p.i < p.b.count { throw ParseError(message: "unexpected text after the JSON value", offset: p.i) }
        return v
    }
}

struct JSONReader {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }

    mutating func skipSpace() {
        while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 10 || b[i] == 13 { i += 1 }
    }

    func fail(_ m: String) -> JSON.ParseError { JSON.ParseError(message: m, offset: i) }

    mutating func value(depth: Int) throws(JSON.ParseError) -> JSON {
        guard depth < 512 else { throw fail("JSON nests too deeply") }
        guard i < b.count else { throw fail("unexpected end of JSON") }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var kv: [(String, JSON)] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(kv) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let k = try string()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                i += 1
                skipSpace()
                kv.append((k, try value(depth: depth + 1)))
                skipSpace()
                guard i < b.count else { throw fail("unexpected end of JSON") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return .object(kv) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var xs: [JSON] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(xs) }
            while true {
                skipSpace()
                xs.append(try value(depth: depth + 1))
                skipSpace()
                guard i < b.count else { throw fail("unexpected end of JSON") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return .array(xs) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try word("true", .bool(true))
        case UInt8(ascii: "f"): return try word("false", .bool(false))
        case UInt8(ascii: "n"): return try word("null", .null)
        default:
            return try number()
        }
    }

    mutating func word(_ w: String, _ v: JSON) throws(JSON.ParseError) -> JSON {
        let u = Array(w.utf8)
        guard i + u.count <= b.count, Array(b[i..<(i + u.count)]) == u else { throw fail("invalid literal") }
        i += u.count
        return v
    }

    mutating func number() throws(JSON.ParseError) -> JSON {
        let start = i
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("invalid value") }
        if b[i] == 48 { i += 1 } else { while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 } }
        var isInt = true
        if i < b.count, b[i] == UInt8(ascii: ".") {
            isInt = false
            i += 1
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("invalid number") }
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            isInt = false
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("invalid number") }
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        let text = String(decoding: b[start..<i], as: UTF8.self)
        if isInt, let n = Int(text) { return .int(n) }
        return .double(Double(text) ?? 0)
    }

    mutating func string() throws(JSON.ParseError) -> String {
        i += 1
        // the common case, no escapes: one scan, one String
        var j = i
        while j < b.count, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "\\"), b[j] >= 0x20 { j += 1 }
        if j < b.count, b[j] == UInt8(ascii: "\"") {
            defer { i = j + 1 }
            return String(decoding: b[i..<j], as: UTF8.self)
        }
        var out: [UInt8] = Array(b[i..<j])
        i = j
        while true {
            guard i < b.count else { throw fail("unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { throw fail("unterminated string") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "u"):
                var v = try hex4()
                // a high surrogate takes the low one after it, as Go pairs them; with anything else it is U+FFFD and
                // the next escape is read on its own
                if v >= 0xD800, v < 0xDC00, i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
                    let start = i
                    i += 2
                    let lo = try hex4()
                    if lo >= 0xDC00, lo < 0xE000 {
                        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                    } else {
                        i = start
                        v = 0xFFFD
                    }
                }
                let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw fail("invalid escape in string")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    mutating func hex4() throws(JSON.ParseError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw fail("invalid \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }
}
