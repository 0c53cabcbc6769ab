import TagwardenBasics
#if canImport(Glibc)
import Glibc
#endif

/// Go's `strconv.ParseFloat(s, 64)`: the Go float-literal grammar (signs, exponents, hex floats with a
/// mandatory `p` exponent, `_` between digits, case-insensitive `inf`/`infinity`/`nan`), no surrounding
/// blanks; overflow is an error, underflow is zero.
public enum GoFloat {
    public enum Failure: Error, Equatable { case syntax, range }

    static func plainDigits(_ s: String) -> Int? {
        let u = s.utf8
        guard (1...15).contains(u.count) else { return nil }
        var n = 0
        for c in u {
            guard c >= 48, c <= 57 else { return nil }
            n = n * 10 + Int(c - 48)
        }
        return n
    }

    public static func parse(_ s: String) -> Result<Double, Failure> {
        // the common key, a run of up to 15 decimal digits (a timestamp, a build number), is exact as an integer
        if let n = plainDigits(s) { return .success(Double(n)) }
        let b = Array(s.utf8)
        guard !b.isEmpty else { return .failure(.syntax) }
        if let special = special(b) { return .success(special) }
        var i = 0
        var negative = false
        if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        var hex = false
        if i + 2 < b.count, b[i] == UInt8(ascii: "0"), b[i + 1] | 0x20 == UInt8(ascii: "x") {
            hex = true
            i += 2
        }
        var sawDigits = false, sawDot = false, underscores = false
        var clean: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        if hex { clean += [UInt8(ascii: "0"), UInt8(ascii: "x")] }
        loop: while i < b.count {
            let c = b[i]
            switch c {
            case UInt8(ascii: "_"):
                underscores = true
            case UInt8(ascii: "."):
                if sawDot { break loop }
                sawDot = true
                clean.append(c)
            case 48...57:
                sawDigits = true
                clean.append(c)
            default:
                if hex, (c | 0x20) >= UInt8(ascii: "a"), (c | 0x20) <= UInt8(ascii: "f") {
                    sawDigits = true
                    clean.append(c)
                } else {
                    break loop
                }
            }
            i += 1
        }
        guard sawDigits else { return .failure(.syntax) }
        let expChar = hex ? UInt8(ascii: "p") : UInt8(ascii: "e")
        if i < b.count, b[i] | 0x20 == expChar {
            clean.append(expChar)
            i += 1
            guard i < b.count else { return .failure(.syntax) }
            if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { clean.append(b[i]); i += 1 }
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { return .failure(.syntax) }
            while i < b.count, (b[i] >= 48 && b[i] <= 57) || b[i] == UInt8(ascii: "_") {
                if b[i] == UInt8(ascii: "_") { underscores = true } else { clean.append(b[i]) }
                i += 1
            }
        } else if hex {
            return .failure(.syntax)  // a hex float needs its p exponent
        }
        guard i == b.count else { return .failure(.syntax) }
        if underscores && !underscoreOK(b) { return .failure(.syntax) }
        let text = String(decoding: clean, as: UTF8.self)
        let value = text.withCString { strtod($0, nil) }
        if value.isInfinite { return .failure(.range) }
        return .success(value)
    }

    static func lower(_ c: UInt8) -> UInt8 { c | 0x20 }

    static func special(_ b: [UInt8]) -> Double? {
        var s = b[...]
        var sign = 1.0
        var signed = false
        if let f = s.first, f == UInt8(ascii: "+") || f == UInt8(ascii: "-") {
            sign = f == UInt8(ascii: "-") ? -1 : 1
            signed = true
            s = s.dropFirst()
        }
        let word = String(decoding: s.map(lower), as: UTF8.self)
        if word == "inf" || word == "infinity" { return sign * .infinity }
        if !signed, word == "nan" { return .nan }
        return nil
    }

    /// Underscores only between digits, or between a base prefix and a digit.
    static func underscoreOK(_ b: [UInt8]) -> Bool {
        var s = b[...]
        if let f = s.first, f == UInt8(ascii: "+") || f == UInt8(ascii: "-") { s = s.dropFirst() }
        var saw: Character = "^"
        var hex = false
        var i = s.startIndex
        if s.count >= 2, s[i] == UInt8(ascii: "0"), ["b", "o", "x"].contains(Character(Unicode.Scalar(lower(s[i + 1])))) {
            hex = lower(s[i + 1]) == UInt8(ascii: "x")
            saw = "0"
            i += 2
        }
        while i < s.endIndex {
            let c = s[i]
            if (c >= 48 && c <= 57) || (hex && lower(c) >= UInt8(ascii: "a") && lower(c) <= UInt8(ascii: "f")) {
                saw = "0"
            } else if c == UInt8(ascii: "_") {
                if saw != "0" { return false }
                saw = "_"
            } else {
                if saw == "_" { return false }
                saw = "!"
            }
            i += 1
        }
        return saw != "_"
    }
}
