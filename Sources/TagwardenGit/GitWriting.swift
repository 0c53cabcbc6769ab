import TagwardenBasics
internal import CGit2
#if canImport(Glibc)
import Glibc
#endif

/// The mode of a file in a tree or the index.
public enum GitFileMode: UInt32, Sendable {
    case regular = 0o100644
    case executable = 0o100755
}

/// What `writeTree` does at one path.
public enum GitTreeChange: Sendable, Hashable {
    /// The path holds this blob, replacing whatever was there.
    case blob(GitOID, mode: GitFileMode)
    /// The path (a file, or a directory and all it holds) is removed; it must exist.
    case delete
}

/// Who made a commit, and when.
public struct GitSignature: Sendable, Hashable {
    public var name: String
    public var email: String
    /// Seconds since the Unix epoch.
    public var time: Int64
    /// The time zone's offset from UTC in minutes, east positive (`+0130` is 90).
    public var offsetMinutes: Int

    public init(name: String, email: String, time: Int64, offsetMinutes: Int = 0) {
        self.name = name
        self.email = email
        self.time = time
        self.offsetMinutes = offsetMinutes
    }

    /// A `git_signature*` the caller frees with `git_signature_free`.
    func make() throws -> UnsafeMutablePointer<git_signature> {
        let bad: (String) -> Bool = { $0.contains("\n") || $0.contains("\0") || $0.contains("<") || $0.contains(">") }
        guard !bad(name), !bad(email) else {
            throw TagwardenError("invalid git signature \(name) <\(email)>: a name or email cannot hold '<', '>', a newline or NUL")
        }
        guard abs(offsetMinutes) < 24 * 60 else { throw TagwardenError("invalid git signature time zone offset: \(offsetMinutes) minutes") }
        var sig: UnsafeMutablePointer<git_signature>?
        guard git_signature_new(&sig, name, email, git_time_t(time), Int32(offsetMinutes)) == 0, let sig else {
            throw TagwardenError("invalid git signature \(name) <\(email)>: \(lastGitError("rejected"))")
        }
        return sig
    }
}

extension GitRepository {
    // MARK: objects

    /// Writes `bytes` to the object database as a blob; its id.
    public func writeBlob(_ bytes: [UInt8]) throws -> GitOID {
        var id = git_oid()
        var none: UInt8 = 0
        let rc = bytes.isEmpty
            ? git_blob_create_from_buffer(&id, handle, &none, 0)
            : bytes.withUnsafeBytes { git_blob_create_from_buffer(&id, handle, $0.baseAddress, $0.count) }
        guard rc == 0 else { throw TagwardenError("cannot write a blob of \(bytes.count) bytes: \(lastGitError("error \(rc)"))") }
        return GitOID(id)
    }

    /// The id of the tree of a commit.
    public func tree(ofCommit commit: GitOID) throws -> GitOID {
        var id = commit.raw
        var c: OpaquePointer?
        guard git_commit_lookup(&c, handle, &id) == 0, let c else {
            throw TagwardenError("cannot read commit \(commit): \(lastGitError("not found"))")
        }
        defer { git_commit_free(c) }
        guard let tree = GitOID(git_commit_tree_id(c)) else { throw TagwardenError("commit \(commit) has no tree") }
        return tree
    }

