import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
/// What a change of `.tagwarden.yaml` weakens: the pull request check runs with the base side's config, and a
/// pull request that would loosen it for every later run is told so, one finding per loosening.
public enum ConfigChange {
    /// One loosening: what it is, and the settings of the head config that locate it, the likeliest first (a key of
    /// `Config.locations`; none there: the file's start).
    public struct Weakening: Sendable, Equatable {
        public var message: String
        public var near: [String]
    }

    public static func weakenings(base: Config, head: Config) -> [Weakening] {
        var out: [Weakening] = []
        func add(_ message: String, near: String...) { out.append(Weakening(message: message, near: near)) }

        if let p = base.profile, head.profile != p { add("drops profile '\(p)'", near: "profile") }
        // rules: on in base and off in head, or a lower severity
        for id in Set(base.rules.keys).union(head.rules.keys).sorted() {
            let b = base.rules[id], h = head.rules[id]
            let wasOn = b?.enabled != false, isOn = h?.enabled != false
            if wasOn && !isOn {
                add("turns rule \(id) off", near: "rules/\(id)", "rules")
                continue
            }
            guard wasOn, let defaultSeverity = Catalogue.severities[id] else { continue }
            let was = b?.severity ?? defaultSeverity, now = h?.severity ?? defaultSeverity
            if now < was { add("lowers rule \(id) from \(was.rawValue) to \(now.rawValue)", near: "rules/\(id)", "rules") }
        }
        for pattern in head.ignore where !base.ignore.contains(pattern) {
            add("ignores '\(pattern)'", near: "ignore/\(pattern)", "ignore")
        }
        if let b = base.maxFileSize, (head.maxFileSize ?? SourceOptions().maxFileSize) < b {
            add("lowers maxFileSize from \(ByteCount.formatSize(b)) to \(ByteCount.formatSize(head.maxFileSize ?? SourceOptions().maxFileSize)): larger files are skipped",
                near: "maxFileSize")
        } else if base.maxFileSize == nil, let h = head.maxFileSize, h < SourceOptions().maxFileSize {
            add("lowers maxFileSize to \(ByteCount.formatSize(h)): larger files are skipped", near: "maxFileSize")
        }
        if (head.maxInputSize ?? Config.defaultMaxInputSize) < (base.maxInputSize ?? Config.defaultMaxInputSize) {
            add("lowers maxInputSize to \(ByteCount.formatSize(head.maxInputSize ?? Config.defaultMaxInputSize)): files past it are not read",
                near: "maxInputSize")
        }
        for image in base.promotedImages where !head.promotedImages.contains(image) {
            add("no longer requires '\(image)' to be promoted", near: "promotedImages")
        }
        if let b = base.floatingTags {
            let h = head.floatingTags ?? []
            for tag in b where !h.contains(tag) && head.floatingTags != nil { add("no longer counts '\(tag)' as a floating tag", near: "floatingTags") }
        }
        for image in head.shortVersionReleases where !base.shortVersionReleases.contains(image) {
            add("counts the short version tags of '\(image)' as releases: image-floating-tag no longer reports them", near: "shortVersionReleases")
        }
        if let b = base.fluxVersion, head.fluxVersion != b {
            add("changes fluxVersion from \(b) to \(head.fluxVersion.map(String.init(describing:)) ?? "the one detected"): the rules judge another Flux",
                near: "fluxVersion")
        }
        // the environments as each side's config makes them, profile included: a requirement the profile gave and an
        // explicit key now drops is as weak as one the config gave
        // (a dropped profile is its own finding: what it gave is not reported again)
        let droppedProfile = base.profile != nil && head.profile != base.profile
        let effectiveHead = EnvironmentModel.base(config: head, profile: droppedProfile ? base.profile : nil).environments
        for env in EnvironmentModel.base(config: base, profile: nil).environments {
            guard let h = effectiveHead.first(where: { $0.name == env.name }) else {
                add("removes environment '\(env.name)'", near: "environments")
                continue
            }
            func at(_ key: String) -> [String] { ["environments/\(env.name)/\(key)", "environments/\(env.name)", "profile"] }
            func from(_ key: String) -> String { env.origin[key].map { $0.contains("strict profile") ? " (the strict profile set it)" : "" } ?? "" }
            if env.requireDigest, !h.requireDigest {
                out.append(Weakening(message: "drops requireDigest from environment '\(env.name)'\(from("requireDigest"))", near: at("requireDigest")))
            }
            if env.requireReview, !h.requireReview {
                out.append(Weakening(message: "drops requireReview from environment '\(env.name)'\(from("requireReview"))", near: at("requireReview")))
            }
            if let p = env.tagPrefix, h.tagPrefix != p {
                out.append(Weakening(message: "changes the tagPrefix of environment '\(env.name)' from '\(p)'\(from("tagPrefix"))", near: at("tagPrefix")))
            }
            if let p = env.tagPattern, h.tagPattern != p {
                out.append(Weakening(message: "changes the tagPattern of environment '\(env.name)' from '\(p)'\(from("tagPattern"))", near: at("tagPattern")))
            }
            // which files and namespaces are the environment's: a file moved out of production escapes its rules
            let headPaths = Set(h.paths.map(\.pattern))
            for path in env.paths.map(\.pattern) where !headPaths.contains(path) {
                out.append(Weakening(message: "no longer counts '\(path)' as environment '\(env.name)'", near: at("paths")))
            }
            for ns in env.namespaces where !h.namespaces.contains(ns) {
                out.append(Weakening(message: "no longer counts namespace '\(ns)' as environment '\(env.name)'", near: at("namespaces")))
            }
        }
        return out
    }

    /// The rule whose findings these are.
    public static let ruleID = "config-weakened"

    /// The findings of `config-weakened` for a head config file (`headBytes` nil when the change deletes it).
    public static func findings(base: Config, head: Config, path: String, headBytes: [UInt8]?) -> [Finding] {
        let origin = SourcePosition(offset: 0, line: 1, column: 1)
        var findings = weakenings(base: base, head: head).map { w in
            let span = w.near.lazy.compactMap { head.locations[$0] }.first ?? SourceSpan(start: origin, end: origin)
            let verb = headBytes == nil ? "deleting \(path)" : "this change to \(path)"
            return Finding(rule: ruleID, severity: .error,
                           message: "\(verb) \(w.message); the check ran with the base side's config, and later runs would not",
                           file: path, span: span, subject: w.message)
        }
        findings.sort { $0.span.start.offset < $1.span.start.offset }
        Linter.assignFingerprints(&findings, sources: headBytes.map { [path: $0] } ?? [:])
        return findings
    }
}
