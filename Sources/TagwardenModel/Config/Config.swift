import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy

public enum Severity: String, Sendable, Comparable, CaseIterable {
    case note, warning, error
    var rank: Int { self == .error ? 2 : self == .warning ? 1 : 0 }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

public struct EnvironmentConfig: Sendable {
    public var name: String
    public var aliases: [String]?
    public var paths: [String]?
    public var namespaces: [String]?
    public var tagPrefix: String?
    public var tagPattern: String?
    public var requireDigest: Bool?
    public var requireReview: Bool?
    /// `file:line` of the entry, for `tagwarden env`.
    public var origin: String
    /// `file:line` of each setting's key (`aliases`, `paths`, …), for `tagwarden env`.
    public var keyOrigin: [String: String] = [:]

    /// Where `key` was set, else where the entry starts.
    public func origin(of key: String) -> String { keyOrigin[key] ?? origin }
}

/// An entry of `clusters:`: a cluster as the config declares it. It overrides what is detected: the files its `paths`
/// match are applied by it (with the Flux Kustomizations there and what they build), it runs `fluxVersion`, and its
/// builds substitute `substitute` where nothing in the repository gives a variable a value.
public struct ClusterConfig: Sendable {
    public var name: String
    /// Globs relative to the config's directory (`management/**`), as `environments` paths are.
    public var paths: [String] = []
    public var fluxVersion: FluxVersion?
    public var substitute: [String: String] = [:]
    /// `file:line` of the entry.
    public var origin: String
}

public struct RuleSetting: Sendable {
    public var severity: Severity?
    public var enabled: Bool?

    public init(severity: Severity? = nil, enabled: Bool? = nil) {
        self.severity = severity
        self.enabled = enabled
    }
}

/// `.tagwarden.yaml`, validated.
public struct Config: Sendable {
    public var path: String?
    public var profile: String?
    public var environments: [EnvironmentConfig] = []
    public var rules: [String: RuleSetting] = [:]
    public var promotedImages: [String] = []
    public var floatingTags: [String]?
    /// `shortVersionReleases`: globs of images whose tags of one or two numbers (`1.0`, `34`) are releases of their
    /// own, not series that move: what settles `image-floating-tag`'s assumption.
    public var shortVersionReleases: [String] = []
    public var ignore: [String] = []
    public var maxFileSize: Int?
    /// What one run reads in all (`maxInputSize`): a file past it is an error-level `file-skipped`, not parsed.
    public var maxInputSize: Int?
    public static let defaultMaxInputSize = 512 << 20
    /// The Flux the repository runs: overrides what is detected from its Flux components, for every rule.
    public var fluxVersion: FluxVersion?
    /// `clusters:`: the clusters the config declares, which override what is detected.
    public var clusters: [ClusterConfig] = []
    /// The directory of the config file, relative to the root: its path globs are relative to it.
    public var baseDir = ""
    /// Where each setting is written: a top-level key (`ignore`), `rules/<id>`, `ignore/<pattern>`,
    /// `environments/<name>` and `environments/<name>/<key>` (for `config-weakened`).
    public var locations: [String: SourceSpan] = [:]

    public init() {}

    /// `path` relative to the config's directory, or nil when it lies outside.
    public func relative(_ path: String) -> String? {
        if baseDir.isEmpty { return path }
        return path.hasPrefix(baseDir + "/") ? String(path.dropFirst(baseDir.count + 1)) : nil
    }

    public static let fileName = ".tagwarden.yaml"
    /// A config file anywhere in the tree: `fileName`, at the root or in a directory (by bytes: asked for every file).
    static func isConfigPath(_ path: String) -> Bool {
        path == fileName || path.hasBytesSuffix("/.tagwarden.yaml")
    }
    static let profiles = ["strict"]
    static let environmentKeys = ["name", "aliases", "paths", "namespaces", "tagPrefix", "tagPattern", "requireDigest", "requireReview"]
    static let clusterKeys = ["name", "paths", "fluxVersion", "substitute"]

