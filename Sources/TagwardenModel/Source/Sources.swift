import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

public enum SourceKind: String, Sendable {
    case worktree, index, commit, diff, directory
}

public struct SourceFile: Sendable {
    /// Relative to the root, `/`-separated.
    public var path: String
    public var bytes: [UInt8]
    /// A kustomization's `resources` names it: kustomize reads it as YAML whatever its name (`app.json`, `app.txt`).
    public var namedByBuild = false
    public init(path: String, bytes: [UInt8], namedByBuild: Bool = false) {
        self.path = path
        self.bytes = bytes
        self.namedByBuild = namedByBuild
    }

    /// A YAML-looking file that Flux never reads (`.YAML`, `.yaml.tpl`, `kustomization`): it matters only for
    /// the markers it holds in vain.
    public var unread: Bool { !namedByBuild && !Sources.isManifestName(path) }
}

public struct SkippedFile: Sendable, Equatable {
    public var path: String
    public var reason: String
    /// A note for what Tagwarden chose not to read; an error for a file Flux may deploy that could not be read
    /// (a run must not pass without it).
    public var severity: Severity = .note
    /// The repository is damaged: the file's blob is missing or cannot be read. The check modes stop (exit 2).
    public var damaged = false
    /// How many files the entry stands for: a chart's templates are one entry, at its Chart.yaml.
    public var files = 1

    public init(path: String, reason: String, severity: Severity = .note, damaged: Bool = false) {
        self.path = path
        self.reason = reason
        self.severity = severity
        self.damaged = damaged
    }
}

/// The manifests of one tree: what the rest of Tagwarden reads, whatever the tree came from.
public struct SourceSnapshot {
    public var kind: SourceKind
    public var root: String
    public var rev: String?
    public var files: [SourceFile]
    public var skipped: [SkippedFile]
    /// Files of an index with an unresolved merge conflict, read from its "ours" side.
    public var conflicted: [String] = []
    /// What the user should know about how the files were read.
    public var notes: [String] = []
    /// The blobs read from the object database, by id (for a snapshot of a commit or the index).
    public var blobs: [GitOID: [UInt8]] = [:]
    /// The URLs of the repository's remotes: a Flux source with another URL is another repository.
    public var remoteURLs: [String] = []
    /// The branch the working tree (or the index) is on, for a snapshot of either; nil for a commit or a detached HEAD.
    public var checkout: Checkout?
    /// Reads any file of the tree by path (nil when there is none): for the files a kustomization names under a
    /// name the listing passes over.
    public var reader: TreeReader?
}

/// The branch a working tree is on, and the remote's default branch (`origin/HEAD`) where the clone knows it; with what
/// the repository's other branches hold, as far as the clone has them (`manifestsUnder`).
public struct Checkout: Sendable {
    public var branch: String
    public var defaultBranch: String?
    /// Whether branch `branch` (as the clone last fetched it, `origin/<branch>`, else the local branch) holds a manifest
    /// under directory `path`; nil when the clone has no such branch. Used on the thread that audits the snapshot.
    public var manifestsUnder: (@Sendable (_ branch: String, _ path: String) -> Bool?)?
    /// The branch, where it is on the repository's line: its default branch, or one of `branches` (those a GitRepository
    /// of the repository reads); nil on another (a feature branch that will merge into one of them).
    public func line(among branches: Set<String>) -> String? { branch == defaultBranch || branches.contains(branch) ? branch : nil }
    public init(branch: String, defaultBranch: String?, manifestsUnder: (@Sendable (String, String) -> Bool?)? = nil) {
        self.branch = branch
        self.defaultBranch = defaultBranch
        self.manifestsUnder = manifestsUnder
    }
}

/// A path → bytes reader over the tree a snapshot was taken from (the working tree, a commit, the index). Used on
/// the thread that audits the snapshot, like the repository it may hold.
public final class TreeReader {
    package let read: (String) -> Result<[UInt8], TagwardenError>?
    /// Whether the tree holds a file of any kind under a directory: there is a directory there (git keeps none
    /// without a file) for kustomize-controller to build, whatever it holds.
    package let holdsFiles: (String) -> Bool
    public init(_ read: @escaping (String) -> Result<[UInt8], TagwardenError>?, holdsFiles: @escaping (String) -> Bool = { _ in false }) {
        self.read = read
        self.holdsFiles = holdsFiles
    }
}

