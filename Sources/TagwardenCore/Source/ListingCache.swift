#if canImport(Glibc)
import Glibc
#endif

/// The working tree's directory listings from the last run, like git's untracked cache: a directory whose
/// modification time (and inode) is what it was when it was listed is not read again. Creating, deleting
/// or renaming an entry changes its directory's mtime; a directory modified within two seconds of its
/// listing is not trusted (the clock may not have moved between the change and the listing).
/// Only the entries a walk uses are kept: subdirectories and YAML-looking files.
struct ListingCache {
    struct Listing {
        var mtimeSec: Int
        var mtimeNsec: Int
        var inode: UInt64
        var listedAt: Int
        /// (name, d_type) sorted by name bytes.
        var entries: [(String, UInt8)]
    }

    var listings: [String: Listing] = [:]
    var changed = false
    static let header = "tagwarden-listings 1\n"

    /// The cached entries of `relative`, if its stat still matches.
    func entries(_ relative: String, _ st: stat) -> [(String, UInt8)]? {
        guard let l = listings[relative], l.mtimeSec == st.st_mtim.tv_sec, l.mtimeNsec == st.st_mtim.tv_nsec,
              l.inode == UInt64(st.st_ino), st.st_mtim.tv_sec + 2 < l.listedAt else { return nil }
        return l.entries
    }

    mutating func store(_ relative: String, _ st: stat, listedAt: Int, entries: [(String, UInt8)]) {
        // names with a line break or a tab cannot be written in this format: such a directory is re-read each time
        if entries.contains(where: { $0.0.utf8.contains(10) || $0.0.utf8.contains(9) }) || relative.utf8.contains(10) || relative.utf8.contains(9) {
            return
        }
        listings[relative] = Listing(mtimeSec: st.st_mtim.tv_sec, mtimeNsec: st.st_mtim.tv_nsec, inode: UInt64(st.st_ino),
                                     listedAt: listedAt, entries: entries)
        changed = true
    }

    /// Reads the cache file; anything unexpected yields an empty cache.
    static func load(_ path: String) -> ListingCache {
        var cache = ListingCache()
        guard case .success(let bytes) = Sources.readFile(path, limit: 64 << 20),
              bytes.starts(with: header.utf8) else { return cache }
        // D\t<mtime s>\t<mtime ns>\t<inode>\t<listed at>\t<relative path>\n, then <d_type>\t<name>\n per entry
        var current: String?
        var listing: Listing?
        func flush() {
            if let c = current, let l = listing { cache.listings[c] = l }
        }
        var i = header.utf8.count
        while i < bytes.count {
            guard let nl = bytes[i...].firstIndex(of: 10) else { return ListingCache() }
            let fields = bytes[i..<nl].split(separator: 9, maxSplits: 5, omittingEmptySubsequences: false)
            i = nl + 1
            if fields.count == 6, fields[0].elementsEqual("D".utf8) {
                flush()
                guard let s = Int(fields[1]), let ns = Int(fields[2]), let ino = UInt64(fields[3]), let at = Int(fields[4]) else {
                    return ListingCache()
                }
                current = String(decoding: fields[5], as: UTF8.self)
                listing = Listing(mtimeSec: s, mtimeNsec: ns, inode: ino, listedAt: at, entries: [])
            } else if fields.count == 2, let v = UInt64(fields[0]), let t = UInt8(exactly: v), listing != nil {
                listing!.entries.append((String(decoding: fields[1], as: UTF8.self), t))
            } else {
                return ListingCache()
            }
        }
        flush()
        return cache
    }

    func save(_ path: String) {
        var out = ListingCache.header
        for (rel, l) in listings {
            out += "D\t\(l.mtimeSec)\t\(l.mtimeNsec)\t\(l.inode)\t\(l.listedAt)\t\(rel)\n"
            for (name, t) in l.entries { out += "\(t)\t\(name)\n" }
        }
        try? writeFileAtomically(path, out)
    }
}

private extension Int {
    init?(_ bytes: ArraySlice<UInt8>) {
        guard let v = UInt64(bytes), v <= UInt64(Int.max) else { return nil }
        self = Int(v)
    }
}

private extension UInt64 {
    init?(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty, bytes.count <= 19 else { return nil }
        var v: UInt64 = 0
        for c in bytes {
            guard c >= 48, c <= 57 else { return nil }
            v = v * 10 + UInt64(c - 48)
        }
        self = v
    }
}
