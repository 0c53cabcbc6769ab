extension Rule {
    static let automationUnknownSource = Rule("automation-unknown-source") { m in
        m.flux.automations.compactMap { a in
            guard !m.flux.patchObjects.contains(a.object), (a.spec.sourceKind ?? "GitRepository") == "GitRepository",
                  let name = a.spec.sourceName else { return nil }
            let ns = a.spec.sourceNamespace ?? a.namespace
            if m.flux.gitRepositories.contains(where: { $0.name == name.value && FluxIndex.sameNamespace($0.namespace, ns) }) { return nil }
            let hint = Suggest.nearest(name.value, in: m.flux.gitRepositories.map(\.name)).map { ": did you mean '\($0)'?" } ?? ""
            return m.finding("automation-unknown-source", "no GitRepository \(ns ?? "<no namespace>")/\(name.value) in the repository\(hint)",
                             object: a.object, span: name.span)
        }
    }
}
