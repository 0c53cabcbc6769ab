import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
#if canImport(Glibc)
import Glibc
#endif

/// The working tree's directory listings from the last run, like git's untracked cache: a directory whose
/// modification and change times and inode are what they were when it was listed is not read again.
/// Creating, deleting or renaming an entry changes its directory's mtime; a directory modified within two
/// seconds of its listing is not trusted (the clock may not have moved between the change and the listing).
/// Only the entries a walk uses are kept: subdirectories and YAML-looking files.
struct ListingCache {
    struct Listing {
        var mtimeSec: Int
        var mtimeNsec: Int
        var ctimeSec: Int
        var ctimeNsec: Int
        var inode: UInt64
        var listedAt: Int
        /// (name, d_type) sorted by name bytes.
        var entries: [(String, UInt8)]
        /// The directory's stat as this run found it (`statDirectories`), nil before or when it is gone.
        var now: stat? = nil
    }

    var listings: [String: Listing] = [:]
    var changed = false
    static let header = "tagwarden-listings 3\n"

    /// Each cached directory's stat as it is now, taken (on all cores) while the index is read, so that the walk
    /// need not look them up one by one on its own thread (a path lookup each: 0.14 s for the 50,000 directories of a
    /// generated fleet of 100,000 files).
    mutating func statDirectories(root: String) {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return }
        defer { close(rootFD) }
        let directories = Array(listings.keys)
        let stats = concurrentMap(directories.count, chunkSize: 2048, makeState: {}) { _, i -> stat? in
            var st = stat()
            return fstatat(rootFD, directories[i].isEmpty ? "." : directories[i], &st, AT_SYMLINK_NOFOLLOW) == 0 ? st : nil
        }
        // (by an index of its own: `listings.indices` holds the dictionary, which the first change would then copy whole)
        var at = listings.values.startIndex
        for st in stats {
            listings.values[at].now = st
            listings.values.formIndex(after: &at)
        }
    }

    /// The stat `statDirectories` took of `relative`.
    func statNow(_ relative: String) -> stat? { listings[relative]?.now }

    /// The cached entries of `relative`, if its stat still matches.
    func entries(_ relative: String, _ st: stat) -> [(String, UInt8)]? {
        guard let l = listings[relative], l.mtimeSec == st.st_mtim.tv_sec, l.mtimeNsec == st.st_mtim.tv_nsec,
              l.ctimeSec == st.st_ctim.tv_sec, l.ctimeNsec == st.st_ctim.tv_nsec, l.inode == UInt64(st.st_ino),
              st.st_mtim.tv_sec + 2 < l.listedAt else { return nil }
        return l.entries
    }

    mutating func store(_ relative: String, _ st: stat, listedAt: Int, entries: [(String, UInt8)]) {
        // names with a line break or a tab cannot be written in this format: such a directory is re-read each time
        if entries.contains(where: { $0.0.utf8.contains(10) || $0.0.utf8.contains(9) }) || relative.utf8.contains(10) || relative.utf8.contains(9) {
            return
        }
        listings[relative] = Listing(mtimeSec: st.st_mtim.tv_sec, mtimeNsec: st.st_mtim.tv_nsec, ctimeSec: st.st_ctim.tv_sec,
                                     ctimeNsec: st.st_ctim.tv_nsec, inode: UInt64(st.st_ino), listedAt: listedAt, entries: entries)
        changed = true
    }

    /// Reads the cache file; anything unexpected yields an empty cache.
    static func load(_ path: String) -> ListingCache {
        guard case .success(let bytes) = FileSystem.readFile(path, limit: 64 << 20), bytes.starts(with: header.utf8) else { return ListingCache() }
        return bytes.withUnsafeBufferPointer { parse($0, from: header.utf8.count) } ?? ListingCache()
    }

    /// D\t<mtime s>\t<mtime ns>\t<ctime s>\t<ctime ns>\t<inode>\t<listed at>\t<relative path>\n, then
    /// <d_type>\t<name>\n per entry.
    private static func parse(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> ListingCache? {
        guard let base = b.baseAddress else { return nil }
        var cache = ListingCache()
        cache.listings.reserveCapacity(b.count / 128)   // about 140 bytes a directory in generated fleets
        var i = start
        func number() -> UInt64? {
            var v: UInt64 = 0, digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57, digits < 19 { v = v * 10 + UInt64(b[i] - 48); i += 1; digits += 1 }
            guard digits > 0, i < b.count, b[i] == 9 else { return nil }
            i += 1
            return v
        }
        /// Where the line from `k` ends (its line feed), found by memchr.
        func lineEnd(from k: Int) -> Int? {
            guard k < b.count, let p = memchr(base + k, 10, b.count - k) else { return nil }
            return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
        }
        func rest() -> String? {
            guard let j = lineEnd(from: i) else { return nil }
            defer { i = j + 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: b[i..<j]), as: UTF8.self)
        }
        var current: String?
        var listing: Listing?
        // a directory's entries gathered in one buffer kept across directories, then made into an array of their size
        // (appended to a fresh array one by one, a directory's few entries had it made three times)
        var entries: [(String, UInt8)] = []
        func close() {
            guard let c = current, var l = listing else { return }
            l.entries = Array(entries)
            cache.listings[c] = l
            entries.removeAll(keepingCapacity: true)
        }
        while i < b.count {
            if b[i] == UInt8(ascii: "D"), i + 1 < b.count, b[i + 1] == 9 {
                close()
                i += 2
                // a number out of range is damage like any other: the cache is discarded
                guard let ms = number().flatMap(Int.init(exactly:)), let mns = number().flatMap(Int.init(exactly:)),
                      let cs = number().flatMap(Int.init(exactly:)), let cns = number().flatMap(Int.init(exactly:)), let ino = number(),
                      let at = number().flatMap(Int.init(exactly:)), let rel = rest() else { return nil }
                current = rel
                listing = Listing(mtimeSec: ms, mtimeNsec: mns, ctimeSec: cs, ctimeNsec: cns, inode: ino, listedAt: at, entries: [])
            } else {
                guard listing != nil, let t = number(), t <= 255, let name = rest() else { return nil }
                entries.append((name, UInt8(t)))
            }
        }
        close()
        return cache
    }

    func save(_ path: String) {
        var out = ListingCache.header
        for (rel, l) in listings {
            out += "D\t\(l.mtimeSec)\t\(l.mtimeNsec)\t\(l.ctimeSec)\t\(l.ctimeNsec)\t\(l.inode)\t\(l.listedAt)\t\(rel)\n"
            for (name, t) in l.entries { out += "\(t)\t\(name)\n" }
        }
        try? writeFileAtomically(path, out)
    }
}
