import TagwardenBasics
import TagwardenYAML

extension Linter {
    /// A fingerprint that ignores line numbers and everything a finding's message says about the rest of the
    /// repository: the rule, the file, the object (kind, namespace, name), the offending text (the finding's span,
    /// blanks removed) and the finding's subject when the span does not say it alone, plus an occurrence count for
    /// identical keys. So a finding keeps its fingerprint when lines are inserted above it, or when a change elsewhere
    /// (a Flux upgrade bumping versions and labels, another policy that changes a "did you mean") changes its message.
    static func assignFingerprints(_ findings: inout [Finding], sources: [String: [UInt8]]) {
        var seen: [UInt64: Int] = [:]
        for i in findings.indices {
            let f = findings[i]
            var h = FNV1a()
            h.add(f.rule)
            h.add(0)
            h.add(f.file)
            h.add(0)
            if let o = f.object {
                h.add(o.kind)
                h.add(UInt8(ascii: "/"))
                h.add(o.namespace ?? "")
                h.add(UInt8(ascii: "/"))
                h.add(o.name ?? "")
            }
            h.add(0)
            if let bytes = sources[f.file] {
                let lo = min(f.span.start.offset, bytes.count), hi = min(max(f.span.end.offset, lo), bytes.count)
                for b in bytes[lo..<hi] where b != 32 && b != 9 && b != 10 && b != 13 { h.add(b) }
            }
            h.add(0)
            h.add(f.subject ?? "")
            let key = h.value
            let n = seen[key, default: 0]
            seen[key] = n + 1
            findings[i].fingerprint = hexDigits(FNV1a.hash("\(key)\u{0}\(n)"), width: 16)
        }
    }

    /// 64-bit FNV-1a, fed piece by piece.


}
