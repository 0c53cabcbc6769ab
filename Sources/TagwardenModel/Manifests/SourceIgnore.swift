import TagwardenBasics

/// What source-controller leaves out of a GitRepository's artifact, so that no Flux Kustomization of that source ever
/// sees it: its default exclusions (VCS files, images and archives, CI configuration), then the repository's root
/// `.sourceignore`, then the GitRepository's `spec.ignore`, in gitignore's syntax as go-git reads it (the last pattern
/// that matches a path decides; `!` takes a path back in). `.sourceignore` files below the root are not read.
public struct SourceIgnore: Sendable {
    struct Pattern: Sendable {
        var parts: [String]
        var isGlob: Bool
        var dirOnly: Bool
        var inclusion: Bool
        /// Where it is written (`.sourceignore:4 '/*'`), for the reason a file is not deployed.
        var origin: String
    }
    var patterns: [Pattern] = []

    /// source-controller's defaults (fluxcd/pkg/sourceignore: VCS, extensions, CI, extras), the lowest in priority.
    public static let defaults: SourceIgnore = {
        var s = SourceIgnore()
        let lists = [".git/,.gitignore,.gitmodules,.gitattributes", "*.jpg,*.jpeg,*.gif,*.png,*.wmv,*.flv,*.tar.gz,*.zip",
                     ".github/,.circleci/,.travis.yml,.gitlab-ci.yml,appveyor.yml,.drone.yml,cloudbuild.yaml,codeship-services.yml,codeship-steps.yml",
                     "**/.goreleaser.yml,**/.sops.yaml,**/.flux.yaml"]
        for p in lists.joined(separator: ",").split(separator: ",") { s.add(String(p), origin: "source-controller's default exclusions") }
        return s
    }()

    /// Adds the patterns of a gitignore text (`#` comments and blank lines skipped), each named `origin:line`.
    public mutating func add(text: String, origin: String) {
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var l = String(line)
            if l.hasSuffix("\r") { l.removeLast() }
            if l.isEmpty || l.hasPrefix("#") { continue }
            add(l, origin: "\(origin):\(n + 1)")
        }
    }

    /// go-git's `ParsePattern`: `!` includes, trailing blanks dropped, a trailing `/` matches directories only, and a
    /// pattern with a `/` is a glob of path components (a leading `/` anchors it at the root).
    mutating func add(_ written: String, origin: String) {
        var p = Substring(written)
        var inclusion = false
        if p.hasPrefix("!") { inclusion = true; p = p.dropFirst() }
        if !p.hasSuffix("\\ ") { while p.last == " " { p = p.dropLast() } }
        var dirOnly = false
        if p.hasSuffix("/") { dirOnly = true; p = p.dropLast() }
        guard !p.isEmpty || dirOnly else { return }
        patterns.append(Pattern(parts: p.split(separator: "/", omittingEmptySubsequences: false).map(String.init), isGlob: p.contains("/"),
                                dirOnly: dirOnly, inclusion: inclusion, origin: "\(origin) '\(written)'"))
    }

    /// The pattern that leaves the file at `path` (relative to the repository's root) out of the artifact, or nil when
    /// the artifact holds it.
    public func excluding(_ path: String) -> String? {
        let components = path.split(separator: "/").map(String.init)
        for p in patterns.reversed() where p.matches(components) {
            return p.inclusion ? nil : p.origin
        }
        return nil
    }

    /// These patterns, then `other`'s (of higher priority).
    public func then(_ other: SourceIgnore) -> SourceIgnore {
        var s = self
        s.patterns += other.patterns
        return s
    }
}

extension SourceIgnore.Pattern {
    /// go-git's `Match` of a file (not a directory): a name pattern matches any component; a glob matches the path's
    /// first components, one by one (`**` any number of them), and then everything under them.
    func matches(_ path: [String]) -> Bool {
        isGlob ? globMatch(path) : simpleNameMatch(path)
    }

    private func simpleNameMatch(_ path: [String]) -> Bool {
        for (i, name) in path.enumerated() where SourceIgnore.fnmatch(parts[0], name) {
            return !(dirOnly && i == path.count - 1)
        }
        return false
    }

    private func globMatch(_ whole: [String]) -> Bool {
        var path = whole[...]
        var matched = false
        var canTraverse = false
        for (i, part) in parts.enumerated() {
            if part.isEmpty { canTraverse = false; continue }
            if part == "**" {
                if i == parts.count - 1 { break }
                canTraverse = true
                continue
            }
            if part.contains("**") { return false }
            if path.isEmpty { return false }
            if canTraverse {
                canTraverse = false
                while let e = path.first {
                    path = path.dropFirst()
                    if SourceIgnore.fnmatch(part, e) { matched = true; break }
                    if path.isEmpty { matched = false }
                }
            } else {
                guard SourceIgnore.fnmatch(part, path.first!) else { return false }
                matched = true
                path = path.dropFirst()
            }
        }
        if matched, dirOnly, path.isEmpty { return false }
        return matched
    }
}

extension SourceIgnore {
    /// Go's `filepath.Match` of one component: `*` any run of characters, `?` one, `[...]` a class (`^` negates, `a-z`
    /// a range), `\` escapes; a malformed pattern matches nothing.
    static func fnmatch(_ pattern: String, _ name: String) -> Bool {
        let p = Array(pattern.unicodeScalars), s = Array(name.unicodeScalars)
        func match(_ pi: Int, _ si: Int) -> Bool {
            var pi = pi, si = si
            while pi < p.count {
                switch p[pi] {
                case "*":
                    while pi < p.count, p[pi] == "*" { pi += 1 }
                    if pi == p.count { return true }
                    for k in si...s.count where match(pi, k) { return true }
                    return false
                case "?":
                    guard si < s.count else { return false }
                    pi += 1; si += 1
                case "[":
                    guard si < s.count, let (ok, next) = matchClass(p, pi, s[si]), ok else { return false }
                    pi = next; si += 1
                default:
                    var c = p[pi]
                    if c == "\\" { pi += 1; guard pi < p.count else { return false }; c = p[pi] }
                    guard si < s.count, s[si] == c else { return false }
                    pi += 1; si += 1
                }
            }
            return si == s.count
        }
        return match(0, 0)
    }

    /// A class at `p[start]` (`[`) against `c`: whether it matches, and the index after `]`; nil when malformed.
    private static func matchClass(_ p: [Unicode.Scalar], _ start: Int, _ c: Unicode.Scalar) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < p.count, p[i] == "^" { negate = true; i += 1 }
        var found = false, first = true
        while i < p.count {
            if p[i] == "]", !first { return (found != negate, i + 1) }
            first = false
            var lo = p[i]
            if lo == "\\" { i += 1; guard i < p.count else { return nil }; lo = p[i] }
            var hi = lo
            if i + 2 < p.count, p[i + 1] == "-", p[i + 2] != "]" {
                i += 2
                hi = p[i]
                if hi == "\\" { i += 1; guard i < p.count else { return nil }; hi = p[i] }
            }
            if lo.value <= c.value && c.value <= hi.value { found = true }
            i += 1
        }
        return nil
    }
}
