import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
#if canImport(Glibc)
import Glibc
#endif

/// What the commands share: find the repository, read the config, take a snapshot of the tree.
public struct Workspace {
    public var repo: GitRepository?
    /// The repository root (or the plain directory).
    public var root: String
    /// PATH relative to the root ("" for the root itself).
    public var prefix: String
    public var config: Config
    /// The directories from PATH up to the root (nearest first) where a config file is looked for.
    public var configDirs: [String] = []
    /// Told how far a long read of staging's history is (on a terminal, a progress line).
    public var historyProgress: History.Progress?

    /// Opens the repository containing `path` (or treats `path` as a plain directory) and loads the config
    /// (`configPath`, else `.tagwarden.yaml` at the root, read from `rev`'s tree when a revision is linted).
    /// `configRev` reads the config from another revision's tree than the one linted (the pull request check runs
    /// with the base side's).
    /// `knownRules`: the rule ids the config may name.
    public static func open(path: String, configPath: String?, rev: String? = nil, configRev: String? = nil, fromIndex: Bool = false,
                            fromEnvironment: Bool = false, knownRules: Set<String>) throws -> Workspace {
        let abs: String
        var existing: String?   // for a PATH that only the linted revision has: its nearest ancestor on disk
        if let real = realpath(path, nil) {
            abs = String(cString: real)
            free(real)
        } else {
            let why = errno
            guard why == ENOENT, rev != nil, let (ancestor, full) = Workspace.nearestExisting(path) else {
                throw TagwardenError("\(path): \(String(cString: strerror(why)))")
            }
            abs = full
            existing = ancestor
        }
        var st = stat()
        _ = stat(abs, &st)
        let isDir = existing != nil || (st.st_mode & S_IFMT) == S_IFDIR
        let repo = try GitRepository.discover(existing ?? (isDir ? abs : Path.dirname(abs)), fromEnvironment: fromEnvironment)
        var root = existing ?? (isDir ? abs : Path.dirname(abs))
        if let repo {
            if let wd = repo.workdir {
                let w = String(wd.dropLast(wd.hasSuffix("/") ? 1 : 0))
                root = realpath(w, nil).map { p -> String in defer { free(p) }; return String(cString: p) } ?? w
            } else if rev == nil {
                throw TagwardenError("\(path) is a bare repository: name a revision with --rev")
            } else {
                root = repo.gitDir
            }
        }
        var prefix = ""
        if abs != root {
            if abs.hasPrefix(root + "/") { prefix = String(abs.dropFirst(root.count + 1)) }
        }
        if existing != nil {
            guard let repo, let rev, !prefix.isEmpty, repo.pathExists(commit: try repo.resolveCommit(rev), path: prefix) else {
                throw TagwardenError("\(path): no such file or directory, in the working tree or in \(rev ?? "the revision")")
            }
        }
        var config = Config()
        // The nearest .tagwarden.yaml from PATH up to the root: a subtree can carry its own.
        var dirs: [String] = []
        var d = isDir ? prefix : Path.dirname(prefix)
        while true {
            dirs.append(d)
            if d.isEmpty { break }
            d = Path.dirname(d)
        }
        func name(_ dir: String) -> String { dir.isEmpty ? Config.fileName : dir + "/" + Config.fileName }
        if let configPath {
            switch FileSystem.readFile(configPath, limit: 1 << 20) {
            case .success(let bytes): config = try Config.parse(bytes, path: configPath, knownRules: knownRules)
            case .failure(let e): throw TagwardenError("\(configPath): \(e.message)")
            }
        } else if fromIndex, let repo {
            let entries = try repo.indexBlobEntries { p in dirs.contains { name($0) == p } }
            for dir in dirs {
                if let entry = entries.first(where: { $0.path == name(dir) }), case .bytes(let b) = repo.readBlob(entry.oid, limit: 1 << 20) {
                    config = try Config.parse(b, path: name(dir), knownRules: knownRules)
                    config.baseDir = dir
                    break
                }
            }
        } else if let rev = configRev ?? rev, let repo {
            if let found = try committedConfig(repo: repo, rev: rev, dirs: dirs, knownRules: knownRules) { config = found.config }
        } else {
            for dir in dirs where access(root + "/" + name(dir), F_OK) == 0 {
                switch FileSystem.readFile(root + "/" + name(dir), limit: 1 << 20) {
                case .success(let bytes): config = try Config.parse(bytes, path: name(dir), knownRules: knownRules)
                case .failure(let e): throw TagwardenError("\(name(dir)): \(e.message)")
                }
                config.baseDir = dir
                break
            }
        }
        return Workspace(repo: repo, root: root, prefix: prefix, config: config, configDirs: dirs)
    }

