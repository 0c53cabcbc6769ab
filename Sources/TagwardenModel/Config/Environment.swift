import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy

/// One deployment environment: what its tags must look like and what it demands.
public struct Environment: Sendable {
    public var name: String
    public var aliases: [String]
    public var paths: [Glob] = []
    public var namespaces: [String] = []
    public var tagPrefix: String?
    public var tagPattern: String?
    public var tagRegex: GoRegex?
    public var requireDigest = false
    public var requireReview = false
    /// Where each setting came from, for `tagwarden env` and the text report's header.
    public var origin: [String: String] = [:]

    public func matchesAlias(_ s: String) -> Bool {
        let l = s.lowercased()
        return l == name.lowercased() || aliases.contains { $0.lowercased() == l }
    }
}

public struct EnvironmentModel: Sendable {
    public var environments: [Environment]
    /// Where the model as a whole came from: "config", "strict profile", "inferred".
    public var source: String
    /// The config's directory: path globs are relative to it.
    public var baseDir = ""
    /// Whether the strict profile is in force (`--profile strict` or `profile: strict`): the guardrails of the
    /// promotion workflow are errors.
    public var strict = false
    /// Lower-cased names and aliases → environment index.
    var aliasIndex: [String: Int] = [:]
    /// The same as bytes, for directory names, which are compared without building strings.
    var aliasBytes: [(bytes: [UInt8], index: Int)] = []

    init(environments: [Environment], source: String, baseDir: String) {
        self.environments = environments
        self.source = source
        self.baseDir = baseDir
        for (i, e) in environments.enumerated().reversed() {
            for a in e.aliases + [e.name] { aliasIndex[a.lowercased()] = i }
        }
        aliasBytes = aliasIndex.map { (Array($0.key.utf8), $0.value) }
    }

    public func named(_ name: String?) -> Environment? {
        index(named: name).map { environments[$0] }
    }

    public func index(named name: String?) -> Int? {
        guard let name else { return nil }
        return environments.firstIndex { $0.name == name }
    }

    /// The environment a user names on the command line, by name or alias; an error listing them when none is.
    public func resolve(_ given: String) throws -> Environment {
        if let e = named(given) ?? byAlias(given) { return e }
        throw TagwardenError("no environment '\(given)' (the environments are \(environments.map(\.name).joined(separator: ", ")); see tagwarden env)")
    }

    public func byAlias(_ alias: String) -> Environment? {
        aliasIndex(Substring(alias)).map { environments[$0] }
    }

    static let defaults: [(String, [String])] = [
        ("development", ["dev", "develop", "development"]),
        ("staging", ["stage", "staging", "stg"]),
        ("production", ["prod", "production"]),
    ]
    public static let strictProductionPattern = #"^production-v[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{7,40}-[0-9]+$"#

