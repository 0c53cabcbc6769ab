import TagwardenBasics
internal import CGit2
#if canImport(Glibc)
import Glibc
#endif

/// The entries a git index file of version 2 or 3 lists, read from its bytes as git reads them: the trailing checksum
/// is not verified (git verifies it only in `git fsck`). libgit2 reads the same paths, but it also hashes the whole
/// file and builds an entry for each path, which cost a 100,000-file repository 0.1 s of every audit. libgit2 stays
/// the reader of every other index: version 4 (its paths are compressed), a split index (`link`), a sparse one
/// (`sdir`), and any file that does not read back to the end exactly as the format lays it out.
enum IndexFile {
    /// An entry as the file holds it.
    struct Entry {
        var path: String
        var oid: GitOID
        var mode: UInt32
        /// 0, or a side of an unresolved merge conflict (1 the base, 2 ours, 3 theirs)
        var stage: UInt32
    }

    /// Every entry's path (each stage of a conflicted path, as libgit2 lists them), in the file's order; nil where
    /// libgit2 is to read the index.
    static func paths(_ bytes: [UInt8]) -> [String]? {
        var paths: [String] = []
        let read = walk(bytes) { b, _, path in
            paths.append(String(decoding: UnsafeBufferPointer(rebasing: b[path]), as: UTF8.self))
        }
        return read ? paths : nil
    }

    /// Every entry with its object name, mode and stage, in the file's order; nil where libgit2 is to read the index.
    static func entries(_ bytes: [UInt8]) -> [Entry]? {
        var entries: [Entry] = []
        let read = walk(bytes) { b, at, path in
            var raw = git_oid()
            withUnsafeMutableBytes(of: &raw.id) { $0.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[(at + 40)..<(at + 60)]))) }
            entries.append(Entry(path: String(decoding: UnsafeBufferPointer(rebasing: b[path]), as: UTF8.self), oid: GitOID(raw),
                                 mode: word(b, at + 24), stage: (UInt32(b[at + 60]) >> 4) & 3))
        }
        return read ? entries : nil
    }

    /// Calls `visit` with each entry's offset and the range of its path; false where the file is not of version 2
    /// or 3, or does not read back to the end exactly as the format lays it out.
    private static func walk(_ bytes: [UInt8], visit: (UnsafeBufferPointer<UInt8>, Int, Range<Int>) -> Void) -> Bool {
        bytes.withUnsafeBufferPointer { b -> Bool in
            let checksum = 20
            guard b.count >= 12 + checksum, b[0] == 0x44, b[1] == 0x49, b[2] == 0x52, b[3] == 0x43 else { return false }  // DIRC
            let version = word(b, 4)
            guard version == 2 || version == 3 else { return false }
            let count = Int(word(b, 8))
            let end = b.count - checksum
            var at = 12
            for _ in 0..<count {
                // 40 bytes of stat data (the mode at 24), the 20-byte object name, 16 bits of flags (the stage in bits
                // 12 and 13, the low 12 the path's length)
                guard at + 62 <= end else { return false }
                let flags = Int(b[at + 60]) << 8 | Int(b[at + 61])
                var pathStart = at + 62
                if flags & 0x4000 != 0 {
                    // 16 more bits of flags (`git add -N`, skip-worktree), which only version 3 has
                    guard version == 3 else { return false }
                    pathStart += 2
                }
                guard pathStart < end, let nul = memchr(b.baseAddress! + pathStart, 0, end - pathStart) else { return false }
                let length = b.baseAddress!.distance(to: nul.assumingMemoryBound(to: UInt8.self)) - pathStart
                let written = flags & 0xFFF
                guard length > 0, written == 0xFFF ? length >= 0xFFF : length == written else { return false }
                visit(b, at, pathStart..<(pathStart + length))
                // padded with 1 to 8 NULs to a multiple of 8 bytes
                at += (pathStart - at + length + 8) & ~7
            }
            // the extensions, each a 4-byte signature and a 32-bit size, up to the checksum
            while at + 8 <= end {
                let signature = (b[at], b[at + 1], b[at + 2], b[at + 3])
                if signature == (0x6C, 0x69, 0x6E, 0x6B) || signature == (0x73, 0x64, 0x69, 0x72) { return false }  // link, sdir
                at += 8 + Int(word(b, at + 4))
            }
            return at == end
        }
    }

    /// The big-endian 32-bit word at `at`.
    private static func word(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}

extension GitRepository {
    /// The paths of the index's entries: read directly where the index is of version 2 or 3, else by libgit2.
    public func indexPaths() throws -> [String] {
        if let bytes = indexFileBytes(), let paths = IndexFile.paths(bytes) { return paths }
        return try indexEntries().map(\.path)
    }

    /// The index's entries that `accept` takes, as `libgit2IndexBlobEntries` lists them: read directly where the
    /// index is of version 2 or 3, else by libgit2.
    public func indexBlobEntries(accept: (String) -> Bool) throws -> [TreeEntry] {
        guard let bytes = indexFileBytes(), let entries = IndexFile.entries(bytes) else { return try libgit2IndexBlobEntries(accept: accept) }
        var out: [TreeEntry] = []
        for e in entries where (e.stage == 0 || e.stage == 2) && accept(e.path) && e.mode != 0o160000 {
            out.append(TreeEntry(path: e.path, oid: e.oid, mode: e.mode, conflicted: e.stage == 2))
        }
        return out
    }

    /// The bytes of `<git dir>/index`; nil where the index libgit2 reads is another file.
    private func indexFileBytes() -> [UInt8]? {
        guard !indexElsewhere else { return nil }
        let file = gitDir.hasSuffix("/") ? gitDir + "index" : gitDir + "/index"
        guard case .success(let bytes) = FileSystem.readFile(file, limit: 1 << 30) else { return nil }
        return bytes
    }
}
