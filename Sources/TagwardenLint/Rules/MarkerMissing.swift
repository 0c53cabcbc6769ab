import TagwardenBasics
import TagwardenModel
extension Rule {
    /// A field of a promoted image without a marker, where its environment's ImagePolicy watches the image and an
    /// automation's update.path holds the file: Flux leaves it as written (a removed or forgotten marker). Where neither
    /// the field nor the policy is in an environment, only a policy no marker uses at all stands for the field's.
    static let markerMissing = Rule("marker-missing", scope: .updatePaths) { c in
        let m = c.model
        // each repository's image, by its normalised name → the policies that watch it, by environment
        var policiesOfImage: [String: [(policy: PolicyID, environment: String)]] = [:]
        // (and those whose repository's image has variables not known here, which watch the images it may be by assumption)
        var guessed: [(policy: PolicyID, environment: String, repository: RepositoryID)] = []
        // (and a policy of no environment that no marker uses: the one an unmarked field of no environment was meant to follow)
        var unusedOfImage: [String: [PolicyID]] = [:]
        // (and every policy of the image, whatever its environment and its markers)
        var policiesOfName: [String: [PolicyID]] = [:]
        for (p, policy) in m.flux.policies.withIDs where !m.flux.nonResources.contains(policy.object) {
            guard let r = policy.repository else { continue }
            if let e = policy.environment, m.flux.repositories[r].imagePattern != nil { guessed.append((p, e, r)) }
            guard m.flux.repositories[r].unresolvedVariables.isEmpty,
                  let name = m.flux.repositories[r].normalizedImage else { continue }
            policiesOfName[name, default: []].append(p)
            if let e = policy.environment {
                policiesOfImage[name, default: []].append((p, e))
            } else if (m.flux.uses[p] ?? []).isEmpty {
                unusedOfImage[name, default: []].append(p)
            }
        }
        guard !policiesOfImage.isEmpty || !guessed.isEmpty || !unusedOfImage.isEmpty else { return [] }
        // the lines that hold a marker Flux does not read (text inside a block scalar: TheKitty-zone/k3s-infra's values
        // in a ConfigMap): marker-ignored says why, and there is a marker to mend, not one to add
        struct Line: Hashable { let file: FileID, line: Int }
        let skippedMarkers = Set(m.markers.indices.filter { m.markers[$0].context != .value }.map {
            Line(file: m.markers[$0].file, line: m.markers[$0].span.start.line)
        })
        var out: [Finding] = []
        // each unused policy's findings on fields of no environment: the finding's place in `out`, and the field's file
        var unusedClaims: [PolicyID: [(finding: Int, file: FileID)]] = [:]
        var selection = Model.PolicyEvaluators()
        for i in m.images.indices {
            let img = m.images[i]
            guard img.markers.isEmpty, !img.retagged, img.substitution == nil, img.tag != nil,
                  let name = img.normalizedName, let tag = img.tag?.value,
                  !skippedMarkers.contains(Line(file: img.file, line: img.tag!.span.start.line)),
                  !skippedMarkers.contains(Line(file: img.file, line: img.span.start.line)) else { continue }
            var watching: [(policy: PolicyID, environment: String)]
            /// Whether object `o` is deployed by a cluster that deploys the field (by none, where the field is by none).
            func together(_ o: ObjectID) -> Bool {
                let field = img.object.map { m.clusters(deploying: $0) } ?? m.clusters.of(img.file)
                return field.isEmpty ? m.clusters(deploying: o).isEmpty : m.clusters(deploying: o).contains(where: field.contains)
            }
            if let e = img.environment {
                guard img.promoted else { continue }
                watching = policiesOfImage[name]?.filter { $0.environment == e } ?? []
                if watching.isEmpty {
                    watching = guessed.filter { $0.environment == e && img.assumedWatchers.contains($0.repository) }.map { ($0.policy, $0.environment) }
                }
            } else {
                // (of a cluster that deploys the field, where clusters do: another cluster's policy is not this field's)
                // (one of each name: two copies of a policy are one policy to the marker that names it)
                var named = Set<String>()
                watching = (unusedOfImage[name] ?? []).filter { together(m.flux.policies[$0].object) && named.insert(m.policyName($0)).inserted }
                    .map { ($0, "") }
            }
            guard !watching.isEmpty else { continue }
            // a field at a tag none of them could ever select, and another policy of the image could, follows that one's
            // tags: no marker of theirs was lost (tyzbit/fleet-infra's discord-modtools dev release at the release tag
            // `v0.3.1`, which the production policy selects and the dev policy, of `…-<timestamp>` builds, never could)
            if watching.allSatisfy({ m.whyNeverSelects($0.policy, tag, cache: &selection) != nil }),
               (policiesOfName[name] ?? []).contains(where: { o in
                   !watching.contains { $0.policy == o } && m.whyNeverSelects(o, tag, cache: &selection) == nil
               }) { continue }
            // (an automation in a file that is not deployed, one its directory's kustomization leaves out, updates nothing:
            // BayajidAlam/node-fleet)
            let automations = m.flux.covering(m.files[img.file].path).filter { a in
                guard !m.flux.automations[a].spec.suspended else { return false }
                if case .notDeployed = m.clusters.reach[m.objects[m.flux.automations[a].object].file] { return false }
                return img.environment != nil || together(m.flux.automations[a].object)
            }
            guard let a = automations.first else { continue }
            let automation = m.flux.automations[a]
            // several policies of the environment watch the image (one per variant: `staging-nginx-…`, `staging-php-…`):
            // the one whose filter takes the written tag is the field's; else the field's is not known here
            if watching.count > 1 {
                let taking = watching.filter { m.flux.policies[$0.policy].regex?.matches(tag) == true }
                if taking.count == 1 { watching = taking }
            }
            // the whole reference where one scalar holds it (a container's, a chart value's `image: repo:tag`), the tag where
            // a field of its own holds it (`tag:`, `newTag:`)
            let wholeInOneField = img.tag?.span == img.span
            let marker = watching.count > 1 ? "a marker naming the one that should update it"
                : #"# {"$imagepolicy": ""# + "\(m.flux.policies[watching[0].policy].namespace ?? "flux-system"):\(m.flux.policies[watching[0].policy].name)"
                    + (wholeInOneField ? "" : ":tag") + #""}"#
            let e = img.environment.map { $0 + " " } ?? ""
            let unused = img.environment == nil ? ", which no marker uses," : ""
            let policies = watching.count > 1 ? "policies " + watching.map { m.policyName($0.policy) }.joined(separator: ", ") + "\(unused) select"
                : "policy \(m.policyName(watching[0].policy))\(unused) selects"
            var f = c.finding("no $imagepolicy marker on this \(e)field of '\(img.name ?? name)', although \(policies) "
                                + "its \(e)tags and ImageUpdateAutomation \(automation.namespace ?? "")/\(m.objects[automation.object].name ?? "") "
                                + "updates this file: Flux leaves the field as written (a marker removed or never added); add \(marker)",
                              image: i, span: img.tag?.span)
            if m.environments.strict { f.ruleSeverity = .error }
            if let premise = m.promotionAssumption(i) { f.assume(premise) }
            out.append(f)
            if img.environment == nil, watching.count == 1 { unusedClaims[watching[0].policy, default: []].append((out.count - 1, img.file)) }
        }
        // a policy no marker uses that several unmarked fields could follow, beside some of them: those are its fields, not
        // the others (tyzbit/fleet-infra's plex-secondary, in plex/secondary, beside the secondary release and not the
        // primary one, which is upgraded after it)
        var dropped = Set<Int>()
        for (p, claims) in unusedClaims where claims.count > 1 {
            let home = m.directory(m.objects[m.flux.policies[p].object].file)
            func beside(_ f: FileID) -> Bool { Path.isBelow(m.path(f), home) }
            guard claims.contains(where: { beside($0.file) }) else { continue }
            for claim in claims where !beside(claim.file) { dropped.insert(claim.finding) }
        }
        return dropped.isEmpty ? out : out.indices.filter { !dropped.contains($0) }.map { out[$0] }
    }
}
