import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageMissingTag = Rule("image-missing-tag") { c in
        let m = c.model
        return m.images.indices.compactMap { i in
            let img = m.images[i]
            guard img.invalid == nil, !img.retagged, img.name != nil, img.tag == nil, img.digest == nil, !img.tagOptional else { return nil }
            // (a node keeps the image it pulled where the container asks for no pull: `latest` then differs from node to node)
            let runs = switch img.pullPolicy {
            case "IfNotPresent"?: "with imagePullPolicy IfNotPresent, each node runs the 'latest' it pulled first, whatever 'latest' points to now"
            case "Never"?: "with imagePullPolicy Never, each node runs the 'latest' it already holds, if any"
            default: "it runs whatever 'latest' points to when the pod starts"
            }
            var f = c.finding("image '\(img.text)' has neither a tag nor a digest: \(runs)", image: i)
            // a chart's template, not read here, may add a tag of its own to a value that names the image
            if img.origin == .helmImage {
                f.assume("assuming the chart takes this value as the whole reference; some add their own tag (kubecost's adds "
                         + ":prod-<appVersion>): if this one does, say so with # tagwarden:ignore image-missing-tag on the line")
            }
            return f
        }
    }
}
