import TagwardenBasics
import TagwardenYAML

/// What source-controller leaves out of a GitRepository's artifact, so that no Flux Kustomization of that source ever
/// sees it: its default exclusions (VCS files, images and archives, CI configuration), then the repository's root
/// `.sourceignore`, then the GitRepository's `spec.ignore`, in gitignore's syntax as go-git reads it (the last pattern
/// that matches a path decides; `!` takes a path back in). `.sourceignore` files below the root are read only where a
/// finding needs them (`Model.generatedBuildRefusals`): their patterns hold under their own directory (a `domain`).
public struct SourceIgnore: Sendable {
    struct Pattern: Sendable {
        var parts: [Component]
        var isGlob: Bool
        var dirOnly: Bool
        var inclusion: Bool
        /// Where it is written (`.sourceignore:4 '/*'`), for the reason a file is not deployed.
        var origin: String
        /// The directory of the `.sourceignore` it is written in, as components: it matches only paths under it, as go-git
        /// reads a nested ignore file's patterns.
        var domain: [[UInt8]] = []
    }

    /// One component of a pattern, as UTF-8, with how it matches: most are a name or `*.ext`, compared without a glob.
    struct Component: Sendable {
        enum Kind: Sendable { case empty, anyDirectories, literal, suffix, glob }
        var bytes: [UInt8]
        var kind: Kind

        init(_ text: Substring) {
            bytes = Array(text.utf8)
            func isMeta(_ b: UInt8) -> Bool { b == UInt8(ascii: "*") || b == UInt8(ascii: "?") || b == UInt8(ascii: "[") || b == UInt8(ascii: "\\") }
            if bytes.isEmpty { kind = .empty }
            else if text == "**" { kind = .anyDirectories }
            else if !bytes.contains(where: isMeta) { kind = .literal }
            else if bytes.first == UInt8(ascii: "*"), !bytes.dropFirst().contains(where: isMeta) {
                kind = .suffix
                bytes.removeFirst()
            } else { kind = .glob }
        }

        /// Go's `filepath.Match` of this component against one path component.
        func matches(_ name: ArraySlice<UInt8>) -> Bool {
            switch kind {
            case .empty, .anyDirectories: return false
            case .literal: return SourceText.sameBytes(name, bytes)
            case .suffix: return SourceText.hasByteSuffix(name, bytes)
            case .glob: return Glob.segmentMatches(bytes[...], name)
            }
        }
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
    /// `domain`: the directory of a nested `.sourceignore`, under which alone its patterns hold ("" for the root).
    public mutating func add(text: String, origin: String, domain: String = "") {
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var l = String(line)
            if l.hasSuffix("\r") { l.removeLast() }
            if l.isEmpty || l.hasPrefix("#") { continue }
            add(l, origin: "\(origin):\(n + 1)")
            if !domain.isEmpty, !patterns.isEmpty, patterns[patterns.count - 1].origin.hasPrefix("\(origin):\(n + 1) ") {
                patterns[patterns.count - 1].domain = domain.split(separator: "/").map { Array($0.utf8) }
            }
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
        patterns.append(Pattern(parts: p.split(separator: "/", omittingEmptySubsequences: false).map(Component.init), isGlob: p.contains("/"),
                                dirOnly: dirOnly, inclusion: inclusion, origin: "\(origin) '\(written)'"))
    }

    /// The pattern that leaves the file at `path` (relative to the repository's root) out of the artifact, or nil when
    /// the artifact holds it.
    public func excluding(_ path: String) -> String? {
        var matcher = Matcher(self)
        return matcher.excluding(path)
    }

    /// `excluding` for many files: a name pattern (most are: `.github/`, `*.png`, `**/.sops.yaml`) is looked up by the
    /// name (or the extension) of each component, a directory's components once; only the globs see each whole path.
    public struct Matcher: Sendable {
        let ignore: SourceIgnore
        /// The last name pattern of each literal name and of each `*suffix`: any, and the last that is not for directories
        /// only (which a file's own name does not match).
        var literals: [String: (any: Int, files: Int)] = [:]
        var suffixes: [(bytes: [UInt8], last: (any: Int, files: Int))] = []
        /// The lengths and first bytes of the literals, a bit per length (below 64) for each first byte: most names are no
        /// literal's, which one load says. Longer literals are looked up whatever their shape.
        var literalShapes = [UInt64](repeating: 0, count: 256)
        var longLiterals = false
        /// The last bytes of the suffixes: a name that ends in none of them is no suffix's.
        var suffixEnds = [Bool](repeating: false, count: 256)
        /// Name patterns with another glob (`web-?`), and patterns of whole paths.
        var otherNames: [Int] = [], globs: [Int] = []
        /// The directory of the last path asked about, and the last name pattern that matches one of its components (-1:
        /// none): files come in path order, a directory's together.
        var directory: [UInt8] = [], directoryBest = -1

        public init(_ ignore: SourceIgnore) {
            self.ignore = ignore
            func keep(_ table: inout [String: (any: Int, files: Int)], _ key: String, _ i: Int, dirOnly: Bool) {
                var v = table[key] ?? (-1, -1)
                v.any = i
                if !dirOnly { v.files = i }
                table[key] = v
            }
            for (i, p) in ignore.patterns.enumerated() {
                guard p.matchesOneComponent, p.domain.isEmpty else { globs.append(i); continue }
                let c = p.component
                switch c.kind {
                case .literal:
                    keep(&literals, String(decoding: c.bytes, as: UTF8.self), i, dirOnly: p.dirOnly)
                    if c.bytes.count < 64 { literalShapes[Int(c.bytes[0])] |= 1 << UInt64(c.bytes.count) } else { longLiterals = true }
                case .suffix where !c.bytes.isEmpty:
                    suffixEnds[Int(c.bytes[c.bytes.count - 1])] = true
                    if let k = suffixes.firstIndex(where: { $0.bytes == c.bytes }) {
                        suffixes[k].last.any = i
                        if !p.dirOnly { suffixes[k].last.files = i }
                    } else {
                        suffixes.append((c.bytes, (i, p.dirOnly ? -1 : i)))
                    }
                default: otherNames.append(i)
                }
            }
        }

