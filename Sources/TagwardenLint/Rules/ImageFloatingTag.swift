import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageFloatingTag = Rule("image-floating-tag") { c in
        let m = c.model
        var watching: [String: [PolicyID]]?   // image → the policies of the ImageRepositories that watch it, on first need
        func policies(watching image: String) -> [PolicyID] {
            if watching == nil {
                watching = [:]
                for (p, policy) in m.flux.policies.withIDs {
                    if let r = policy.repository, let n = m.flux.repositories[r].normalizedImage {
                        watching![n, default: []].append(p)
                    }
                }
            }
            return watching![image] ?? []
        }
        return m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.digest == nil, let tag = img.tag else { return nil }
            // (`latest` is image-latest-tag's: `isLatest`, with the tag lowered once)
            let lower = tag.value.lowercased()
            guard !isLatestTag(lowered: lower) else { return nil }
            if isFloatingWord(lower, m.floatingTags) {
                return c.finding("\(m.described(i)) uses the floating tag '\(tag.value)', which points at a new build after each push",
                                 image: i, span: tag.span)
            }
            if let numbers = partialVersion(tag.value),
               !releasedSo(m, i, numbers: numbers, tag: tag.value, watching: img.normalizedName.map(policies(watching:)) ?? []) {
                // `7` and `13-latest` follow every minor release of their major version; `1.25` every patch release
                let moves = numbers == 1 ? "every new minor and patch release" : "every new patch release"
                var f = c.finding("\(m.described(i)) uses the partial version '\(tag.value)', which moves to \(moves): pin the full version",
                                  image: i, span: tag.span)
                // some projects publish releases of one or two numbers (`v1.0`, a build counter `34`): a heuristic
                f.assume("assuming '\(tag.value)' names a series, not a release of its own; if the image's releases are numbered so, "
                         + "list it under shortVersionReleases in \(Config.fileName)")
                return f
            }
            return nil
        }
    }

    /// A floating tag of the list, or `latest`/a listed tag among words of letters: with a variant such as
    /// `-alpine` (`stable-slim`, `latest-alpine`), the variant of a moving tag moving with it, or after such words
    /// (`qa-latest`, `preprod-stable`, `production_latest`): a tag with no version names no build. A listed variant may carry
    /// the version of the variant itself (`alpine3.20`, `ltsc2022`, `bookworm-slim`): still no version of the image. A word
    /// with another digit (`main-3f9c2ab`, `develop-v1.2.3`), a channel's word with a number among them (`release2`, the
    /// second of k8s-fleetman's numbered releases), names a build.
    static func isFloatingWord(_ lower: String, _ list: Set<String>) -> Bool {
        if list.contains(lower) { return true }
        // a word that starts with a digit names a build or a version (most tags stop here, at no cost)
        var wordStart = true
        for c in lower.utf8 {
            if wordStart, c >= 48 && c <= 57 { return false }
            wordStart = c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
        // words are parted by '-' or '_' (`production_latest`)
        let words = lower.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
        var moving = false
        for w in words {
            guard let digit = w.utf8.firstIndex(where: { !($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) }) else {
                // a word of letters
                if w.isEmpty { return false }
                if w == "latest" || list.contains(String(w)) { moving = true }
                continue
            }
            // a listed variant with its own version (`alpine3.20`): digits and dots after the word
            let stem = String(w[..<digit])
            guard !stem.isEmpty, list.contains(stem), Model.variantTags.contains(stem), w.utf8[digit...].first.map({ $0 >= 48 && $0 <= 57 }) == true,
                  w.utf8[digit...].allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }) else { return false }
            moving = true
        }
        return moving
    }

    /// Whether the repository or the config says that this short version is a release: an image known to number
    /// its releases with two numbers, a policy of the field's or of the image's that ranks such tags (`watching`: those
    /// of the ImageRepositories that watch it), or an image `shortVersionReleases` names.
    static func releasedSo(_ m: Model, _ i: ImageID, numbers: Int, tag: String, watching: [PolicyID] = []) -> Bool {
        let img = m.images[i]
        if let name = img.name, let normalized = img.normalizedName,
           m.shortVersionReleases.matchImage(name, normalized: normalized) { return true }
        if numbers == 2, img.normalizedName.map(Rule.releasesTwoNumbers) == true { return true }
        if numbers == 1, img.normalizedName.map(Rule.releasesOneNumber) == true { return true }
        // one number is a release only as a build number (`687`): a major version (`8-alpine`) moves whatever a policy ranks
        if numbers == 1, tag.drop(while: { $0 == "v" || $0 == "V" }).prefix(while: \.isASCIIDigit).count < 3 { return false }
        return ranksShortVersions(m, img.markers.compactMap { m.markers[$0].policy } + watching, tag: tag)
    }

    /// Images whose releases are numbered with two numbers, so that `16.3` is a release and not a series: PostgreSQL
    /// (from 10; its own image, and CloudNativePG's, which it tags with PostgreSQL's version, also through a mirror
    /// that keeps their paths: `ghcr.io/mesosphere/dkp-container-images/cloudnative-pg/postgresql`, `…/library/postgres`,
    /// or the official image's name, `postgres`; and home-operations' and onedr0p's `postgres-init`, built on the
    /// official image and tagged with its version), Kubernetes' pause container, karma (`v0.121`) and pgAdmin 4 (`9.1`:
    /// its releases have no third number).
    static func releasesTwoNumbers(_ normalizedName: String) -> Bool {
        let base = Path.basename(normalizedName)
        return base == "postgres" || base == "postgres-init" || base == "pause" || normalizedName.hasSuffix("/cloudnative-pg/postgresql")
            || normalizedName.hasSuffix("/prymitive/karma") || normalizedName.hasSuffix("/dpage/pgadmin4")
    }

    /// Images whose releases are numbered with one number, so that `40` is a release and not a series: mendhak's
    /// http-https-echo (its GitHub releases are `Version 40`, tagged `40`), the echo server of many home-lab repositories.
    static func releasesOneNumber(_ normalizedName: String) -> Bool {
        normalizedName.hasSuffix("/mendhak/http-https-echo")
    }

    /// Whether one of `policies` has a filter that takes this tag of one or two numbers but not the same with another
    /// (`4.22`, not `4.22.0` or `4.22.1`; `687`, not `687.0`): the repository says that the image's releases are
    /// numbered so (SeaweedFS's `4.22`, cluster-ops' build numbers under `^[0-9]*$`), and Flux never moves the field to a
    /// longer version.
    static func ranksShortVersions(_ m: Model, _ policies: [PolicyID], tag: String) -> Bool {
        let numbers = tag.firstIndex(of: "-") ?? tag.endIndex
        let longer = [".0", ".1"].map { String(tag[..<numbers]) + $0 + String(tag[numbers...]) }
        return policies.contains { p in
            guard let re = m.flux.policies[p].regex else { return false }
            return re.matches(tag) && !longer.contains(where: re.matches)
        }
    }

    /// `alpine`, `slim-bookworm`: letters, with dashes between words (as bytes).
    static func isVariant(_ s: Substring.UTF8View) -> Bool {
        !s.isEmpty && s.first != UInt8(ascii: "-") && s.last != UInt8(ascii: "-")
            && s.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || $0 == UInt8(ascii: "-") }   // (| 0x20: either case)
    }

    /// `1`, `1.25`, `v2`, optionally with a variant such as `-alpine` (`1.25-alpine`): how many numbers it has
    /// (1 or 2), or nil for any other tag. (Read as bytes: a tag with a byte other than ASCII is none, as it is none
    /// read by characters.)
    static func partialVersion(_ tag: String) -> Int? {
        var s = Substring(tag).utf8
        if let dash = s.firstIndex(of: UInt8(ascii: "-")) {
            guard isVariant(s[s.index(after: dash)...]) else { return nil }
            s = s[..<dash]
        }
        if s.first == UInt8(ascii: "v") || s.first == UInt8(ascii: "V") { s = s.dropFirst() }
        // one or two numbers of digits, parted by a dot
        let dot = s.firstIndex(of: UInt8(ascii: "."))
        let major = s[..<(dot ?? s.endIndex)], minor = dot.map { s[s.index(after: $0)...] }
        func isNumber(_ n: Substring.UTF8View) -> Bool { !n.isEmpty && n.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        guard isNumber(major), minor.map(isNumber) ?? true else { return nil }
        // a number of six digits or more is a build's (a date, a timestamp `20250215015952`, a build number), not a major
        // version; a minor number of three digits or more with a leading zero is a version numbered otherwise (Perl's
        // `2.098002`), no series (Ubuntu's `26.04` is one: it moves with each point release)
        if major.count >= 6 { return nil }
        if let minor, minor.count > 2, minor.first == UInt8(ascii: "0") { return nil }
        return minor == nil ? 1 : 2
    }
}
