import TagwardenBasics
internal import CGit2
#if canImport(Glibc)
import Glibc
#endif

/// One commit of a history walk: its tree and its first parent's.
public struct CommitTrees: Sendable {
    public let commit: GitOID
    public let tree: GitOID
    /// nil for a root commit, or for a parent this clone does not have (a shallow clone's first commit)
    public let parentTree: GitOID?
}

extension GitRepository {
    /// The commits `tip` reaches, leaving out those `hide` reaches, each read once, with its tree and its first
    /// parent's. In walk order: a commit is followed by its first parent when nothing else comes first.
    public func commitTrees(from tip: GitOID, hiding hide: GitOID?) throws -> [CommitTrees] {
        let walked = try hide.map { try commits(from: tip, hiding: $0) } ?? commits(reachableFrom: tip)
        var treeOf: [GitOID: GitOID] = [:]
        for c in walked { treeOf[c.commit] = c.tree }
        return try walked.map { c in
            let parentTree = try c.parents.first.flatMap { treeOf[$0] } ?? parentTree((c.tree, c.parents))
            return CommitTrees(commit: c.commit, tree: c.tree, parentTree: parentTree)
        }
    }

    private typealias WalkedCommit = (commit: GitOID, tree: GitOID, parents: [GitOID])

    /// Every commit `tip` reaches, depth first along first parents; a parent the clone lacks (shallow) ends its line.
    private func commits(reachableFrom tip: GitOID) throws -> [WalkedCommit] {
        var out: [WalkedCommit] = []
        var seen: Set<GitOID> = [tip]
        var next = [tip]
        while let c = next.popLast() {
            let header = try commitHeader(c)
            out.append((c, header.tree, header.parents))
            for p in header.parents.reversed() where seen.insert(p).inserted && odbHas(p) { next.append(p) }
        }
        return out
    }

    /// The commits `tip` reaches and `hide` does not, newest first (git's own walk, which tells them apart).
    private func commits(from tip: GitOID, hiding hide: GitOID) throws -> [WalkedCommit] {
        var walk: OpaquePointer?
        guard git_revwalk_new(&walk, handle) == 0, let walk else { throw TagwardenError("cannot walk history: \(lastGitError(""))") }
        defer { git_revwalk_free(walk) }
        git_revwalk_sorting(walk, GIT_SORT_TIME.rawValue)
        var start = tip.raw, hidden = hide.raw
        guard git_revwalk_push(walk, &start) == 0, git_revwalk_hide(walk, &hidden) == 0 else {
            throw TagwardenError("cannot walk history from \(tip.hex) without \(hide.hex): \(lastGitError(""))")
        }
        var out: [WalkedCommit] = []
        var id = git_oid()
        while git_revwalk_next(&id, walk) == 0 {
            let header = try commitHeader(GitOID(id))
            out.append((GitOID(id), header.tree, header.parents))
        }
        return out
    }

    /// The tree of a commit's first parent: nil for a root commit, or a parent the clone lacks.
    func parentTree(_ commit: (tree: GitOID, parents: [GitOID])) throws -> GitOID? {
        guard let parent = commit.parents.first, odbHas(parent) else { return nil }
        return try commitHeader(parent).tree
    }

    private func odbHas(_ id: GitOID) -> Bool {
        var raw = id.raw
        return odb.map { git_odb_exists($0, &raw) == 1 } ?? false
    }

