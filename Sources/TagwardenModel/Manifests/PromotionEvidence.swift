import TagwardenBasics
#if canImport(Glibc)
import Glibc
#endif

/// What staging ran, by image: every digest and every version identity (`vX.Y.Z-<sha>-<ts>` after the
/// environment prefix) that a staging manifest held, at HEAD or in any commit reachable from it.
public struct PromotionEvidence: Sendable, Equatable {
    /// The normalized names of every image a staging manifest held, whatever its tag: the images promoted through staging.
    public var images = StringSet()
    /// normalized image name → digests
    public var digests = StringMap<StringSet>()
    /// normalized image name → identity → digests seen with it (empty when staging ran it without one)
    public var identities = StringMap<StringMap<StringSet>>()
    /// How many commits were read on this run (0 when the cache was current).
    public var commitsRead = 0

    public init() {}

    /// `staging-v1.2.3-abc1234-17…` → `v1.2.3-abc1234-17…` (nil when the rest is not a version identity).
    public static func identity(tag: String, prefix: String?) -> String? {
        var tag = tag
        // (the tag's bytes read in place: an array of them was an allocation for each image and commit)
        return tag.withUTF8 { b -> String? in
            var from = 0
            if let prefix, b.starts(with: prefix.utf8) { from = prefix.utf8.count }
            else if b.first != UInt8(ascii: "v"), let dash = b.firstIndex(of: UInt8(ascii: "-")) { from = dash + 1 }
            guard isIdentity(b[from...]) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: b[from...]), as: UTF8.self)
        }
    }

    /// `^v[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{7,40}-[0-9]+$`, read byte by byte (a tag per image and commit).
    static func isIdentity(_ b: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var i = b.startIndex
        @inline(__always) func run(_ accept: (UInt8) -> Bool) -> Int {
            let start = i
            while i < b.endIndex, accept(b[i]) { i += 1 }
            return i - start
        }
        @inline(__always) func byte(_ c: UInt8) -> Bool {
            guard i < b.endIndex, b[i] == c else { return false }
            i += 1
            return true
        }
        let digit = { (c: UInt8) in c >= 48 && c <= 57 }
        let hex = { (c: UInt8) in (c >= 48 && c <= 57) || (c >= 97 && c <= 102) }
        let dot = UInt8(ascii: "."), dash = UInt8(ascii: "-")
        return byte(UInt8(ascii: "v")) && run(digit) > 0 && byte(dot) && run(digit) > 0 && byte(dot) && run(digit) > 0
            && byte(dash) && (7...40).contains(run(hex)) && byte(dash) && run(digit) > 0 && i == b.endIndex
    }

    /// Records what a staging manifest held for an image (its normalised name), in place: no copy of the per-image maps.
    package mutating func record(normalized: String, tag: String?, digest: String?, prefix: String?) {
        images.insert(normalized)
        if let digest { digests[normalized, default: []].insert(digest) }
        if let tag, let id = PromotionEvidence.identity(tag: tag, prefix: prefix) {
            if let digest {
                identities[normalized, default: [:]][id, default: []].insert(digest)
            } else if identities[normalized]?[id] == nil {
                identities[normalized, default: [:]][id] = []
            }
        }
    }

    public mutating func merge(_ other: PromotionEvidence) {
        if images.isEmpty {   // (no set rehashed when there is nothing to merge into)
            (images, digests, identities) = (other.images, other.digests, other.identities)
            return
        }
        images.formUnion(other.images)
        for (k, v) in other.digests { digests[k, default: []].formUnion(v) }
        for (k, byId) in other.identities {
            for (id, ds) in byId { identities[k, default: [:]][id, default: []].formUnion(ds) }
        }
    }

    /// Staging images of a model (the tree being linted counts as "at HEAD").
    public static func fromModel(_ m: Model, staging: Environment) -> PromotionEvidence {
        var e = PromotionEvidence()
        for (i, img) in m.images.withIDs where m.images[i].environment == staging.name && img.invalid == nil {
            if let n = img.normalizedName { e.record(normalized: n, tag: img.tag?.value, digest: img.digest, prefix: staging.tagPrefix) }
        }
        return e
    }

    // MARK: cache file

    package func json(key: String, tip: String) -> JSON {
        .object([
            ("version", .int(2)), ("key", .string(key)), ("tip", .string(tip)),
            ("images", .array(images.sorted().map(JSON.string))),
            ("digests", .object(digests.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.sorted().map(JSON.string))) })),
            ("identities", .object(identities.sorted { $0.key < $1.key }.map { (name, byId) in
                (name, .object(byId.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.sorted().map(JSON.string))) }))
            })),
        ])
    }

    package static func fromJSON(_ j: JSON, key: String) -> (PromotionEvidence, String)? {
        guard case .int(2)? = j["version"], j["key"]?.stringValue == key, let tip = j["tip"]?.stringValue,
              case .array(let names)? = j["images"], case .object(let ds)? = j["digests"], case .object(let ids)? = j["identities"] else { return nil }
        var e = PromotionEvidence()
        e.images = StringSet(names.compactMap(\.stringValue))
        for (name, list) in ds {
            guard case .array(let xs) = list else { return nil }
            e.digests[name] = StringSet(xs.compactMap(\.stringValue))
        }
        for (name, byId) in ids {
            guard case .object(let kv) = byId else { return nil }
            for (id, list) in kv {
                guard case .array(let xs) = list else { return nil }
                e.identities[name, default: [:]][id] = StringSet(xs.compactMap(\.stringValue))
            }
        }
        return (e, tip)
    }
}