    /// Parses and validates a config; every problem names the file, line and column.
    public static func parse(_ bytes: [UInt8], path: String, knownRules: Set<String>) throws -> Config {
        let file = YAMLFile(parsing: bytes)
        func fail(_ pos: SourcePosition, _ message: String) -> TagwardenError {
            TagwardenError("\(path):\(pos.line):\(pos.column): \(message)")
        }
        func fail(_ node: Int, _ message: String) -> TagwardenError { fail(file.nodes[node].span.start, message) }
        if let e = file.error { throw fail(e.position, "invalid YAML: \(e.message)") }
        var config = Config()
        config.path = path
        guard let doc = file.documents.first else { return config }
        if file.documents.count > 1 { throw fail(file.documents[1].span.start, "the config must be a single YAML document") }
        let root = doc.root
        if file.nodes[root].kind == .scalar, file.resolvedType(root) == .null { return config }
        guard file.nodes[root].kind == .mapping else { throw fail(root, "the config must be a mapping") }
        // a key given twice is a mistake that YAML readers settle differently (here the later would win): refuse it
        if let d = file.duplicateKeys.min(by: { $0.key < $1.key }) {
            throw fail(d.key, "duplicate key '\(file.value(d.key))' (first at line \(file.nodes[d.first].span.start.line))")
        }

        func string(_ n: Int, _ what: String) throws -> String {
            guard file.nodes[n].kind == .scalar, file.resolvedType(n) != .null else { throw fail(n, "\(what) must be a string") }
            return file.value(n)
        }
        func bool(_ n: Int, _ what: String) throws -> Bool {
            guard file.nodes[n].kind == .scalar, file.resolvedType(n) == .bool else { throw fail(n, "\(what) must be true or false") }
            return ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"].contains(file.value(n))
        }
        func strings(_ n: Int, _ what: String) throws -> [String] {
            guard file.nodes[n].kind == .sequence else { throw fail(n, "\(what) must be a list of strings") }
            return try file.childNodes(n).map { try string($0, "each entry of \(what)") }
        }
        func fluxVersion(_ n: Int) throws -> FluxVersion {
            let s = try string(n, "fluxVersion")
            guard let fv = FluxVersion.parse(s) else { throw fail(n, "fluxVersion must look like 2.7 or v2.7.1, not '\(s)'") }
            return fv
        }
        func keys(_ n: Int, allowed: [String], _ what: String) throws {
            for (k, _) in file.pairs(n) {
                let key = file.value(k)
                if !allowed.contains(key) {
                    let hint = what == "the config" && environmentKeys.contains(key)
                        ? " (it belongs in an entry of environments)"
                        : Suggest.nearest(key, in: allowed).map { " (did you mean '\($0)'?)" } ?? ""
                    throw fail(k, "unknown key '\(key)' in \(what)\(hint); allowed: \(allowed.joined(separator: ", "))")
                }
            }
        }

        try keys(root, allowed: ["profile", "environments", "rules", "promotedImages", "floatingTags", "shortVersionReleases", "ignore", "maxFileSize", "maxInputSize", "fluxVersion", "clusters"], "the config")
        for (k, v) in file.pairs(root) {
            config.locations[file.value(k)] = file.nodes[k].span
            switch file.value(k) {
            case "profile":
                let p = try string(v, "profile")
                guard profiles.contains(p) else { throw fail(v, "unknown profile '\(p)'; known profiles: \(profiles.joined(separator: ", "))") }
                config.profile = p
            case "environments":
                guard file.nodes[v].kind == .sequence else { throw fail(v, "environments must be a list") }
                var claimed: [String: (env: String, line: Int)] = [:]   // lower-cased names and aliases
                func claim(_ term: String, _ node: Int, by env: String) throws {
                    let line = file.nodes[node].span.start.line
                    if let other = claimed[term.lowercased()] {
                        if other.env == env { return }   // an alias repeating its own environment's name
                        throw fail(node, "'\(term)' would name both environment '\(other.env)' (line \(other.line)) and '\(env)': "
                                   + "names and aliases are compared case-insensitively")
                    }
                    claimed[term.lowercased()] = (env, line)
                }
                for e in file.childNodes(v) {
                    guard file.nodes[e].kind == .mapping else { throw fail(e, "each environment must be a mapping") }
                    try keys(e, allowed: environmentKeys, "an environment")
                    guard let nameNode = file.get(e, "name") else { throw fail(e, "an environment needs a name") }
                    var env = EnvironmentConfig(name: try string(nameNode, "name"), origin: "\(path):\(file.nodes[e].span.start.line)")
                    if env.name.isEmpty { throw fail(nameNode, "an environment name cannot be empty") }
                    if let other = claimed[env.name.lowercased()], other.env.lowercased() == env.name.lowercased() {
                        throw fail(nameNode, "environment '\(env.name)' is defined twice (also line \(other.line))")
                    }
                    try claim(env.name, nameNode, by: env.name)
                    config.locations["environments/\(env.name)"] = file.nodes[nameNode].span
                    for (ek, ev) in file.pairs(e) {
                        env.keyOrigin[file.value(ek)] = "\(path):\(file.nodes[ek].span.start.line)"
                        config.locations["environments/\(env.name)/\(file.value(ek))"] = file.nodes[ek].span
                        switch file.value(ek) {
                        case "aliases":
                            let aliases = try strings(ev, "aliases")
                            for (a, node) in zip(aliases, file.childNodes(ev)) { try claim(a, node, by: env.name) }
                            env.aliases = aliases
                        case "paths": env.paths = try strings(ev, "paths")
                        case "namespaces": env.namespaces = try strings(ev, "namespaces")
                        case "tagPrefix": env.tagPrefix = try string(ev, "tagPrefix")
                        case "tagPattern":
                            let p = try string(ev, "tagPattern")
                            do { _ = try GoRegex(p) } catch { throw fail(ev, "tagPattern is not a valid Go regular expression: \(error)") }
                            env.tagPattern = p
                        case "requireDigest": env.requireDigest = try bool(ev, "requireDigest")
                        case "requireReview": env.requireReview = try bool(ev, "requireReview")
                        default: break
                        }
                    }
                    config.environments.append(env)
                }
            case "rules":
                guard file.nodes[v].kind == .mapping else { throw fail(v, "rules must be a mapping of rule ids") }
                for (rk, rv) in file.pairs(v) {
                    let id = file.value(rk)
                    guard knownRules.contains(id) else {
                        let hint = Suggest.nearest(id, in: Array(knownRules)).map { " (did you mean '\($0)'?)" } ?? ""
                        throw fail(rk, "unknown rule '\(id)'\(hint)")
                    }
                    guard file.nodes[rv].kind == .mapping else { throw fail(rv, "rule settings must be a mapping like {severity: warning} or {enabled: false}") }
                    try keys(rv, allowed: ["severity", "enabled"], "rule settings")
                    var setting = RuleSetting()
                    for (sk, sv) in file.pairs(rv) {
                        if file.value(sk) == "severity" {
                            let s = try string(sv, "severity")
                            guard let sev = Severity(rawValue: s) else { throw fail(sv, "severity must be error, warning or note, not '\(s)'") }
                            setting.severity = sev
                        } else {
                            setting.enabled = try bool(sv, "enabled")
                        }
                    }
                    config.rules[id] = setting
                    config.locations["rules/\(id)"] = file.nodes[rk].span
                }
            case "promotedImages": config.promotedImages = try strings(v, "promotedImages")
            case "floatingTags": config.floatingTags = try strings(v, "floatingTags")
            case "shortVersionReleases": config.shortVersionReleases = try strings(v, "shortVersionReleases")
            case "ignore":
                config.ignore = try strings(v, "ignore")
                for item in file.childNodes(v) { config.locations["ignore/\(file.value(item))"] = file.nodes[item].span }
            case "fluxVersion":
                config.fluxVersion = try fluxVersion(v)
            case "clusters":
                guard file.nodes[v].kind == .sequence else { throw fail(v, "clusters must be a list") }
                var lines: [String: Int] = [:]
                for e in file.childNodes(v) {
                    guard file.nodes[e].kind == .mapping else { throw fail(e, "each cluster must be a mapping") }
                    try keys(e, allowed: clusterKeys, "a cluster")
                    guard let nameNode = file.get(e, "name") else { throw fail(e, "a cluster needs a name (a detected cluster's, to correct it, or a new one)") }
                    // a cluster is named by its directory, as detection names it (`.` and `./clusters/production` as written)
                    let written = try string(nameNode, "name")
                    var cluster = ClusterConfig(name: Model.normalizePath(written) ?? written, origin: "\(path):\(file.nodes[e].span.start.line)")
                    if let line = lines[cluster.name] { throw fail(nameNode, "cluster '\(written)' is declared twice (also line \(line))") }
                    lines[cluster.name] = file.nodes[nameNode].span.start.line
                    for (ck, cv) in file.pairs(e) {
                        switch file.value(ck) {
                        case "paths": cluster.paths = try strings(cv, "paths")
                        case "fluxVersion": cluster.fluxVersion = try fluxVersion(cv)
                        case "substitute":
                            guard file.nodes[cv].kind == .mapping else { throw fail(cv, "substitute must be a mapping of variable names to values") }
                            for (sk, sv) in file.pairs(cv) {
                                let name = file.value(sk)
                                // Flux's envsubst takes names of letters, digits and underscores that do not start with a digit
                                guard let first = name.utf8.first, !(48...57).contains(first),
                                      name.utf8.allSatisfy({ $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
                                else { throw fail(sk, "'\(name)' is not a variable name Flux substitutes (letters, digits and _, not starting with a digit)") }
                                cluster.substitute[name] = try string(sv, "the value of \(name)")
                            }
                        default: break
                        }
                    }
                    config.clusters.append(cluster)
                    config.locations["clusters/\(cluster.name)"] = file.nodes[nameNode].span
                }
            case "maxFileSize":
                let s = try string(v, "maxFileSize")
                guard let n = parseSize(s) else { throw fail(v, "maxFileSize must be a size like 10MiB, 512K or 1048576 (K, M, G count in 1024s)") }
                guard n <= largestFileSize else { throw fail(v, largestFileSizeMessage("maxFileSize")) }
                config.maxFileSize = n
            case "maxInputSize":
                let s = try string(v, "maxInputSize")
                guard let n = parseSize(s) else { throw fail(v, "maxInputSize must be a size like 512MiB or 2G (K, M, G count in 1024s)") }
                config.maxInputSize = n
            default: break
            }
        }
        return config
    }

    /// The largest `maxFileSize`: positions in a file are kept in 32 bits, and the parser takes no file of 1 GiB or more.
    public static let largestFileSize = 1 << 30

    public static func largestFileSizeMessage(_ name: String) -> String {
        "\(name) can be at most 1GiB: Tagwarden reads no larger file"
    }

    /// A positive byte count: digits, optionally followed by K, M or G (1024-based, as git reads sizes), with or
    /// without `iB`/`B`, in any case (`10MiB`, `10m`, `512KB`, `1048576`, `1048576B`). Nil for anything else,
    /// and for sizes that do not fit in 64 bits.
    public static func parseSize(_ s: String) -> Int? {
        var t = Substring(s.replacingOccurrences(of: " ", with: "").lowercased())
        let binary = t.hasSuffix("ib")
        if binary { t = t.dropLast(2) } else if t.hasSuffix("b") { t = t.dropLast() }
        let mult = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30][t.last ?? " "] ?? 1
        if mult > 1 { t = t.dropLast() } else if binary { return nil }  // "10iB"
        guard !t.isEmpty, t.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(t), n > 0 else { return nil }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: mult)
        return overflow ? nil : bytes
    }
}

extension String {
    package func replacingOccurrences(of a: String, with b: String) -> String {
        guard !a.isEmpty else { return self }
        if let replaced = replacingByBytes(a, b) { return replaced }
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: a) {
            out += rest[..<r.lowerBound]
            out += b
            rest = rest[r.upperBound...]
        }
        out += rest
        return out
    }

