extension Rule {
    static let automationMissingPath = Rule("automation-missing-path") { m in
        let held = pathsHoldingFiles(m, among: Set(m.flux.automations.compactMap { $0.path }.filter { !$0.isEmpty }))
        return m.flux.automations.compactMap { a in
            guard !m.flux.patchObjects.contains(a.object), !a.spec.updatesElsewhere, let raw = a.spec.updatePath else { return nil }
            if raw.value.hasPrefix("/") {
                return m.finding("automation-missing-path", "update.path '\(raw.value)' is absolute: it is relative to the repository root",
                                 object: a.object, span: raw.span)
            }
            guard let path = a.path else {
                return m.finding("automation-missing-path", "update.path '\(raw.value)' leaves the repository", object: a.object, span: raw.span)
            }
            if path.isEmpty { return nil }
            if held.contains(path) { return nil }
            return m.finding("automation-missing-path", "update.path '\(raw.value)' holds no manifest in this tree: the automation updates nothing",
                             object: a.object, span: raw.span)
        }
    }

    /// Which of `paths` are a file of the repository or a directory holding one: one pass over the files,
    /// each looked up by its own path and its directories.
    static func pathsHoldingFiles(_ m: Model, among paths: Set<String>) -> Set<String> {
        var held = Set<String>()
        guard !paths.isEmpty else { return held }
        for f in m.files {
            for p in FluxIndex.updatePaths(holding: f.path) where paths.contains(p) { held.insert(p) }
            if held.count == paths.count { break }
        }
        return held
    }
}
