import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageEntryUnmatched = Rule("image-entry-unmatched") { c in
        let m = c.model
        return m.unmatchedImageEntries.map { u in
            let name = u.name.value
            let builds: String
            if case .kustomization? = m.objects[u.object].flux {
                builds = "the build of Flux Kustomization \(m.objectNamespace[u.object] ?? "<no namespace>")/\(m.objects[u.object].name ?? "")"
            } else if m.objects[u.object].kind == "Component" {
                builds = "the builds that include this Component"
            } else {
                builds = "this kustomization's build"
            }
            var message = "images: entry '\(name)' matches no image of \(builds), so kustomize leaves the images as they are"
            if let same = u.spelledOtherwise {
                message += ": kustomize compares names as written, and the build writes this image '\(same)'"
            } else if let near = u.nearest.first(where: { near in
                // (not one another entry of the list already names: Chronicle20/atlas's atlas-marriages beside atlas-messages)
                likelyMeant(name, near) && !m.objects[u.object].kustomizeImages.contains { $0.name.value == near }
            }) {
                message += ": did you mean '\(near)'?"
            } else if !u.nearest.isEmpty {
                message += " (its images include \(u.nearest.map { "'\($0)'" }.joined(separator: ", ")))"
            } else {
                message += " (it has no container images)"
            }
            return c.finding(message, file: m.objects[u.object].file, span: u.name.span,
                             object: u.object, environment: m.objectEnvironment[u.object])
        }
    }

    /// Whether `other` is likely what `name` meant: a few edits apart once the path they share (`ghcr.io/acme/`) is
    /// set aside, so that `ghcr.io/acme/api` does not suggest `ghcr.io/acme/web`.
    static func likelyMeant(_ name: String, _ other: String) -> Bool {
        let a = Array(name.utf8), b = Array(other.utf8)
        var shared = 0, i = 0
        while i < min(a.count, b.count), a[i] == b[i] {
            if a[i] == UInt8(ascii: "/") { shared = i + 1 }
            i += 1
        }
        let rest = String(decoding: a[shared...], as: UTF8.self)
        return Suggest.nearest(rest, in: [String(decoding: b[shared...], as: UTF8.self)]) != nil
    }
}
