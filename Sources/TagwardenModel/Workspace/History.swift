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
    /// Told, now and then, how many of a walk's commits are read; last with `read == of`.
    public typealias Progress = @Sendable (_ read: Int, _ of: Int) -> Void

    /// Without a repository (or a commit) only the tree itself is evidence.
    public static func stagingEvidence(repo: GitRepository?, tip: String?, model: Model, progress: Progress? = nil) throws -> PromotionEvidence? {
        guard let staging = model.environments.byAlias("staging") else { return nil }
        // where staging manifests live: files with staging objects now and their directories (sorted, each once), and
        // paths named after staging; marked by file, not gathered into sets of strings: a cache that is current needs
        // only the directories, for its key
        var holdsStaging = Table<FileID, Bool>(repeating: false, count: model.files.count)
        for (i, o) in model.objects.withIDs where model.objectEnvironment[i] == staging.name { holdsStaging[o.file] = true }
        for img in model.images where img.environment == staging.name { holdsStaging[img.file] = true }
        var stagingFiles: [String] = [], stagingDirs: [String] = []
        for f in model.files.indices where holdsStaging[f] {
            stagingFiles.append(model.path(f))
            if stagingDirs.last != model.directory(f) { stagingDirs.append(model.directory(f)) }
        }
        if stagingFiles.isEmpty { return nil }  // no staging environment here: the promotion rules do not apply
        stagingDirs.sort()
        stagingDirs = stagingDirs.indices.compactMap { $0 > 0 && stagingDirs[$0 - 1] == stagingDirs[$0] ? nil : stagingDirs[$0] }
        let current = PromotionEvidence.fromModel(model, staging: staging)
        guard let repo, let tip else { return current }
        // one read of the history at a time: a check's two audits run side by side, and the second finds the first's
        // walk in the cache
        return try reading.withLock { _ in try fromHistory(repo: repo, tip: tip, model: model, staging: staging, files: stagingFiles,
                                                           dirs: stagingDirs, current: current, progress: progress) }
    }

    private static let reading = Locked(())

    /// `current` (the evidence of the model itself) with what staging's history from `tip` adds, read through the
    /// cache in `.git/tagwarden`.
    static func fromHistory(repo: GitRepository, tip: String, model: Model, staging: Environment, files stagingFiles: [String],
                            dirs stagingDirs: [String], current: PromotionEvidence, progress: Progress?) throws -> PromotionEvidence {
        var current = current
        let tipSha = try repo.resolveCommit(tip)

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
                  let (e, cachedTip) = PromotionEvidence.fromCacheFile(bytes, key: key)
                    ?? (try? JSON.parse(String(decoding: bytes, as: UTF8.self))).flatMap({ PromotionEvidence.fromJSON($0, key: key) }),
                  cachedTip == sha else { continue }
            if hide == nil || repo.isAncestor(hide!, of: sha) {
                evidence = e
                hide = sha
            }
        }
        if hide != tipSha {
            guard let tipID = GitOID(hex: tipSha) else { throw TagwardenError("staging history: \(tipSha) is no commit id") }
            let commits = try repo.commitTrees(from: tipID, hiding: hide.flatMap { GitOID(hex: $0) })
            // (where staging's files may be, made only for a walk: a cache of the tip needs none of it)
            let paths = StagingPaths(model: model, staging: staging, files: StringSet(stagingFiles), dirs: StringSet(stagingDirs))
            evidence.merge(try read(commits, from: repo, paths: paths, progress: progress))
            progress?(commits.count, commits.count)
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

    /// The staging evidence of the commits, each compared with its first parent. (One thread: libgit2 reads every
    /// pack under one process-wide lock, and two threads reading took more CPU time for the same wall time.)
    static func read(_ commits: [CommitTrees], from repo: GitRepository, paths: StagingPaths, progress: Progress?) throws -> PromotionEvidence {
        var evidence = PromotionEvidence()
        var scratch = YAMLFile()
        for (n, step) in commits.enumerated() {
            if n % 1_000 == 0, n > 0 { progress?(n, commits.count) }
            for entry in try repo.changedEntries(step, descend: paths.mayHold, accept: paths.isStaging) {
                let read = repo.readBlob(entry.oid, limit: 10 << 20)
                // a damaged object is not evidence either way: the walk stops rather than judge without it
                if case .damaged(let why) = read {
                    throw TagwardenError("staging history, \(entry.path) in commit \(step.commit.hex.prefix(12)): \(why)")
                }
                guard case .bytes(let b) = read, SourceText.firstNUL(b) == nil else { continue }
                paths.record(Extractor.extract(path: entry.path, bytes: b, index: 0, reusing: &scratch), of: entry.path, into: &evidence)
            }
        }
        return evidence
    }

    /// The cache stays valid while the environment model and the staging directories stay the same.
    /// `dirs`: sorted, each once.
    static func cacheKey(model: Model, staging: Environment, dirs: [String]) -> String {
        var text = "v1\u{0}\(Version.current)\u{0}\(staging.name)\u{0}\(staging.tagPrefix ?? "")"
        for e in model.environments.environments {
            text += "\u{0}\(e.name):\(e.aliases.joined(separator: ","))|\(e.paths.map(\.pattern).joined(separator: ","))|\(e.namespaces.joined(separator: ","))"
        }
        for d in dirs {
            text.append("\u{0}")
            text.append(d)
        }
        return hexDigits(FNV1a.hash(text), width: 16)
    }
}

/// Where staging manifests live: files with staging objects now, their directories, and paths named after staging.
struct StagingPaths: Sendable {
    let staging: Environment
    let environments: EnvironmentModel
    let namespaceLabels: StringMap<[String: String]>
    let files: StringSet
    let dirs: StringSet
    /// the directories that hold those directories
    let above: StringSet

    init(model: Model, staging: Environment, files: StringSet, dirs: StringSet) {
        self.staging = staging
        environments = model.environments
        namespaceLabels = model.namespaceLabels
        self.files = files
        self.dirs = dirs
        var above = StringSet()
        for d in dirs {
            var d = d
            while !d.isEmpty, above.insert(d).inserted { d = Path.dirname(d) }
        }
        self.above = above
    }

    /// Whether a file is read: a manifest at a staging file's path, in its directory, or that its path puts in staging.
    func isStaging(_ path: String) -> Bool {
        guard Sources.isManifestName(path) else { return false }
        return isStagingPlace(path) || environments.detect(environments.clues(path: path), namespace: nil, namespaceLabels: [:]) == staging.name
    }

    /// A staging file's path now, or a path in such a file's directory.
    func isStagingPlace(_ path: String) -> Bool { files.contains(path) || dirs.contains(Path.dirname(path)) }

    /// Whether a directory is read: a staging file's path may be under it.
    func mayHold(_ dir: String) -> Bool {
        above.contains(dir) || environments.pathsUnder(dir, mayBeIn: staging.name)
    }

    /// The images of a file read at `path` that are in staging (by path or by their object's namespace).
    func record(_ facts: FileFacts, of path: String, into evidence: inout PromotionEvidence) {
        let clues = environments.clues(path: path)
        for img in facts.images where img.invalid == nil {
            let ns = img.object.flatMap { facts.objects[$0.index].declaredNamespace }
            let inStaging = isStagingPlace(path)
                || environments.detect(clues, namespace: ns, namespaceLabels: namespaceLabels) == staging.name
            if inStaging, let n = img.normalizedName {
                evidence.record(normalized: n, tag: img.tag?.value, digest: img.digest, prefix: staging.tagPrefix)
            }
        }
    }
}
