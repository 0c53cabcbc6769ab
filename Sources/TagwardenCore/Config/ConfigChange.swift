/// What a change of `.tagwarden.yaml` weakens: the pull request check runs with the base side's config, and a
/// pull request that would loosen it for every later run is told so, one finding per loosening.
public enum ConfigChange {
    /// One loosening: what it is, and a word of the head config's text that locates it (nil: the file's start).
    public struct Weakening: Sendable, Equatable {
        public var message: String
        public var near: String?
    }

    public static func weakenings(base: Config, head: Config) -> [Weakening] {
        var out: [Weakening] = []
        func add(_ message: String, near: String? = nil) { out.append(Weakening(message: message, near: near)) }

        if let p = base.profile, head.profile != p { add("drops profile '\(p)'", near: "profile") }
        // rules: on in base and off in head, or a lower severity
        for id in Set(base.rules.keys).union(head.rules.keys).sorted() {
            let b = base.rules[id], h = head.rules[id]
            let wasOn = b?.enabled != false, isOn = h?.enabled != false
            if wasOn && !isOn {
                add("turns rule \(id) off", near: id)
                continue
            }
            guard wasOn, let defaultSeverity = Catalogue.severities[id] else { continue }
            let was = b?.severity ?? defaultSeverity, now = h?.severity ?? defaultSeverity
            if now < was { add("lowers rule \(id) from \(was.rawValue) to \(now.rawValue)", near: id) }
        }
        for pattern in head.ignore where !base.ignore.contains(pattern) {
            add("ignores '\(pattern)'", near: pattern)
        }
        if let b = base.maxFileSize, (head.maxFileSize ?? SourceOptions().maxFileSize) < b {
            add("lowers maxFileSize from \(Sources.formatSize(b)) to \(Sources.formatSize(head.maxFileSize ?? SourceOptions().maxFileSize)): larger files are skipped",
                near: "maxFileSize")
        } else if base.maxFileSize == nil, let h = head.maxFileSize, h < SourceOptions().maxFileSize {
            add("lowers maxFileSize to \(Sources.formatSize(h)): larger files are skipped", near: "maxFileSize")
        }
        for image in base.promotedImages where !head.promotedImages.contains(image) {
            add("no longer requires '\(image)' to be promoted", near: "promotedImages")
        }
        if let b = base.floatingTags {
            let h = head.floatingTags ?? []
            for tag in b where !h.contains(tag) && head.floatingTags != nil { add("no longer counts '\(tag)' as a floating tag", near: "floatingTags") }
        }
        if let b = base.fluxVersion, head.fluxVersion != b {
            add("changes fluxVersion from \(b) to \(head.fluxVersion.map(String.init(describing:)) ?? "the one detected"): the rules judge another Flux",
                near: "fluxVersion")
        }
        for env in base.environments {
            guard let h = head.environments.first(where: { $0.name == env.name }) else {
                add("removes environment '\(env.name)'", near: nil)
                continue
            }
            if env.requireDigest == true, h.requireDigest != true { add("drops requireDigest from environment '\(env.name)'", near: env.name) }
            if env.requireReview == true, h.requireReview != true { add("drops requireReview from environment '\(env.name)'", near: env.name) }
            if let p = env.tagPrefix, h.tagPrefix != p { add("changes the tagPrefix of environment '\(env.name)' from '\(p)'", near: env.name) }
            if let p = env.tagPattern, h.tagPattern != p { add("changes the tagPattern of environment '\(env.name)' from '\(p)'", near: env.name) }
            // which files and namespaces are the environment's: a file moved out of production escapes its rules
            for path in env.paths ?? [] where !(h.paths ?? []).contains(path) {
                add("no longer counts '\(path)' as environment '\(env.name)'", near: env.name)
            }
            for ns in env.namespaces ?? [] where !(h.namespaces ?? []).contains(ns) {
                add("no longer counts namespace '\(ns)' as environment '\(env.name)'", near: env.name)
            }
        }
        return out
    }

    /// The findings of `config-weakened` for a head config file (`headBytes` nil when the change deletes it).
    public static func findings(base: Config, head: Config, path: String, headBytes: [UInt8]?) -> [Finding] {
        let origin = SourcePosition(offset: 0, line: 1, column: 1)
        var findings = weakenings(base: base, head: head).map { w in
            var span = SourceSpan(start: origin, end: origin)
            if let bytes = headBytes, let word = w.near, let at = firstOccurrence(Array(word.utf8), in: bytes) {
                span = SourceSpan(start: SourceText.position(bytes, offset: at), end: SourceText.position(bytes, offset: at + word.utf8.count))
            }
            let verb = headBytes == nil ? "deleting \(path)" : "this change to \(path)"
            return Finding(rule: "config-weakened", severity: .error,
                           message: "\(verb) \(w.message); the check ran with the base side's config, and later runs would not",
                           file: path, span: span, subject: w.message)
        }
        findings.sort { $0.span.start.offset < $1.span.start.offset }
        Engine.assignFingerprints(&findings, sources: headBytes.map { [path: $0] } ?? [:])
        return findings
    }

    static func firstOccurrence(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
        for i in 0...(bytes.count - needle.count) where bytes[i] == needle[0] && bytes[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }
}
