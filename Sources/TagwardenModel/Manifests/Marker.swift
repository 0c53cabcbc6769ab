import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
#if canImport(Glibc)
import Glibc
#endif

/// A Flux `$imagepolicy` marker: `# {"$imagepolicy": "<namespace>:<name>[:tag|:name|:digest]"}`.
public struct MarkerRef: Sendable, Hashable {
    public var namespace: String
    public var name: String
    /// What the marker writes: the whole reference, or one part of it (`:name`, `:tag`, `:digest`).
    public var part: MarkerPart
    public var value: String
}

/// What a marker writes into its field.
public enum MarkerPart: String, Sendable, Hashable {
    /// `ns:name`: the whole reference, `name:tag` (or `name:tag@digest` for a policy that reflects digests).
    case reference = ""
    case name, tag, digest
}

public enum Marker {
    /// Reads a comment as Flux (kyaml `fieldmeta`) does: all leading `#` stripped, then exactly one JSON
    /// object whose values are all strings, nothing after it.
    public static func parse(_ comment: String) -> (policy: MarkerRef?, problem: String?) {
        if let value = plainValue(comment) { return check(value) }
        let hashes = comment.utf8.prefix { $0 == UInt8(ascii: "#") }.count
        let body = hashes == 0 ? comment : String(Substring(comment.utf8.dropFirst(hashes)))
        let json: JSON
        do {
            json = try JSON.parse(body)
        } catch {
            let trimmed = body.trimmingBlanks
            if trimmed.hasPrefix("{"), let obj = leadingObject(trimmed), (try? JSON.parse(String(trimmed.prefix(obj)))) != nil {
                return (nil, "text after the JSON object ('\(String(trimmed.dropFirst(obj)).trimmingBlanks)'): Flux ignores the whole marker")
            }
            if trimmed.contains("'") { return (nil, "not valid JSON (single quotes?): Flux ignores it") }
            return (nil, "not a JSON object: \(error.message) at offset \(error.offset); Flux ignores it")
        }
        guard case .object(let kv) = json else { return (nil, "the marker must be a JSON object") }
        for (k, v) in kv where v.stringValue == nil {
            return (nil, "value of \"\(k)\" is not a string: Flux only reads objects of strings")
        }
        guard let value = json["$imagepolicy"]?.stringValue else {
            return (nil, "no \"$imagepolicy\" key (keys are case-sensitive)")
        }
        return check(value)
    }

    /// `{"$imagepolicy": "…"}` after the comment's leading `#`s, with blanks around its tokens and no escape or control
    /// character in the value — nearly every marker — read without building a JSON tree (nor the comment's text without
    /// its `#`s); nil for anything else (the JSON reader decides).
    static func plainValue(_ comment: String) -> String? {
        var comment = comment
        return comment.withUTF8 { b -> String? in
            var i = 0
            while i < b.count, b[i] == UInt8(ascii: "#") { i += 1 }
            func blanks() { while i < b.count, b[i] == 32 || b[i] == 9 { i += 1 } }
            func literal(_ s: StaticString) -> Bool {
                let n = s.utf8CodeUnitCount
                guard i + n <= b.count, memcmp(b.baseAddress! + i, s.utf8Start, n) == 0 else { return false }
                i += n
                return true
            }
            blanks()
            guard literal("{"), { blanks(); return literal("\"$imagepolicy\"") }(), { blanks(); return literal(":") }(),
                  { blanks(); return literal("\"") }() else { return nil }
            let start = i
            while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\"), b[i] >= 32 { i += 1 }
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
            let value = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
            i += 1
            blanks()
            guard literal("}") else { return nil }
            blanks()
            return i == b.count ? value : nil
        }
    }

    /// The `$imagepolicy` value's parts, or why Flux would not use it.
    static func check(_ value: String) -> (policy: MarkerRef?, problem: String?) {
        if value.isEmpty { return (nil, "the \"$imagepolicy\" value is empty") }
        var bytes = value
        return bytes.withUTF8 { b in
            // the ':'-separated parts: how many, where the first three are (no array and no string for one that is
            // not kept), and whether one starts or ends with a blank or holds '/' or '~'
            var count = 0, odd = false, start = 0
            var first = 0..<0, second = 0..<0, third = 0..<0
            for i in 0...b.count where i == b.count || b[i] == UInt8(ascii: ":") {
                let part = UnsafeBufferPointer(rebasing: b[start..<i])
                if let f = part.first, let l = part.last, f == 32 || f == 9 || l == 32 || l == 9 { odd = true }
                if part.contains(UInt8(ascii: "/")) || part.contains(UInt8(ascii: "~")) { odd = true }
                switch count {
                case 0: first = start..<i
                case 1: second = start..<i
                case 2: third = start..<i
                default: break
                }
                count += 1
                start = i + 1
            }
            func text(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self) }
            if count < 2 {
                return (nil, "'\(value)' has no namespace: write \"<namespace>:\(value)\"")
            }
            if count > 3 { return (nil, "'\(value)' has too many ':' parts") }
            if first.isEmpty || second.isEmpty { return (nil, "'\(value)' has an empty namespace or name") }
            var part = MarkerPart.reference
            if count == 3 {
                guard let named = markerPart(UnsafeBufferPointer(rebasing: b[third])) else {
                    return (nil, "unknown suffix ':\(text(third))' in '\(value)': use :tag, :name or :digest")
                }
                part = named
            }
            if odd { return (nil, "'\(value)' contains blanks, '/' or '~': Flux looks it up verbatim and finds nothing") }
            return (MarkerRef(namespace: text(first), name: text(second), part: part, value: value), nil)
        }
    }

    /// The part a marker's third ':'-part names (`tag`, `name` or `digest`), read in place; nil for any other.
    private static func markerPart(_ b: UnsafeBufferPointer<UInt8>) -> MarkerPart? {
        func equals(_ s: StaticString) -> Bool { b.count == s.utf8CodeUnitCount && memcmp(b.baseAddress!, s.utf8Start, b.count) == 0 }
        if equals("tag") { return .tag }
        if equals("name") { return .name }
        if equals("digest") { return .digest }
        return nil
    }

    /// The length of a leading balanced `{…}` (strings respected), if any.
    static func leadingObject(_ s: String) -> Int? {
        var depth = 0
        var inString = false
        var escape = false
        for (i, c) in s.enumerated() {
            if inString {
                if escape { escape = false } else if c == "\\" { escape = true } else if c == "\"" { inString = false }
                continue
            }
            if c == "\"" { inString = true } else if c == "{" { depth += 1 } else if c == "}" {
                depth -= 1
                if depth == 0 { return i + 1 }
            }
        }
        return nil
    }
}