    /// The nearest config file of `dirs` in a revision's tree: its path, bytes and parsed config; nil when the
    /// tree has none.
    public static func committedConfig(repo: GitRepository, rev: String, dirs: [String], knownRules: Set<String>) throws -> (path: String, bytes: [UInt8], config: Config)? {
        let sha = try repo.resolveCommit(rev)
        for dir in dirs {
            let path = dir.isEmpty ? Config.fileName : dir + "/" + Config.fileName
            guard let entry = repo.treeEntry(commit: sha, path: path) else { continue }
            switch repo.readBlob(entry.oid, limit: 1 << 20) {
            case .bytes(let b):
                var config = try Config.parse(b, path: path, knownRules: knownRules)
                config.baseDir = dir
                return (path, b, config)
            case .tooLarge(let n):
                throw TagwardenError("\(path) in \(rev): larger than the 1 MiB a config may be (\(ByteCount.formatSize(n)))")
            case .missing:
                throw TagwardenError("\(path) in \(rev): blob \(GitRepository.hex(entry.oid)) is missing from the object database")
            case .damaged(let why):
                throw TagwardenError("\(path) in \(rev): \(why)")
            }
        }
        return nil
    }

    /// For a `path` missing on disk: the real path of its nearest existing ancestor, and the path made absolute
    /// from it, the rest as written (`.` and `..` taken by name).
    static func nearestExisting(_ path: String) -> (ancestor: String, full: String)? {
        var head = path.isEmpty ? "." : path
        var tail: [Substring] = []
        while true {
            if let real = realpath(head, nil) {
                let ancestor = String(cString: real)
                free(real)
                guard let full = Model.normalizePath(ancestor + "/" + tail.reversed().joined(separator: "/")) else { return nil }
                return (ancestor, "/" + full)
            }
            guard errno == ENOENT, head != "/", head != "." else { return nil }
            let cut = head.lastIndex(of: "/")
            tail.append(cut.map { head[head.index(after: $0)...] } ?? Substring(head))
            head = cut.map { $0 == head.startIndex ? "/" : String(head[..<$0]) } ?? "."
        }
    }

    /// The working tree (or plain directory), the index, or the tree of `rev`. The config file is not a manifest.
    public func snapshot(rev: String?, index: Bool = false, maxFileSize: Int?, knownBlobs: [GitOID: [UInt8]] = [:]) throws -> SourceSnapshot {
        Timings.mark("open")
        var options = SourceOptions()
        options.knownBlobs = knownBlobs
        if let m = maxFileSize ?? config.maxFileSize { options.maxFileSize = m }
        var snap: SourceSnapshot
        if index {
            guard let repo else { throw TagwardenError("--staged needs a git repository, and \(root) is not inside one") }
            snap = try Sources.index(repo, options: options)
        } else if let rev {
            guard let repo else { throw TagwardenError("--rev needs a git repository, and \(root) is not inside one") }
            snap = try Sources.commit(repo, rev: rev, options: options)
        } else if let repo {
            snap = try Sources.worktree(repo, options: options)
        } else {
            snap = try Sources.directory(root, options: options)
        }
        // a config only a run started in its directory (or below) reads: one below or beside where this run starts is
        // said (one above it is the nearest-wins rule, which the run's start chose)
        let configs = snap.files.filter { Config.isConfigPath($0.path) }.map(\.path)
        for path in configs where path != config.path && !configDirs.contains(Path.dirname(path)) {
            let dir = Path.dirname(path)
            snap.notes.append("\(path) is not in force in this run, which reads \(config.path.map { "the config \($0)" } ?? "no config") "
                              + "(the nearest from where it starts): its settings apply to runs started in \(dir.isEmpty ? "." : dir) or below "
                              + "(tagwarden audit \(dir.isEmpty ? "." : dir)), or move them into the config in force")
        }
        snap.files.removeAll { Config.isConfigPath($0.path) }
        if let repo {
            snap.remoteURLs = repo.remoteURLs()
            if rev == nil, let branch = repo.headBranch {
                nonisolated(unsafe) let repo = repo   // (asked on the thread that audits the snapshot, as the snapshot's reader)
                snap.checkout = Checkout(branch: branch, defaultBranch: repo.remoteDefaultBranch) { other, path in
                    let manifest = { (p: String) in [".yaml", ".yml", ".json"].contains { p.hasSuffix($0) } }
                    return repo.holdsFiles(rev: "refs/remotes/origin/" + other, under: path, accept: manifest)
                        ?? repo.holdsFiles(rev: "refs/heads/" + other, under: path, accept: manifest)
                }
            }
        }
        Timings.mark("read")  // the worktree marks its index and walk phases before this
        return snap
    }
}
