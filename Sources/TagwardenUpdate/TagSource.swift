import TagwardenBasics
import TagwardenYAML
import TagwardenModel

// The update engine's layer: what Flux's image automation does, run from a laptop or CI. It reads tags (from a file,
// later from registries), evaluates each ImagePolicy with TagwardenPolicy, rewrites the marked fields of the Model's
// files as byte-span edits (TagwardenYAML's `Edit`), and commits and pushes with TagwardenGit. It sits beside
// TagwardenLint, not above it: the two engines share the Model and nothing else.

/// One tag of an image repository, with the digest the registry gives it when known.
public struct TagRecord: Sendable, Equatable {
    public let tag: String
    /// `sha256:…`, as a registry returns it for the tag (for a multi-arch image, the index's digest); nil when unknown.
    public let digest: String?

    public init(tag: String, digest: String? = nil) {
        self.tag = tag
        self.digest = digest
    }
}

/// Where the tags of an ImageRepository's `spec.image` come from: a tag file now, a registry later. The
/// ImageRepository's `exclusionList` is applied by the policy evaluation, not by the source.
public protocol TagSource {
    /// The tags of `image` (an ImageRepository `spec.image`, as written), or nil when the source has none for it.
    func tags(of image: String) throws -> [TagRecord]?
    /// The digest of one tag, for a source that does not list digests with the tags (a registry is asked per tag).
    func digest(of image: String, tag: String) throws -> String?
    /// Reads the tags of these images ahead, several at once where that pays (registries); `tags(of:)` then answers.
    func prefetch(_ images: [String])
    /// Reads these digests ahead, several at once where that pays; `digest(of:tag:)` then answers.
    func prefetchDigests(_ wanted: [(image: String, tag: String)])
    /// What the source holds under each of these tags (an image as written, `nginx` or `ghcr.io/acme/web`), several at
    /// once where that pays; a tag that could not be asked about is left out, with why in `unanswered`.
    func lookup(_ wanted: [(image: String, tag: String)], unanswered: inout [Int: String]) -> [Int: RegistryFacts.Tag]
    /// The digests of the manifests of the index `digest` names; nil when the source cannot say.
    func platforms(of image: String, digest: String) -> [String]?
}

extension TagSource {
    public func prefetch(_ images: [String]) {}
    public func prefetchDigests(_ wanted: [(image: String, tag: String)]) {}
    public func platforms(of image: String, digest: String) -> [String]? { nil }

    public func digest(of image: String, tag: String) throws -> String? {
        try tags(of: image)?.first { $0.tag == tag }?.digest
    }

    /// From the listings: a tag listed is present (with its digest when the source gives one), one not listed is missing.
    public func lookup(_ wanted: [(image: String, tag: String)], unanswered: inout [Int: String]) -> [Int: RegistryFacts.Tag] {
        var out: [Int: RegistryFacts.Tag] = [:]
        for (k, w) in wanted.enumerated() {
            let listed: [TagRecord]?
            do { listed = try tags(of: w.image) } catch let e as TagwardenError { unanswered[k] = e.message; continue } catch { unanswered[k] = "\(error)"; continue }
            guard let listed else { continue }
            out[k] = listed.first { $0.tag == w.tag }.map { .present(digest: $0.digest, mediaType: nil, platforms: []) } ?? .missing
        }
        return out
    }
}

/// Tags given in a file (`update --tags FILE`): a JSON or YAML mapping whose keys are ImageRepository `spec.image`
/// values and whose values are lists of tags, each a string or `{tag: …, digest: sha256:…}`.
public struct TagFile: TagSource {
    public let path: String
    /// The images the file lists, in its order.
    public let images: [String]
    let entries: [String: [TagRecord]]

    public func tags(of image: String) throws -> [TagRecord]? { entries[image] }

    /// From the listings, an image found by its normalised name (`nginx` and `docker.io/library/nginx` are one).
    public func lookup(_ wanted: [(image: String, tag: String)], unanswered: inout [Int: String]) -> [Int: RegistryFacts.Tag] {
        var byName: [String: [TagRecord]] = [:]
        for (image, tags) in entries { if let n = ImageReference.normalizeName(image) { byName[n, default: []] += tags } }
        var out: [Int: RegistryFacts.Tag] = [:]
        for (k, w) in wanted.enumerated() {
            guard let n = ImageReference.normalizeName(w.image) else { continue }
            guard let listed = byName[n] else { unanswered[k] = "the tag file does not list it"; continue }
            out[k] = listed.first { $0.tag == w.tag }.map { .present(digest: $0.digest, mediaType: nil, platforms: []) } ?? .missing
        }
        return out
    }

    /// Reads `bytes` (the file named `path` in messages). A malformed file is an error naming the file, line and
    /// column: nothing is guessed.
    public static func parse(_ bytes: [UInt8], path: String) throws -> TagFile {
        var y = YAMLFile()
        y.reparse(bytes)
        func fail(_ node: Int?, _ message: String) -> TagwardenError {
            guard let node else { return TagwardenError("\(path): \(message)") }
            let p = y.nodes[node].span.start
            return TagwardenError("\(path):\(p.line):\(p.column): \(message)")
        }
        if let e = y.error { throw TagwardenError("\(path):\(e.position.line):\(e.position.column): not YAML or JSON: \(e.message)") }
        guard y.documents.count == 1 else {
            throw fail(nil, y.documents.isEmpty ? "empty: expected a mapping of images to their tags"
                                                : "\(y.documents.count) documents: expected one mapping of images to their tags")
        }
        let root = y.resolved(y.documents[0].root)
        guard y.nodes[root].kind == .mapping else { throw fail(root, "expected a mapping of images to lists of tags") }
        var entries: [String: [TagRecord]] = [:]
        var images: [String] = []
        for (k, v) in y.pairs(root) {
            guard y.isScalar(k), !y.isNull(k), !y.value(k).isEmpty else { throw fail(k, "an image must be a non-empty string") }
            let image = y.value(k)
            guard entries[image] == nil else { throw fail(k, "image \(image) is listed twice") }
            let list = y.resolved(v)
            guard y.nodes[list].kind == .sequence else { throw fail(v, "the tags of \(image) must be a list") }
            var records: [TagRecord] = []
            for item in y.childNodes(list) {
                let n = y.resolved(item)
                if y.isScalar(n) {
                    guard !y.isNull(n), !y.value(n).isEmpty else { throw fail(n, "an empty tag in the tags of \(image)") }
                    records.append(TagRecord(tag: y.value(n)))
                    continue
                }
                guard y.nodes[n].kind == .mapping else { throw fail(n, "a tag must be a string or {tag: …, digest: …}") }
                for (key, _) in y.pairs(n) where !["tag", "digest"].contains(y.value(key)) {
                    throw fail(key, "unknown field '\(y.value(key))': a tag has 'tag' and 'digest'")
                }
                guard let t = y.get(n, "tag"), y.isScalar(t), !y.isNull(t), !y.value(t).isEmpty else {
                    throw fail(n, "a tag given as a mapping needs 'tag'")
                }
                var digest: String?
                if let d = y.get(n, "digest"), !y.isNull(d) {
                    let text = y.isScalar(d) ? y.value(d) : ""
                    if let problem = ImageReference.checkDigest(text) { throw fail(d, problem) }
                    digest = text
                }
                records.append(TagRecord(tag: y.value(t), digest: digest))
            }
            entries[image] = records
            images.append(image)
        }
        return TagFile(path: path, images: images, entries: entries)
    }

    init(path: String, images: [String], entries: [String: [TagRecord]]) {
        self.path = path
        self.images = images
        self.entries = entries
    }
}