    /// The same replacement made on the bytes, where the two searches agree: both strings ASCII, and `a` without CR or
    /// LF (the search above finds `a` only where a Character starts, and CR LF is one Character); nil otherwise. (The
    /// Character search cost 17,000 instructions a call on a policy's `namespace:name`, 12,000 calls in an update of the
    /// bench fleet.)
    private func replacingByBytes(_ a: String, _ b: String) -> String? {
        var s = self, p = a
        return s.withUTF8 { hay in
            p.withUTF8 { needle -> String? in
                guard !needle.contains(where: { $0 >= 0x80 || $0 == 10 || $0 == 13 }), !hay.contains(where: { $0 >= 0x80 }) else { return nil }
                let h = UnsafeRawBufferPointer(hay), n = UnsafeRawBufferPointer(needle)
                guard var at = SourceText.find(h, n, from: 0) else { return self }
                var out: [UInt8] = []
                out.reserveCapacity(hay.count)
                var from = 0
                while true {
                    out.append(contentsOf: hay[from..<at])
                    out.append(contentsOf: b.utf8)
                    from = at + needle.count
                    guard let next = SourceText.find(h, n, from: from) else { break }
                    at = next
                }
                out.append(contentsOf: hay[from...])
                return String(decoding: out, as: UTF8.self)
            }
        }
    }
}

