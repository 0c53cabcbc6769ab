import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
#if canImport(Glibc)
import Glibc
#endif


/// Walks history once for staging evidence, reading only the blobs that changed under staging paths, and
/// caches the result in `<git dir>/tagwarden/` keyed by commit, so the next run reads only new commits.
public enum History {
    /// Without a repository (or a commit) only the tree itself is evidence.
    public static func stagingEvidence(repo: GitRepository?, tip: String?, model: Model) throws -> PromotionEvidence? {
        guard let staging = model.environments.byAlias("staging") else { return nil }
        // where staging manifests live: files with staging objects now, their directories, and paths named after staging
        var stagingFiles = Set<String>()
        for (i, o) in model.objects.withIDs where model.objectEnvironment[i] == staging.name {
            stagingFiles.insert(model.path(o.file))
        }
        for (i, img) in model.images.withIDs where model.images[i].environment == staging.name {
            stagingFiles.insert(model.path(img.file))
        }
        if stagingFiles.isEmpty { return nil }  // no staging environment here: the promotion rules do not apply
        let stagingDirs = Set(stagingFiles.map(Path.dirname))
        var current = PromotionEvidence.fromModel(model, staging: staging)
        guard let repo, let tip else { return current }
        let tipSha = try repo.resolveCommit(tip)

        let env = model.environments
        func isStagingPath(_ p: String) -> Bool {
            guard Sources.isManifestName(p) else { return false }
            if stagingFiles.contains(p) || stagingDirs.contains(Path.dirname(p)) { return true }
            return env.detect(env.clues(path: p), namespace: nil, namespaceLabels: [:]) == staging.name
        }
        let key = cacheKey(model: model, staging: staging, dirs: stagingDirs)
        let dir = repo.commonDir.hasSuffix("/") ? repo.commonDir + "tagwarden" : repo.commonDir + "/tagwarden"
        // one cache file per walked tip; a run starts from the newest cached ancestor of its tip
        let prefix = "evidence-\(key)-"
        let cached = (try? FileSystem.directoryEntries(dir))?.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") } ?? []
        var evidence = PromotionEvidence()
        var hide: String?
        let exact = prefix + tipSha + ".json"
        let candidates = cached.contains(exact) ? [exact] : cached
        for name in candidates {
            let sha = String(name.dropFirst(prefix.count).dropLast(5))
            guard repo.isAncestor(sha, of: tipSha),
                  case .success(let bytes) = FileSystem.readFile(dir + "/" + name, limit: 256 << 20),
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
                        let ns = img.object.flatMap { facts.objects[$0.index].declaredNamespace }
                        let inStaging = stagingFiles.contains(entry.path) || stagingDirs.contains(Path.dirname(entry.path))
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
        var text = "v1\u{0}\(Version.current)\u{0}\(staging.name)\u{0}\(staging.tagPrefix ?? "")"
        for e in model.environments.environments {
            text += "\u{0}\(e.name):\(e.aliases.joined(separator: ","))|\(e.paths.map(\.pattern).joined(separator: ","))|\(e.namespaces.joined(separator: ","))"
        }
        for d in dirs.sorted() { text += "\u{0}" + d }
        return hexDigits(FNV1a.hash(text), width: 16)
    }
}
