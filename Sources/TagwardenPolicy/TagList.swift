import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
/// A tag list for `policy eval`: one tag per line (blank lines and `#` comments skipped), or JSON — an array
/// of strings, or an object with a `tags` array (as `crane ls --json` and similar tools print).
public enum TagList {
    public static func parse(_ text: String) -> Result<[String], TagwardenError> {
        let trimmed = text.trimmingBlanksAndNewlines
        if trimmed.hasPrefix("[") || trimmed.hasPrefix("{") {
            let json: JSON
            do { json = try JSON.parse(trimmed) } catch {
                return .failure(TagwardenError("not valid JSON: \(error.message) at byte \(error.offset)"))
            }
            var array: [JSON]
            if case .array(let a) = json { array = a }
            else if case .array(let a)? = json["tags"] { array = a }
            else { return .failure(TagwardenError("JSON tag lists are an array of strings, or an object with a \"tags\" array")) }
            var out: [String] = []
            for (i, v) in array.enumerated() {
                guard let s = v.stringValue else { return .failure(TagwardenError("JSON entry \(i) is not a string")) }
                out.append(s)
            }
            return .success(out)
        }
        var out: [String] = []
        var text = text
        text.withUTF8 { b in
            var i = 0
            while i < b.count {
                var start = i
                var end = i
                while end < b.count, b[end] != 10 { end += 1 }
                i = end + 1
                while start < end, b[start] == 32 || b[start] == 9 || b[start] == 13 { start += 1 }
                while end > start, b[end - 1] == 32 || b[end - 1] == 9 || b[end - 1] == 13 { end -= 1 }
                if start == end || b[start] == UInt8(ascii: "#") { continue }
                out.append(String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self))
            }
        }
        return .success(out)
    }
}

extension String {
    var trimmingBlanksAndNewlines: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" || f == "\r\n" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" || l == "\r\n" { s.removeLast() }
        return String(s)
    }
}