    /// The environments before anything is inferred from the repository: defaults, profile, config.
    public static func base(config: Config?, profile: String?) -> EnvironmentModel {
        let strict = (profile ?? config?.profile) == "strict"
        let profileOrigin = profile != nil ? "--profile strict" : "strict profile in \(config?.path ?? Config.fileName)"
        var envs: [Environment] = defaults.map { Environment(name: $0.0, aliases: $0.1, origin: ["name": "built-in"]) }
        if strict {
            for i in envs.indices {
                switch envs[i].name {
                case "development": envs[i].tagPrefix = "develop-"
                case "staging": envs[i].tagPrefix = "staging-"
                default:
                    envs[i].tagPrefix = "production-"
                    envs[i].tagPattern = strictProductionPattern
                    envs[i].requireDigest = true
                    envs[i].requireReview = true
                    envs[i].origin["tagPattern"] = profileOrigin
                    envs[i].origin["requireDigest"] = profileOrigin
                    envs[i].origin["requireReview"] = profileOrigin
                }
                envs[i].origin["tagPrefix"] = profileOrigin
            }
        }
        for c in config?.environments ?? [] {
            var idx = envs.firstIndex { $0.name == c.name || $0.matchesAlias(c.name) }
            if idx == nil {
                envs.append(Environment(name: c.name, aliases: [], origin: ["name": c.origin]))
                idx = envs.count - 1
            }
            let i = idx!
            if envs[i].name != c.name { envs[i].name = c.name }
            if let a = c.aliases { envs[i].aliases = a; envs[i].origin["aliases"] = c.origin(of: "aliases") }
            if let p = c.paths { envs[i].paths = p.map(Glob.init); envs[i].origin["paths"] = c.origin(of: "paths") }
            if let n = c.namespaces { envs[i].namespaces = n; envs[i].origin["namespaces"] = c.origin(of: "namespaces") }
            if let p = c.tagPrefix { envs[i].tagPrefix = p.isEmpty ? nil : p; envs[i].origin["tagPrefix"] = c.origin(of: "tagPrefix") }
            if let p = c.tagPattern { envs[i].tagPattern = p.isEmpty ? nil : p; envs[i].origin["tagPattern"] = c.origin(of: "tagPattern") }
            if let d = c.requireDigest { envs[i].requireDigest = d; envs[i].origin["requireDigest"] = c.origin(of: "requireDigest") }
            if let r = c.requireReview { envs[i].requireReview = r; envs[i].origin["requireReview"] = c.origin(of: "requireReview") }
        }
        for i in envs.indices {
            if let p = envs[i].tagPattern { envs[i].tagRegex = try? GoRegex(p) }
        }
        let source = config != nil && !(config!.environments.isEmpty) ? "config \(config!.path ?? Config.fileName)"
            + (strict ? " over the strict profile" : "")
            : strict ? profileOrigin : "inferred from the repository"
        var model = EnvironmentModel(environments: envs, source: source, baseDir: config?.baseDir ?? "")
        model.strict = strict
        return model
    }