    /// Writes tree `base` (nil: empty) with `changes` at `/`-separated paths; untouched subtrees keep their ids, emptied ones go.
    public func writeTree(base: GitOID?, changes: [String: GitTreeChange]) throws -> GitOID {
        var edits: [TreeEdit] = []
        edits.reserveCapacity(changes.count)
        for (path, change) in changes {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.contains("\0") }) else {
                throw TagwardenError("cannot write '\(path)' to a tree: not a relative path of /-separated names")
            }
            edits.append(TreeEdit(path: path, parts: parts, change: change))
        }
        var root: OpaquePointer?
        if let base {
            var id = base.raw
            guard git_tree_lookup(&root, handle, &id) == 0, root != nil else {
                throw TagwardenError("cannot read tree \(base): \(lastGitError("not found"))")
            }
        }
        defer { if let root { git_tree_free(root) } }
        return try buildTree(root, edits, depth: 0, isRoot: true)!
    }

    private struct TreeEdit {
        var path: String
        var parts: [String]
        var change: GitTreeChange
    }

    /// The tree `base` with `edits` (at `parts[depth...]`) made, written; nil (not written) when it is left empty
    /// below the root.
    private func buildTree(_ base: OpaquePointer?, _ edits: [TreeEdit], depth: Int, isRoot: Bool) throws -> GitOID? {
        var builder: OpaquePointer?
        guard git_treebuilder_new(&builder, handle, base) == 0, let builder else {
            throw TagwardenError("cannot build a tree: \(lastGitError("unknown error"))")
        }
        defer { git_treebuilder_free(builder) }
        var here: [String: TreeEdit] = [:]
        var below: [String: [TreeEdit]] = [:]
        for edit in edits {
            let name = edit.parts[depth]
            if edit.parts.count == depth + 1 { here[name] = edit } else { below[name, default: []].append(edit) }
        }
        for (name, inner) in below.sorted(by: { $0.key < $1.key }) {
            let first = inner.map(\.path).min()!
            var replaced = false
            if let edit = here.removeValue(forKey: name) {
                guard case .delete = edit.change else {
                    throw TagwardenError("cannot write '\(edit.path)' as a file and '\(first)' inside it")
                }
                replaced = true
            }
            var subtree: OpaquePointer?
            if !replaced, let entry = git_treebuilder_get(builder, name) {
                guard git_tree_entry_type(entry) == GIT_OBJECT_TREE else {
                    throw TagwardenError("cannot write '\(first)': '\(inner[0].parts[0...depth].joined(separator: "/"))' is not a directory")
                }
                guard git_tree_lookup(&subtree, handle, git_tree_entry_id(entry)) == 0, subtree != nil else {
                    throw TagwardenError("cannot read the tree of '\(inner[0].parts[0...depth].joined(separator: "/"))': \(lastGitError("not found"))")
                }
            }
            defer { if let subtree { git_tree_free(subtree) } }
            if let id = try buildTree(subtree, inner, depth: depth + 1, isRoot: false) {
                try insert(builder, name, id, GIT_FILEMODE_TREE, path: first)
            } else if git_treebuilder_get(builder, name) != nil, git_treebuilder_remove(builder, name) != 0 {
                throw TagwardenError("cannot remove '\(inner[0].parts[0...depth].joined(separator: "/"))': \(lastGitError("unknown error"))")
            }
        }
        for (name, edit) in here.sorted(by: { $0.key < $1.key }) {
            switch edit.change {
            case .blob(let id, let mode):
                try insert(builder, name, id, git_filemode_t(rawValue: mode.rawValue), path: edit.path)
            case .delete:
                guard git_treebuilder_get(builder, name) != nil else { throw TagwardenError("cannot delete '\(edit.path)': it is not in the tree") }
                guard git_treebuilder_remove(builder, name) == 0 else {
                    throw TagwardenError("cannot delete '\(edit.path)': \(lastGitError("unknown error"))")
                }
            }
        }
        if !isRoot, git_treebuilder_entrycount(builder) == 0 { return nil }
        var out = git_oid()
        guard git_treebuilder_write(&out, builder) == 0 else { throw TagwardenError("cannot write a tree: \(lastGitError("unknown error"))") }
        return GitOID(out)
    }

    private func insert(_ builder: OpaquePointer, _ name: String, _ id: GitOID, _ mode: git_filemode_t, path: String) throws {
        var raw = id.raw
        guard git_treebuilder_insert(nil, builder, name, &raw, mode) == 0 else {
            throw TagwardenError("cannot write '\(path)' (\(id)) to a tree: \(lastGitError("unknown error"))")
        }
    }

    /// Writes a commit of `tree` with `parents` (the message gets a final newline when it lacks one); moves no reference.
    /// `sign`, when given, gets the commit's text and returns its signature (an armored OpenPGP or SSH signature),
    /// stored in the `gpgsig` header as git stores it.
    public func createCommit(tree: GitOID, parents: [GitOID], author: GitSignature, committer: GitSignature,
                             message: String, sign: ((String) throws -> String)? = nil) throws -> GitOID {
        var treeId = tree.raw
        var treeObject: OpaquePointer?
        guard git_tree_lookup(&treeObject, handle, &treeId) == 0, let treeObject else {
            throw TagwardenError("cannot commit tree \(tree): \(lastGitError("not found"))")
        }
        defer { git_tree_free(treeObject) }
        var parentCommits: [OpaquePointer?] = []
        defer { for p in parentCommits { git_commit_free(p) } }
        for parent in parents {
            var id = parent.raw
            var c: OpaquePointer?
            guard git_commit_lookup(&c, handle, &id) == 0, let c else {
                throw TagwardenError("cannot commit on parent \(parent): \(lastGitError("not found"))")
            }
            parentCommits.append(c)
        }
        let authorSignature = try author.make()
        defer { git_signature_free(authorSignature) }
        let committerSignature = try committer.make()
        defer { git_signature_free(committerSignature) }
        let text = message.isEmpty || message.hasSuffix("\n") ? message : message + "\n"
        var out = git_oid()
        guard let sign else {
            let rc = parentCommits.withUnsafeMutableBufferPointer { parentList in
                git_commit_create(&out, handle, nil, authorSignature, committerSignature, nil, text, treeObject,
                                  parentList.count, parentList.baseAddress)
            }
            guard rc == 0 else { throw TagwardenError("cannot write a commit: \(lastGitError("error \(rc)"))") }
            return GitOID(out)
        }
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        let rc = parentCommits.withUnsafeMutableBufferPointer { parentList in
            git_commit_create_buffer(&buffer, handle, authorSignature, committerSignature, nil, text, treeObject,
                                     parentList.count, parentList.baseAddress)
        }
        guard rc == 0, let bytes = buffer.ptr else { throw TagwardenError("cannot write a commit: \(lastGitError("error \(rc)"))") }
        let content = String(cString: bytes)
        let signature = try sign(content)
        guard git_commit_create_with_signature(&out, handle, content, signature, "gpgsig") == 0 else {
            throw TagwardenError("cannot write a signed commit: \(lastGitError("rejected"))")
        }
        return GitOID(out)
    }

    // MARK: references

    /// Points `name` (`refs/…`) at `new` only if it is at `old` (nil: only if it does not exist yet); `message` goes to the reflog.
    public func updateReference(_ name: String, to new: GitOID, expecting old: GitOID?, message: String) throws {
        var valid: Int32 = 0
        guard name.hasPrefix("refs/"), git_reference_name_is_valid(&valid, name) == 0, valid == 1 else {
            throw TagwardenError("cannot update '\(name)': not a full reference name (refs/…)")
        }
        var newId = new.raw
        var ref: OpaquePointer?
        let rc: Int32
        if let old {
            var oldId = old.raw
            rc = git_reference_create_matching(&ref, handle, name, &newId, 1, &oldId, message)
        } else {
            rc = git_reference_create(&ref, handle, name, &newId, 0, message)
        }
        if let ref { git_reference_free(ref) }
        guard rc != 0 else { return }
        let why = lastGitError("error \(rc)")
        let now = referenceTarget(name)
        if rc == GIT_EEXISTS.rawValue || rc == GIT_EMODIFIED.rawValue || now != old {
            throw TagwardenError("cannot update \(name): it is at \(now?.hex ?? "nothing (no such reference)"), "
                                 + "not \(old?.hex ?? "nothing (it was to be created)") as expected: it moved")
        }
        if rc == GIT_ELOCKED.rawValue {
            // as git says it: a lock file no running process holds is one a stopped process left
            throw TagwardenError("cannot update \(name) to \(new): \(why) (if no git process is running, one was stopped while it "
                                 + "held the lock: delete the .lock file named here and run again)")
        }
        throw TagwardenError("cannot update \(name) to \(new): \(why)")
    }

    /// Deletes reference `name` if it still points at `expected`.
    public func deleteReference(_ name: String, expecting expected: GitOID) throws {
        var ref: OpaquePointer?
        guard git_reference_lookup(&ref, handle, name) == 0, let ref else { return }
        defer { git_reference_free(ref) }
        guard let target = git_reference_target(ref), GitOID(target.pointee) == expected else {
            throw TagwardenError("cannot delete \(name): it moved")
        }
        guard git_reference_delete(ref) == 0 else { throw TagwardenError("cannot delete \(name): \(lastGitError("unknown error"))") }
    }

    /// The branch that stops `refs/heads/NAME` being made: the branch itself, one whose name is a directory of it
    /// (`a` for `a/b`), or one under it (`a/b/c` for `a/b`); nil when it can be made.
    public func branchInTheWay(of name: String) -> String? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        for k in 1...parts.count {
            let prefix = parts.prefix(k).joined(separator: "/")
            if referenceTarget("refs/heads/" + prefix) != nil { return prefix }
        }
        var iter: OpaquePointer?
        guard git_reference_iterator_glob_new(&iter, handle, "refs/heads/" + name + "/*") == 0, let iter else { return nil }
        defer { git_reference_iterator_free(iter) }
        var ref: UnsafePointer<CChar>?
        if git_reference_next_name(&ref, iter) == 0, let ref { return String(String(cString: ref).dropFirst("refs/heads/".count)) }
        return nil
    }

    /// Whether `name` can be a branch (`refs/heads/NAME` is a valid reference name).
    public static func isValidBranchName(_ name: String) -> Bool {
        // `git check-ref-format --branch`: a valid refs/heads/ name, but never `HEAD` nor one that starts with `-`
        guard !name.hasPrefix("-"), name != "HEAD" else { return false }
        var valid: Int32 = 0
        return git_reference_name_is_valid(&valid, "refs/heads/" + name) == 0 && valid == 1
    }

    /// Whether `name` is a valid full reference name (`refs/heads/x`, `refs/for/main`).
    public static func isValidReferenceName(_ name: String) -> Bool {
        var valid: Int32 = 0
        return git_reference_name_is_valid(&valid, name) == 0 && valid == 1
    }

    /// Why `name` (a branch an automation or a command names) is refused, nil when it is fine: git's rule, and two names
    /// git takes but reads otherwise elsewhere: `@` (HEAD in a revision) and `REMOTE/…` for a remote of this repository
    /// (that remote's branch as fetched).
    public func branchNameProblem(_ name: String) -> String? {
        guard Self.isValidBranchName(name) else { return "'\(name)' is not a valid branch name (git check-ref-format --branch)" }
        if name == "@" { return "'@' is not taken as a branch name: git reads it as HEAD" }
        if let remote = remoteNames().first(where: { name.hasPrefix($0 + "/") }) {
            return "'\(name)' is not taken as a branch name: git reads it as remote \(remote)'s branch \(name.dropFirst(remote.count + 1))"
        }
        return nil
    }

    /// The names of the repository's remotes, sorted.
    public func remoteNames() -> [String] {
        Array(Set(configuredRemotes().map(\.name))).sorted()
    }

    /// The object reference `name` points at (symbolic references followed), nil when there is none.
    public func referenceTarget(_ name: String) -> GitOID? {
        var id = git_oid()
        guard git_reference_name_to_id(&id, handle, name) == 0 else { return nil }
        return GitOID(id)
    }

    /// The full name of the branch HEAD points at (`refs/heads/main`, perhaps not born yet), nil when it is detached.
    public var currentBranch: String? {
        var ref: OpaquePointer?
        guard git_reference_lookup(&ref, handle, "HEAD") == 0, let ref else { return nil }
        defer { git_reference_free(ref) }
        guard git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC, let target = git_reference_symbolic_target(ref) else { return nil }
        return String(cString: target)
    }

    // MARK: index

    /// Whether the working tree or the index holds a change to `path` (relative to the work tree) that HEAD does not:
    /// a file someone is editing.
    public func hasUncommittedChanges(_ path: String) throws -> Bool {
        var flags: UInt32 = 0
        let rc = git_status_file(&flags, handle, path)
        if rc == GIT_ENOTFOUND.rawValue { return false }
        guard rc == 0 else { throw TagwardenError("cannot read the git status of \(path): \(lastGitError("error \(rc)"))") }
        return flags & ~UInt32(GIT_STATUS_IGNORED.rawValue) != 0
    }

    /// Stages `blob` at `path` in the repository's index (resolving a conflict there) and writes the index.
    public func stage(path: String, blob: GitOID, mode: GitFileMode) throws {
        try stage([(path, blob, mode)])
    }

    /// Stages several blobs at once: the index is read once and written once (one `index.lock`), so that no run stopped
    /// midway leaves some of them staged.
    public func stage(_ entries: [(path: String, blob: GitOID, mode: GitFileMode)]) throws {
        for e in entries {
            let parts = e.path.split(separator: "/", omittingEmptySubsequences: false)
            guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.contains("\0") }) else {
                throw TagwardenError("cannot stage '\(e.path)': not a relative path of /-separated names")
            }
        }
        let index = try openIndex()
        defer { git_index_free(index) }
        // the index object is the repository's, read once: take in what git did to the file since
        guard git_index_read(index, 0) == 0 else { throw TagwardenError("cannot read the git index: \(lastGitError("unknown error"))") }
        for e in entries {
            var entry = git_index_entry()
            entry.mode = e.mode.rawValue
            entry.id = e.blob.raw
            let rc = e.path.withCString { cPath -> Int32 in
                entry.path = cPath
                if git_index_has_conflicts(index) != 0 { _ = git_index_conflict_remove(index, cPath) }
                return git_index_add(index, &entry)
            }
            guard rc == 0 else { throw TagwardenError("cannot stage '\(e.path)': \(lastGitError("error \(rc)"))") }
        }
        guard git_index_write(index) == 0 else { throw TagwardenError("cannot write the git index: \(lastGitError("unknown error"))") }
    }
}