        /// The last name pattern that matches the component `name` (for a file's own name, not those for directories
        /// only), or -1.
        func lastName<Name: BidirectionalCollection<UInt8>>(_ name: Name, file: Bool) -> Int {
            func pick(_ v: (any: Int, files: Int)) -> Int { file ? v.files : v.any }
            var best = -1
            // most names are no literal's and no suffix's: their length and first byte, and their last byte, say so
            // without a lookup
            if let first = name.first, name.count < 64 ? literalShapes[Int(first)] & (1 << UInt64(name.count)) != 0 : longLiterals,
               let v = literals[String(decoding: name, as: UTF8.self)] { best = pick(v) }
            if let last = name.last, suffixEnds[Int(last)] {
                for s in suffixes where SourceText.hasByteSuffix(name, s.bytes) { best = max(best, pick(s.last)) }
            }
            if !otherNames.isEmpty {
                let bytes = Array(name)[...]
                if let i = otherNames.last(where: { $0 > best && !(file && ignore.patterns[$0].dirOnly) && ignore.patterns[$0].component.matches(bytes) }) {
                    best = i
                }
            }
            return best
        }

        public mutating func excluding(_ path: String) -> String? {
            var path = path
            return path.withUTF8 { excluding(bytes: $0) }
        }

        mutating func excluding(bytes: UnsafeBufferPointer<UInt8>) -> String? {
            let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
            let dir = bytes[..<(slash ?? 0)]
            if !SourceText.sameBytes(dir, directory) {
                // (the last directory's bytes kept in place, and its components read without an array of them)
                directory.removeAll(keepingCapacity: true)
                directory.append(contentsOf: dir)
                directoryBest = -1
                var start = dir.startIndex
                while start < dir.endIndex {
                    let end = dir[start...].firstIndex(of: UInt8(ascii: "/")) ?? dir.endIndex
                    if end > start { directoryBest = max(directoryBest, lastName(dir[start..<end], file: false)) }
                    start = end + 1
                }
            }
            var best = max(directoryBest, lastName(bytes[(slash.map { $0 + 1 } ?? 0)...], file: true))
            if let lastGlob = globs.last, lastGlob > best {
                let components = Array(bytes).split(separator: UInt8(ascii: "/"))
                if let i = globs.last(where: { $0 > best && ignore.patterns[$0].matches(components) }) { best = i }
            }
            guard best >= 0, !ignore.patterns[best].inclusion else { return nil }
            return ignore.patterns[best].origin
        }
    }

    /// These patterns, then `other`'s (of higher priority).
    public func then(_ other: SourceIgnore) -> SourceIgnore {
        var s = self
        s.patterns += other.patterns
        return s
    }
}

extension SourceIgnore.Pattern {
    /// A name (`docs/`, `*.md`) or `**/` and a name: it matches a path where it matches one of its components.
    var matchesOneComponent: Bool {
        !isGlob || (parts.count == 2 && parts[0].kind == .anyDirectories && parts[1].kind != .empty && parts[1].kind != .anyDirectories)
    }

    /// The component of a pattern that `matchesOneComponent`.
    var component: SourceIgnore.Component { parts[parts.count - 1] }

    /// go-git's `Match` of a file (not a directory): a name pattern matches any component; a glob matches the path's
    /// first components, one by one (`**` any number of them), and then everything under them.
    func matches(_ path: [ArraySlice<UInt8>]) -> Bool {
        guard !domain.isEmpty else { return isGlob ? globMatch(path) : simpleNameMatch(path) }
        guard path.count > domain.count, zip(domain, path).allSatisfy({ SourceText.sameBytes($1, $0) }) else { return false }
        let below = Array(path.dropFirst(domain.count))
        return isGlob ? globMatch(below) : simpleNameMatch(below)
    }

    private func simpleNameMatch(_ path: [ArraySlice<UInt8>]) -> Bool {
        for (i, name) in path.enumerated() where parts[0].matches(name) {
            return !(dirOnly && i == path.count - 1)
        }
        return false
    }

    private func globMatch(_ whole: [ArraySlice<UInt8>]) -> Bool {
        var path = whole[...]
        var matched = false
        var canTraverse = false
        for (i, part) in parts.enumerated() {
            if part.kind == .empty { canTraverse = false; continue }
            if part.kind == .anyDirectories {
                if i == parts.count - 1 { break }
                canTraverse = true
                continue
            }
            if part.bytes.count >= 2, zip(part.bytes, part.bytes.dropFirst()).contains(where: { $0 == 42 && $1 == 42 }) { return false }
            if path.isEmpty { return false }
            if canTraverse {
                canTraverse = false
                while let e = path.first {
                    path = path.dropFirst()
                    if part.matches(e) { matched = true; break }
                    if path.isEmpty { matched = false }
                }
            } else {
                guard part.matches(path.first!) else { return false }
                matched = true
                path = path.dropFirst()
            }
        }
        if matched, dirOnly, path.isEmpty { return false }
        return matched
    }
}
