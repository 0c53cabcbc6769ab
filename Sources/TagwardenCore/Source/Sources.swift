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
    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }

    /// A YAML-looking file that Flux never reads (`.YAML`, `.yaml.tpl`, `kustomization`): it matters only for
    /// the markers it holds in vain.
    public var unread: Bool { !Sources.isManifestName(path) }
}

public struct SkippedFile: Sendable, Equatable {
    public var path: String
    public var reason: String
}

/// The manifests of one tree: what the rest of Tagwarden reads, whatever the tree came from.
public struct SourceSnapshot: Sendable {
    public var kind: SourceKind
    public var root: String
    public var rev: String?
    public var files: [SourceFile]
    public var skipped: [SkippedFile]
}

public struct SourceOptions: Sendable {
    public var maxFileSize = 10 * 1024 * 1024
    public init() {}
}

public enum Sources {
    /// `*.yaml`, `*.yml`, and files named `Kustomization`.
    /// Names that look like YAML manifests but that Flux's file filter passes over: another case
    /// (`app.YAML`), a template suffix (`app.yaml.tpl`), a lower-case `kustomization`.
    public static func isUnreadYAMLName(_ path: String) -> Bool {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        if isManifestName(base) { return false }
        let lower = base.lowercased()
        return lower.hasSuffix(".yaml") || lower.hasSuffix(".yml") || lower.contains(".yaml.") || lower.contains(".yml.")
            || base == "kustomization"
    }

    static let markerToken = Array("$imagepolicy".utf8)

    public static func isManifestName(_ path: String) -> Bool {
        let u = path.utf8
        if u.last == UInt8(ascii: "l") {
            return path.hasSuffix(".yaml") || path.hasSuffix(".yml")
        }
        return path == "Kustomization" || path.hasSuffix("/Kustomization")
    }