extension SourceSnapshot {
    /// Stops a check when the repository is damaged (a blob missing or unreadable): a check that passes must have
    /// read every file.
    public func requireIntact() throws {
        guard let d = skipped.first(where: \.damaged) else { return }
        let more = skipped.filter(\.damaged).count - 1
        throw TagwardenError("\(d.path)\(rev.map { " in \($0.prefix(12))" } ?? ""): \(d.reason)\(more > 0 ? " (and \(more) more)" : ""); the check cannot pass without reading it")
    }
}

public struct SourceOptions: Sendable {
    public var maxFileSize = 10 * 1024 * 1024
    /// Blobs another snapshot of the repository read (`SourceSnapshot.blobs`): an object id names its bytes, so a
    /// blob both trees hold is read once.
    public var knownBlobs: [GitOID: [UInt8]] = [:]
    public init() {}
}

public enum Sources {
    /// `*.yaml`, `*.yml`, and files named `Kustomization`.
    /// Names that look like YAML manifests but that Flux's file filter passes over: another case
    /// (`app.YAML`), a template suffix (`app.yaml.tpl`), a lower-case `kustomization`.
    public static func isUnreadYAMLName(_ path: String) -> Bool {
        let base = Path.basename(path)
        if isManifestName(base) { return false }
        let lower = base.lowercased()
        return lower.hasSuffix(".yaml") || lower.hasSuffix(".yml") || lower.contains(".yaml.") || lower.contains(".yml.")
            || base == "kustomization"
    }

    static let markerToken: StaticString = "$imagepolicy"

    public static func isManifestName(_ path: String) -> Bool {
        let u = path.utf8
        if u.last == UInt8(ascii: "l") {
            return path.hasBytesSuffix(".yaml") || path.hasBytesSuffix(".yml")
        }
        return path == "Kustomization" || path.hasBytesSuffix("/Kustomization")
    }

    package static func join(_ a: String, _ b: String) -> String {
        if a.isEmpty { return b }
        // written into one buffer: appending the slash and the name cost three passes through `String.append`
        let slash = a.utf8.last != UInt8(ascii: "/")
        return String(unsafeUninitializedCapacity: a.utf8.count + (slash ? 1 : 0) + b.utf8.count) { out in
            var end = out.initialize(fromContentsOf: a.utf8)
            if slash {
                out[end] = UInt8(ascii: "/")
                end += 1
            }
            return end + UnsafeMutableBufferPointer(rebasing: out[end...]).initialize(fromContentsOf: b.utf8)
        }
    }

    // MARK: working tree and plain directories

    /// The working tree of `repo`: tracked files and untracked files that .gitignore does not ignore.
    public static func worktree(_ repo: GitRepository, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        guard let workdir = repo.workdir else { throw TagwardenError("repository \(repo.gitDir) is bare: use --rev") }
        let root = String(workdir.dropLast(workdir.hasSuffix("/") ? 1 : 0))
        // the last run's listings, read on another thread while the index is read here
        let cacheDir = Sources.join(repo.gitDir, "tagwarden")
        let listings = Started {
            var cache = ListingCache.load(cacheDir + "/listings")
            cache.statDirectories(root: root)
            return cache
        }
        // the index says which files git tracks even though .gitignore ignores them; without it, .gitignore alone decides
        var notes: [String] = []
        let tracked: TrackedPaths
        do {
            tracked = TrackedPaths(try repo.indexPaths())
        } catch let e as TagwardenError where e.isIndexFormat {
            tracked = TrackedPaths([])
            notes.append("\(e.message); until then, files git tracks although .gitignore ignores them are not linted")
        }
        Timings.mark("index")
        var found: [String] = []
        var skipped: [SkippedFile] = []
        var cache: ListingCache? = listings.value
        // as in git, nothing untracked under an ignored directory counts, whatever a later `!pattern` says (libgit2
        // judges the path alone); asked only when something untracked is found, and once per directory; one question
        // at a time, whichever thread of the walk asks (libgit2's repository is not to be used by two at once)
        let untracked = Locked((repo: repo, ignoredDirectories: [String: Bool]()))
        @Sendable func ignoredDirectory(_ dir: String, _ state: inout (repo: GitRepository, ignoredDirectories: [String: Bool])) -> Bool {
            if dir.isEmpty { return false }
            if let known = state.ignoredDirectories[dir] { return known }
            let ignored = ignoredDirectory(Path.dirname(dir), &state) || state.repo.isIgnored(dir + "/")
            state.ignoredDirectories[dir] = ignored
            return ignored
        }
        walk(root: root, found: &found, skipped: &skipped, cache: &cache, enterRepository: { tracked.containsDirectory($0) },
             includeDir: { rel in tracked.containsDirectory(rel) || !untracked.withLock { ignoredDirectory(rel, &$0) } },
             includeFile: { rel in
                 tracked.contains(rel) || !untracked.withLock { ignoredDirectory(Path.dirname(rel), &$0) || $0.repo.isIgnored(rel) }
             })
        if let cache, cache.changed {
            mkdir(cacheDir, 0o755)
            cache.save(cacheDir + "/listings")
        }
        Timings.mark("walk")
        let files = readAll(root: root, found, options: options, skipped: &skipped)
        return SourceSnapshot(kind: .worktree, root: root, rev: nil, files: files, skipped: skipped, notes: notes,
                              reader: TreeReader({ readInside(root: root, $0, options: options) }, holdsFiles: { tracked.containsDirectory($0) }))
    }

