#if canImport(Glibc)
import Glibc
#endif

/// What staging ran, by image: every digest and every version identity (`vX.Y.Z-<sha>-<ts>` after the
/// environment prefix) that a staging manifest held, at HEAD or in any commit reachable from it.
public struct PromotionEvidence: Sendable, Equatable {
    /// normalized image name → digests
    public var digests: [String: Set<String>] = [:]
    /// normalized image name → identity → digests seen with it (empty when staging ran it without one)
    public var identities: [String: [String: Set<String>]] = [:]
    /// How many commits were read on this run (0 when the cache was current).
    public var commitsRead = 0

    public init() {}

    /// `staging-v1.2.3-abc1234-17…` → `v1.2.3-abc1234-17…` (nil when the rest is not a version identity).
    public static func identity(tag: String, prefix: String?) -> String? {
        let b = Array(tag.utf8)
        var from = 0
        if let prefix, b.starts(with: prefix.utf8) { from = prefix.utf8.count }
        else if b.first != UInt8(ascii: "v"), let dash = b.firstIndex(of: UInt8(ascii: "-")) { from = dash + 1 }
        guard isIdentity(b[from...]) else { return nil }
        return String(decoding: b[from...], as: UTF8.self)
    }

    /// `^v[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{7,40}-[0-9]+$`, read byte by byte (a tag per image and commit).
    static func isIdentity(_ b: ArraySlice<UInt8>) -> Bool {
        var i = b.startIndex
        @inline(__always) func run(_ accept: (UInt8) -> Bool) -> Int {
            let start = i
            while i < b.endIndex, accept(b[i]) { i += 1 }
            return i - start
        }
        @inline(__always) func byte(_ c: UInt8) -> Bool {
            guard i < b.endIndex, b[i] == c else { return false }
            i += 1
            return true
        }
        let digit = { (c: UInt8) in c >= 48 && c <= 57 }
        let hex = { (c: UInt8) in (c >= 48 && c <= 57) || (c >= 97 && c <= 102) }
        let dot = UInt8(ascii: "."), dash = UInt8(ascii: "-")
        return byte(UInt8(ascii: "v")) && run(digit) > 0 && byte(dot) && run(digit) > 0 && byte(dot) && run(digit) > 0
            && byte(dash) && (7...40).contains(run(hex)) && byte(dash) && run(digit) > 0 && i == b.endIndex
    }

    /// Records what a staging manifest held for an image (its normalised name), in place: no copy of the per-image maps.
    mutating func record(normalized: String, tag: String?, digest: String?, prefix: String?) {
        if let digest { digests[normalized, default: []].insert(digest) }
        if let tag, let id = PromotionEvidence.identity(tag: tag, prefix: prefix) {
            if let digest {
                identities[normalized, default: [:]][id, default: []].insert(digest)
            } else if identities[normalized]?[id] == nil {
                identities[normalized, default: [:]][id] = []
            }
        }
    }

    public mutating func merge(_ other: PromotionEvidence) {
        for (k, v) in other.digests { digests[k, default: []].formUnion(v) }
        for (k, byId) in other.identities {
            for (id, ds) in byId { identities[k, default: [:]][id, default: []].formUnion(ds) }
        }
    }

    /// Staging images of a model (the tree being linted counts as "at HEAD").
    public static func fromModel(_ m: Model, staging: Environment) -> PromotionEvidence {
        var e = PromotionEvidence()
        for (i, img) in m.images.enumerated() where m.imageEnvironment[i] == staging.name && img.invalid == nil {
            if let n = img.normalizedName { e.record(normalized: n, tag: img.tag?.value, digest: img.digest, prefix: staging.tagPrefix) }
        }
        return e
    }

    // MARK: cache file

    func json(key: String, tip: String) -> JSON {
        .object([
            ("version", .int(1)), ("key", .string(key)), ("tip", .string(tip)),
            ("digests", .object(digests.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.sorted().map(JSON.string))) })),
            ("identities", .object(identities.sorted { $0.key < $1.key }.map { (name, byId) in
                (name, .object(byId.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.sorted().map(JSON.string))) }))
            })),
        ])
    }

    static func fromJSON(_ j: JSON, key: String) -> (PromotionEvidence, String)? {
        guard case .int(1)? = j["version"], j["key"]?.stringValue == key, let tip = j["tip"]?.stringValue,
              case .object(let ds)? = j["digests"], case .object(let ids)? = j["identities"] else { return nil }
        var e = PromotionEvidence()
        for (name, list) in ds {
            guard case .array(let xs) = list else { return nil }
            e.digests[name] = Set(xs.compactMap(\.stringValue))
        }
        for (name, byId) in ids {
            guard case .object(let kv) = byId else { return nil }
            for (id, list) in kv {
                guard case .array(let xs) = list else { return nil }
                e.identities[name, default: [:]][id] = Set(xs.compactMap(\.stringValue))
            }
        }
        return (e, tip)
    }
}