/// "Did you mean" suggestions by edit distance.
public enum Suggest {
    /// The closest candidate within a third of the word's length (at least 2 edits), ties broken by name.
    public static func nearest(_ word: String, in candidates: [String]) -> String? {
        Suggester(candidates).nearest(word)
    }
}

/// What the suggestions of one run may take, in candidates looked at: a pull request with 20,000 misspelt
/// markers and 5,000 policies would otherwise spend minutes on "did you mean". Once it is spent, no more
/// suggestions are made, and `refused` says so.
public final class SuggestionBudget {
    public static let candidates = 2_000_000
    private(set) var remaining: Int
    public private(set) var refused = false

    public init(_ candidates: Int = SuggestionBudget.candidates) { remaining = candidates }

    /// Takes `n` from the budget; false (and nothing taken) when it does not hold them.
    public func take(_ n: Int) -> Bool {
        guard n <= remaining else {
            refused = true
            return false
        }
        remaining -= n
        return true
    }
}

/// `Suggest.nearest` for many words against one list of names (every unknown policy of a repository against
/// its thousands of policies): candidates far from the word by length or by their bytes' counts are passed
/// over without a distance, and the distance stops once it exceeds the best found so far.
public struct Suggester {
    let names: [String]
    let bytes: [[UInt8]]
    /// Which byte values (modulo 64) each candidate holds: an edit changes at most two of them, so a candidate
    /// whose set differs from the word's in more than twice the edits allowed is passed over at once.
    let masks: [UInt64]
    let index = PairIndex()
    let budget: SuggestionBudget