    /// The index's paths in byte order (as git keeps them), searched by bisection for the directories that hold them:
    /// no set of every directory above a path is built. A path itself is looked up in a set, which costs a walk a
    /// hash per file where bisection cost it a score of comparisons.
    struct TrackedPaths {
        /// (compared in bytes, as git compares paths)
        let exact: StringSet
        /// Every directory that holds a tracked file, at any depth (the root is none of them).
        let directories: StringSet

        init(_ paths: [String]) {
            exact = StringSet(paths)
            var directories = StringSet()
            // (the index lists a directory's files together: the directory of the last path, its own string made once)
            var last = ""
            for path in paths where !Path.isDirectlyIn(path, last) {
                last = Path.dirname(path)
                var dir = last
                while !dir.isEmpty, directories.insert(dir).inserted { dir = Path.dirname(dir) }
            }
            self.directories = directories
        }

        func contains(_ path: String) -> Bool { exact.contains(path) }

        /// Whether a tracked file lies under `dir`.
        func containsDirectory(_ dir: String) -> Bool { directories.contains(dir) }
    }

    /// A directory that is not in a git repository: every manifest under it.
    public static func directory(_ root: String, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        var found: [String] = []
        var skipped: [SkippedFile] = []
        var noCache: ListingCache?
        walk(root: root, found: &found, skipped: &skipped, cache: &noCache, enterRepository: nil,
             includeDir: { _ in true }, includeFile: { _ in true })
        let files = readAll(root: root, found, options: options, skipped: &skipped)
        return SourceSnapshot(kind: .directory, root: root, rev: nil, files: files, skipped: skipped,
                              reader: TreeReader({ readInside(root: root, $0, options: options) },
                                                 // (outside a git repository, what is on disk is the tree)
                                                 holdsFiles: { (try? FileSystem.directoryEntries(join(root, $0)))?.isEmpty == false }))
    }