    /// Byte order of the UTF-8 (what git sorts paths by), with memcmp.
    static func bytewiseLess(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? c < 0 : x.count < y.count
            }
        }
    }

    static func join(_ a: String, _ b: String) -> String {
        if a.isEmpty { return b }
        return a.hasSuffix("/") ? a + b : a + "/" + b
    }

    // MARK: working tree and plain directories

    /// The working tree of `repo`: tracked files and untracked files that .gitignore does not ignore.
    public static func worktree(_ repo: GitRepository, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        guard let workdir = repo.workdir else { throw TagwardenError("repository \(repo.gitDir) is bare: use --rev") }
        let root = String(workdir.dropLast(workdir.hasSuffix("/") ? 1 : 0))
        var tracked = Set<String>()
        var trackedDirs = Set<String>()
        for e in try repo.indexEntries() {
            tracked.insert(e.path)
            var p = Substring(e.path)
            while let slash = p.utf8.lastIndex(of: UInt8(ascii: "/")) {
                p = p[..<slash]
                if !trackedDirs.insert(String(p)).inserted { break }
            }
        }
        Timings.mark("index")
        var found: [String] = []
        var skipped: [SkippedFile] = []
        walk(root: root, relative: "", found: &found, skipped: &skipped,
             includeDir: { rel in trackedDirs.contains(rel) || !repo.isIgnored(rel + "/") },
             includeFile: { rel in tracked.contains(rel) || !repo.isIgnored(rel) })
        Timings.mark("walk")
        let files = readAll(root: root, found, options: options, skipped: &skipped)
        Timings.mark("read")
        return SourceSnapshot(kind: .worktree, root: root, rev: nil, files: files, skipped: skipped)
    }

    /// A directory that is not in a git repository: every manifest under it.
    public static func directory(_ root: String, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        var found: [String] = []
        var skipped: [SkippedFile] = []
        walk(root: root, relative: "", found: &found, skipped: &skipped, includeDir: { _ in true }, includeFile: { _ in true })
        let files = readAll(root: root, found, options: options, skipped: &skipped)
        return SourceSnapshot(kind: .directory, root: root, rev: nil, files: files, skipped: skipped)
    }

    /// Reads the files the walk found, on all cores.
    static func readAll(root: String, _ paths: [String], options: SourceOptions, skipped: inout [SkippedFile]) -> [SourceFile] {
        final class Slots: @unchecked Sendable {
            var items: [Result<[UInt8], TagwardenError>?]
            init(_ n: Int) { items = Array(repeating: nil, count: n) }
        }
        let slots = Slots(paths.count)
        let chunk = 64
        let limit = options.maxFileSize
        slots.items.withUnsafeMutableBufferPointer { buf in
            nonisolated(unsafe) let out = buf
            DispatchQueue.concurrentPerform(iterations: (paths.count + chunk - 1) / chunk) { c in
                for i in (c * chunk)..<min(paths.count, (c + 1) * chunk) {
                    out[i] = readFile(join(root, paths[i]), limit: limit)
                }
            }
        }
        var files: [SourceFile] = []
        files.reserveCapacity(paths.count)
        for (i, r) in slots.items.enumerated() {
            let unread = !isManifestName(paths[i])
            switch r {
            case .success(let bytes)?:
                // a file Flux never reads matters only for the markers it holds in vain
                if unread && !SourceText.contains(markerToken, in: bytes) { continue }
                files.append(SourceFile(path: paths[i], bytes: bytes))
            case .failure(let e)?:
                if !unread { skipped.append(SkippedFile(path: paths[i], reason: e.message)) }
            case nil: break
            }
        }
        return files
    }

    static func walk(root: String, relative: String, found: inout [String], skipped: inout [SkippedFile],
                     includeDir: (String) -> Bool, includeFile: (String) -> Bool) {
        let fd = open(join(root, relative), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            if !relative.isEmpty { skipped.append(SkippedFile(path: relative, reason: "directory cannot be read: \(String(cString: strerror(errno)))")) }
            return
        }
        walk(fd, root: root, relative: relative, found: &found, skipped: &skipped, includeDir: includeDir, includeFile: includeFile)
    }

    /// One directory, opened as `fd` (which this closes); subdirectories are opened relative to it, so that
    /// no path is looked up from the root again.
    private static func walk(_ fd: Int32, root: String, relative: String, found: inout [String], skipped: inout [SkippedFile],
                             includeDir: (String) -> Bool, includeFile: (String) -> Bool) {
        guard let dir = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(dir) }
        var names: [(String, UInt8)] = []
        while let ent = readdir(dir) {
            let type = ent.pointee.d_type
            let name = withUnsafePointer(to: ent.pointee.d_name) {
                $0.withMemoryRebound(to: UInt8.self, capacity: 256) { p -> String? in
                    // ".", ".." and ".git"
                    if p[0] == UInt8(ascii: "."), p[1] == 0 || (p[1] == UInt8(ascii: ".") && p[2] == 0)
                        || (p[1] == UInt8(ascii: "g") && p[2] == UInt8(ascii: "i") && p[3] == UInt8(ascii: "t") && p[4] == 0) {
                        return nil
                    }
                    return String(cString: p)
                }
            }
            if let name { names.append((name, type)) }
        }
        names.sort { bytewiseLess($0.0, $1.0) }
        let parent = dirfd(dir)
        for (name, dtype) in names {
            var type = dtype
            if type == UInt8(DT_UNKNOWN) {
                var st = stat()
                guard fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                type = (st.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : (st.st_mode & S_IFMT) == S_IFLNK ? UInt8(DT_LNK) : UInt8(DT_REG)
            }
            if type == UInt8(DT_DIR) {
                let rel = relative.isEmpty ? name : relative + "/" + name
                guard includeDir(rel) else { continue }
                let child = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else {
                    skipped.append(SkippedFile(path: rel, reason: "directory cannot be read: \(String(cString: strerror(errno)))"))
                    continue
                }
                walk(child, root: root, relative: rel, found: &found, skipped: &skipped, includeDir: includeDir, includeFile: includeFile)
                continue
            }
            guard isManifestName(name) || isUnreadYAMLName(name) else { continue }
            let rel = relative.isEmpty ? name : relative + "/" + name
            guard includeFile(rel) else { continue }
            if type == UInt8(DT_LNK) {
                // Directory symlinks are not followed; file symlinks must stay inside the root.
                let full = join(root, rel)
                var st = stat()
                if stat(full, &st) != 0 {
                    let reason = errno == ELOOP ? "symlink loop" : "dangling symlink"
                    skipped.append(SkippedFile(path: rel, reason: reason))
                    continue
                }
                if (st.st_mode & S_IFMT) == S_IFDIR { continue }
                guard let real = realpath(full, nil) else {
                    skipped.append(SkippedFile(path: rel, reason: "symlink cannot be resolved"))
                    continue
                }
                let target = String(cString: real)
                free(real)
                let rootReal = realpath(root, nil).map { p -> String in defer { free(p) }; return String(cString: p) } ?? root
                if !(target.hasPrefix(rootReal + "/")) {
                    skipped.append(SkippedFile(path: rel, reason: "symlink points outside the repository (\(target))"))
                    continue
                }
            }
            found.append(rel)
        }
    }

    /// Reads a regular file whole; anything else (a FIFO, a device, an unreadable or too large file) is an error.
    public static func readFile(_ path: String, limit: Int) -> Result<[UInt8], TagwardenError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(TagwardenError("cannot be read: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(TagwardenError("cannot be read: \(String(cString: strerror(errno)))")) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(TagwardenError("not a regular file")) }
        let size = Int(st.st_size)
        if size > limit { return .failure(TagwardenError("larger than the \(formatSize(limit)) limit (\(formatSize(size)))")) }
        var bytes = [UInt8](repeating: 0, count: size)
        var got = 0
        while got < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, size - got) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(TagwardenError("cannot be read: \(String(cString: strerror(errno)))"))
            }
            if n == 0 { break }
            got += n
        }
        if got < size { bytes.removeSubrange(got...) }
        return .success(bytes)
    }

    public static func formatSize(_ n: Int) -> String {
        if n >= 1024 * 1024, n % (1024 * 1024) == 0 { return "\(n / (1024 * 1024)) MiB" }
        if n >= 1024 * 1024 { return String(format1(Double(n) / 1048576.0)) + " MiB" }
        if n >= 1024 { return "\(n / 1024) KiB" }
        return "\(n) bytes"
    }

    static func format1(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    // MARK: commits

    /// The tree of commit `rev`, read from the object database (no checkout).
    public static func commit(_ repo: GitRepository, rev: String, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        let sha = try repo.resolveCommit(rev)
        let entries = try repo.treeEntries(commit: sha) { isManifestName($0) || isUnreadYAMLName($0) }
        var skipped: [SkippedFile] = []
        let files = readBlobs(repo, entries, options: options, skipped: &skipped) { path in repo.treeEntry(commit: sha, path: path) }
        return SourceSnapshot(kind: .commit, root: rootOf(repo), rev: sha, files: files, skipped: skipped)
    }

    /// The index: exactly the blobs the next commit will contain, whatever the working files say.
    public static func index(_ repo: GitRepository, options: SourceOptions = SourceOptions()) throws -> SourceSnapshot {
        let all = try repo.indexBlobEntries { _ in true }
        var byPath: [String: GitRepository.TreeEntry] = [:]
        for e in all { byPath[e.path] = e }
        var skipped: [SkippedFile] = []
        let files = readBlobs(repo, all.filter { isManifestName($0.path) || isUnreadYAMLName($0.path) }, options: options,
                              skipped: &skipped) { byPath[$0] }
        return SourceSnapshot(kind: .index, root: rootOf(repo), rev: nil, files: files, skipped: skipped)
    }

    static func rootOf(_ repo: GitRepository) -> String {
        repo.workdir.map { String($0.dropLast($0.hasSuffix("/") ? 1 : 0)) } ?? repo.gitDir
    }

    /// Reads blobs from the object database; symlinks are followed only to files inside the same tree.
    static func readBlobs(_ repo: GitRepository, _ entries: [GitRepository.TreeEntry], options: SourceOptions,
                          skipped: inout [SkippedFile], lookup: (String) -> GitRepository.TreeEntry?) -> [SourceFile] {
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
            switch repo.readBlob(target.oid, limit: options.maxFileSize) {
            case .bytes(let b):
                if unread && !SourceText.contains(markerToken, in: b) { continue }
                files.append(SourceFile(path: entry.path, bytes: b))
            case .tooLarge(let n):
                if unread { continue }
                skipped.append(SkippedFile(path: entry.path, reason: "larger than the \(formatSize(options.maxFileSize)) limit (\(formatSize(n)))"))
            case .missing:
                skipped.append(SkippedFile(path: entry.path, reason: "blob missing from the object database"))
            }
        }
        return files
    }

    /// Resolves a relative symlink target against the link's directory; nil if it leaves the root.
    static func resolveLink(from linkPath: String, target: String) -> String? {
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
