import TagwardenBasics
internal import CGit2
#if canImport(Glibc)
import Glibc
#endif

/// libgit2 is initialised once per process, lazily: `--version` and `--help` never pay for it.
private let libgit2Initialised: Bool = {
    DeferredCertificates.initialise { git_libgit2_init() }
    // Objects are re-hashed on every read otherwise; the repository is ours to trust.
    _ = tw_git_disable_strict_hash_verification()
    // No object cache: what Tagwarden reads it reads once or keeps itself (a history walk keeps a commit's trees for
    // its parent's turn), and libgit2's would hold up to 256 MiB of a long history's commits and trees to the end
    // (the raw ones of `git_odb_read` too). Without it, the 50,000-commit benchmark history is read in 0.85× the time
    // and 0.55× the memory; `check --base` costs 2% more instructions, `update` and `audit --rev` the same.
    _ = tw_git_enable_caching(0)
    return true
}()

func lastGitError(_ fallback: String) -> String {
    if let e = git_error_last(), let m = e.pointee.message {
        return String(cString: m)
    }
    return fallback
}

/// One open git repository. Owns its `git_repository*`; use it from one thread at a time.
public final class GitRepository {
    let handle: OpaquePointer

    /// The working directory (with a trailing `/`), nil for a bare repository.
    public let workdir: String?
    public let gitDir: String
    /// The index libgit2 opens is another file than `<git dir>/index`: GIT_INDEX_FILE, which a hook run by `git commit
    /// -a` or `git commit <path>` is given, honoured with `fromEnvironment`.
    let indexElsewhere: Bool

    private init(handle: OpaquePointer, indexElsewhere: Bool = false) {
        self.handle = handle
        workdir = git_repository_workdir(handle).map { String(cString: $0) }
        gitDir = String(cString: git_repository_path(handle))
        self.indexElsewhere = indexElsewhere
    }

    deinit {
        if case let odb?? = odbStorage { git_odb_free(odb) }
        git_repository_free(handle)
    }

    /// Finds the repository containing `path`, or nil when there is none.
    /// `fromEnvironment` honours GIT_DIR, GIT_INDEX_FILE … as git does inside a hook.
    public static func discover(_ path: String, fromEnvironment: Bool = false) throws -> GitRepository? {
        _ = libgit2Initialised
        var repo: OpaquePointer?
        let flags: UInt32 = fromEnvironment ? GIT_REPOSITORY_OPEN_FROM_ENV.rawValue : 0
        let rc = git_repository_open_ext(&repo, fromEnvironment ? nil : path, flags, nil)
        if rc == GIT_ENOTFOUND.rawValue { return nil }
        guard rc == 0, let repo else { throw TagwardenError("cannot open git repository at \(path): \(lastGitError("error \(rc)"))") }
        return GitRepository(handle: repo, indexElsewhere: fromEnvironment && !(getenv("GIT_INDEX_FILE").map { String(cString: $0) } ?? "").isEmpty)
    }

    /// The repository's index. Two formats git writes on request are beyond libgit2 1.5: their errors say how to
    /// get an index it reads.
    func openIndex() throws -> OpaquePointer {
        var index: OpaquePointer?
        guard git_repository_index(&index, handle) == 0, let index else {
            let why = lastGitError("unknown error")
            let fix = why.contains("'sdir'")
                ? "it is a sparse index (index.sparse), which libgit2 cannot read: `git config index.sparse false && git sparse-checkout reapply` writes a full one"
                : why.contains("'link'")
                ? "it is a split index (core.splitIndex), which libgit2 cannot read: `git config core.splitIndex false && git update-index --no-split-index` writes a whole one"
                : nil
            var e = TagwardenError("cannot read the git index: \(fix ?? why)")
            e.isIndexFormat = fix != nil
            throw e
        }
        return index
    }

