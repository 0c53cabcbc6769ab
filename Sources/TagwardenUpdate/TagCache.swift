import TagwardenBasics
#if canImport(Glibc)
import Glibc
#endif

/// Tags and digests read from registries, kept under the user's cache directory (`XDG_CACHE_HOME`, else `~/.cache`)
/// in `tagwarden/registry/`: one file per registry, repository and credential identity (the credential's origin and
/// user, never its secret), so that what one credential may see is never served to another. Writes are atomic; a file
/// that cannot be read is discarded. Without `HOME` or `XDG_CACHE_HOME` nothing is cached (never in a shared `/tmp`), and
/// a directory or file that another user owns, or that others may write, is neither read nor written.
public struct TagCache: Sendable {
    public let directory: String

    public struct Entry: Sendable {
        public var tags: [String]
        public var digests: [String: String]
        /// Seconds since the epoch when the tags were listed.
        public var listed: Double
    }

    public init(directory: String) {
        self.directory = directory
    }

    /// The user's cache: `XDG_CACHE_HOME`, else `HOME/.cache`; nil when neither is set.
    public static func user() -> TagCache? {
        let env = { (k: String) in getenv(k).map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } }
        guard let base = env("XDG_CACHE_HOME") ?? env("HOME").map({ $0 + "/.cache" }) else { return nil }
        return TagCache(directory: base + "/tagwarden/registry")
    }

    /// Whether `path` is this user's and no one else may change it (nor, for a directory, what is in it).
    static func ownedHere(_ path: String, directory: Bool) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_uid == geteuid(), st.st_mode & 0o022 == 0 else { return false }
        return (st.st_mode & S_IFMT) == (directory ? S_IFDIR : S_IFREG)
    }

    /// The file of a key: FNV-1a of the key in hex (the key itself is kept inside and checked).
    func file(_ key: String) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return directory + "/" + String(h, radix: 16) + ".json"
    }

    /// Why the cache is not used, when its directory (or the `tagwarden` one above it) exists and is another user's or
    /// writable by others; nil when it is usable or not made yet.
    public func refusal() -> String? {
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        for d in [parent, directory] where access(d, F_OK) == 0 && !Self.ownedHere(d, directory: true) {
            return "the tag cache \(d) is another user's or writable by others: it is neither read nor written"
        }
        return nil
    }

    public func load(_ key: String) -> Entry? {
        guard refusal() == nil, access(directory, F_OK) == 0, Self.ownedHere(file(key), directory: false),
              case .success(let bytes) = FileSystem.readFile(file(key), limit: 64 << 20),
              let json = try? JSON.parse(String(decoding: bytes, as: UTF8.self)),
              json["key"]?.stringValue == key, let listed = json["listed"]?.doubleValue, let tags = json["tags"]?.arrayValue else { return nil }
        var digests: [String: String] = [:]
        if case .object(let kv)? = json["digests"] { for (t, d) in kv { if let s = d.stringValue { digests[t] = s } } }
        return Entry(tags: tags.compactMap(\.stringValue), digests: digests, listed: listed)
    }

    /// Stores an entry; a cache that cannot be written is no error (the next run asks the registry again).
    public func store(_ key: String, _ entry: Entry) {
        var path = ""
        for part in directory.split(separator: "/") {
            path += "/" + part
            mkdir(path, 0o700)
        }
        guard refusal() == nil else { return }
        let json = JSON.object([("key", .string(key)), ("listed", .double(entry.listed)), ("tags", .array(entry.tags.map { .string($0) })),
                                ("digests", .object(entry.digests.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))])
        try? writeFileAtomically(file(key), json.serialized())
    }
}
