import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let automationMissingPath = Rule("automation-missing-path") { c in
        let m = c.model
        let held = FluxIndex.pathsHoldingFiles(among: Set(m.flux.automations.flatMap(\.paths).filter { !$0.isEmpty }), m.files.map(\.path))
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
            // (on another branch, the paths that branch holds, as far as the clone has it)
            let missing = a.paths.filter { !$0.isEmpty && !held.contains($0) && a.otherBranchHolds[$0] != true }
            guard !missing.isEmpty else { return nil }
            let substituted = raw.value.containsBytes("${")
                ? " (substituted by the Flux Kustomizations that apply it: " + missing.map { "'\($0)'" }.joined(separator: ", ") + ")" : ""
            let checked = a.source == .assumed
                ? "; checked against this checkout, as the repository its GitRepository names (every GitRepository here names that one; no remote of the clone has its URL)" : ""
            guard let branch = a.otherBranch else {
                return c.finding("update.path '\(raw.value)'\(substituted) holds no manifest in this tree: the automation updates nothing\(checked)",
                                 object: a.object, at: raw)
            }
            let fetched = missing.allSatisfy { a.otherBranchHolds[$0] == false }
            var f = c.finding("update.path '\(raw.value)'\(substituted) holds no manifest \(fetched ? "on" : "in this tree, and the automation checks out") "
                              + "branch \(branch): the automation updates nothing\(checked)", object: a.object, at: raw)
            f.assume(fetched ? "assuming branch \(branch) still holds no manifest there, as this clone last fetched it"
                             : "assuming branch \(branch), which this clone does not have, holds what this checkout does there")
            return f
        }
    }
}