    /// Tracked paths of the index at stage 0 with their file modes.
    public func indexEntries() throws -> [(path: String, mode: UInt32)] {
        let index = try openIndex()
        defer { git_index_free(index) }
        let count = git_index_entrycount(index)
        var out: [(String, UInt32)] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            guard let e = git_index_get_byindex(index, i) else { continue }
            out.append((String(cString: e.pointee.path), e.pointee.mode))
        }
        return out
    }

    public func isIgnored(_ relativePath: String) -> Bool {
        var ignored: Int32 = 0
        guard git_ignore_path_is_ignored(&ignored, handle, relativePath) == 0 else { return false }
        return ignored == 1
    }

    /// The URLs of the repository's remotes: as configured (`remote.<name>.url`, `pushurl`) and as git uses them
    /// after `url.<base>.insteadOf` rewriting.
    public func remoteURLs() -> [String] {
        var urls: [String] = []
        func add(_ url: String?) {
            if let url, !urls.contains(url) { urls.append(url) }
        }
        let configured = configuredRemotes()
        for remote in configured { add(remote.url) }
        for name in Set(configured.map(\.name)).sorted() {
            var remote: OpaquePointer?
            guard git_remote_lookup(&remote, handle, name) == 0, let remote else { continue }
            defer { git_remote_free(remote) }
            add(git_remote_url(remote).map { String(cString: $0) })
            add(git_remote_pushurl(remote).map { String(cString: $0) })
        }
        return urls
    }

    /// Every `remote.<name>.url` and `pushurl` entry of the configuration, in its order: the remotes as
    /// git_remote_list finds them, read with a plain iterator because libgit2 1.5's regular expression search (which
    /// git_remote_list uses) leaks its pcre2 match data.
    func configuredRemotes() -> [(name: String, url: String)] {
        var config: OpaquePointer?
        guard git_repository_config_snapshot(&config, handle) == 0, let config else { return [] }
        defer { git_config_free(config) }
        var iterator: OpaquePointer?
        guard git_config_iterator_new(&iterator, config) == 0, let iterator else { return [] }
        defer { git_config_iterator_free(iterator) }
        var found: [(name: String, url: String)] = []
        var entry: UnsafeMutablePointer<git_config_entry>?
        while git_config_next(&entry, iterator) == 0, let e = entry?.pointee, let key = e.name, let value = e.value {
            let name = String(cString: key)
            guard name.hasPrefix("remote."), let kind = [".url", ".pushurl"].first(where: name.hasSuffix), name.count > 7 + kind.count else { continue }
            found.append((String(name.dropFirst(7).dropLast(kind.count)), String(cString: value)))
        }
        return found
    }

    /// Remote-tracking branches called `name` (`origin/main` for `main`), sorted.
    func remoteBranches(named name: String) -> [String] {
        guard !name.isEmpty, !name.contains("*"), !name.contains("?"), !name.contains("[") else { return [] }
        var iter: OpaquePointer?
        guard git_reference_iterator_glob_new(&iter, handle, "refs/remotes/*/" + name) == 0, let iter else { return [] }
        defer { git_reference_iterator_free(iter) }
        var names: [String] = []
        var ref: UnsafePointer<CChar>?
        while git_reference_next_name(&ref, iter) == 0, let ref {
            names.append(String(String(cString: ref).dropFirst("refs/remotes/".count)))
        }
        return names.sorted()
    }

    /// Resolves any commit-ish to its commit id.
    public func resolveCommit(_ rev: String) throws -> String {
        var obj: OpaquePointer?
        guard git_revparse_single(&obj, handle, rev) == 0, let obj else {
            let why = lastGitError("not found")
            if git_repository_head_unborn(handle) == 1 {
                throw TagwardenError("unknown revision '\(rev)': the repository has no commits yet")
            }
            let remote = remoteBranches(named: rev).first.map { " (did you mean '\($0)'? CI clones often have the remote-tracking branch only)" } ?? ""
            throw TagwardenError("unknown revision '\(rev)': \(why)\(remote)\(isShallow ? "; \(Self.shallowHint)" : "")")
        }
        defer { git_object_free(obj) }
        var commit: OpaquePointer?
        guard git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) == 0, let commit else {
            throw TagwardenError("revision '\(rev)' does not name a commit")
        }
        defer { git_object_free(commit) }
        return Self.hex(git_object_id(commit))
    }

    /// The 40 lowercase hex digits of an object id.
    public static func hex(_ oid: GitOID) -> String { oid.hex }

    static func hex(_ oid: UnsafePointer<git_oid>?) -> String { GitOID(oid)?.hex ?? "" }

    public struct TreeEntry {
        public var path: String
        public var oid: GitOID
        public var mode: UInt32
        /// An index entry of an unresolved merge conflict (its "ours" side).
        public var conflicted = false
    }

    private final class WalkBox {
        var entries: [TreeEntry] = []
        let accept: (String) -> Bool
        init(accept: @escaping (String) -> Bool) { self.accept = accept }
    }

    /// Blob entries of the tree of commit `commitId`, filtered by name.
    public func treeEntries(commit commitId: String, accept: @escaping (String) -> Bool) throws -> [TreeEntry] {
        try blobs(ofTree: commitId + "^{tree}", named: commitId, accept: accept)
    }

    /// Blob entries of the tree revision expression `spec` names (`<commit>^{tree}`, `<commit>:<directory>`), by name
    /// within it.
    private func blobs(ofTree spec: String, named commitId: String, accept: @escaping (String) -> Bool) throws -> [TreeEntry] {
        var obj: OpaquePointer?
        guard git_revparse_single(&obj, handle, spec) == 0, let obj, git_object_type(obj) == GIT_OBJECT_TREE else {
            if let obj { git_object_free(obj) }
            throw TagwardenError("cannot read the tree of \(commitId): \(lastGitError("not found"))")
        }
        defer { git_object_free(obj) }
        let box = WalkBox(accept: accept)
        let payload = Unmanaged.passUnretained(box).toOpaque()
        let rc = git_tree_walk(obj, GIT_TREEWALK_PRE, { root, entry, payload in
            guard let entry, let payload else { return 0 }
            let box = Unmanaged<WalkBox>.fromOpaque(payload).takeUnretainedValue()
            guard git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return 0 }
            let name = String(cString: git_tree_entry_name(entry))
            let path = (root.map { String(cString: $0) } ?? "") + name
            guard box.accept(path) else { return 0 }
            box.entries.append(TreeEntry(path: path, oid: GitOID(git_tree_entry_id(entry).pointee),
                                         mode: git_tree_entry_filemode(entry).rawValue))
            return 0
        }, payload)
        guard rc == 0 else { throw TagwardenError("cannot walk the tree of \(commitId): \(lastGitError("error \(rc)"))") }
        return box.entries
    }

    /// Looks up the blob at `path` in a commit's tree (used to follow symlinks inside a tree).
    public func treeEntry(commit commitId: String, path: String) -> TreeEntry? {
        var obj: OpaquePointer?
        guard git_revparse_single(&obj, handle, commitId + "^{tree}") == 0, let obj else { return nil }
        defer { git_object_free(obj) }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, obj, path) == 0, let entry else { return nil }
        defer { git_tree_entry_free(entry) }
        guard git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return nil }
        return TreeEntry(path: path, oid: GitOID(git_tree_entry_id(entry).pointee), mode: git_tree_entry_filemode(entry).rawValue)
    }

    /// Whether the tree of `rev` holds a file under directory `path` that `accept` takes; nil when `rev` names no commit.
    public func holdsFiles(rev: String, under path: String, accept: @escaping (String) -> Bool) -> Bool? {
        guard let commit = try? resolveCommit(rev) else { return nil }
        // (the directory's own tree, walked alone: a path that is no directory there holds nothing)
        let entries = (try? blobs(ofTree: path.isEmpty ? commit + "^{tree}" : commit + ":" + path, named: commit, accept: accept)) ?? []
        return !entries.isEmpty
    }

    /// Whether the tree of the commit has a file or directory at `path`.
    public func pathExists(commit commitId: String, path: String) -> Bool {
        var obj: OpaquePointer?
        guard git_revparse_single(&obj, handle, commitId + "^{tree}") == 0, let obj else { return false }
        defer { git_object_free(obj) }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, obj, path) == 0, let entry else { return false }
        git_tree_entry_free(entry)
        return true
    }

    public enum BlobRead {
        case bytes([UInt8])
        case tooLarge(Int)
        case missing
        /// The object is there but cannot be read whole (a truncated or damaged loose object): why.
        case damaged(String)
    }

    /// A blob's bytes. Its size is read first, so a blob over `limit` is never inflated. A loose object is
    /// inflated here, with zlib, and checked to end where its header says: libgit2 1.5 loops forever on a
    /// truncated one (git itself fails at once).
    public func readBlob(_ oid: GitOID, limit: Int) -> BlobRead {
        var id = oid.raw
        if let loose = looseObject(oid) {
            return loose.read(limit: limit, id: Self.hex(oid))
        }
        guard let odb else { return .missing }
        var size = 0
        var type = GIT_OBJECT_INVALID
        guard git_odb_read_header(&size, &type, odb, &id) == 0 else {
            return git_odb_exists(odb, &id) == 1 ? .damaged("object \(Self.hex(oid)) cannot be read: \(lastGitError("damaged"))") : .missing
        }
        if size > limit { return .tooLarge(size) }
        var blob: OpaquePointer?
        guard git_blob_lookup(&blob, handle, &id) == 0, let blob else {
            return .damaged("object \(Self.hex(oid)) cannot be read: \(lastGitError("damaged"))")
        }
        defer { git_blob_free(blob) }
        let n = Int(git_blob_rawsize(blob))
        guard n > 0, let raw = git_blob_rawcontent(blob) else { return .bytes([]) }
        return .bytes(Array(UnsafeRawBufferPointer(start: raw, count: n)))
    }

    /// The object database, opened on first use and kept.
    var odb: OpaquePointer? {
        if let opened = odbStorage { return opened }
        var odb: OpaquePointer?
        let opened = git_repository_odb(&odb, handle) == 0 ? odb : nil
        odbStorage = .some(opened)
        return opened
    }
    private var odbStorage: OpaquePointer??
    /// The trees the last comparison of a commit with its parent read on the parent's side (`changedEntries`).
    let parentSideTrees = KeptTrees()

    /// The loose object file of an object id, if the repository (or an alternate it names) has one. Each fan-out
    /// directory (`objects/ab/`) is listed once: a packed repository costs one failed listing per prefix, not one
    /// failed open per blob.
    func looseObject(_ oid: GitOID) -> LooseObject? {
        let first = Int(oid.raw.id.0)
        var hexId: String?
        for (d, dir) in objectDirectories.enumerated() {
            if looseNames[d][first] == nil {
                let fanOut = dir + "/" + Self.hexByte(UInt8(first))
                looseNames[d][first] = Set((try? FileSystem.directoryEntries(fanOut)) ?? [])
            }
            guard !looseNames[d][first]!.isEmpty else { continue }
            if hexId == nil { hexId = Self.hex(oid) }
            let rest = String(hexId!.dropFirst(2))
            guard looseNames[d][first]!.contains(rest) else { continue }
            let fd = open(dir + "/" + hexId!.prefix(2) + "/" + rest, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return LooseObject(fd: fd) }
        }
        return nil
    }
    /// Per object directory, per first byte: the names in that fan-out directory (nil: not listed yet).
    private lazy var looseNames: [[Set<String>?]] = Array(repeating: Array(repeating: nil, count: 256), count: objectDirectories.count)

    static func hexByte(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }

    /// The object directory and those `objects/info/alternates` names (one level, as they are usually set up).
    private(set) lazy var objectDirectories: [String] = {
        let common = commonDir.hasSuffix("/") ? String(commonDir.dropLast()) : commonDir
        let objects = common + "/objects"
        var dirs = [objects]
        if case .success(let bytes) = FileSystem.readFile(objects + "/info/alternates", limit: 1 << 16) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
                dirs.append(line.hasPrefix("/") ? String(line) : objects + "/" + line)
            }
        }
        return dirs
    }()

    // MARK: index

    /// The index's blob entries (what the next commit will contain) at stage 0, and the "ours" side of a conflict,
    /// filtered by name; as libgit2 reads them (`indexBlobEntries` reads most index files directly).
    func libgit2IndexBlobEntries(accept: (String) -> Bool) throws -> [TreeEntry] {
        let index = try openIndex()
        defer { git_index_free(index) }
        var out: [TreeEntry] = []
        for i in 0..<git_index_entrycount(index) {
            guard let e = git_index_get_byindex(index, i) else { continue }
            let stage = (UInt32(e.pointee.flags) & 0x3000) >> 12
            guard stage == 0 || stage == 2 else { continue }  // a conflict: lint "ours"
            let path = String(cString: e.pointee.path)
            guard accept(path), e.pointee.mode != 0o160000 else { continue }
            out.append(TreeEntry(path: path, oid: GitOID(e.pointee.id), mode: e.pointee.mode, conflicted: stage == 2))
        }
        return out
    }

    /// Paths whose staged content differs from HEAD (added, modified, deleted, renamed: both names).
    /// With no HEAD (an unborn branch) every staged path counts.
    public func stagedChanges() throws -> Set<String> {
        let index = try openIndex()
        defer { git_index_free(index) }
        var tree: OpaquePointer?
        if git_revparse_single(&tree, handle, "HEAD^{tree}") != 0 { tree = nil }
        defer { if let tree { git_object_free(tree) } }
        var diff: OpaquePointer?
        guard git_diff_tree_to_index(&diff, handle, tree, index, nil) == 0, let diff else {
            throw TagwardenError("cannot diff the index against HEAD: \(lastGitError("unknown error"))")
        }
        defer { git_diff_free(diff) }
        return Self.deltaPaths(diff)
    }

    static func deltaPaths(_ diff: OpaquePointer) -> Set<String> {
        var out = Set<String>()
        for i in 0..<git_diff_num_deltas(diff) {
            guard let d = git_diff_get_delta(diff, i) else { continue }
            if let p = d.pointee.old_file.path { out.insert(String(cString: p)) }
            if let p = d.pointee.new_file.path { out.insert(String(cString: p)) }
        }
        return out
    }

    public var hasHead: Bool {
        var obj: OpaquePointer?
        guard git_revparse_single(&obj, handle, "HEAD^{commit}") == 0, let obj else { return false }
        git_object_free(obj)
        return true
    }

    /// The branch HEAD is on (`main`); nil for a detached HEAD.
    public var headBranch: String? {
        var ref: OpaquePointer?
        guard git_repository_head(&ref, handle) == 0, let ref else { return nil }
        defer { git_reference_free(ref) }
        guard git_reference_is_branch(ref) == 1, let name = git_reference_shorthand(ref) else { return nil }
        return String(cString: name)
    }

    /// The branch `origin/HEAD` names (`main`), which a clone records as the remote's default; nil without one.
    public var remoteDefaultBranch: String? {
        var ref: OpaquePointer?
        guard git_reference_lookup(&ref, handle, "refs/remotes/origin/HEAD") == 0, let ref else { return nil }
        defer { git_reference_free(ref) }
        guard let target = git_reference_symbolic_target(ref).map({ String(cString: $0) }), target.hasPrefix("refs/remotes/origin/") else { return nil }
        return String(target.dropFirst("refs/remotes/origin/".count))
    }

    public var isShallow: Bool { git_repository_is_shallow(handle) == 1 }
    public static let shallowHint = "the clone is shallow: fetch more history (git fetch --unshallow, or actions/checkout with fetch-depth: 0)"

    static func oid(_ hex: String) -> git_oid? {
        var o = git_oid()
        return git_oid_fromstr(&o, hex) == 0 ? o : nil
    }

    /// The merge base of two commits, or nil when they share no history (as far as this clone knows).
    public func mergeBase(_ a: String, _ b: String) -> String? {
        guard var x = Self.oid(a), var y = Self.oid(b) else { return nil }
        var out = git_oid()
        guard git_merge_base(&out, handle, &x, &y) == 0 else { return nil }
        return Self.hex(&out)
    }

    public func isAncestor(_ ancestor: String, of commit: String) -> Bool {
        guard var a = Self.oid(ancestor), var c = Self.oid(commit) else { return false }
        if git_oid_equal(&a, &c) == 1 { return true }
        return git_graph_descendant_of(handle, &c, &a) == 1
    }

    /// Commits reachable from `tip` and not from `hide`, newest first.
    public func commits(from tip: String, hiding hide: String?) throws -> [String] {
        var walk: OpaquePointer?
        guard git_revwalk_new(&walk, handle) == 0, let walk else { throw TagwardenError("cannot walk history: \(lastGitError(""))") }
        defer { git_revwalk_free(walk) }
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue)
        guard var t = Self.oid(tip), git_revwalk_push(walk, &t) == 0 else { throw TagwardenError("cannot walk history from \(tip)") }
        if let hide, var h = Self.oid(hide) { _ = git_revwalk_hide(walk, &h) }
        var out: [String] = []
        var o = git_oid()
        while git_revwalk_next(&o, walk) == 0 { out.append(Self.hex(&o)) }
        return out
    }

    /// A commit's subject line and author time (seconds since the epoch); nil when there is no such commit.
    public func commitSummary(_ commit: String) -> (subject: String, time: Int64)? {
        guard var id = Self.oid(commit) else { return nil }
        var c: OpaquePointer?
        guard git_commit_lookup(&c, handle, &id) == 0, let c else { return nil }
        defer { git_commit_free(c) }
        let subject = git_commit_summary(c).map { String(cString: $0) } ?? ""
        return (subject, Int64(git_commit_time(c)))
    }

    /// Blob entries that changed between `commit`'s first parent (or nothing) and `commit`, filtered by name.
    public func changedEntries(commit: String, accept: (String) -> Bool) throws -> [TreeEntry] {
        guard let id = GitOID(hex: commit) else { return [] }
        let header = try commitHeader(id)
        return try changedEntries(CommitTrees(commit: id, tree: header.tree, parentTree: parentTree(header)), accept: accept)
    }

    /// Files renamed (or moved) between two commits, old path → new path, as `git diff -M` finds them
    /// (content at least 50% similar).
    public func renames(from old: String, to new: String) throws -> [String: String] {
        func tree(_ commit: String) throws -> OpaquePointer {
            var t: OpaquePointer?
            guard git_revparse_single(&t, handle, commit + "^{tree}") == 0, let t else { throw TagwardenError("cannot read the tree of \(commit)") }
            return t
        }
        let a = try tree(old)
        defer { git_object_free(a) }
        let b = try tree(new)
        defer { git_object_free(b) }
        var diff: OpaquePointer?
        guard git_diff_tree_to_tree(&diff, handle, a, b, nil) == 0, let diff else {
            throw TagwardenError("cannot diff \(old) and \(new): \(lastGitError("unknown error"))")
        }
        defer { git_diff_free(diff) }
        var opts = git_diff_find_options()
        git_diff_find_options_init(&opts, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION))
        opts.flags = GIT_DIFF_FIND_RENAMES.rawValue
        // every added file is compared with every deleted one, as git does (libgit2 stops after 1000 candidates
        // per file, so a pull request that moves more files than that would see half of them as new)
        opts.rename_limit = max(1000, git_diff_num_deltas(diff))
        guard git_diff_find_similar(diff, &opts) == 0 else {
            throw TagwardenError("cannot find renames between \(old) and \(new): \(lastGitError("unknown error"))")
        }
        var out: [String: String] = [:]
        for i in 0..<git_diff_num_deltas(diff) {
            guard let d = git_diff_get_delta(diff, i), d.pointee.status == GIT_DELTA_RENAMED,
                  let from = d.pointee.old_file.path, let to = d.pointee.new_file.path else { continue }
            out[String(cString: from)] = String(cString: to)
        }
        return out
    }

    /// A string from the repository's configuration (all levels), or nil.
    public func configString(_ name: String) -> String? {
        var cfg: OpaquePointer?
        guard git_repository_config_snapshot(&cfg, handle) == 0, let cfg else { return nil }
        defer { git_config_free(cfg) }
        var out: UnsafePointer<CChar>?
        guard git_config_get_string(&out, cfg, name) == 0, let out else { return nil }
        return String(cString: out)
    }

    /// The common git directory (shared by linked worktrees).
    public var commonDir: String { String(cString: git_repository_commondir(handle)) }
}