    /// A commit's tree and parents, read from its header: `tree <hex>`, then a `parent <hex>` line for each parent.
    func commitHeader(_ id: GitOID) throws -> (tree: GitOID, parents: [GitOID]) {
        var raw = id.raw
        var object: OpaquePointer?
        guard let odb, git_odb_read(&object, odb, &raw) == 0, let object else {
            throw TagwardenError("cannot read commit \(id.hex): \(lastGitError("not found"))")
        }
        defer { git_odb_object_free(object) }
        guard git_odb_object_type(object) == GIT_OBJECT_COMMIT, let data = git_odb_object_data(object) else {
            throw TagwardenError("\(id.hex) is not a commit")
        }
        let bytes = UnsafeRawBufferPointer(start: data, count: git_odb_object_size(object)).bindMemory(to: UInt8.self)
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).makeIterator()
        func oid(after keyword: String, in line: Slice<UnsafeBufferPointer<UInt8>>?) -> GitOID? {
            guard let line, line.starts(with: keyword.utf8) else { return nil }
            return GitOID(hex: String(decoding: line.dropFirst(keyword.utf8.count), as: UTF8.self))
        }
        guard let tree = oid(after: "tree ", in: lines.next()) else { throw TagwardenError("commit \(id.hex) names no tree") }
        var parents: [GitOID] = []
        while let parent = oid(after: "parent ", in: lines.next()) { parents.append(parent) }
        return (tree, parents)
    }

    /// The blobs of a commit's tree that are not in its parent's tree with the same id and mode, in tree order,
    /// filtered by path; symbolic links and submodules left out, and directories `descend` refuses not read. The trees
    /// read on the parent's side are kept for the next call: walking newest first, the next commit is that parent, and
    /// its side is this one's.
    public func changedEntries(_ step: CommitTrees, descend: (String) -> Bool = { _ in true },
                               accept: (String) -> Bool) throws -> [TreeEntry] {
        defer { parentSideTrees.stepEnded() }
        let tree = try parentSideTrees.takeKept(step.tree) ?? rawTree(step.tree, path: "")
        let before = try step.parentTree.map { try parentSideTree($0, path: "") }
        var out: [TreeEntry] = []
        try collectChanged(tree, before: before, prefix: "", descend: descend, accept: accept, into: &out)
        return out
    }

    /// A tree object's bytes, read past libgit2's object cache: a walk reads each tree once or twice, one step
    /// apart, which the kept trees serve, and the cache would hold a long history's trees to the end.
    private func rawTree(_ id: GitOID, path: String) throws -> RawTree {
        var raw = id.raw
        var object: OpaquePointer?
        guard let odb, git_odb_read(&object, odb, &raw) == 0, let object else {
            throw TagwardenError("cannot read the tree \(path.isEmpty ? id.hex : path): \(lastGitError("not found"))")
        }
        guard let tree = RawTree(object) else { throw TagwardenError("the tree \(path.isEmpty ? id.hex : path) (\(id.hex)) is damaged") }
        return tree
    }

    /// A tree of the parent's side, kept for the next comparison.
    private func parentSideTree(_ id: GitOID, path: String) throws -> RawTree {
        if let tree = parentSideTrees.reading[id] ?? parentSideTrees.takeKept(id) {
            parentSideTrees.reading[id] = tree
            return tree
        }
        let tree = try rawTree(id, path: path)
        parentSideTrees.reading[id] = tree
        return tree
    }

    /// The blobs of `tree` that are not in `before` with the same id and mode. A subtree whose id is unchanged is not
    /// read: one changed file costs the trees on its path, not the whole tree, as in git's own diff.
    private func collectChanged(_ tree: RawTree, before: RawTree?, prefix: String, descend: (String) -> Bool,
                                accept: (String) -> Bool, into out: inout [TreeEntry]) throws {
        for (i, entry) in tree.entries.enumerated() {
            let old = before?.entry(named: tree, entry, near: i)
            if let old, let before, old.mode == entry.mode, tree.sameID(entry, before, old) { continue }
            let path = prefix + tree.name(entry)
            switch entry.mode & 0o170000 {
            case 0o040000 where descend(path):
                let subtree = try parentSideTrees.takeKept(tree.id(entry)) ?? rawTree(tree.id(entry), path: path)
                let oldSubtree = try old.flatMap { old in
                    old.mode & 0o170000 == 0o040000 ? try parentSideTree(before!.id(old), path: path) : nil
                }
                try collectChanged(subtree, before: oldSubtree, prefix: path + "/", descend: descend, accept: accept, into: &out)
            case 0o100000 where accept(path):
                out.append(TreeEntry(path: path, oid: tree.id(entry), mode: entry.mode))
            default:
                continue   // a symbolic link, a submodule, a directory not descended
            }
        }
    }
}

