import TagwardenBasics

/// What a registry's answers say, read from their text alone: the headers (`WWW-Authenticate`, `Link`, `Retry-After`)
/// and the JSON bodies (a tag list, an index's manifests). Each reading is total: any text gives an answer or nil (or a
/// `TagwardenError`), never a trap; `scripts/fuzz` holds them to that.
public enum RegistryAnswers {
    /// `Bearer realm="…",service="…",scope="…"` → ("Bearer", [realm: …, service: …, scope: …]). Read byte by byte
    /// (the header is ASCII): linear in the header, whatever it holds.
    public static func challenge(_ header: String) -> (scheme: String, parameters: [String: String]) {
        let b = Array(header.utf8)
        let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
        var i = b.firstIndex(of: space) ?? b.count
        let scheme = text(b[..<i])
        var params: [String: String] = [:]
        while i < b.count {
            while i < b.count, b[i] == space || b[i] == comma { i += 1 }
            let keyStart = i
            while i < b.count, b[i] != equals { i += 1 }
            guard i < b.count else { break }
            let key = b[keyStart..<i]
            i += 1
            var value: [UInt8] = []
            if i < b.count, b[i] == quote {
                i += 1
                while i < b.count, b[i] != quote {
                    if b[i] == backslash { i += 1 }
                    if i < b.count { value.append(b[i]); i += 1 }
                }
                i += 1
            } else {
                while i < b.count, b[i] != comma { value.append(b[i]); i += 1 }
            }
            params[trimmed(text(key)[...]).lowercased()] = text(value[...])
        }
        return (scheme, params)
    }

    /// The `rel="next"` URL of a `Link` header (`</v2/…/tags/list?n=100&last=x>; rel="next"`), absolute: a path is
    /// taken on `origin` (`https://host:port`).
    public static func nextLink(_ header: String, origin: String) -> String? {
        for part in Array(header.utf8).split(separator: UInt8(ascii: ",")) {
            let text = String(decoding: part, as: UTF8.self)
            guard text.utf8.contains(subsequence: Array("rel=\"next\"".utf8)) || text.utf8.contains(subsequence: Array("rel=next".utf8)),
                  let open = part.firstIndex(of: UInt8(ascii: "<")), let close = part.firstIndex(of: UInt8(ascii: ">")), open < close else { continue }
            let target = String(decoding: part[(open + 1)..<close], as: UTF8.self)
            if target.hasPrefix("http://") || target.hasPrefix("https://") { return target }
            return origin + (target.hasPrefix("/") ? "" : "/") + target
        }
        return nil
    }

    /// `Retry-After` in seconds: a non-negative number (an HTTP date, `nan` or `inf` is no answer).
    public static func retryAfter(_ header: String) -> Double? {
        guard let seconds = Double(trimmed(header[...])), seconds.isFinite, seconds >= 0 else { return nil }
        return seconds
    }

    /// The tags of a tag list page (`{"name": …, "tags": [...]}`; `tags` may be null); an error for anything else.
    public static func tagList(_ body: [UInt8]) throws -> [String] {
        guard let page = try? JSON.parse(String(decoding: body, as: UTF8.self)), case .object = page else {
            throw TagwardenError("the answer is not a JSON tag list")
        }
        switch page["tags"] {
        case nil, .null?: return []
        case .array(let tags)?: return tags.compactMap(\.stringValue)
        default: throw TagwardenError("the answer's tags are not a list")
        }
    }

    /// The digests of an index's manifests (a multi-arch image's platforms); nil when the body is no index.
    public static func manifestDigests(_ body: [UInt8]) -> [String]? {
        guard let list = (try? JSON.parse(String(decoding: body, as: UTF8.self)))?["manifests"]?.arrayValue else { return nil }
        return list.compactMap { $0["digest"]?.stringValue }
    }

    /// `s` without the blanks (space, tab, line breaks) around it.
    public static func trimmed(_ s: Substring) -> String {
        let blank: (UInt8) -> Bool = { $0 == 32 || $0 == 9 || $0 == 13 || $0 == 10 }
        let b = Array(s.utf8)
        guard let first = b.firstIndex(where: { !blank($0) }), let last = b.lastIndex(where: { !blank($0) }) else { return "" }
        return String(decoding: b[first...last], as: UTF8.self)
    }
}

extension Sequence where Element == UInt8 {
    /// Whether `needle` occurs in these bytes.
    func contains(subsequence needle: [UInt8]) -> Bool {
        let hay = Array(self)
        guard !needle.isEmpty, hay.count >= needle.count else { return needle.isEmpty }
        for start in 0...(hay.count - needle.count) where hay[start] == needle[0] && Array(hay[start..<(start + needle.count)]) == needle { return true }
        return false
    }
}