    public init(_ candidates: [String], budget: SuggestionBudget = SuggestionBudget()) {
        names = candidates
        bytes = candidates.map { Array($0.utf8) }
        masks = bytes.map(Suggester.mask)
        self.budget = budget
    }

    /// The candidates holding each pair of adjacent bytes (distinct pairs per candidate), in candidate order: built
    /// at the ninth word looked up, since a few words cost less measured against all than the index costs to build.
    final class PairIndex {
        var lookups = 0
        var postings: [UInt16: [Int32]]?

        func postings(for bytes: [[UInt8]]) -> [UInt16: [Int32]]? {
            lookups += 1
            if postings == nil, lookups > 8 {
                var built: [UInt16: [Int32]] = [:]
                for (c, b) in bytes.enumerated() {
                    for pair in Suggester.pairs(b) { built[pair, default: []].append(Int32(c)) }
                }
                postings = built
            }
            return postings
        }
    }

    static func mask(_ b: [UInt8]) -> UInt64 { b.reduce(0) { $0 | 1 << UInt64($1 & 63) } }

    /// The distinct pairs of adjacent bytes of `b`.
    static func pairs(_ b: [UInt8]) -> Set<UInt16> {
        var out = Set<UInt16>()
        if b.count >= 2 { for i in 1..<b.count { out.insert(UInt16(b[i - 1]) << 8 | UInt16(b[i])) } }
        return out
    }

