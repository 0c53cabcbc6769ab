import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerUnknownPolicy = Rule("marker-unknown-policy", scope: .updatePaths) { c in
        let m = c.model
        var suggester: PolicySuggester?     // built on first need
        var hints: [String: String] = [:]   // many markers may share one unknown name
        var moved: [String: String] = [:]   // of those, the ones a kustomization moved: the namespace it moved them to
        var movedByName: [String: [PolicyID]]?   // policies by name, built on first need
        var refusedAt: MarkerID?                // the first marker left without a suggestion for want of budget
        var out: [Finding] = m.markers.indices.compactMap { k in
            guard m.markers[k].context == .value, let ref = m.markers[k].ref, m.markers[k].policy == nil,
                  m.markers[k].candidates.isEmpty else { return nil }
            // defined, but only where nothing deploys it
            if let (p, why) = m.markers[k].undeployed {
                let file = m.path(m.objects[m.flux.policies[p].object].file)
                return c.finding("ImagePolicy \(ref.namespace)/\(ref.name) is defined only in \(file), which is not deployed (\(why)), "
                                 + "so Flux has no such policy and never updates this field", marker: k)
            }
            let wanted = "\(ref.namespace):\(ref.name)"
            // a policy written in that namespace that a kustomization moved: where it really is
            if movedByName == nil {
                movedByName = [:]
                for (p, policy) in m.flux.policies.withIDs where m.namespaceOverride[policy.object] != nil {
                    movedByName![policy.name, default: []].append(p)
                }
            }
            if hints[wanted] == nil, let p = movedByName![ref.name]?.first(where: { p in
                m.objects[m.flux.policies[p].object].declaredNamespace == ref.namespace
            }), let now = m.flux.policies[p].namespace {
                hints[wanted] = ": ImagePolicy \(ref.name) of \(m.path(m.objects[m.flux.policies[p].object].file)) is written in \(ref.namespace), "
                    + "but \(m.namespaceOverride[m.flux.policies[p].object]!), so it is \(now)/\(ref.name)"
                moved[wanted] = now
            }
            if hints[wanted] == nil {
                if suggester == nil { suggester = PolicySuggester(m.flux.policies) }
                let names = suggester!.suggest(namespace: ref.namespace, name: ref.name)
                hints[wanted] = names.isEmpty ? "" : ": did you mean " + names.map { "'\($0.namespace):\($0.name)'" }.joined(separator: " or ") + "?"
                if suggester!.budget.refused, refusedAt == nil { refusedAt = k }
            }
            // a chart of the repository may make it: its templates are not read
            if let chart = m.policyCharts.first {
                var f = c.finding("no manifest defines ImagePolicy \(ref.namespace)/\(ref.name), but the templates of chart \(chart) make ImagePolicies, "
                                    + "which Tagwarden does not render: unless one of them is \(ref.namespace)/\(ref.name), Flux never updates this field\(hints[wanted]!)"
                                    + (moved[wanted].map { movedAdvice(m, marker: k, policy: ref.name, written: ref.namespace, now: $0) } ?? ""),
                                  marker: k)
                f.ruleSeverity = .note
                return f
            }
            // a repository of markers only, that defines no automation either: every marker of it is read by an automation
            // and a policy made elsewhere (juanjmerono/flux-kind-repos, whose markers fluxcdbot updated from a cluster's own
            // objects): what that policy is, is not known here
            if m.flux.policies.isEmpty, m.flux.automations.isEmpty, !m.describesCluster(ofFile: m.markers[k].file) {
                var f = c.finding("ImagePolicy \(ref.namespace)/\(ref.name) is not in the repository, which defines no ImagePolicy and no "
                                    + "ImageUpdateAutomation: the automation that reads this marker and its policy are made elsewhere, "
                                    + "so whether Flux updates this field is not judged here", marker: k)
                f.ruleSeverity = .note
                return f
            }
            var f = c.finding("no ImagePolicy \(ref.namespace)/\(ref.name) in the repository, so Flux never updates this field\(hints[wanted]!)"
                                + (moved[wanted].map { movedAdvice(m, marker: k, policy: ref.name, written: ref.namespace, now: $0) } ?? ""),
                              marker: k)
            // a repository of markers only (a tenant's, or an application's): its policies are made elsewhere
            if m.flux.policies.isEmpty, !m.describesCluster(ofFile: m.markers[k].file) {
                f.assume(Model.madeElsewherePremise("ImagePolicy"))
            } else if m.flux.policies.isEmpty, m.flux.covering(m.path(m.markers[k].file)).isEmpty,
                      !m.clusters.of(m.markers[k].file).contains(where: { m.clusters.clusters[$0].declaredAt != nil }) {
                // no policy here, and no automation of this repository reads the marker: the one that does, and the policy
                // it uses, are another repository's (LFS269's flux-infra, whose automation updates the instavote
                // repository's overlays, whose cluster's Flux has no image controllers)
                f.assume("this repository defines no ImagePolicy and no ImageUpdateAutomation that updates this file, so the one that "
                         + "reads this marker, and its ImagePolicy, may be defined in another repository; declare the cluster under "
                         + "clusters: in \(Config.fileName) when this repository describes all of it")
            }
            return f
        }
        if let k = refusedAt {
            var f = c.finding("from this marker on, unknown policies get no \"did you mean\": the run's budget for suggestions "
                                + "(\(SuggestionBudget.candidates) candidates looked at) is spent", marker: k)
            f.ruleSeverity = .note
            f.subject = "suggestions stopped"
            out.append(f)
        }
        return out
    }

    /// What to write for a marker whose policy a kustomization moved to namespace `now`: its name there, unless the
    /// automations that update the marker's file are all in other namespaces, whose policies alone they use.
    private static func movedAdvice(_ m: Model, marker k: MarkerID, policy name: String, written: String, now: String) -> String {
        let namespaces = Set(m.flux.covering(m.path(m.markers[k].file)).map { m.flux.automations[$0].namespace })
        guard !namespaces.isEmpty, !namespaces.contains(where: { FluxIndex.sameNamespace($0, now) }) else { return ": write '\(now):\(name)'" }
        let theirs = namespaces.compactMap { $0 }.sorted()
        let keep = theirs.contains(written) ? "keep the policy in \(written), outside that kustomization" : "make the policy in \(theirs.joined(separator: " or "))"
        return "; the ImageUpdateAutomations that update this file are in \(theirs.joined(separator: ", ")), and Flux only uses policies "
            + "in an automation's own namespace: \(keep), or add an ImageUpdateAutomation in \(now) and write '\(now):\(name)'"
    }
}