/// A tree object as git stores it: for each entry `<octal mode> <name>\0<20-byte id>`, sorted by name (a directory's
/// as if it ended in `/`).
final class RawTree {
    struct Entry {
        let mode: UInt32
        let name: Range<Int>
        /// where its 20-byte id starts
        let id: Int
    }

    private let object: OpaquePointer
    private let bytes: UnsafeBufferPointer<UInt8>
    let entries: [Entry]

    /// nil when the bytes are not a tree
    init?(_ object: OpaquePointer) {
        guard git_odb_object_type(object) == GIT_OBJECT_TREE else {
            git_odb_object_free(object)
            return nil
        }
        self.object = object
        let size = git_odb_object_size(object)
        bytes = size == 0 ? UnsafeBufferPointer(start: nil, count: 0)
            : UnsafeRawBufferPointer(start: git_odb_object_data(object), count: size).bindMemory(to: UInt8.self)
        var entries: [Entry] = []
        var at = 0
        while at < bytes.count {
            var mode: UInt32 = 0
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "7"), mode < 0o1000000 {
                mode = mode << 3 | UInt32(bytes[at] - UInt8(ascii: "0"))
                at += 1
            }
            guard at < bytes.count, bytes[at] == UInt8(ascii: " ") else { break }
            let start = at + 1
            guard let nul = bytes[start...].firstIndex(of: 0), nul > start, nul + 21 <= bytes.count else { break }
            entries.append(Entry(mode: mode, name: start..<nul, id: nul + 1))
            at = nul + 21
        }
        self.entries = entries
        if at != bytes.count { return nil }
    }

    deinit { git_odb_object_free(object) }

    func name(_ e: Entry) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[e.name]), as: UTF8.self) }

    func id(_ e: Entry) -> GitOID {
        var raw = git_oid()
        withUnsafeMutableBytes(of: &raw.id) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes.baseAddress! + e.id, count: 20)) }
        return GitOID(raw)
    }

    func sameID(_ e: Entry, _ other: RawTree, _ o: Entry) -> Bool {
        memcmp(bytes.baseAddress! + e.id, other.bytes.baseAddress! + o.id, 20) == 0
    }

    /// This tree's entry with the name of `other`'s entry `e`: first at the same place (one entry of a directory
    /// changed, the common case), else by binary search in git's order. An entry that changed between a file and a
    /// directory sorts elsewhere and is not found: it is new, as it is.
    func entry(named other: RawTree, _ e: Entry, near i: Int) -> Entry? {
        let wanted = UnsafeBufferPointer(rebasing: other.bytes[e.name])
        if i < entries.count, equal(entries[i], wanted) { return entries[i] }
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            let order = compare(entries[mid], wanted, isTree: e.mode & 0o170000 == 0o040000)
            if order == 0 { return entries[mid] }
            if order < 0 { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    private func equal(_ a: Entry, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        a.name.count == name.count && memcmp(bytes.baseAddress! + a.name.lowerBound, name.baseAddress!, name.count) == 0
    }

    /// git's tree order: names byte by byte, a directory's followed by `/`.
    private func compare(_ a: Entry, _ name: UnsafeBufferPointer<UInt8>, isTree: Bool) -> Int {
        let common = min(a.name.count, name.count)
        let c = memcmp(bytes.baseAddress! + a.name.lowerBound, name.baseAddress!, common)
        if c != 0 { return Int(c) }
        let aNext: UInt8 = a.name.count > common ? bytes[a.name.lowerBound + common] : (a.mode & 0o170000 == 0o040000 ? UInt8(ascii: "/") : 0)
        let bNext: UInt8 = name.count > common ? name[common] : (isTree ? UInt8(ascii: "/") : 0)
        return Int(aNext) - Int(bNext)
    }
}

/// Trees read on the parent's side of one comparison, kept for the next, which reads them on its commit's side.
final class KeptTrees {
    /// this comparison's parent side
    var reading: [GitOID: RawTree] = [:]
    /// the last comparison's parent side
    private var kept: [GitOID: RawTree] = [:]

    func takeKept(_ id: GitOID) -> RawTree? { kept.removeValue(forKey: id) }

    /// What this comparison read is kept for the next; the rest goes.
    func stepEnded() {
        kept = reading
        reading = [:]
    }
}