    public func nearest(_ word: String) -> String? {
        nearest(word, within: max(2, word.count / 3))
    }

    /// The closest candidate at most `within` edits away, ties broken by name.
    ///
    /// An edit destroys at most two of the word's distinct pairs of adjacent bytes, so a candidate within `within`
    /// edits shares at least `pairs - 2 × within` of them, and so at least one of any `2 × within + 1` of them: the
    /// candidates holding the word's rarest pairs are the only ones measured (prefix filtering; pairs rather than
    /// longer runs, so that the rarest fit in a policy's name and leave out the namespace that every reference
    /// shares). Many words against many candidates then cost what those few postings hold, not every pair of
    /// them; a word too short for the bound, and the first eight words, are measured against all.
    public func nearest(_ word: String, within: Int) -> String? {
        let w = Array(word.utf8)
        let wordPairs = Suggester.pairs(w)
        var candidates: [Int]?
        if wordPairs.count > 2 * within, let postings = index.postings(for: bytes) {
            let rarest = wordPairs.map { ($0, postings[$0]?.count ?? 0) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(2 * within + 1)
            var union = Set<Int>()
            for (pair, _) in rarest { for c in postings[pair] ?? [] { union.insert(Int(c)) } }
            guard budget.take(union.count) else { return nil }
            candidates = union.sorted()
        } else {
            guard budget.take(bytes.count) else { return nil }
        }
        let wordMask = Suggester.mask(w)
        var bound = within
        var best: Int?
        var counts = [Int](repeating: 0, count: 256)
        var prev = [Int](), cur = [Int]()
        for c in candidates ?? Array(bytes.indices) {
            let y = bytes[c]
            if abs(w.count - y.count) > bound || (wordMask ^ masks[c]).nonzeroBitCount > 2 * bound { continue }
            // each edit changes the byte counts on each side by at most one
            for b in w { counts[Int(b)] += 1 }
            for b in y { counts[Int(b)] -= 1 }
            var more = 0, fewer = 0
            for b in w where counts[Int(b)] != 0 { if counts[Int(b)] > 0 { more += counts[Int(b)] } else { fewer -= counts[Int(b)] }; counts[Int(b)] = 0 }
            for b in y where counts[Int(b)] != 0 { if counts[Int(b)] > 0 { more += counts[Int(b)] } else { fewer -= counts[Int(b)] }; counts[Int(b)] = 0 }
            if max(more, fewer) > bound { continue }
            guard let d = Suggester.distance(w, y, atMost: bound, &prev, &cur) else { continue }
            if let b = best, d > bound || (d == bound && names[c] >= names[b]) { continue }
            best = c
            bound = d
        }
        return best.map { names[$0] }
    }

    /// The Levenshtein distance of `x` and `y` if it is at most `k`: only the diagonal band of width 2k+1
    /// is computed, and a row whose every cell exceeds `k` ends it.
    static func distance(_ x: [UInt8], _ y: [UInt8], atMost k: Int, _ prev: inout [Int], _ cur: inout [Int]) -> Int? {
        let n = x.count, m = y.count
        if abs(n - m) > k { return nil }
        if n == 0 || m == 0 { return max(n, m) }
        let over = k + 1
        if prev.count < m + 1 {
            prev = [Int](repeating: 0, count: m + 1)
            cur = [Int](repeating: 0, count: m + 1)
        }
        for j in 0...m { prev[j] = j <= k ? j : over }
        for i in 1...n {
            let lo = max(1, i - k), hi = min(m, i + k)
            cur[0] = i <= k ? i : over
            if lo > 1 { cur[lo - 1] = over }
            var rowMin = lo == 1 ? cur[0] : over
            for j in lo...hi {
                let v = min(prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1), prev[j] + 1, cur[j - 1] + 1, over)
                cur[j] = v
                if v < rowMin { rowMin = v }
            }
            if hi < m { cur[hi + 1] = over }
            if rowMin > k { return nil }
            swap(&prev, &cur)
        }
        return prev[m] <= k ? prev[m] : nil
    }
}
