import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let automationUnknownSource = Rule("automation-unknown-source") { c in
        let m = c.model
        return m.flux.automations.compactMap { a in
            guard !m.flux.nonResources.contains(a.object), m.automationSourceIsMissing(a), let name = a.spec.sourceName else { return nil }
            let ns = a.spec.sourceNamespace ?? a.namespace
            // the name right, the namespace not: the namespace to give sourceRef (an automation's own is the default)
            let elsewhere = m.flux.gitRepositories.filter { $0.name == name.value }.compactMap(\.namespace)
            let hint = elsewhere.count == 1 ? ": GitRepository \(name.value) is in namespace \(elsewhere[0]): set sourceRef.namespace: \(elsewhere[0])"
                : Suggest.nearest(name.value, in: m.flux.gitRepositories.map(\.name)).map { ": did you mean '\($0)'?" } ?? ""
            var f = c.finding("no GitRepository \(ns ?? "<no namespace>")/\(name.value) in the repository\(hint)",
                              object: a.object, at: name)
            // a cluster whose Flux is installed elsewhere (a tenant's repository) may be given the GitRepository there
            if !m.describesCluster(ofFile: m.objects[a.object].file) { f.assume(Model.madeElsewherePremise("GitRepository")) }
            return f
        }
    }
}