    /// Reads the files the walk found, on all cores.
    static func readAll(root: String, _ paths: [String], options: SourceOptions, skipped: inout [SkippedFile]) -> [SourceFile] {
        let chunk = 64
        let limit = options.maxFileSize
        // relative to the root's descriptor: the root's own path is not looked up again for every file
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if rootFD >= 0 { close(rootFD) } }
        let base = rootFD >= 0 ? rootFD : AT_FDCWD
        let read = concurrentMap(paths.count, chunkSize: chunk, makeState: {}) { _, i in
            base == AT_FDCWD ? FileSystem.readFile(join(root, paths[i]), limit: limit) : FileSystem.readFile(at: base, paths[i], limit: limit)
        }
        var files: [SourceFile] = []
        files.reserveCapacity(paths.count)
        for (i, r) in read.enumerated() {
            let unread = !isManifestName(paths[i])
            switch r {
            case .success(let bytes):
                // a file Flux never reads matters only for the markers it holds in vain
                if unread && !SourceText.contains(markerToken, in: bytes) { continue }
                files.append(SourceFile(path: paths[i], bytes: bytes))
            case .failure(let e):
                if !unread { skipped.append(SkippedFile(path: paths[i], reason: e.message)) }
            }
        }
        return files
    }

    /// Every manifest-looking file under `root` (sorted by path bytes within each directory). Directories are
    /// listed once and then, with a `cache`, only stat'ed while they stay unchanged.
    /// With `enterRepository`, a directory holding `.git` (a submodule, or another repository inside this one)
    /// is entered only when the closure says so (it tracks files there): otherwise its files are not this
    /// repository's, as in git's own listings and the trees `--rev` and `--staged` read.
    /// The top of the tree is walked on this thread; the directories `splitDepth` below the root, each with all under
    /// it, on all cores; what each finds is put in its place, so the order is the one walk's.
    static func walk(root: String, found: inout [String], skipped: inout [SkippedFile], cache: inout ListingCache?,
                     enterRepository: (@Sendable (String) -> Bool)?, includeDir: @escaping @Sendable (String) -> Bool,
                     includeFile: @escaping @Sendable (String) -> Bool) {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return }
        defer { close(rootFD) }
        var st = stat()
        guard fstat(rootFD, &st) == 0 else { return }
        let context = WalkContext(rootFD: rootFD, root: root, now: time(nil), enterRepository: enterRepository,
                                  includeDir: includeDir, includeFile: includeFile)
        var top = WalkContext.Found(splitDepth: 2)
        var walker = context
        walker.walk("", st, depth: 0, cache: cache, into: &top)
        let splits = top.splits, listings = cache
        let below = concurrentMap(splits.count, chunkSize: 1, makeState: { context }) { walker, i -> WalkContext.Found in
            var out = WalkContext.Found(splitDepth: nil)
            walker.walk(splits[i].relative, splits[i].stat, depth: 0, cache: listings, into: &out)
            return out
        }
        var file = 0, skip = 0
        for (split, part) in zip(splits, below) {
            found += top.files[file..<split.files]
            found += part.files
            skipped += top.skipped[skip..<split.skipped]
            skipped += part.skipped
            (file, skip) = (split.files, split.skipped)
        }
        found += top.files[file...]
        skipped += top.skipped[skip...]
        for listed in top.listed + below.flatMap(\.listed) {
            cache?.store(listed.relative, listed.stat, listedAt: context.now, entries: listed.entries)
        }
    }

    private struct WalkContext: Sendable {
        let rootFD: Int32
        let root: String
        let now: Int
        let enterRepository: (@Sendable (String) -> Bool)?
        let includeDir: @Sendable (String) -> Bool
        let includeFile: @Sendable (String) -> Bool
        var rootReal: String?

        /// What a walk finds: the files, what it skips, the directories it listed (for the cache), and where it left a
        /// directory `splitDepth` below its start to another walk (at which of its files and skipped entries).
        struct Found: Sendable {
            let splitDepth: Int?
            var files: [String] = []
            var skipped: [SkippedFile] = []
            var listed: [(relative: String, stat: stat, entries: [(String, UInt8)])] = []
            var splits: [(relative: String, stat: stat, files: Int, skipped: Int)] = []
        }

        mutating func walk(_ relative: String, _ st: stat, depth: Int, cache: ListingCache?, into out: inout Found) {
            let entries: [(String, UInt8)]
            if let cached = cache?.entries(relative, st) {
                entries = cached
            } else {
                guard let listed = list(relative, skipped: &out.skipped) else { return }
                entries = listed
                if cache != nil { out.listed.append((relative, st, entries)) }
            }
            if !relative.isEmpty, let enter = enterRepository, entries.contains(where: { $0.0 == ".git" }), !enter(relative) { return }
            for (name, type) in entries where name != ".git" {
                let rel = Sources.join(relative, name)
                if type == UInt8(DT_DIR) {
                    guard includeDir(rel) else { continue }
                    var sub = stat()
                    if let known = cache?.statNow(rel) {
                        sub = known
                    } else {
                        guard fstatat(rootFD, rel, &sub, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                    }
                    guard (sub.st_mode & S_IFMT) == S_IFDIR else { continue }
                    if depth + 1 == out.splitDepth {
                        out.splits.append((rel, sub, out.files.count, out.skipped.count))
                    } else {
                        walk(rel, sub, depth: depth + 1, cache: cache, into: &out)
                    }
                    continue
                }
                guard includeFile(rel) else { continue }
                if type == UInt8(DT_LNK), let reason = leavesRoot(rel) {
                    if !reason.isEmpty { out.skipped.append(SkippedFile(path: rel, reason: reason)) }
                    continue
                }
                out.files.append(rel)
            }
        }

        /// A directory's subdirectories and YAML-looking files, sorted by name bytes; nil when it cannot be read.
        func list(_ relative: String, skipped: inout [SkippedFile]) -> [(String, UInt8)]? {
            let fd = openat(rootFD, relative.isEmpty ? "." : relative, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0, let dir = fdopendir(fd) else {
                if fd >= 0 { close(fd) }
                if !relative.isEmpty {
                    skipped.append(SkippedFile(path: relative, reason: "directory cannot be read: \(String(cString: strerror(errno)))"))
                }
                return nil
            }
            defer { closedir(dir) }
            var names: [(String, UInt8)] = []
            while let ent = readdir(dir) {
                var type = ent.pointee.d_type
                let name = withUnsafePointer(to: ent.pointee.d_name) {
                    $0.withMemoryRebound(to: UInt8.self, capacity: 256) { p -> String? in
                        // "." and ".."; ".git" is listed (a repository's root, or one nested inside) and never entered
                        if p[0] == UInt8(ascii: "."), p[1] == 0 || (p[1] == UInt8(ascii: ".") && p[2] == 0) { return nil }
                        return String(cString: p)
                    }
                }
                guard let name else { continue }
                if name == ".git" {
                    names.append((name, type))
                    continue
                }
                if type == UInt8(DT_UNKNOWN) {
                    var st = stat()
                    guard fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                    let mode = st.st_mode & S_IFMT
                    type = mode == S_IFDIR ? UInt8(DT_DIR) : mode == S_IFLNK ? UInt8(DT_LNK) : UInt8(DT_REG)
                }
                if type == UInt8(DT_DIR) || Sources.isManifestName(name) || Sources.isUnreadYAMLName(name) { names.append((name, type)) }
            }
            names.sort { SourceText.byteLess($0.0, $1.0) }
            return names
        }

        /// Directory symlinks are not followed; file symlinks must stay inside the root. Returns nil for a
        /// symlink to a file inside, "" for one to a directory, else why it is skipped.
        mutating func leavesRoot(_ rel: String) -> String? {
            let full = Sources.join(root, rel)
            var st = stat()
            if stat(full, &st) != 0 { return errno == ELOOP ? "symlink loop" : "dangling symlink" }
            if (st.st_mode & S_IFMT) == S_IFDIR { return "" }
            guard let real = realpath(full, nil) else { return "symlink cannot be resolved" }
            let target = String(cString: real)
            free(real)
            if rootReal == nil { rootReal = realpath(root, nil).map { p -> String in defer { free(p) }; return String(cString: p) } ?? root }
            return target.hasPrefix(rootReal! + "/") ? nil : "symlink points outside the repository (\(target))"
        }
    }

    // MARK: files a build names

    /// A file under `root` that a kustomization names: a regular file inside the root (a symlink may not lead out).
    static func readInside(root: String, _ path: String, options: SourceOptions) -> Result<[UInt8], TagwardenError>? {
        let full = join(root, path)
        guard let real = realpath(full, nil) else { return nil }
        let target = String(cString: real)
        free(real)
        let rootReal = realpath(root, nil).map { p -> String in defer { free(p) }; return String(cString: p) } ?? root
        guard target.hasPrefix(rootReal + "/") else { return .failure(TagwardenError("symlink points outside the repository (\(target))")) }
        var st = stat()
        guard stat(target, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileSystem.readFile(target, limit: options.maxFileSize)
    }

    /// A blob of a tree or the index that a kustomization names.
    static func readEntry(_ repo: GitRepository, _ entry: GitRepository.TreeEntry?, options: SourceOptions) -> Result<[UInt8], TagwardenError>? {
        guard let entry, entry.mode != 0o120000 else { return nil }
        return blob(repo, entry, options: options)
    }

    /// An entry's blob, or why it cannot be linted: over the size limit, or (`isDamage`) missing or damaged.
    static func blob(_ repo: GitRepository, _ entry: GitRepository.TreeEntry, options: SourceOptions) -> Result<[UInt8], TagwardenError> {
        if let known = options.knownBlobs[entry.oid], known.count <= options.maxFileSize { return .success(known) }
        switch repo.readBlob(entry.oid, limit: options.maxFileSize) {
        case .bytes(let b): return .success(b)
        case .tooLarge(let n): return .failure(TagwardenError("larger than the \(ByteCount.formatSize(options.maxFileSize)) limit (\(ByteCount.formatSize(n)))"))
        case .missing: return .failure(TagwardenError("blob \(GitRepository.hex(entry.oid)) is missing from the object database", damage: true))
        case .damaged(let why): return .failure(TagwardenError(why, damage: true))
        }
    }

    // MARK: commits

    /// The tree of commit `rev`, read from the object database (no checkout).
    public static func commit(_ repo: GitRepository, rev: String, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        let sha = try repo.resolveCommit(rev)
        let entries = try repo.treeEntries(commit: sha) { isManifestName($0) || isUnreadYAMLName($0) }
        var skipped: [SkippedFile] = []
        var blobs: [GitOID: [UInt8]] = [:]
        let files = readBlobs(repo, entries, options: options, skipped: &skipped, blobs: &blobs) { path in repo.treeEntry(commit: sha, path: path) }
        return SourceSnapshot(kind: .commit, root: rootOf(repo), rev: sha, files: files, skipped: skipped, blobs: blobs,
                              reader: TreeReader({ readEntry(repo, repo.treeEntry(commit: sha, path: $0), options: options) },
                                                 holdsFiles: { repo.holdsFiles(rev: sha, under: $0, accept: { _ in true }) ?? false }))
    }

    /// The index: exactly the blobs the next commit will contain, whatever the working files say.
    public static func index(_ repo: GitRepository, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        let all = try repo.indexBlobEntries { _ in true }
        var byPath: [String: GitRepository.TreeEntry] = [:]
        for e in all { byPath[e.path] = e }
        var skipped: [SkippedFile] = []
        var blobs: [GitOID: [UInt8]] = [:]
        let files = readBlobs(repo, all.filter { isManifestName($0.path) || isUnreadYAMLName($0.path) }, options: options,
                              skipped: &skipped, blobs: &blobs) { byPath[$0] }
        let read = Set(files.map(\.path))
        return SourceSnapshot(kind: .index, root: rootOf(repo), rev: nil, files: files, skipped: skipped,
                              conflicted: all.filter { $0.conflicted && read.contains($0.path) }.map(\.path), blobs: blobs,
                              reader: TreeReader({ readEntry(repo, byPath[$0], options: options) },
                                                 holdsFiles: { dir in all.contains { $0.path.hasPrefix(dir + "/") } }))
    }

    static func rootOf(_ repo: GitRepository) -> String {
        repo.workdir.map { String($0.dropLast($0.hasSuffix("/") ? 1 : 0)) } ?? repo.gitDir
    }

    /// Reads blobs from the object database, each kept in `blobs` by id; symlinks are followed only to files inside
    /// the same tree.
    static func readBlobs(_ repo: GitRepository, _ entries: [GitRepository.TreeEntry], options: SourceOptions, skipped: inout [SkippedFile],
                          blobs: inout [GitOID: [UInt8]], lookup: (String) -> GitRepository.TreeEntry?) -> [SourceFile] {
        var files: [SourceFile] = []
        files.reserveCapacity(entries.count)
        for entry in entries {
            var target = entry
            if entry.mode == 0o120000 {
                guard case .bytes(let link) = repo.readBlob(entry.oid, limit: 4096),
                      let resolved = resolveLink(from: entry.path, target: String(decoding: link, as: UTF8.self)) else {
                    skipped.append(SkippedFile(path: entry.path, reason: "symlink points outside the repository"))
                    continue
                }
                guard let t = lookup(resolved), t.mode != 0o120000 else {
                    skipped.append(SkippedFile(path: entry.path, reason: "symlink target \(resolved) is not a file in the tree"))
                    continue
                }
                target = t
            }
            let unread = !isManifestName(entry.path)
            switch blob(repo, target, options: options) {
            case .success(let b):
                blobs[target.oid] = b
                if unread && !SourceText.contains(markerToken, in: b) { continue }
                files.append(SourceFile(path: entry.path, bytes: b))
            case .failure(let e):
                if unread && !e.isDamage { continue }   // too large, and Flux would not read it anyway
                skipped.append(SkippedFile(path: entry.path, reason: e.message, severity: e.isDamage ? .error : .note, damaged: e.isDamage))
            }
        }
        return files
    }

    /// Resolves a relative symlink target against the link's directory; nil if it leaves the root.
    package static func resolveLink(from linkPath: String, target: String) -> String? {
        if target.hasPrefix("/") { return nil }
        var parts = linkPath.split(separator: "/").dropLast().map(String.init)
        for comp in target.split(separator: "/") {
            if comp == "." || comp.isEmpty { continue }
            if comp == ".." {
                if parts.isEmpty { return nil }
                parts.removeLast()
            } else {
                parts.append(String(comp))
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
