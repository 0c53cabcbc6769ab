extension Rule {
    static let automationMissingPath = Rule("automation-missing-path") { m in
        m.flux.automations.compactMap { a in
            guard !m.flux.patchObjects.contains(a.object), !a.spec.updatesElsewhere, let raw = a.spec.updatePath else { return nil }
            if raw.value.hasPrefix("/") {
                return m.finding("automation-missing-path", "update.path '\(raw.value)' is absolute: it is relative to the repository root",
                                 object: a.object, span: raw.span)
            }
            guard let path = a.path else {
                return m.finding("automation-missing-path", "update.path '\(raw.value)' leaves the repository", object: a.object, span: raw.span)
            }
            if path.isEmpty { return nil }
            let exists = m.files.contains { $0.path == path || $0.path.hasPrefix(path + "/") }
            if exists { return nil }
            return m.finding("automation-missing-path", "update.path '\(raw.value)' holds no manifest in this tree: the automation updates nothing",
                             object: a.object, span: raw.span)
        }
    }
}
