import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageNotPinned = Rule("image-not-pinned") { c in
        let m = c.model
        return m.images.indices.flatMap { i in m.images[i].judgedIn.compactMap { e in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.digest == nil, let name = img.name,
                  let env = m.environments.named(e), env.requireDigest else { return nil }
            if img.tagOptional && img.tag == nil { return nil }  // a kustomize rename keeps the base's pin
            // Flux's own controllers, as flux bootstrap writes them: pinned by the Flux release, not by the team
            if m.clusters.componentFiles.contains(img.file) { return nil }
            let pinned = "\(name)\(img.tag.map { ":" + $0.value } ?? "")@sha256:<digest>"
            // a tag Flux moves needs a digest Flux moves beside it: the runtime pulls by digest, so a fixed one keeps the old image
            var tagMarker: MarkerRef?
            if img.isParts, let k = m.images[i].markers.first(where: { m.markers[$0].ref?.part == .tag }) { tagMarker = m.markers[k].ref }
            let marked = tagMarker.map {
                ", with a {\"$imagepolicy\": \"\($0.namespace):\($0.name):digest\"} marker on it: otherwise Flux moves the tag "
                    + "and the pinned digest keeps the old image running"
            } ?? ""
            let how: String
            switch img.origin {
            case .kustomize:
                how = "add `digest: sha256:<digest>` to this images: entry (the build then runs \(pinned))" + marked
            case .helmParts where tagMarker != nil:
                how = "give the chart the digest of '\(img.text)' in a `digest: sha256:<digest>` value beside the tag (charts that read one)" + marked
            case .helmParts:
                how = "give the chart the digest of '\(img.text)': a `digest: sha256:<digest>` value beside the tag where the chart reads one, "
                    + "else `tag: \(img.tag?.value ?? "<tag>")@sha256:<digest>`"
            default:
                how = "pin '\(img.text)' as \(pinned)"
            }
            return c.finding("\(env.name) requires digests: \(how)", image: i, environment: env.name)
        } }
    }
}
