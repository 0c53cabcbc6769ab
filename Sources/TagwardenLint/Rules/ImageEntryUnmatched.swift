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
            } else if let near = u.nearest.first(where: { likelyMeant(name, $0) }) {
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
    /// set aside, so that `ghcr.io/acme/api` does not suggest `ghcr.io/acme/web`; the edits of every path component
    /// counted against what one name allows, so that a name repeated in the path (`atlas-marriages/atlas-marriages`)
    /// does not double the edits allowed (Chronicle20/atlas: not `atlas-messages/atlas-messages`, another service).
    static func likelyMeant(_ name: String, _ other: String) -> Bool {
        let a = name.split(separator: "/", omittingEmptySubsequences: false), b = other.split(separator: "/", omittingEmptySubsequences: false)
        guard a.count == b.count else {
            // (another depth: the rest of the two after the path they share, as one name)
            var shared = 0
            while shared < min(a.count, b.count), a[shared] == b[shared] { shared += 1 }
            return Suggest.nearest(a[shared...].joined(separator: "/"), in: [b[shared...].joined(separator: "/")]) != nil
        }
        let differing = zip(a, b).filter { $0 != $1 }
        guard let longest = differing.map({ $0.0.count }).max() else { return true }
        let word = differing.map { String($0.0) }.joined(separator: "/"), meant = differing.map { String($0.1) }.joined(separator: "/")
        return Suggester([meant]).nearest(word, within: max(2, longest / 3)) != nil
    }
}
