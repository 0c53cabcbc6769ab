import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let automationMissingPath = Rule("automation-missing-path") { c in
        let m = c.model
        let held = pathsHoldingFiles(m, among: Set(m.flux.automations.flatMap(\.paths).filter { !$0.isEmpty }))
        return m.flux.automations.compactMap { a in
            guard !m.flux.nonResources.contains(a.object), !a.spec.updatesElsewhere, let raw = a.spec.updatePath else { return nil }
            // not judged: `${…}` that nothing here substitutes, or another repository's paths (its GitRepository may be
            // one), which the note says where no path of it is in this tree
            guard !a.unresolved else { return nil }
            if a.mayUpdateElsewhere {
                let source = "\(a.spec.sourceNamespace ?? a.namespace ?? "<no namespace>")/\(a.spec.sourceName?.value ?? "")"
                var f = c.finding("update.path '\(raw.value)' holds no manifest in this tree, and its GitRepository \(source) is not in this "
                                  + "repository: it may update another repository, or this one from another root (a directory pushed as a "
                                  + "repository of its own); the markers here are not judged against it", object: a.object, at: raw)
                f.ruleSeverity = .note
                return f
            }
            guard a.source != .unknown else { return nil }
            let missing = a.paths.filter { !$0.isEmpty && !held.contains($0) }
            guard !missing.isEmpty else { return nil }
            let substituted = raw.value.containsBytes("${")
                ? " (substituted by the Flux Kustomizations that apply it: " + missing.map { "'\($0)'" }.joined(separator: ", ") + ")" : ""
            let checked = a.source == .assumed
                ? "; checked against this checkout, as the repository its GitRepository names (every GitRepository here names that one; no remote of the clone has its URL)" : ""
            return c.finding("update.path '\(raw.value)'\(substituted) holds no manifest in this tree: the automation updates nothing\(checked)",
                             object: a.object, at: raw)
        }
    }

    /// Which of `paths` are a file of the repository or a directory holding one: one pass over the files,
    /// each looked up by its own path and its directories.
    static func pathsHoldingFiles(_ m: Model, among paths: Set<String>) -> Set<String> {
        var held = Set<String>()
        guard !paths.isEmpty else { return held }
        // a few paths: each compared with the files' bytes until it holds one
        if paths.count <= 16 {
            var open = Array(paths)
            for i in m.files.indices where !open.isEmpty {
                let path = m.files[i].path
                open.removeAll { p in
                    guard FluxIndex.holds(p, path) else { return false }
                    held.insert(p)
                    return true
                }
            }
            return held
        }
        // many: the files' directories looked up
        for i in m.files.indices {
            for p in FluxIndex.updatePaths(holding: m.files[i].path) where paths.contains(p) { held.insert(p) }
            if held.count == paths.count { break }
        }
        return held
    }
}