    /// Fills in tag prefixes nobody configured from the repository's own ImagePolicies: an environment
    /// whose policies mostly (at least two, and at least two thirds) require the same literal prefix, when at least two
    /// environments then have distinct prefixes.
    public mutating func inferPrefixes(policies: [(environment: String?, pattern: String?)]) {
        var prefixOf = StringMap<String?>()
        func literal(_ p: String) -> String? {
            if let cached = prefixOf[p] { return cached }
            let l = EnvironmentModel.literalPrefix(of: p)
            prefixOf[p] = l
            return l
        }
        var inferred: [(index: Int, prefix: String, origin: String)] = []
        for i in environments.indices where environments[i].tagPrefix == nil && environments[i].origin["tagPrefix"] == nil {
            let mine = policies.filter { $0.environment == environments[i].name }
            guard mine.count >= 2 else { continue }
            var counts = StringMap<Int>()
            for p in mine {
                if let pat = p.pattern, let prefix = literal(pat) { counts[prefix, default: 0] += 1 }
            }
            guard let (prefix, n) = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }),
                  n >= 2, n * 3 >= mine.count * 2 else { continue }
            inferred.append((i, prefix, "inferred from \(n) of \(mine.count) ImagePolicies"))
        }
        // a prefix tells environments apart only when another environment has another: one alone (`main-` of Flux's
        // own guide, `develop-`) is the branch the builds come from
        let configured = environments.compactMap(\.tagPrefix)
        let distinct = Set(configured + inferred.map(\.prefix))
        for (i, prefix, origin) in inferred {
            if distinct.count >= 2 {
                environments[i].tagPrefix = prefix
                environments[i].origin["tagPrefix"] = origin
            } else {
                environments[i].origin["tagPrefix"] = "'\(prefix)' \(origin), but no other environment has a prefix of its own: "
                    + "it names the branch builds come from, not an environment (set tagPrefix to use it)"
            }
        }
    }

    /// The tag prefix a pattern requires: its anchored literal start up to and including the first `-`
    /// (`^develop-v.*` → `develop-`).
    public static func literalPrefix(of pattern: String) -> String? {
        guard let literal = (try? GoRegex(pattern))?.anchoredLiteralPrefix, let dash = literal.firstIndex(of: "-"),
              dash > literal.startIndex else { return nil }
        return String(literal[...dash])
    }

    /// What a file's path says about its environment: a config path glob, and a directory named after an alias.
    public struct PathClues: Sendable {
        public var configured: String?
        var directory: String?
    }

    public func clues(path: String) -> PathClues {
        var clues = PathClues()
        let rel: String? = baseDir.isEmpty ? path : (path.hasPrefix(baseDir + "/") ? String(path.dropFirst(baseDir.count + 1)) : nil)
        if let rel {
            for i in environments.indices where environments[i].paths.contains(where: { $0.matches(rel) }) {
                clues.configured = environments[i].name
                break
            }
        }
        var path = path
        if let e = path.withUTF8({ directoryAlias($0) }) { clues.directory = environments[e].name }
        return clues
    }

    /// `clues(path:)` of every file. Where no environment has path globs a file's clues are its directory's, looked for
    /// once for the files of a directory, which a listing keeps together.
    func clues(of files: Files) -> Table<FileID, PathClues> {
        guard environments.allSatisfy(\.paths.isEmpty) else { return files.indices.column { clues(path: files[$0].path) } }
        var last: (directory: String, clues: PathClues)?
        return files.indices.column { f in
            let directory = files[f].directory
            if let last, last.directory == directory { return last.clues }
            let found = clues(path: files[f].path)
            last = (directory, found)
            return found
        }
    }

    /// Whether a file under directory `dir` can be detected as in `environment` by its path alone (`detect` without a
    /// namespace): not when `dir` already has a directory named after another environment, and the environment has no
    /// path globs (another's glob can only take a file away from it).
    public func pathsUnder(_ dir: String, mayBeIn environment: String) -> Bool {
        guard let e = environments.firstIndex(where: { $0.name == environment }), environments[e].paths.isEmpty else { return true }
        var path = dir + "/"
        guard let first = path.withUTF8({ directoryAlias($0) }) else { return true }
        return first == e
    }

    /// The first directory of `path` named after an alias (case-insensitively).
    func directoryAlias(_ path: UnsafeBufferPointer<UInt8>) -> Int? {
        var start = 0
        for i in 0..<path.count where path[i] == UInt8(ascii: "/") {
            let name = UnsafeBufferPointer(rebasing: path[start..<i])
            start = i + 1
            if name.contains(where: { $0 >= 0x80 }) {
                if let e = aliasIndex(Substring(String(decoding: name, as: UTF8.self))) { return e }
                continue
            }
            // ASCII: lower-cased byte for byte, as the keys are
            for (bytes, e) in aliasBytes where bytes.count == name.count {
                var same = true
                for k in 0..<name.count {
                    let c = name[k]
                    if (c >= 65 && c <= 90 ? c + 32 : c) != bytes[k] { same = false; break }
                }
                if same { return e }
            }
        }
        return nil
    }

    /// The environment a directory name is an alias of (case-insensitively).
    func aliasIndex(_ name: Substring) -> Int? {
        let key = String(name)
        if let i = aliasIndex[key] { return i }
        guard name.utf8.contains(where: { ($0 >= 65 && $0 <= 90) || $0 >= 0x80 }) else { return nil }
        return aliasIndex[key.lowercased()]
    }

    /// The environment of a manifest, in this order: config path globs and namespace lists; the
    /// `environment` label of the Namespace object; a directory named after an alias; the namespace's name.
    /// The environment directory `dir` (a cluster's, an `update.path`) is named after, by the config's paths or its
    /// directories' names, as a file in it would be.
    public func detect(directory dir: String) -> String? {
        detect(clues(path: Sources.join(dir, "x.yaml")), namespace: nil, namespaceLabels: [:])
    }

    public func detect(path: String, namespace: String?, namespaceLabels: StringMap<[String: String]>) -> String? {
        detect(clues(path: path), namespace: namespace, namespaceLabels: namespaceLabels)
    }

    public func detect(_ clues: PathClues, namespace: String?, namespaceLabels: StringMap<[String: String]>) -> String? {
        if let c = clues.configured { return c }
        if let ns = namespace {
            for env in environments where env.namespaces.contains(ns) { return env.name }
            if let label = namespaceLabels[ns]?["environment"], let env = byAlias(label) { return env.name }
        }
        if let d = clues.directory { return d }
        if let ns = namespace, let env = byAlias(ns) { return env.name }
        return nil
    }

    /// The environment whose prefix a tag carries (longest prefix first).
    public func environment(ofTag tag: String) -> Environment? {
        environments.filter { $0.tagPrefix.map { tag.hasPrefix($0) } ?? false }
            .max { ($0.tagPrefix?.count ?? 0) < ($1.tagPrefix?.count ?? 0) }
    }
}
