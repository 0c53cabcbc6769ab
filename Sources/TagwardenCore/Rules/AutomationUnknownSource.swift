extension Rule {
    static let automationUnknownSource = Rule("automation-unknown-source") { m in
        m.flux.automations.compactMap { a in
            guard !m.flux.nonResources.contains(a.object), (a.spec.sourceKind ?? "GitRepository") == "GitRepository",
                  let name = a.spec.sourceName else { return nil }
            let ns = a.spec.sourceNamespace ?? a.namespace
            if m.flux.source(of: a) != nil { return nil }
            let hint = Suggest.nearest(name.value, in: m.flux.gitRepositories.map(\.name)).map { ": did you mean '\($0)'?" } ?? ""
            return m.finding("automation-unknown-source", "no GitRepository \(ns ?? "<no namespace>")/\(name.value) in the repository\(hint)",
                             object: a.object, span: name.span)
        }
    }
}
