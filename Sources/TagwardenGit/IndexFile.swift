import TagwardenBasics
#if canImport(Glibc)
import Glibc
#endif

/// The paths a git index file of version 2 or 3 lists, read from its bytes as git reads them: the trailing checksum
/// is not verified (git verifies it only in `git fsck`). libgit2 reads the same paths, but it also hashes the whole
/// file and builds an entry for each path, which cost a 100,000-file repository 0.1 s of every audit. libgit2 stays
/// the reader of every other index: version 4 (its paths are compressed), a split index (`link`), a sparse one
/// (`sdir`), and any file that does not read back to the end exactly as the format lays it out.
enum IndexFile {
    /// Every entry's path (each stage of a conflicted path, as libgit2 lists them), in the file's order; nil where
    /// libgit2 is to read the index.
    static func paths(_ bytes: [UInt8]) -> [String]? {
        bytes.withUnsafeBufferPointer { b -> [String]? in
            let checksum = 20
            guard b.count >= 12 + checksum, b[0] == 0x44, b[1] == 0x49, b[2] == 0x52, b[3] == 0x43 else { return nil }  // DIRC
            let version = word(b, 4)
            guard version == 2 || version == 3 else { return nil }
            let count = Int(word(b, 8))
            let end = b.count - checksum
            var paths: [String] = []
            paths.reserveCapacity(min(count, end / 64))
            var at = 12
            for _ in 0..<count {
                // 40 bytes of stat data, the 20-byte object name, 16 bits of flags (the low 12 the path's length)
                guard at + 62 <= end else { return nil }
                let flags = Int(b[at + 60]) << 8 | Int(b[at + 61])
                var pathStart = at + 62
                if flags & 0x4000 != 0 {
                    // 16 more bits of flags (`git add -N`, skip-worktree), which only version 3 has
                    guard version == 3 else { return nil }
                    pathStart += 2
                }
                guard pathStart < end, let nul = memchr(b.baseAddress! + pathStart, 0, end - pathStart) else { return nil }
                let length = b.baseAddress!.distance(to: nul.assumingMemoryBound(to: UInt8.self)) - pathStart
                let written = flags & 0xFFF
                guard length > 0, written == 0xFFF ? length >= 0xFFF : length == written else { return nil }
                paths.append(String(decoding: UnsafeBufferPointer(rebasing: b[pathStart..<(pathStart + length)]), as: UTF8.self))
                // padded with 1 to 8 NULs to a multiple of 8 bytes
                at += (pathStart - at + length + 8) & ~7
            }
            // the extensions, each a 4-byte signature and a 32-bit size, up to the checksum
            while at + 8 <= end {
                let signature = (b[at], b[at + 1], b[at + 2], b[at + 3])
                if signature == (0x6C, 0x69, 0x6E, 0x6B) || signature == (0x73, 0x64, 0x69, 0x72) { return nil }  // link, sdir
                at += 8 + Int(word(b, at + 4))
            }
            return at == end ? paths : nil
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
        let file = gitDir.hasSuffix("/") ? gitDir + "index" : gitDir + "/index"
        if case .success(let bytes) = FileSystem.readFile(file, limit: 1 << 30), let paths = IndexFile.paths(bytes) {
            return paths
        }
        return try indexEntries().map(\.path)
    }
}