extension PromotionEvidence {
    /// The cache file as `json(key:tip:)` writes it, read from its bytes: compact, its keys in that order, its strings
    /// without escapes. Nil for anything else, which `fromJSON` then reads. (Made into a JSON tree, read and freed, a
    /// fleet's evidence had cost 19 M instructions of each warm audit of the bench fleet.)
    package static func fromCacheFile(_ bytes: [UInt8], key: String) -> (PromotionEvidence, String)? {
        bytes.withUnsafeBufferPointer { b -> (PromotionEvidence, String)? in
            var r = CacheFileReader(b: b)
            guard r.literal("{\"version\":2,\"key\":"), r.string() == key, r.literal(",\"tip\":"), let tip = r.string(),
                  r.literal(",\"images\":"), let images = r.strings(), r.literal(",\"digests\":") else { return nil }
            var e = PromotionEvidence()
            e.images = images
            guard r.object({ r, name in
                guard let ds = r.strings() else { return false }
                e.digests[name] = ds
                return true
            }), r.literal(",\"identities\":"), r.object({ r, name in
                r.object { r, id in
                    guard let ds = r.strings() else { return false }
                    e.identities[name, default: [:]][id] = ds
                    return true
                }
            }), r.literal("}"), r.atEnd() else { return nil }
            return (e, tip)
        }
    }
}

/// A cursor over the evidence cache file's bytes (`PromotionEvidence.fromCacheFile`).
private struct CacheFileReader {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    /// `s` next: passed over.
    mutating func literal(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= b.count, memcmp(b.baseAddress! + i, s.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }

    /// A string without escapes or control characters (what the writer gives names, tags and digests).
    mutating func string() -> String? {
        guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
        var j = i + 1
        while j < b.count, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "\\"), b[j] >= 32 { j += 1 }
        guard j < b.count, b[j] == UInt8(ascii: "\"") else { return nil }
        defer { i = j + 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: b[(i + 1)..<j]), as: UTF8.self)
    }

    /// `[…]` of such strings.
    mutating func strings() -> StringSet? {
        guard literal("[") else { return nil }
        var out = StringSet()
        if literal("]") { return out }
        repeat {
            guard let s = string() else { return nil }
            out.insert(s)
        } while literal(",")
        return literal("]") ? out : nil
    }

    /// `{…}` whose members `member` reads after each name and its `:`.
    mutating func object(_ member: (inout CacheFileReader, String) -> Bool) -> Bool {
        guard literal("{") else { return false }
        if literal("}") { return true }
        repeat {
            guard let name = string(), literal(":"), member(&self, name) else { return false }
        } while literal(",")
        return literal("}")
    }

    /// Nothing but the final line break after the value.
    mutating func atEnd() -> Bool {
        while i < b.count, b[i] == 10 || b[i] == 13 || b[i] == 32 { i += 1 }
        return i == b.count
    }
}