/// An open loose object file: zlib-deflated `<type> <size>\0<content>`, read in chunks: the size in the header
/// is known before the content is inflated, and the end of the input is the end of the reading.
struct LooseObject {
    let fd: Int32

    func read(limit: Int, id: String) -> GitRepository.BlobRead {
        defer { close(fd) }
        func damaged(_ why: String) -> GitRepository.BlobRead { .damaged("loose object \(id) is damaged: \(why)") }
        var stream = z_stream()
        guard tw_inflate_init(&stream) == Z_OK else { return damaged("zlib cannot start") }
        defer { inflateEnd(&stream) }
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
        defer { chunk.deallocate() }
        /// More input when the last is used up; false at the end of the file (or on a read error).
        func refill() -> Bool {
            while true {
                let n = Glibc.read(fd, chunk, 1 << 16)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                stream.next_in = chunk
                stream.avail_in = UInt32(n)
                return true
            }
        }
        /// Inflates into `buffer` until it is full or the stream ends; false when the input ends first.
        func inflate(into buffer: UnsafeMutableRawBufferPointer) -> (rc: Int32, filled: Int) {
            stream.next_out = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_out = UInt32(buffer.count)
            var rc: Int32 = Z_OK
            while stream.avail_out > 0 {
                if stream.avail_in == 0, !refill() { rc = Z_BUF_ERROR; break }
                rc = zlibInflate(&stream, Z_NO_FLUSH)
                if rc != Z_OK { break }
            }
            return (rc, buffer.count - Int(stream.avail_out))
        }
        // the header and the first bytes: `blob <size>\0` is at most 32 bytes as git writes it
        var head = [UInt8](repeating: 0, count: 64)
        let (headRC, headCount) = head.withUnsafeMutableBytes { inflate(into: $0) }
        guard headRC == Z_OK || headRC == Z_STREAM_END || headRC == Z_BUF_ERROR else { return damaged("zlib error \(headRC)") }
        guard let nul = head[0..<headCount].firstIndex(of: 0), let space = head[0..<nul].firstIndex(of: 32) else {
            return damaged("no object header")
        }
        let type = String(decoding: head[0..<space], as: UTF8.self)
        guard type == "blob" else { return damaged("a \(type), not a blob") }
        guard let size = Int(String(decoding: head[(space + 1)..<nul], as: UTF8.self)), size >= 0 else { return damaged("no size in the header") }
        if size > limit { return .tooLarge(size) }
        let early = head[(nul + 1)..<headCount]
        guard early.count <= size else { return damaged("longer than the \(size) bytes its header says") }
        var out = [UInt8](repeating: 0, count: size)
        out.replaceSubrange(0..<early.count, with: early)
        var rc = headRC
        var produced = early.count
        if rc != Z_STREAM_END, produced < size {
            let (r, n) = out.withUnsafeMutableBytes { inflate(into: UnsafeMutableRawBufferPointer(rebasing: $0[produced...])) }
            rc = r
            produced += n
        }
        if rc != Z_STREAM_END, produced == size {
            // full: the stream must end here, with nothing more to give
            var extra: UInt8 = 0
            let (r, n) = withUnsafeMutableBytes(of: &extra) { inflate(into: $0) }
            guard n == 0 else { return damaged("longer than the \(size) bytes its header says") }
            rc = r
        }
        guard rc == Z_STREAM_END else {
            return damaged(rc == Z_BUF_ERROR ? "truncated (\(produced) of \(size) bytes)" : "zlib error \(rc)")
        }
        guard produced == size else { return damaged("\(produced) bytes where its header says \(size)") }
        return .bytes(out)
    }
}

private func zlibInflate(_ stream: inout z_stream, _ flush: Int32) -> Int32 { inflate(&stream, flush) }
