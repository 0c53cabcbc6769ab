import TagwardenBasics
#if canImport(Glibc)
import Glibc
#endif

/// Tags and digests read from registries, kept under the user's cache directory (`XDG_CACHE_HOME`, else `~/.cache`)
/// in `tagwarden/registry/`: one file per registry, repository and credential identity (the credential's origin and
/// user, never its secret), so that what one credential may see is never served to another. Writes are atomic; a file
/// that cannot be read is discarded.
public struct TagCache: Sendable {
    public let directory: String

    public struct Entry: Sendable {
        public var tags: [String]
        public var digests: [String: String]
        /// Seconds since the epoch when the tags were listed.
        public var listed: Double
    }

    public init(directory: String? = nil) {
        if let directory {
            self.directory = directory
        } else {
            let env = { (k: String) in getenv(k).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
            let base = env("XDG_CACHE_HOME") ?? ((env("HOME") ?? "/tmp") + "/.cache")
            self.directory = base + "/tagwarden/registry"
        }
    }

    /// The file of a key: FNV-1a of the key in hex (the key itself is kept inside and checked).
    func file(_ key: String) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return directory + "/" + String(h, radix: 16) + ".json"
    }

    public func load(_ key: String) -> Entry? {
        guard case .success(let bytes) = FileSystem.readFile(file(key), limit: 64 << 20),
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
        let json = JSON.object([("key", .string(key)), ("listed", .double(entry.listed)), ("tags", .array(entry.tags.map { .string($0) })),
                                ("digests", .object(entry.digests.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))])
        try? writeFileAtomically(file(key), json.serialized())
    }
}