/// Walks history once for staging evidence, reading only the blobs that changed under staging paths, and
/// caches the result in `<git dir>/tagwarden/` keyed by commit, so the next run reads only new commits.
public enum History {
    /// Without a repository (or a commit) only the tree itself is evidence.
    public static func stagingEvidence(repo: GitRepository?, tip: String?, model: Model) throws -> PromotionEvidence? {
        guard let staging = model.environments.byAlias("staging") else { return nil }
        // where staging manifests live: files with staging objects now, their directories, and paths named after staging
        var stagingFiles = Set<String>()
        for (i, o) in model.objects.enumerated() where model.objectEnvironment[i] == staging.name {
            stagingFiles.insert(model.path(o.file))
        }
        for (i, img) in model.images.enumerated() where model.imageEnvironment[i] == staging.name {
            stagingFiles.insert(model.path(img.file))
        }
        if stagingFiles.isEmpty { return nil }  // no staging environment here: the promotion rules do not apply
        let stagingDirs = Set(stagingFiles.map(Model.dirname))
        var current = PromotionEvidence.fromModel(model, staging: staging)
        guard let repo, let tip else { return current }
        let tipSha = try repo.resolveCommit(tip)

        let env = model.environments
        func isStagingPath(_ p: String) -> Bool {
            guard Sources.isManifestName(p) else { return false }
            if stagingFiles.contains(p) || stagingDirs.contains(Model.dirname(p)) { return true }
            return env.detect(env.clues(path: p), namespace: nil, namespaceLabels: [:]) == staging.name
        }
        let key = cacheKey(model: model, staging: staging, dirs: stagingDirs)
        let dir = repo.commonDir.hasSuffix("/") ? repo.commonDir + "tagwarden" : repo.commonDir + "/tagwarden"
        // one cache file per walked tip; a run starts from the newest cached ancestor of its tip
        let prefix = "evidence-\(key)-"
        let cached = (try? directoryEntries(dir))?.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") } ?? []
        var evidence = PromotionEvidence()
        var hide: String?
        let exact = prefix + tipSha + ".json"
        let candidates = cached.contains(exact) ? [exact] : cached
        for name in candidates {
            let sha = String(name.dropFirst(prefix.count).dropLast(5))
            guard repo.isAncestor(sha, of: tipSha),
                  case .success(let bytes) = Sources.readFile(dir + "/" + name, limit: 256 << 20),
                  let j = try? JSON.parse(String(decoding: bytes, as: UTF8.self)),
                  let (e, cachedTip) = PromotionEvidence.fromJSON(j, key: key), cachedTip == sha else { continue }
            if hide == nil || repo.isAncestor(hide!, of: sha) {
                evidence = e
                hide = sha
            }
        }
        if hide != tipSha {
            let commits = try repo.commits(from: tipSha, hiding: hide)
            var scratch = YAMLFile()
            for c in commits {
                for entry in try repo.changedEntries(commit: c, accept: isStagingPath) {
                    let read = repo.readBlob(entry.oid, limit: 10 << 20)
                    // a damaged object is not evidence either way: the walk stops rather than judge without it
                    if case .damaged(let why) = read { throw TagwardenError("staging history, \(entry.path) in commit \(c.prefix(12)): \(why)") }
                    guard case .bytes(let b) = read, SourceText.firstNUL(b) == nil else { continue }
                    let facts = Extractor.extract(path: entry.path, bytes: b, index: 0, reusing: &scratch)
                    let clues = env.clues(path: entry.path)
                    for img in facts.images where img.invalid == nil {
                        let ns = img.object.flatMap { facts.objects[$0].declaredNamespace }
                        let inStaging = stagingFiles.contains(entry.path) || stagingDirs.contains(Model.dirname(entry.path))
                            || env.detect(clues, namespace: ns, namespaceLabels: model.namespaceLabels) == staging.name
                        if inStaging, let n = img.normalizedName {
                            evidence.record(normalized: n, tag: img.tag?.value, digest: img.digest, prefix: staging.tagPrefix)
                        }
                    }
                }
            }
            evidence.commitsRead = commits.count
            mkdir(dir, 0o755)
            try? writeFileAtomically(dir + "/" + exact, evidence.json(key: key, tip: tipSha).serialized() + "\n")
            // keep the cache small: the eight most recent tips
            if cached.count >= 8 {
                let old = cached.compactMap { name -> (String, Int)? in
                    var st = stat()
                    guard stat(dir + "/" + name, &st) == 0 else { return nil }
                    return (name, st.st_mtim.tv_sec)
                }.sorted { $0.1 < $1.1 }
                for (name, _) in old.prefix(cached.count - 7) { unlink(dir + "/" + name) }
            }
        }
        current.merge(evidence)
        current.commitsRead = evidence.commitsRead
        return current
    }

    /// The cache stays valid while the environment model and the staging directories stay the same.
    static func cacheKey(model: Model, staging: Environment, dirs: Set<String>) -> String {
        var text = "v1\u{0}\(Reports.version)\u{0}\(staging.name)\u{0}\(staging.tagPrefix ?? "")"
        for e in model.environments.environments {
            text += "\u{0}\(e.name):\(e.aliases.joined(separator: ","))|\(e.paths.map(\.pattern).joined(separator: ","))|\(e.namespaces.joined(separator: ","))"
        }
        for d in dirs.sorted() { text += "\u{0}" + d }
        return Engine.hex64(Engine.fnv1a(text))
    }
}

func directoryEntries(_ path: String) throws -> [String] {
    guard let d = opendir(path) else { throw TagwardenError("cannot list \(path)") }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name != "." && name != ".." { out.append(name) }
    }
    return out
}
