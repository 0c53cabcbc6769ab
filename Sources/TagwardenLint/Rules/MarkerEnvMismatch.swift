import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerEnvMismatch = Rule("marker-env-mismatch") { c in
        let m = c.model
        /// Where the clusters that deploy the file are each named after an environment, of two or more, none `mine`, and
        /// neither the config's paths nor the field's namespace place it in `mine`, the field's environment is its
        /// directory's only by assumption (a tenant named `dev` that the staging and production clusters both deploy:
        /// abohmeed/fluxmultitenancy; one cluster may run several environments, martijnjanssen/cluster-ops's
        /// production cluster its staging apps).
        func contested(_ k: MarkerID, _ mine: String) -> String? {
            let file = m.markers[k].file
            // (the config's paths, or the namespace, say so: no assumption)
            if m.environments.clues(path: m.path(file)).configured != nil { return nil }
            if let o = m.markers[k].object, m.environments.detect(path: "", namespace: m.objectNamespace[o], namespaceLabels: m.namespaceLabels) == mine {
                return nil
            }
            let deployers = m.clusters.of(file)
            let named = deployers.map { m.environments.detect(directory: m.clusters.clusters[$0].name) }
            guard Set(named).count > 1, !named.contains(where: { $0 == nil || $0 == mine }) else { return nil }
            let clusters = deployers.map { m.clusters.clusters[$0].displayName }.joined(separator: ", ")
            return "assuming the field belongs to \(mine), as its directory says, though the clusters that deploy it (\(clusters)) are of "
                + "\(Set(named.compactMap { $0 }).sorted().joined(separator: " and ")); say where \(mine) is under environments: in \(Config.fileName)"
        }
        /// Where the policy's environment is only that of the cluster whose directory holds it, and that cluster deploys
        /// this field of another environment too, the policy belongs to `theirs` only by assumption: the cluster runs both
        /// (a policy `web-staging` that the Flux guide's `--export > ./clusters/production/…` put beside the cluster's sync).
        func policyContested(_ k: MarkerID, _ p: PolicyID, _ theirs: String, _ mine: String) -> String? {
            let object = m.flux.policies[p].object, file = m.objects[object].file
            // (where the config's paths place the field or the policy, they settle it)
            if m.environments.clues(path: m.path(file)).configured != nil
                || m.environments.clues(path: m.path(m.markers[k].file)).configured != nil { return nil }
            if m.environments.detect(path: "", namespace: m.objectNamespace[object], namespaceLabels: m.namespaceLabels) == theirs { return nil }
            let fieldClusters = m.clusters.of(m.markers[k].file)
            guard let c = m.clusters.of(file).first(where: { c in
                fieldClusters.contains(c) && m.environments.detect(directory: m.clusters.clusters[c].name) == theirs
                    && m.environments.detect(path: m.path(file), namespace: nil, namespaceLabels: [:]) == theirs
            }) else { return nil }
            return "assuming policy \(m.policyName(p)) belongs to \(theirs), as the directory of cluster \(m.clusters.clusters[c].displayName) "
                + "that holds it says, though that cluster deploys this \(mine) field too; say where \(theirs) is under environments: in \(Config.fileName)"
        }
        return m.markers.indices.compactMap { k in
            let mk = m.markers[k]
            guard mk.context == .value, let p = mk.policy, let mine = mk.environment,
                  let theirs = m.objectEnvironment[m.flux.policies[p].object], mine != theirs else { return nil }
            guard let skipped = mk.skipped else {
                var f = c.finding("this \(mine) field is updated by policy \(m.policyName(p)), which belongs to \(theirs): \(theirs) builds would land in \(mine)",
                                  writtenAt: k)
                if let premise = contested(k, mine) ?? policyContested(k, p, theirs, mine) { f.assume(premise) }
                return f
            }
            // an automation updates the file and skips the marker (another namespace, a selector): the field follows
            // no policy of its own environment
            guard m.files[mk.file].fluxCannotRead == nil, !m.flux.covering(m.path(mk.file)).isEmpty else { return nil }
            var f = c.finding("this \(mine) field names policy \(m.policyName(p)), which belongs to \(theirs), and Flux skips the marker (\(skipped)): "
                              + "no \(mine) policy updates this field; name the \(mine) policy", marker: k)
            if let premise = contested(k, mine) ?? policyContested(k, p, theirs, mine) { f.assume(premise) }
            return f
        }
    }
}