extension GitRepository {
    /// A commit's whole message, as written; nil when there is no such commit.
    public func commitMessage(_ commit: GitOID) -> String? {
        var id = commit.raw
        var c: OpaquePointer?
        guard git_commit_lookup(&c, handle, &id) == 0, let c else { return nil }
        defer { git_commit_free(c) }
        return git_commit_message(c).map { String(cString: $0) }
    }

    /// What `git revert commit` makes of the files `commit` changed, merged onto `onto` in memory (git's three-way merge;
    /// nothing in the work tree, the index or a ref is touched): each path `commit` changed → its bytes after the
    /// revert (nil: the revert deletes it). A path whose revert conflicts with what `onto` holds throws, naming it.
    public func revert(_ commit: GitOID, onto: GitOID) throws -> [(path: String, bytes: [UInt8]?)] {
        var cid = commit.raw, oid = onto.raw
        var c: OpaquePointer?, ours: OpaquePointer?
        guard git_commit_lookup(&c, handle, &cid) == 0, let c else { throw TagwardenError("cannot read commit \(commit.hex)") }
        defer { git_commit_free(c) }
        guard git_commit_lookup(&ours, handle, &oid) == 0, let ours else { throw TagwardenError("cannot read commit \(onto.hex)") }
        defer { git_commit_free(ours) }
        guard git_commit_parentcount(c) == 1 else {
            throw TagwardenError("commit \(commit.hex.prefix(12)) has \(git_commit_parentcount(c)) parents: only a commit with one parent is reverted")
        }
        var index: OpaquePointer?
        guard git_revert_commit(&index, handle, c, ours, 0, nil) == 0, let index else {
            throw TagwardenError("cannot revert \(commit.hex.prefix(12)): \(lastGitError("unknown error"))")
        }
        defer { git_index_free(index) }
        if git_index_has_conflicts(index) != 0 {
            var conflicted = Set<String>()
            for i in 0..<git_index_entrycount(index) {
                guard let e = git_index_get_byindex(index, i), (UInt32(e.pointee.flags) & 0x3000) != 0 else { continue }
                conflicted.insert(String(cString: e.pointee.path))
            }
            throw RevertConflict(paths: conflicted.sorted())
        }
        // (a promotion changes files in place: no deletion, no rename, no link)
        return try changedEntries(commit: commit.hex) { _ in true }.map(\.path).map { path in
            guard let e = git_index_get_bypath(index, path, 0) else { return (path, nil) }
            guard case .bytes(let bytes) = readBlob(GitOID(e.pointee.id), limit: 64 << 20) else {
                throw TagwardenError("cannot read \(path) as the revert leaves it")
            }
            return (path, bytes)
        }
    }
}

/// A revert that conflicts with what the files hold now: the paths where it does.
public struct RevertConflict: Error, Sendable {
    public let paths: [String]
}
