/// Repository content on its way to a terminal or a CI log. A string from a pull request can hold line breaks
/// (a forged `::error` workflow command on a line of its own), terminal escapes (`ESC[2J`), and bidirectional
/// controls that make text read otherwise than it is: each is written as an escape instead.
public enum Escape {
    /// C0 and C1 controls, DEL, the bidirectional embeddings, overrides and isolates (and the marks), and the
    /// Unicode line and paragraph separators.
    public static func isUnsafe(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        return v < 0x20 || (v >= 0x7F && v < 0xA0) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            || v == 0x2028 || v == 0x2029 || v == 0x200E || v == 0x200F || v == 0x061C
    }

    /// `s` with each unsafe scalar written as `\n`, `\r`, `\t`, `\e`, `\xNN` or `\u{NNNN}`.
    public static func text(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isUnsafe) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for c in s.unicodeScalars {
            guard isUnsafe(c) else {
                out.unicodeScalars.append(c)
                continue
            }
            switch c.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x1B: out += "\\e"
            case ..<0x100: out += "\\x" + hexDigits(c.value, width: 2, uppercase: true)
            default: out += "\\u{" + hexDigits(c.value, width: 4, uppercase: true) + "}"
            }
        }
        return out
    }

    /// A text of several lines: each line escaped, the line breaks kept, and a line that would start with `::`
    /// (a GitHub Actions workflow command) starts with `\:` instead.
    public static func lines(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let escaped = text(String(line))
            return escaped.hasPrefix("::") ? "\\" + escaped : escaped
        }.joined(separator: "\n")
    }

    /// Repository content in Markdown (a table cell, a list item): HTML is written as text (`<`, `>` and `&` as
    /// entities), Markdown's punctuation is escaped (no code span, link, emphasis or table cell can open), line breaks
    /// and controls are blanks, and a value longer than `limit` characters is cut with "…".
    public static func markdown(_ t: String, limit: Int = 1000) -> String {
        var out = ""
        var n = 0
        for c in t.unicodeScalars {
            if n == limit {
                out += "…"
                break
            }
            n += 1
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "[", "]", "|", "~":
                out += "\\"
                out.unicodeScalars.append(c)
            default:
                if isUnsafe(c) { out += " " } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    /// A path as git prints it in a diff header (`core.quotePath`): as it is, or, when it holds a control character, a
    /// double quote, a backslash or a byte past ASCII, in double quotes with C escapes and octal bytes. `git apply`
    /// reads either.
    public static func gitPath(_ path: String) -> String {
        let bytes = Array(path.utf8)
        guard bytes.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == 0x22 || $0 == 0x5C }) else { return path }
        var out = "\""
        for b in bytes {
            switch b {
            case 0x07: out += "\\a"
            case 0x08: out += "\\b"
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0B: out += "\\v"
            case 0x0C: out += "\\f"
            case 0x0D: out += "\\r"
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(b))
            default: out += "\\" + String(b, radix: 8).leftPadded(3)
            }
        }
        return out + "\""
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
