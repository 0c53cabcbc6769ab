import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    /// `tagFields` and `digestFields` in one map, to the part each field holds: a marker's key is hashed once, where
    /// asking each set hashed it once for each.
    static let tagOrDigestFields = Dictionary(uniqueKeysWithValues: tagFields.map { ($0, MarkerPart.tag) } + digestFields.map { ($0, MarkerPart.digest) })

    /// The part a field of `tagOrDigestFields` holds; nil for any other field, and for none.
    static func tagOrDigestPart(_ key: String?) -> MarkerPart? { key.flatMap { tagOrDigestFields[$0] } }

    static let markerImageMismatch = Rule("marker-image-mismatch", scope: .updatePaths) { c in
        let m = c.model
        // an image given in parts whose name field carries a `:name` marker: the policy Flux writes its name from
        // (a loop: a lazy filter's closures would each hold a copy of the model)
        func namedBy(_ ii: ImageID) -> PolicyID? {
            for k in m.images[ii].markers where m.markers[k].ref?.part == .name {
                if let p = m.markers[k].policy { return p }
            }
            return nil
        }
        // the images each policy updates in the clusters of a file, asked once per policy and set of clusters
        struct Asked: Hashable { let policy: PolicyID, clusters: [ClusterID] }
        var known: [Asked: [(written: String, normalized: String)]] = [:]
        func images(_ p: PolicyID, _ f: FileID) -> [(written: String, normalized: String)] {
            let key = Asked(policy: p, clusters: m.clusters.of(f))
            if let seen = known[key] { return seen }
            let found = m.policyImages(p, deploying: f)
            known[key] = found
            return found
        }
        return m.markers.indices.compactMap { k in
            // (a marker Flux skips, outside every automation's update.path or not a comment, overwrites nothing:
            // marker-ignored says why)
            guard m.markers[k].context == .value, m.markers[k].skipped == nil, let part = m.markers[k].ref?.part, let p = m.markers[k].policy,
                  let value = m.markers[k].scalar?.value, let (image, wantName) = m.policyImage(p) else { return nil }
            // whether the policy updates image `have` in a cluster that deploys this file (each build's own repository,
            // where a shared base's is patched per cluster)
            func updates(_ have: String, _ p: PolicyID) -> Bool { images(p, m.markers[k].file).contains { $0.normalized == have } }
            if part == .tag || part == .digest {
                // the tag (digest) goes on the name beside it: the entry's `newName`/`name`, the chart's `repository`, or
                // what that field's own `:name` marker makes it
                guard tagOrDigestPart(m.markers[k].fieldKey) == part, let ii = m.markers[k].image,
                      m.images[ii].isParts, var written = m.images[ii].name, var have = m.images[ii].normalizedName else { return nil }
                if let q = namedBy(ii) {
                    let named = images(q, m.markers[k].file)
                    guard let first = named.first else { return nil }
                    if named.contains(where: { updates($0.normalized, p) }) { return nil }
                    (written, have) = first
                }
                guard !updates(have, p) else { return nil }
                let what = part == .tag ? "tag" : "digest"
                return c.finding("policy \(m.policyName(p)) writes the \(what) of \(image) here, but this field sets the \(what) of \(written): Flux would give \(written) another image's \(what)",
                                 writtenAt: k)
            }
            // a full-reference marker on a tag or digest field is marker-wrong-form's, not a name to compare
            guard part == .reference || part == .name, !(part == .reference && tagOrDigestPart(m.markers[k].fieldKey) != nil) else { return nil }
            // the image the marked field belongs to was parsed once, when it was extracted; a field that is not
            // an image Tagwarden knows (a `:name` on a custom field) is read here
            let written: String, have: String
            if let ii = m.markers[k].image, let n = m.images[ii].name, let h = m.images[ii].normalizedName {
                (written, have) = (n, h)
            } else {
                let name: String
                if part == .name { name = value } else {
                    guard case .success(let r) = ImageReference.parse(value) else { return nil }
                    name = r.name
                }
                guard let h = ImageReference.normalizeName(name) else { return nil }
                (written, have) = (name, h)
            }
            if have == wantName, part == .name, let ii = m.markers[k].image, m.images[ii].origin == .helmParts,
               written != value, written.hasSuffix("/" + value) {
                // a chart that puts its `registry` value in front of `repository`: Flux writes spec.image there as written
                let registry = written.dropLast(value.utf8.count + 1)
                let after = registry + "/" + image
                guard ImageReference.normalizeName(after) != wantName else { return nil }
                return c.finding("policy \(m.policyName(p)) writes \(image) into this repository field, and the chart puts the registry value '\(registry)' "
                                    + "in front of it: after the first update the release pulls \(after); drop the :name marker (the repository then stays as written)",
                                 writtenAt: k)
            }
            guard !updates(have, p) else { return nil }
            return c.finding("policy \(m.policyName(p)) updates \(image), but this field names \(written): Flux would overwrite it with another image",
                             writtenAt: k)
        }
    }
}
